"""One process runner (issue 38): an agent CLI's run (`agentic.cli_proc.run_cli`) is a thin layer on
`cowork_judge._util.procs` — the same start (`procs.spawn`: new session, registered), the same end
(`procs.reap`: tree and group killed, unregistered) and the same result type — not a second runner.
Real child processes (``/bin/sh``)."""

from __future__ import annotations

import ast
import asyncio
import inspect


from cowork_judge._util import procs
from cowork_judge.agentic import cli_proc


def test_the_cli_runner_starts_no_process_of_its_own():
    tree = ast.parse(inspect.getsource(cli_proc))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "subprocess" not in imported  # procs.spawn starts it, procs.reap ends it
    assert cli_proc.ProcOutcome is procs.ProcResult


def test_both_runners_kill_the_group_and_forget_it(tmp_path):
    env = procs.child_environment()
    slow = ["/bin/sh", "-c", "sleep 30 & echo started; wait"]
    out = asyncio.run(cli_proc.run_cli(slow, env=env, cwd=tmp_path, timeout_sec=0.5))
    assert out.timed_out and out.killed and out.returncode is None and "started" in out.stdout
    res = procs.run_command(slow, timeout_sec=0.5, env=env)
    assert res.timed_out and res.killed and res.returncode is None
    assert procs._live == set()  # every exit path unregistered its group
    missing = asyncio.run(cli_proc.run_cli([str(tmp_path / "no-such-cli")], env=env, cwd=tmp_path, timeout_sec=5))
    assert missing.error and missing.error.startswith("FileNotFoundError") and not missing.killed
    assert procs.run_command([str(tmp_path / "no-such-cli")], timeout_sec=5, env=env).error == missing.error
