"""Trial 10 F5: `command_succeeded` was hit by any matching command line that exited 0 — an ``echo … pytest …``,
``pytest || true``, or an earlier passing run when the last run failed. The last matching run now decides, a
pattern written only in an ``echo``/comment is no run, and a forced status (``|| true``) is no success."""

from __future__ import annotations

import json

import pytest


def _ctx(tmp_path, runs):
    steps = [{"step_id": 1, "source": "user", "message": "run the tests"}]
    for n, (cmd, code) in enumerate(runs, start=2):
        steps.append({"step_id": n, "source": "agent", "message": "",
                      "tool_calls": [{"tool_call_id": f"c{n}", "function_name": "exec_command", "arguments": {"cmd": cmd}}],
                      "observation": {"results": [{"source_call_id": f"c{n}", "content": "1 failed"}]},
                      "extra": {"tool_metadata": {"exit_code": code}}})
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "done"})
    logs = tmp_path / "logs" / "agent"
    logs.mkdir(parents=True)
    (logs / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.7", "agent": {"name": "codex"},
                                                      "steps": steps}))
    from testkit import make_ctx
    return make_ctx(tmp_path).segment()


@pytest.mark.parametrize("runs, hit, said", [
    ([("echo I would run pytest here", 0), ("pytest -q", 1)], False, "exited 1 (step 3)"),
    ([("echo I would run pytest here", 0)], False, "no command matches"),
    ([("ls  # then pytest", 0)], False, "no command matches"),
    ([("pytest -q || true", 0)], False, "forces its exit status ('|| true')"),
    ([("pytest -q; true", 0)], False, "forces its exit status"),
    ([("pytest -q; echo done", 0)], False, "forces its exit status"),
    ([("pytest -q && echo passed", 0)], True, "exited 0 (step 2)"),
    ([("pytest -q", 0), ("pytest -q", 1)], False, "exited 1 (step 3)"),
    ([("pytest -q || true", 0), ("cd app && pytest -q", 0)], True, "exited 0 (step 3)"),
    ([("set -o pipefail; pytest -q | tee log.txt", 0)], True, "exited 0 (step 2)"),
    ([("pytest -q | tee log.txt", 1)], False, "exited 1 (step 2)"),
    ([("cat tests.txt | pytest -q", 0)], True, "exited 0 (step 2)"),  # pytest ends the pipeline: its own status
    ([("pytest -q |& tail -5", 1), ("pytest -q", 0)], True, "exited 0 (step 3)"),
])
def test_the_last_real_run_decides(tmp_path, runs, hit, said):
    from cowork_judge.code_methods import CODE_METHODS
    ok, reason, _ = CODE_METHODS["command_succeeded"](_ctx(tmp_path, runs), pattern="pytest")
    assert ok is hit and said in reason, reason


@pytest.mark.parametrize("cmd", ["pytest -q | tee log.txt", "pytest -q 2>&1 | tail -5", "pytest -q |& tee log"])
def test_a_zero_of_a_pipeline_the_command_only_feeds_decides_nothing(tmp_path, cmd):
    """Left over from trial 10 F5: ``pytest | tee log`` exited 0 when pytest failed (the status is tee's, no
    ``pipefail``) and the row was a hit. Such a 0 is now unclear: the row is unjudged (``trajectory_missing``)."""
    from cowork_judge.code_methods import CODE_METHODS
    from cowork_judge.code_methods.trajectory_checks import TrajectoryMissing
    with pytest.raises(TrajectoryMissing, match="pipes into another command"):
        CODE_METHODS["command_succeeded"](_ctx(tmp_path, [(cmd, 0)]), pattern="pytest")
