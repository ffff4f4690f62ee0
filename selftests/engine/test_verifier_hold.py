"""Trial 5, F11: two ``cowork-judge run`` on one ``--logs-dir`` mixed their audit files, and the
second's clean-up removed the first's. A run now holds the verifier folder (an exclusive
``flock`` on the folder itself) before touching anything in it; a second run refuses, writes
nothing there and exits 1 (real ``python -m cowork_judge run`` child processes)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

from testkit import clean_env, code_only_task

CLI = [sys.executable, "-m", "cowork_judge", "run"]


def test_a_second_run_on_a_held_verifier_folder_touches_nothing(tmp_path):
    args = code_only_task(tmp_path)
    verifier = tmp_path / "logs" / "verifier"
    (verifier / "judge").mkdir(parents=True)
    (verifier / "judge" / "block-01").mkdir()
    (verifier / "judge" / "block-01" / "attempt-1.jsonl").write_text("the other run's audit\n")
    (verifier / "judge.log").write_text("the other run's log\n")
    fd = os.open(verifier, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # "another run" holds the folder
        proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, env=clean_env())
    finally:
        os.close(fd)
    assert proc.returncode == 1, proc.stderr
    assert f"another judge run is writing into the verifier folder {verifier}" in proc.stderr, proc.stderr
    assert (verifier / "judge" / "block-01" / "attempt-1.jsonl").read_text() == "the other run's audit\n"
    assert (verifier / "judge.log").read_text() == "the other run's log\n"
    assert not (verifier / "result.json").exists() and not (verifier / "reward.txt").exists()
    assert "Traceback" not in proc.stderr

    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, env=clean_env())  # released: judged
    assert proc.returncode == 0, proc.stderr
    assert (verifier / "reward.txt").read_text().strip() == "1.0"
    assert sorted(p.name for p in verifier.iterdir() if p.name.startswith(".")) == []  # no lock file left behind


def test_a_filesystem_that_cannot_lock_is_judged_as_before(tmp_path, monkeypatch):
    """flock failing with ENOLCK (some network filesystems) is no refusal: a reward is written."""
    import errno
    import fcntl as real_fcntl

    from cowork_judge.engine import verifier_dir
    from cowork_judge.run.paths import RunPaths

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(real_fcntl, "flock", no_locks)
    paths = RunPaths.resolve(app_dir=tmp_path / "app", logs_dir=tmp_path / "logs", tests_dir=tmp_path / "tests",
                             work_dir=tmp_path / "work", alt_output_dir=tmp_path / "alt", environ={})
    fd = verifier_dir.hold(paths)  # no VerifierBusy
    os.close(fd)
