"""`cowork_judge.install.cachelock` across real processes: a run waits for the one that fills a cache folder and
names it, shares a folder once it is filled, survives a holder killed with SIGKILL; pruning skips a home in use.
(The end-to-end case, two ``cowork-judge try`` at once on a cold venv, is in `test_try_judge_home`.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from cowork_judge.install import dryrun
from cowork_judge.install.cachelock import EXCLUSIVE, SHARED, CacheLock, lock_path, try_exclusive

HOLDER = """
import sys, time
from pathlib import Path
from cowork_judge.install.cachelock import CacheLock, EXCLUSIVE
folder = Path(sys.argv[1])
lock = CacheLock(folder, what="the test folder").acquire(EXCLUSIVE)
print("held", flush=True)
if len(sys.argv) > 2:  # fill the folder, then share it and keep using it
    time.sleep(1.0)
    folder.mkdir(exist_ok=True)
    (folder / ".complete").write_text("")
    while not lock.share():
        time.sleep(0.05)
    print("shared", flush=True)
time.sleep(60)
"""


def start_holder(folder: Path, *extra: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), *extra], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def test_a_waiting_run_names_the_holder_and_goes_on_when_it_is_killed(tmp_path):
    folder = tmp_path / "venv"
    holder = start_holder(folder)
    said: list[str] = []
    try:
        lock = CacheLock(folder, what="the test folder", on_wait=said.append)
        t0 = time.monotonic()
        killer = subprocess.Popen([sys.executable, "-c", f"import os, time; time.sleep(1.0); os.kill({holder.pid}, 9)"])
        lock.acquire(EXCLUSIVE)
        killer.wait(timeout=30)
    finally:
        stop(holder)
    assert time.monotonic() - t0 >= 0.9 and lock.mode == EXCLUSIVE
    assert said and f"waiting for another run (pid {holder.pid}, started " in said[0] and "the test folder" in said[0]
    assert "-c" in said[0] and str(lock_path(folder)) in said[0]
    assert "after" in said[-1] and "going on" in said[-1]
    lock.release()


def test_a_run_that_waited_for_the_install_shares_the_folder_while_its_filler_still_uses_it(tmp_path):
    folder = tmp_path / "venv"
    holder = start_holder(folder, "fill")
    try:
        lock = CacheLock(folder, what="the test folder", on_wait=lambda _: None)
        lock.acquire(lambda: SHARED if (folder / ".complete").is_file() else EXCLUSIVE, timeout_sec=30)
        assert lock.mode == SHARED and holder.poll() is None  # the filler is still running, holding it shared too
        assert try_exclusive(folder) is None  # nobody may remove it now
        lock.release()
    finally:
        stop(holder)


def test_pruning_leaves_a_judge_home_in_use(tmp_path):
    homes = tmp_path / "judge-homes"
    for i, name in enumerate(("old-in-use", "old-free", "a", "b", "c")):
        (homes / name).mkdir(parents=True)
        os.utime(homes / name, (1000 + i, 1000 + i))
    holder = start_holder(homes / "old-in-use")
    try:
        dryrun.prune_judge_homes(homes, keep=3)
        assert sorted(p.name for p in homes.iterdir() if p.is_dir()) == ["a", "b", "c", "old-in-use"]
        assert not lock_path(homes / "old-free").exists()
    finally:
        stop(holder)


def test_with_an_acquired_lock_holds_it_once_and_releases_it(tmp_path):
    folder = tmp_path / "wheels"
    with CacheLock(folder, what="the test folder").acquire(EXCLUSIVE, timeout_sec=5) as lock:
        assert lock.mode == EXCLUSIVE and try_exclusive(folder) is None
    assert lock.mode is None
    again = try_exclusive(folder)
    assert again is not None
    again.release()
