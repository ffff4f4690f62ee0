"""Trial 13 L5: a SIGKILLed run's scratch folders (temp work folder, LibreOffice profiles, renders) stayed in
TMPDIR for good. Each scratch folder now has a locked owner file; the next run removes the folders whose
owner has ended, and nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from testkit import clean_env, code_only_task

from cowork_judge._util.fsutil import scratch_owner_file, sweep_abandoned_scratch

HOLD = ("import sys, time; from pathlib import Path; from cowork_judge._util.fsutil import make_scratch_dir; "
        "p = make_scratch_dir('cowork-judge-render-', Path(sys.argv[1])); (p / 'page-1.png').write_bytes(b'x' * 4096); "
        "print(p, flush=True); time.sleep(120)")


def _holder(parent: Path) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(parent)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)  # no clean-up of its own runs
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def test_a_live_owners_folder_is_kept_and_a_killed_ones_is_removed(tmp_path):
    proc, folder = _holder(tmp_path)
    try:
        assert folder.is_dir() and scratch_owner_file(folder).is_file()
        assert sweep_abandoned_scratch(tmp_path) == [] and folder.is_dir()  # its owner lives
    finally:
        _kill(proc)
    assert folder.is_dir()  # SIGKILL: left behind
    assert sweep_abandoned_scratch(tmp_path) == [folder.name]
    assert not folder.exists() and not scratch_owner_file(folder).exists()


def test_what_has_no_owner_file_or_is_not_a_plain_folder_is_never_touched(tmp_path):
    foreign = tmp_path / "cowork-judge-older-version"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("an older judge's folder, or anybody's: no owner file")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("a link's target")
    link = tmp_path / "cowork-judge-link"
    link.symlink_to(elsewhere)
    (tmp_path / "cowork-judge-link.owner").write_text("")  # unlocked, but what it names is a link
    assert sweep_abandoned_scratch(tmp_path) == []
    assert (foreign / "keep.txt").is_file() and (elsewhere / "keep.txt").is_file() and link.is_symlink()
    assert not (tmp_path / "cowork-judge-link.owner").exists()  # a stale owner file goes


def test_the_next_run_removes_what_a_killed_run_left_in_its_temp_folder(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc, folder = _holder(tmp)
    _kill(proc)
    args = code_only_task(tmp_path / "task")
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "run", *args], capture_output=True, text=True,
                          timeout=300, env=clean_env(TMPDIR=str(tmp)))
    assert done.returncode == 0, done.stderr
    assert not folder.exists()
    assert f"removed 1 scratch folder(s) that ended runs left ({folder.name})" in done.stderr
    assert sorted(p.name for p in tmp.iterdir()) == []  # and the run's own folders went with it
