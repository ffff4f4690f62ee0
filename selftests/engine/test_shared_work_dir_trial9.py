"""Trial 9 F1: two live ``cowork-judge run``s sharing one ``--work-dir`` / ``JUDGE_WORK_DIR`` judged each other's
deck (whichever wrote ``evidence/`` last decided both rewards, silently). The first run holds the work dir
(``flock``) and works in it as before (kept, for ``report --work-dir``); a run that finds it held works in a private
``cowork-judge-*`` folder under it, removed at the end, and says so in ``details.warnings`` and on stderr.

Real ``cowork-judge run`` child processes: a code-only run beside a held work dir, and two concurrent deck runs on
two different decks against the simulator (slow-marked: LibreOffice renders both decks)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS, SIM_KEY, deck

from cowork_judge.sim import DemoPolicy, LatencyModel, SimServer

SRC = Path(__file__).resolve().parents[2] / "src"
MOVED = "another live judge run holds"


def _env(tmpdir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    tmpdir.mkdir(parents=True, exist_ok=True)
    env.update(PYTHONPATH=str(SRC), TMPDIR=str(tmpdir), JUDGE_START_JITTER="0", **extra)
    return env


def _cmd(root: Path, tests: Path, work: Path) -> list[str]:
    return [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir",
            str(root / "logs"), "--tests-dir", str(tests), "--work-dir", str(work)]


def test_a_held_work_dir_gets_a_private_folder_that_is_removed(tmp_path):
    root = tmp_path / "r"
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "a.txt").write_text("Rayleigh\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(
        '{"rubrics": [{"id": "C1", "description": "a text file", "weight": 1, "judge_method": "code", '
        '"code_method_name": "file_exists", "code_method_params": {"glob": "*.txt"}}]}')
    work = tmp_path / "shared"
    work.mkdir()
    (work / "keep.txt").write_text("the other run's file\n")
    fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a live run holds it
        proc = subprocess.run(_cmd(root, tests, work), env=_env(tmp_path / "tmp"), capture_output=True, text=True,
                              timeout=120)
    finally:
        os.close(fd)
    assert proc.returncode == 0, proc.stderr
    assert MOVED in proc.stderr and "cowork-judge-" in proc.stderr, proc.stderr
    doc = json.loads((root / "logs" / "verifier" / "result.json").read_text())
    assert doc["task_score"] == 1.0
    assert any(MOVED in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    assert sorted(p.name for p in work.iterdir()) == ["keep.txt"]  # its own folder removed, nothing else touched
    # not held: the run works in the given folder itself, kept (as before)
    proc = subprocess.run(_cmd(root, tests, work), env=_env(tmp_path / "tmp"), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and MOVED not in proc.stderr, proc.stderr
    assert not any(p.name.startswith("cowork-judge-") for p in work.iterdir())


@pytest.mark.slow
def test_two_concurrent_deck_runs_sharing_a_work_dir_judge_their_own_decks(tmp_path):
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    roots = {"agents": tmp_path / "a", "verdana": tmp_path / "b"}
    for root in roots.values():
        shutil.copytree(ROLLOUTS / "deck", root)
    target = next((roots["verdana"] / "app" / "output").glob("*.pptx"))
    shutil.copyfile(deck("07__python-pptx__txt-font-typeface.pptx"), target)
    work = tmp_path / "shared"
    latency = LatencyModel(tool_base_ms=300, final_base_ms=1500)  # both runs are still judging when the other starts
    with SimServer(DemoPolicy(), api_key=SIM_KEY, latency=latency) as sim:
        procs = {name: subprocess.Popen(_cmd(root, EXAMPLE_TESTS, work),
                                        env=_env(tmp_path / f"tmp-{name}", JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for name, root in roots.items()}
        errs = {name: p.communicate(timeout=600)[1] for name, p in procs.items()}
    assert all(p.returncode == 0 for p in procs.values()), errs
    assert sum(MOVED in e for e in errs.values()) <= 1, errs
    markers = {"agents": "Erik Schluntz", "verdana": "Baseline default textbox"}  # slide text of each deck
    for name, root in roots.items():
        verifier = root / "logs" / "verifier"
        doc = json.loads((verifier / "result.json").read_text())
        assert doc["status"] == "success", (name, doc["exit_reason"])
        evidence = "".join(p.read_text(errors="replace") for p in (verifier / "evidence").rglob("*.json"))
        other = next(m for n, m in markers.items() if n != name)
        assert markers[name] in evidence and other not in evidence, name  # each judged its own deck only
    audit = "".join(p.read_text(errors="replace") for p in (roots["agents"] / "logs" / "verifier" / "judge").rglob("*.jsonl"))
    assert markers["verdana"] not in audit
    assert not any(p.name.startswith("cowork-judge-") for p in work.iterdir())
