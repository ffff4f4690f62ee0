"""After the watchdog's last kill (`procs.kill_all(ending=True)`) no child process may start: a thread
that was about to start LibreOffice when a SIGINT came would otherwise start it after the kill, and it
outlived the judge, writing its profile into a render folder already removed (the CI of stop 46 found
one ``cowork-judge-render-*`` folder left in TMPDIR after a Ctrl-C)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from cowork_judge._util import procs


@pytest.fixture
def ending(monkeypatch):
    monkeypatch.setattr(procs, "_ending", False)
    yield
    procs.kill_all()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_child_started_after_the_last_kill_is_killed_at_once(ending, tmp_path):
    marker = tmp_path / "pid"
    argv = [sys.executable, "-c", f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(30)"]
    before = procs.spawn(argv, env=procs.child_environment())
    assert isinstance(before, subprocess.Popen)
    assert procs.kill_all(ending=True) == 1
    before.communicate(timeout=10)
    after = procs.spawn(argv, env=procs.child_environment())
    assert after == procs.ENDING_MESSAGE
    time.sleep(0.3)
    if marker.exists() and marker.read_text():
        assert not _alive(int(marker.read_text()))
    assert procs.kill_all() == 0  # nothing was remembered


def test_run_command_after_the_last_kill_reports_why(ending):
    procs.kill_all(ending=True)
    res = procs.run_command(["sleep", "30"], timeout_sec=5)
    assert res.returncode is None and res.error == procs.ENDING_MESSAGE and res.seconds < 5


def test_a_plain_kill_all_does_not_stop_later_children(ending):
    procs.kill_all()
    res = procs.run_command([sys.executable, "-c", "print('ok')"], timeout_sec=30)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res
    assert os.environ.get("PATH")
