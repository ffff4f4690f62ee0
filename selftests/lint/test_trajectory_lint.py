"""Issue 37: ``lint-rubric`` on rows about what the agent did. Unknown trajectory methods and bad
arguments are errors (M001/M002); T013 is an ERROR when a separate verifier receives no trajectory
(no ``[[verifier.collect]]`` hook copying it), and silent when the verifier shares the agent's
container or init's hook carries it. Run through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from cowork_judge.install.taskinit import COLLECT_COMMAND
from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_TOML, rows

SEPARATE_TOML = BASE_TOML.replace("timeout_sec = 2280\n", 'timeout_sec = 2280\nenvironment_mode = "separate"\n')
COLLECTED_TOML = SEPARATE_TOML + f"\n[[verifier.collect]]\ncommand = {json.dumps(COLLECT_COMMAND)}\n"
TOOL_ROW = {"id": "P-TESTS", "description": "The agent ran the tests", "weight": 1, "judge_method": "code",
            "code_method_name": "command_succeeded", "code_method_params": {"pattern": "pytest"}}
JUDGED_ROW = {"id": "P-ORDER", "description": "The agent read the data before writing the report", "weight": 1,
              "judge_method": "workflow", "workflow_name": "trajectory_judge"}


def _lint(tests):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_"))}
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests), "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, json.loads(proc.stdout)


def _findings(report):
    [instance] = report["instances"]
    return instance["findings"]


def _codes(report):
    return {f["code"]: f for f in _findings(report)}


def test_t013_a_separate_verifier_without_the_trajectory_is_an_error(make_instance):
    tests = make_instance(rubric=rows(extra=[TOOL_ROW, JUDGED_ROW]), toml=SEPARATE_TOML)
    code, report = _lint(tests)
    finding = _codes(report)["T013"]
    assert code != 0 and finding["level"] == "ERROR"
    assert "P-TESTS" in finding["message"] and "P-ORDER" in finding["message"] and "trajectory_missing" in finding["message"]


def test_t013_is_silent_with_the_collect_hook_or_a_shared_container(make_instance):
    collected = make_instance(rubric=rows(extra=[TOOL_ROW, JUDGED_ROW]), toml=COLLECTED_TOML)
    shared = make_instance(rubric=rows(extra=[TOOL_ROW, JUDGED_ROW]))  # the agent's container verifies
    plain = make_instance(toml=SEPARATE_TOML)  # no row about the agent's process
    for tests in (collected, shared, plain):
        assert "T013" not in {f.code for f in lint_instance(tests).findings}


def test_unknown_trajectory_methods_and_bad_arguments_are_errors(make_instance):
    bad = [dict(TOOL_ROW, id="P-1", code_method_params={"pattern": "pytest("}),
           dict(TOOL_ROW, id="P-2", code_method_name="tool_called", code_method_params={"tool": "Bash"}),
           dict(TOOL_ROW, id="P-3", code_method_name="step_count_at_most", code_method_params={"max_steps": "ten"}),
           dict(TOOL_ROW, id="P-4", code_method_name="tool_was_called", code_method_params={})]
    code, report = _lint(make_instance(rubric=rows(extra=bad)))
    found = [(f["code"], f.get("row"), f["message"]) for f in _findings(report) if f["code"] in ("M001", "M002")]
    assert code != 0
    assert any(c == "M002" and r == "P-1" and "not a valid regular expression" in m for c, r, m in found), found
    assert any(c == "M002" and r == "P-2" and "unknown parameter 'tool'" in m for c, r, m in found), found
    assert any(c == "M002" and r == "P-3" and "must be int" in m for c, r, m in found), found
    assert any(c == "M001" and r == "P-4" and "tool_called" in m for c, r, m in found), found
