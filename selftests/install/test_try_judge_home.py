"""``cowork-judge try``'s shared judge home (``<cache>/judge-homes``, issue 39): two runs at once on a cold venv, and
tasks that switch extras. Real ``cowork-judge try`` child processes in bubblewrap (slow); each test has a cache of
its own (cold venvs) whose wheels/ is the suite's download cache.

- two cold runs at once: one installs, the other waits for it (naming it) and reuses the venv; both judge (#7);
- a task without extras between two runs of a deck task does not make the deck task reinstall (#21).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from testkit import ROLLOUTS

from install.harness import REPO
from install.test_try_output import CLI, shared_cache, try_cli

pytestmark = pytest.mark.slow


def sh_log(proc: subprocess.CompletedProcess) -> str:
    """The run's test-sh.log."""
    match = re.search(r"^documents \((.+)\):$", proc.stdout, flags=re.MULTILINE)
    assert match, proc.stdout[-3000:] + proc.stderr[-3000:]
    return (Path(match.group(1)) / "test-sh.log").read_text()


def test_two_cold_runs_at_once_one_installs_the_other_waits_naming_it(dependency_wheels, tmp_path):
    cache = shared_cache(tmp_path / "cache")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    env.update(COWORK_JUDGE_CACHE=str(cache))
    procs = []
    for name in ("first", "second"):
        procs.append(subprocess.Popen([*CLI, "try", str(REPO), "--rollout", str(ROLLOUTS / "empty"), "--out",
                                       str(tmp_path / name)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
        time.sleep(0.5)
    done = [subprocess.CompletedProcess(p.args, p.wait(timeout=900), *p.communicate()) for p in procs]
    for proc in done:
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert "coverage: 1.000" in proc.stdout
    logs = [sh_log(proc) for proc in done]
    assert sum("installed cowork-judge==" in log for log in logs) == 1, logs
    assert sum("reusing /opt/cowork-judge/venv-" in log for log in logs) == 1, logs
    waited = [(proc, other) for proc, other in ((done[0], procs[1]), (done[1], procs[0])) if "waiting for" in proc.stderr]
    assert len(waited) == 1, [p.stderr for p in done]
    proc, other = waited[0]
    assert f"another run (pid {other.pid}, started " in proc.stderr and "cowork-judge try" in proc.stderr
    assert "the judge's venv in" in proc.stderr and "pip could not" not in proc.stderr


def test_switching_to_a_task_without_extras_and_back_reuses_each_venv(dependency_wheels, tmp_path):
    cache = shared_cache(tmp_path / "cache")
    runs = [("workflow", None), ("none", {"COWORK_JUDGE_EXTRAS": ""}), ("workflow", None), ("none", {"COWORK_JUDGE_EXTRAS": ""})]
    logs = []
    for i, (_, env) in enumerate(runs):
        proc = try_cli(str(REPO), "--rollout", str(ROLLOUTS / "empty"), "--out", str(tmp_path / f"out{i}"), cache=cache,
                       tmpdir=tmp_path / "tmp", env=env)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        logs.append(sh_log(proc))
    assert ["installed cowork-judge==" in log for log in logs] == [True, True, False, False], logs
    assert "reusing /opt/cowork-judge/venv-" in logs[2] and "reusing /opt/cowork-judge/venv-" in logs[3]
    assert len([p for p in (cache / "judge-homes").iterdir() if p.is_dir()]) == 2
