"""Trial 21 P-4 through ``cowork-judge try``: a hand-written reference ``trajectory.json`` whose step says
``"source": "assistant"`` (the chat API's role name, not ATIF's ``"agent"``) printed ``reward: 0.0``, ``status:
success`` and "nothing delivered … check --trajectory", with no warning naming the file. Now its rows are unjudged
``delivery_unreadable`` and the printed warnings say which step is wrong and what ATIF allows. A real ``cowork-judge
try`` child process (the task's test.sh in the sandbox, the built-in simulator): slow-marked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from install.test_try_output import example_task, shared_cache, try_cli

RUBRIC = {"rubrics": [
    {"id": "C-WORD", "description": "The answer names Rayleigh scattering.", "weight": 2, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
    {"id": "L-WHY", "description": "The answer explains why the sky is blue.", "weight": 1},
]}


@pytest.fixture(scope="module")
def cache(tmp_path_factory, sandbox_ready) -> Path:
    return shared_cache(tmp_path_factory.mktemp("try-atif-cache") / "cache")


@pytest.mark.slow
def test_try_prints_why_an_atif_file_with_an_assistant_step_was_not_read(cache, tmp_path):
    task = example_task(tmp_path / "task", RUBRIC)
    traj = tmp_path / "trajectory.json"
    traj.write_text(json.dumps({
        "schema_version": "ATIF-v1.4", "session_id": "reference", "agent": {"name": "reference", "version": "1"},
        "steps": [{"step_id": 1, "source": "assistant", "message": "Rayleigh scattering makes the sky blue."}]}))
    proc = try_cli(str(task), "--trajectory", str(traj), "--out", str(tmp_path / "out"), cache=cache,
                   tmpdir=tmp_path / "tmp")
    out = proc.stdout + proc.stderr
    assert "status: error" in proc.stdout and "nothing delivered: no output file" not in out, out[-3000:]
    assert "not judged: C-WORD (delivery_unreadable): the agent's final message could not be read (trajectory.json)" in out
    block = proc.stdout[proc.stdout.index("warnings ("):proc.stdout.index("documents (")]
    assert ("delivery: trajectory.json is not valid ATIF: step 1 has source 'assistant': ATIF's sources are 'system', "
            "'user', 'agent'; the final message is the 'message' of the last step with source 'agent'") in block, block
    result = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert result["exit_code"] == "judge:scorer_error" and not result["extra_fields"]["delivery_missing"]
