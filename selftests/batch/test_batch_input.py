"""``cowork-judge batch`` input checks from a new user's trial (findings 2, 3, 4, 14, 15e-g): a
rollout that does not exist or that the batch cannot read, an instance folder without a rollout,
keys a JSONL line does not know, a batch with no judge endpoint, the stale-lock message after a
clean batch, duplicate names (line numbers, Unicode normalization), and the in-flight line when
nothing was judged. The real command line; the simulator on 127.0.0.1 where a run is judged."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.batch import instances as batch
from cowork_judge.batch.lock import BatchLock
from cowork_judge.commands import main
from cowork_judge.sim import OraclePolicy, SimServer

RUBRIC = {"rubrics": [{"id": "a", "description": "says hello", "weight": 1}]}
CODE_RUBRIC = {"rubrics": [{"id": "T", "description": "says hello", "weight": 1, "judge_method": "code",
                            "code_method_name": "text_contains", "code_method_params": {"text": "hello", "glob": "*"}}]}


@pytest.fixture
def no_endpoint(monkeypatch):
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("JUDGE_EVIDENCE", "0")


@pytest.fixture
def sim(monkeypatch, no_endpoint):
    server = SimServer(OraclePolicy.from_dict({"a": {"hit": True}}), api_key=SIM_KEY).start()
    monkeypatch.setenv("JUDGE_API_KEY", SIM_KEY)
    monkeypatch.setenv("JUDGE_BASE_URL", server.url)
    monkeypatch.setenv("JUDGE_MODEL", "sim-judge")
    yield server
    server.stop()


def _task(root: Path, rubric: dict = RUBRIC, *, rollout: bool = True) -> Path:
    """A task folder: tests/rubric.json, and (`rollout`) rollout/app/output/a.md saying hello."""
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "rubric.json").write_text(json.dumps(rubric))
    if rollout:
        (root / "rollout" / "app" / "output").mkdir(parents=True)
        (root / "rollout" / "app" / "output" / "a.md").write_text("hello")
    return root


def _listing(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "list.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def _refused(listed: Path, out: Path, capsys) -> str:
    assert main(["batch", str(listed), "--out", str(out)]) == 2
    assert not out.exists()  # refused before anything is written
    return capsys.readouterr().err


# --------------------------------------------------------------------------- finding 2: rollouts


def test_missing_rollout_is_refused_naming_the_line(tmp_path, sim, capsys):
    _task(tmp_path / "my-chat-task")
    listed = _listing(tmp_path, {"name": "ok", "tests": "my-chat-task/tests", "rollout": "my-chat-task/rollout"},
                      {"name": "t4", "tests": "my-chat-task/tests", "rollout": "nope"})
    err = _refused(listed, tmp_path / "out", capsys)
    assert f"{listed}:2: the rollout {tmp_path / 'nope'} does not exist" in err and len(sim.log) == 0
    (tmp_path / "afile").write_text("x")
    err = _refused(_listing(tmp_path, {"tests": "my-chat-task/tests", "rollout": "afile"}), tmp_path / "out", capsys)
    assert ":1: the rollout" in err and "is not a folder" in err


def test_flat_rollout_is_refused_trial_and_empty_are_read(tmp_path, sim, capsys):
    task = _task(tmp_path / "deck")
    (task / "solution" / "output").mkdir(parents=True)
    (task / "solution" / "output" / "deck.pptx").write_text("x")
    err = _refused(_listing(tmp_path, {"tests": "deck/tests", "rollout": "deck/solution/output"}), tmp_path / "out", capsys)
    assert "list.jsonl:1: the rollout" in err and "does not have the layout a batch reads (it holds deck.pptx)" in err
    assert "app/output/" in err
    # a Harbor trial folder is read through its artifacts/; an empty rollout is a legitimate "nothing delivered"
    trial = tmp_path / "trial"
    (trial / "artifacts" / "app" / "output").mkdir(parents=True)
    (trial / "artifacts" / "logs" / "agent").mkdir(parents=True)
    (trial / "result.json").write_text("{}")
    (tmp_path / "empty").mkdir()
    listed = _listing(tmp_path, {"name": "t", "tests": "deck/tests", "rollout": "trial"},
                      {"name": "e", "tests": "deck/tests", "rollout": "empty"})
    t, e = batch.discover_instances(listed)
    assert t.app_dir == trial / "artifacts" / "app" and t.agent_dir == trial / "artifacts" / "logs" / "agent"
    assert e.app_dir is None and e.agent_dir is None


def test_instance_folder_without_rollout_is_refused(tmp_path, sim, capsys):
    _task(tmp_path / "tasks" / "a")
    _task(tmp_path / "tasks" / "b", rollout=False)  # a Harbor task folder: solution/, no rollout/
    (tmp_path / "tasks" / "b" / "solution").mkdir()
    assert main(["batch", str(tmp_path / "tasks"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'tasks' / 'b'}: no rollout/ folder" in err and not (tmp_path / "out").exists()
    # `import --response none` writes no rollout/ and says so in instance.json: nothing delivered, accepted
    (tmp_path / "tasks" / "b" / "instance.json").write_text(json.dumps({"response": False, "tags": {}}))
    assert [i.app_dir for i in batch.discover_instances(tmp_path / "tasks")][1] is None


# --------------------------------------------------------------------------- finding 3: keys


@pytest.mark.parametrize("line,needle", [
    ({"instance": "t", "rollout": "t/rollout"}, "'instance' and 'rollout' exclude each other"),
    ({"instance": "t", "tests": "t/tests"}, "'instance' and 'tests' exclude each other"),
    ({"tests": "t/tests", "rolout": "t/rollout"}, "unknown key 'rolout' (did you mean 'rollout'?)"),
    ({"tests": "t/tests", "typo_field": 1}, "unknown key 'typo_field'"),
    ({"tests": "t/tests", "tags": ["x"]}, "'tags' must be an object"),
    ({"tests": "t/tests", "rollout": 3}, "'rollout' must be a path"),
    ({"tests": "t/tests", "name": "a\u202eb"}, "instance name 'a\\u202eb' contains the bidirectional control U+202E"),  # trial 4 L5
])
def test_jsonl_keys_are_checked_naming_the_line(tmp_path, sim, capsys, line, needle):
    _task(tmp_path / "t")
    err = _refused(_listing(tmp_path, {"tests": "t/tests", "name": "first"}, line), tmp_path / "out", capsys)
    assert f"list.jsonl:2: {needle}" in err


# --------------------------------------------------------------------------- finding 4: credentials


def test_no_endpoint_is_refused_unless_every_row_is_code(tmp_path, no_endpoint, monkeypatch, capsys):
    _task(tmp_path / "tasks" / "a")
    err = _refused(tmp_path / "tasks", tmp_path / "out", capsys)
    assert "no judge endpoint" in err and "1 instance(s) have rows that need the model (a)" in err
    monkeypatch.setenv("JUDGE_BASE_URL", "http://127.0.0.1:9/v1")  # half a pair, as try and demo refuse it
    err = _refused(tmp_path / "tasks", tmp_path / "out", capsys)
    assert "JUDGE_BASE_URL is set" in err and "JUDGE_API_KEY is not" in err
    assert "simulator" not in err  # batch never starts one: the way out it names is the missing half
    monkeypatch.delenv("JUDGE_BASE_URL")
    _task(tmp_path / "code" / "c", CODE_RUBRIC)  # code rows only: no model needed, judged without an endpoint
    assert main(["batch", str(tmp_path / "code"), "--out", str(tmp_path / "out")]) == 0
    doc = json.loads((tmp_path / "out" / "c" / "logs" / "verifier" / "result.json").read_text())
    assert doc["task_score"] == 1.0 and doc["exit_code"] is None


def test_calibrate_refuses_no_endpoint(tmp_path, no_endpoint, capsys):
    _task(tmp_path / "tasks" / "a")
    (tmp_path / "tasks" / "a" / "oracle.json").write_text(json.dumps({"a": {"hit": True}}))
    assert main(["calibrate", str(tmp_path / "tasks"), "--out", str(tmp_path / "out"),
                 "--report", str(tmp_path / "r.json")]) == 2
    assert "no judge endpoint" in capsys.readouterr().err and not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- finding 14: the lock


def test_a_released_lock_is_not_stale(tmp_path):
    with BatchLock(tmp_path) as lock:
        assert lock.took_over is None
    with BatchLock(tmp_path) as lock:
        assert lock.took_over is None  # the first batch released it: nothing to report
    (tmp_path / ".batch.lock").write_text(json.dumps({"pid": 2 ** 22 + 12345, "host": "h"}) + "\n")  # a dead holder
    with BatchLock(tmp_path) as lock:
        assert lock.took_over is not None and lock.took_over["pid"] == 2 ** 22 + 12345


# --------------------------------------------------------------------------- finding 15e/f: duplicates


def test_duplicate_names_name_both_lines_and_compare_nfc(tmp_path):
    _task(tmp_path / "t")
    listed = _listing(tmp_path, {"tests": "t/tests", "name": "chat1"}, {"tests": "t/tests", "name": "x"},
                      {"tests": "t/tests", "name": "chat1"})
    with pytest.raises(batch.BatchInputError, match=r"list.jsonl:1 and .*list.jsonl:3: two instances are named 'chat1'"):
        batch.discover_instances(listed)
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    listed = _listing(tmp_path, {"tests": "t/tests", "name": nfc}, {"tests": "t/tests", "name": nfd})
    with pytest.raises(batch.BatchInputError, match="differ only in Unicode normalization"):
        batch.discover_instances(listed)


# --------------------------------------------------------------------------- finding 15g + 14 end to end


def test_rerun_says_no_split_and_no_stale_lock(tmp_path, sim, capsys):
    _task(tmp_path / "tasks" / "a")
    args = ["batch", str(tmp_path / "tasks"), "--out", str(tmp_path / "out"), "--max-in-flight", "4"]
    assert main(args) == 0
    assert "1 run(s) x 4 call(s) in flight" in capsys.readouterr().err
    assert main(args) == 0  # everything kept: nothing judged
    err = capsys.readouterr().err
    assert "0 of 1 instance(s) to judge" in err and "in flight" not in err and "stale lock" not in err
