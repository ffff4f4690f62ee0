"""``cowork-judge try`` stopped by a signal (issue 39, trial 3 M1 and L8): real ``cowork-judge try`` child
processes, signalled while the task's test.sh runs in the sandbox.

- SIGTERM (a CI job's or ``timeout``'s stop) exits 143 with one line and removes the build and sandbox temp
  folders, as Ctrl-C does (exit 130), instead of the default action's silent death (-15) that leaked them (M1);
- Ctrl-C or SIGTERM of ``try --out DIR`` says that DIR is kept and incomplete (no result.json) (L8).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit import ROLLOUTS

from install.test_try_output import example_task, shared_cache

def _as_in_a_terminal() -> None:
    """The child's SIGINT as in a foreground terminal (Python's KeyboardInterrupt): a suite started
    from a non-interactive shell's background job inherits SIGINT ignored (POSIX), and a Ctrl-C
    then never reaches a command that is not yet listening for it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


CLI = [sys.executable, "-m", "cowork_judge"]
SLOW_TEST_SH = "#!/bin/bash\ntouch /logs/verifier/started\nsleep 120\necho 1 > /logs/verifier/reward.txt\n"


@pytest.fixture(scope="module")
def cache(tmp_path_factory, sandbox_ready) -> Path:
    return shared_cache(tmp_path_factory.mktemp("try-signals-cache") / "cache")


def _try_until_test_sh_runs(task: Path, *extra: str, cache: Path, tmpdir: Path, started: str) -> subprocess.Popen:
    """Start ``cowork-judge try`` and return once test.sh has touched the file whose glob is `started`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    tmpdir.mkdir(parents=True, exist_ok=True)
    env.update(COWORK_JUDGE_CACHE=str(cache), TMPDIR=str(tmpdir))
    proc = subprocess.Popen([*CLI, "try", str(task), "--rollout", str(ROLLOUTS / "chat"), *extra], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_in_a_terminal)
    deadline = time.monotonic() + 600
    while not list(Path("/").glob(started.lstrip("/"))):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "test.sh did not start"
        time.sleep(0.2)
    return proc


@pytest.mark.slow
def test_sigterm_exits_143_with_one_line_and_removes_the_temp_folders(cache, tmp_path):
    task = example_task(tmp_path / "task")
    (task / "tests" / "test.sh").write_text(SLOW_TEST_SH)
    tmpdir = tmp_path / "tmp"
    proc = _try_until_test_sh_runs(task, cache=cache, tmpdir=tmpdir,
                                   started=f"{tmpdir}/cowork-judge-try-*/logs/verifier/started")
    assert any(p.name.startswith("cowork-judge-try-build-") for p in tmpdir.iterdir())
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, out + err
    assert err.strip().splitlines()[-1] == "cowork-judge try: stopped (SIGTERM); its temp folders are removed", err
    assert not list(tmpdir.iterdir()), list(tmpdir.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_out_dir_is_said_to_be_kept_and_incomplete(cache, tmp_path, signum, status):
    task = example_task(tmp_path / "task")
    (task / "tests" / "test.sh").write_text(SLOW_TEST_SH)
    out_dir, tmpdir = tmp_path / "out", tmp_path / "tmp"
    proc = _try_until_test_sh_runs(task, "--out", str(out_dir), cache=cache, tmpdir=tmpdir,
                                   started=f"{out_dir}/logs/verifier/started")
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == status, out + err
    assert f"kept: {out_dir} (incomplete: interrupted before the judge finished, no result.json" in out, out + err
    assert out_dir.is_dir() and not (out_dir / "logs" / "verifier" / "result.json").exists()
    assert not list(tmpdir.iterdir()), list(tmpdir.iterdir())


@pytest.mark.slow
def test_sigterm_during_the_wheel_build_leaves_no_pip_temp_folders(cache, tmp_path):
    """Trial 4's L2: SIGTERM while pip builds the judge's wheel left ``pip-build-env-*``,
    ``pip-unpack-*`` and ``pip-wheel-*`` in ``$TMPDIR`` (pip dies without its own clean-up);
    each pip child now gets a private ``TMPDIR`` that the unwinding removes."""
    task = example_task(tmp_path / "task")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    env.update(COWORK_JUDGE_CACHE=str(cache), TMPDIR=str(tmpdir))
    proc = subprocess.Popen([*CLI, "try", str(task), "--rollout", str(ROLLOUTS / "chat")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_as_in_a_terminal)
    deadline = time.monotonic() + 300
    while not [p for p in tmpdir.glob("**/pip-*") if p.is_dir()]:  # pip is at work (wherever its TMPDIR is)
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "pip did not start"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, out + err
    assert not list(tmpdir.iterdir()), sorted(p.name for p in tmpdir.iterdir())
