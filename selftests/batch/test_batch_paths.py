"""A batch writes and removes only inside ``--out`` (issue 39, item 1): an instance name is a
label, never a path, and no symbolic link under ``--out`` carries a write or a removal out.

Every hostile case plants a victim outside ``--out`` (a folder ``victim/logs/verifier/`` with a
file in it, exactly what a run would remove) and proves, byte for byte, that nothing outside
``--out`` changed: the real command line, real symlinks, a real judge run against the simulator
where one is started."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.batch import instances as batch
from cowork_judge.batch.lock import BatchLock
from cowork_judge.commands import main
from cowork_judge.sim import OraclePolicy, SimServer

RUBRIC = '{"rubrics": [{"id": "a", "description": "says hello", "weight": 1}]}'


@pytest.fixture
def sim(monkeypatch):
    server = SimServer(OraclePolicy.from_dict({"a": {"hit": True}}), api_key=SIM_KEY).start()
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("JUDGE_API_KEY", SIM_KEY)
    monkeypatch.setenv("JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("JUDGE_MODEL", "sim-judge")
    monkeypatch.setenv("JUDGE_EVIDENCE", "0")
    yield server
    server.stop()


def _tree(root: Path, skip: Path) -> dict[str, str]:
    """Every path below `root` (but `skip`) → what it is: a file's SHA-256, a link's target, "dir"."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if here / d != skip]
        for name in dirnames + filenames:
            p = here / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def world(tmp_path):
    """An instance with a rollout, a victim folder outside --out, and --out two levels down."""
    inst = tmp_path / "src" / "hello"
    (inst / "tests").mkdir(parents=True)
    (inst / "tests" / "rubric.json").write_text(RUBRIC)
    (inst / "rollout" / "logs" / "agent").mkdir(parents=True)
    (inst / "rollout" / "logs" / "agent" / "final_answer.txt").write_text("hello")
    victim = tmp_path / "victim"
    (victim / "logs" / "verifier").mkdir(parents=True)
    (victim / "logs" / "verifier" / "keep.txt").write_text("precious\n")
    (victim / "note.txt").write_text("do not truncate me\n")
    return {"root": tmp_path, "inst": inst, "victim": victim, "out": tmp_path / "a" / "b" / "out"}


def _listing(w, line: dict) -> Path:
    listed = w["root"] / "list.jsonl"
    listed.write_text(json.dumps({"tests": str(w["inst"] / "tests"), "rollout": str(w["inst"] / "rollout"), **line}) + "\n")
    return listed


@pytest.mark.parametrize("name, problem", [
    ("{victim}", "is an absolute path"),
    ("../../x", "contains '/'"),
    ("..", "is '..'"),
    (".", "is '.'"),
    ("a/b", "contains '/'"),
    ("a\\b", "instance name 'a\\b' contains '\\' (a path"),  # the backslash shown once (trial finding 15d)
    ("a\u0000b", "control character"),
    ("line\nbreak", "control character"),
    ("", "is empty"),
    (7, "is not a string (int)"),
    (["x"], "is not a string (list)"),
    (".hidden", "starts with '.'"),
    ("verdict-cache", "the batch uses for its own output"),
    ("summary.json", "the batch uses for its own output"),
    ("n" * 256, "256 bytes long (at most 255"),
    (" padded", "whitespace"),
])
def test_a_name_that_is_not_a_plain_folder_name_is_refused_naming_the_line(world, capsys, name, problem):
    w = world
    name = name.format(victim=w["victim"]) if isinstance(name, str) else name
    before = _tree(w["root"], w["out"])
    listed = w["root"] / "list.jsonl"
    good = json.dumps({"tests": str(w["inst"] / "tests"), "name": "fine"})
    listed.write_text(good + "\n" + json.dumps({"tests": str(w["inst"] / "tests"), "name": name}) + "\n")
    before = _tree(w["root"], w["out"])
    assert main(["batch", str(listed), "--out", str(w["out"])]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"cowork-judge batch: {listed}:2: instance name ") and problem in err
    assert "a name is a label, one plain folder name inside --out, not a path" in err and len(err.splitlines()) == 1
    assert _tree(w["root"], w["out"]) == before  # nothing written or removed anywhere
    assert not w["out"].exists() and (w["victim"] / "logs" / "verifier" / "keep.txt").read_text() == "precious\n"


def test_the_reported_escapes_write_nothing_outside_out(world, capsys):
    """The issue's two cases, in both JSONL forms: an absolute name and ``../../x``."""
    w = world
    for line in ({"name": str(w["victim"])}, {"name": "../../x"}):
        listed = _listing(w, line)
        before = _tree(w["root"], w["out"])
        assert main(["batch", str(listed), "--out", str(w["out"])]) == 2
        assert _tree(w["root"], w["out"]) == before
    listed = w["root"] / "list.jsonl"
    listed.write_text(json.dumps({"instance": str(w["inst"]), "name": str(w["victim"])}) + "\n")
    assert main(["batch", str(listed), "--out", str(w["out"])]) == 2
    assert "list.jsonl:1: instance name" in capsys.readouterr().err
    assert not (w["root"] / "a" / "x").exists() and sorted(p.name for p in w["victim"].iterdir()) == ["logs", "note.txt"]


def test_a_folder_instance_whose_name_is_the_batchs_own_is_refused(tmp_path, capsys):
    (tmp_path / "tasks" / "verdict-cache" / "tests").mkdir(parents=True)
    (tmp_path / "tasks" / "verdict-cache" / "tests" / "rubric.json").write_text(RUBRIC)
    assert main(["batch", str(tmp_path / "tasks"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'tasks' / 'verdict-cache'}: instance name 'verdict-cache' is a name the batch uses" in err


# --------------------------------------------------------------------------- links under --out

LINKS = {  # where the link is planted under --out → what it points at in the victim
    "hello": "",                          # the instance folder: its logs/ would be removed
    "hello/logs": "logs",                 # removed by every run (rmtree), then written
    "hello/app": "",                      # the app dir of an instance that delivered no files
    "hello/alt-output": "",
    "hello/batch-run.log": "note.txt",    # opened for writing: truncated through the link
    "hello/batch-instance.json": "note.txt",
    ".batch.lock": "note.txt",            # opened and truncated by the lock
    "verdict-cache": "",                  # the runs write cache entries into it
    "verdict-cache/ab": "",               # … in <key[:2]>/ folders
}


@pytest.mark.parametrize("where", sorted(LINKS))
@pytest.mark.parametrize("command", ["batch", "calibrate"])
def test_a_link_under_out_is_refused_before_anything_is_judged(world, sim, capsys, where, command):
    w = world
    out = w["out"]
    (out / where).parent.mkdir(parents=True, exist_ok=True)
    (out / where).symlink_to(w["victim"] / LINKS[where])
    listed = _listing(w, {"name": "hello"})
    before = _tree(w["root"], out)
    argv = ["batch", str(listed), "--out", str(out)] if command == "batch" else \
        ["calibrate", str(listed), "--out", str(out), "--report", str(w["root"] / "cal.json"), "--labels", str(w["root"])]
    assert main(argv) == 2
    _, err = capsys.readouterr()
    assert f"{out / where} is a symbolic link (to {w['victim'] / LINKS[where]}" in err
    assert "never through a link; remove the link or use another --out" in err
    assert _tree(w["root"], out) == before and len(sim.log) == 0  # nothing judged, nothing touched
    assert (w["victim"] / "note.txt").read_text() == "do not truncate me\n"
    assert (w["victim"] / "logs" / "verifier" / "keep.txt").read_text() == "precious\n"


def test_a_clean_batch_writes_only_inside_out_and_a_rerun_too(world, sim, capsys):
    w = world
    listed = _listing(w, {"name": "hello"})
    w["out"].parent.mkdir(parents=True)  # --out's parents are the operator's
    before = _tree(w["root"], w["out"])
    calls = []
    for _ in range(2):  # the rerun resumes (no call) and still writes only inside --out
        assert main(["batch", str(listed), "--out", str(w["out"])]) == 0
        assert _tree(w["root"], w["out"]) == before
        calls.append(len(sim.log))
    assert "0 of 1 instance(s) to judge, 1 kept" in capsys.readouterr().err
    assert json.loads((w["out"] / "hello" / "logs" / "verifier" / "result.json").read_text())["task_score"] == 1.0
    assert calls[0] > 0 and calls[1] == calls[0]


def test_out_itself_may_be_a_link_the_operator_made(world, sim, capsys):
    w = world
    real = w["root"] / "real-out"
    real.mkdir()
    w["out"].parent.mkdir(parents=True)
    w["out"].symlink_to(real)
    assert main(["batch", str(_listing(w, {"name": "hello"})), "--out", str(w["out"])]) == 0
    assert (real / "hello" / "logs" / "verifier" / "result.json").is_file()
    capsys.readouterr()


def test_a_link_planted_while_the_batch_runs_is_refused_by_the_run_itself(tmp_path):
    """`instance_folder` checks again just before each run (the preflight ran earlier)."""
    from cowork_judge.batch.outdir import UnsafeOutput, check_output_folder, instance_folder

    out, victim = tmp_path / "out", tmp_path / "victim"
    (victim / "logs").mkdir(parents=True)
    out.mkdir()
    check_output_folder(out, ["x"])
    (out / "x").symlink_to(victim)
    with pytest.raises(UnsafeOutput, match="is a symbolic link"):
        instance_folder(out, "x")
    (out / "x").unlink()
    (out / "x").symlink_to(victim / "not-yet")  # dangling: following it would create the target
    with pytest.raises(UnsafeOutput, match="is a symbolic link"):
        check_output_folder(out, ["x"])
    (out / "x").unlink()
    (out / "x").write_text("a file")
    with pytest.raises(UnsafeOutput, match="exists and is not a folder"):
        instance_folder(out, "x")
    with pytest.raises(batch.BatchInputError, match="is an absolute path"):
        instance_folder(out, str(victim))
    assert sorted(p.name for p in victim.iterdir()) == ["logs"]


def test_the_lock_never_opens_through_a_link(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".batch.lock").symlink_to(victim)
    with pytest.raises(OSError, match="is a symbolic link: refusing to open the lock through it"):
        BatchLock(tmp_path / "out").acquire()
    assert victim.read_text() == "keep"
