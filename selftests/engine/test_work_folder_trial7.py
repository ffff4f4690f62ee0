"""Trial 7 F10: ``cowork-judge run`` removes its temp work folder (``$TMPDIR/cowork-judge-*``) on every exit path:
a verifier folder it cannot write (``--logs-dir`` naming a regular file), one another run holds, and a SIGINT
that cuts a deck run while its evidence step is writing into that folder (the watchdog's removal raced the
writer, and the folder came back). LibreOffice's own temp files go into the conversion's folder, not TMPDIR.

Real ``cowork-judge run`` child processes, each with a TMPDIR of its own; the SIGINT one renders a deck
(slow-marked)."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS, SIM_KEY

from cowork_judge._util import fsutil
from cowork_judge.sim import DemoPolicy, SimServer

SRC = Path(__file__).resolve().parents[2] / "src"


def _env(tmpdir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    tmpdir.mkdir(parents=True, exist_ok=True)
    env.update(PYTHONPATH=str(SRC), TMPDIR=str(tmpdir), JUDGE_START_JITTER="0", **extra)
    return env


def _code_instance(root: Path) -> tuple[Path, Path]:
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "a.txt").write_text("Rayleigh\n")
    (root / "tests").mkdir()
    (root / "tests" / "rubric.json").write_text(
        '{"rubrics": [{"id": "C1", "description": "a text file", "weight": 1, "judge_method": "code", '
        '"code_method_name": "file_exists", "code_method_params": {"glob": "*.txt"}}]}')
    return root / "app", root / "tests"


def _run(app: Path, logs: Path, tests: Path, tmpdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                           "--tests-dir", str(tests)], env=_env(tmpdir), capture_output=True, text=True, timeout=120)


def test_a_logs_dir_that_is_a_file_leaves_no_work_folder(tmp_path):
    app, tests = _code_instance(tmp_path)
    afile = tmp_path / "afile"
    afile.write_text("not a folder\n")
    proc = _run(app, afile, tests, tmp_path / "tmp")
    assert proc.returncode == 1 and "cannot write to the verifier folder" in proc.stderr, proc.stderr
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_verifier_folder_held_by_another_run_leaves_no_work_folder(tmp_path):
    app, tests = _code_instance(tmp_path)
    verifier = tmp_path / "logs" / "verifier"
    verifier.mkdir(parents=True)
    fd = os.open(verifier, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a live run holds it
        proc = _run(app, tmp_path / "logs", tests, tmp_path / "tmp")
    finally:
        os.close(fd)
    assert proc.returncode == 1 and "another judge run is writing into the verifier folder" in proc.stderr, proc.stderr
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_scratch_folder_written_again_while_it_is_removed_is_removed_again(tmp_path, monkeypatch):
    """The race of a cut run: a thread writes into the work folder again right after the exit removed it."""
    monkeypatch.setattr(fsutil, "SCRATCH_SETTLE_SEC", 0.5)  # ample for the writer below on a loaded machine
    scratch = fsutil.make_scratch_dir("cowork-judge-", tmp_path)
    (scratch / "evidence").mkdir()
    wrote = threading.Event()

    def writer() -> None:  # the evidence step: mkdir(parents=True) brings the folder back
        deadline = time.monotonic() + 10
        while scratch.exists() and time.monotonic() < deadline:
            time.sleep(0.001)
        (scratch / "evidence").mkdir(parents=True, exist_ok=True)
        (scratch / "evidence" / "index.json").write_text("{}")
        wrote.set()

    thread = threading.Thread(target=writer)
    thread.start()
    fsutil.remove_scratch()
    thread.join(timeout=15)
    assert wrote.is_set() and not scratch.exists()


def _exists_now(probe) -> bool:
    """`probe()`, False when a folder it walks vanished meanwhile (the run removes its scratch folders as it goes)."""
    try:
        return bool(probe())
    except FileNotFoundError:
        return False


@pytest.mark.slow
def test_sigint_during_a_deck_runs_evidence_step_leaves_nothing_in_tmpdir(tmp_path):
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    with SimServer(DemoPolicy(), api_key=SIM_KEY) as sim:
        for attempt in range(3):
            root, tmpdir = tmp_path / f"r{attempt}", tmp_path / f"tmp{attempt}"
            shutil.copytree(ROLLOUTS / "deck", root)
            env = _env(tmpdir, JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url)
            proc = subprocess.Popen([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"),
                                     "--logs-dir", str(root / "logs"), "--tests-dir", str(EXAMPLE_TESTS)],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            try:
                for _ in range(600):  # until the evidence step writes into the work folder (≤ 60 s)
                    if _exists_now(lambda: any(tmpdir.glob("cowork-judge-*/evidence/*"))) or proc.poll() is not None:
                        break
                    time.sleep(0.1)
                os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
                _, stderr = proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
            assert proc.returncode == 128 + signal.SIGINT, stderr
            assert (root / "logs" / "verifier" / "reward.txt").is_file()
            for _ in range(100):  # the removal after the end (a detached interpreter) has up to 10 s
                try:  # the removals race this walk: a folder listed a moment ago may be gone
                    left = sorted(str(p.relative_to(tmpdir)) for p in tmpdir.rglob("*") if not p.name.startswith("."))
                except FileNotFoundError:
                    left = ["(changing)"]
                if not left:
                    break
                time.sleep(0.1)
            assert left == [], (attempt, stderr[-3000:])
