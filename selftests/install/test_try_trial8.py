"""Trial 8 F8: `try --rollout <container layout> --final-message X` refused (rightly) but named
logs/agent/trajectory.json as the rollout's final message when the rollout held logs/agent/response.txt: the
refusal now names the message file(s) the rollout holds, in the judge's order, or all three names when it holds
none (a real ``python -m cowork_judge try`` child process; it refuses before building anything)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from install.test_try_output import example_task


def _try(task, rollout, message):
    return subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(task), "--rollout", str(rollout),
                           "--final-message", str(message)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("files, said", [
    (["response.txt"], "its agent's final message is logs/agent/response.txt, not --trajectory/--final-message"),
    (["final_answer.txt", "response.txt"], "its agent's final message is logs/agent/final_answer.txt (the judge reads "
                                           "it before response.txt), not --trajectory/--final-message"),
    (["trajectory.json"], "its agent's final message is logs/agent/trajectory.json, not"),
    ([], "its agent's final message would be logs/agent/trajectory.json, final_answer.txt or response.txt (it holds "
         "none of them), not --trajectory/--final-message"),
])
def test_the_container_refusal_names_the_message_file_the_rollout_holds(tmp_path, files, said):
    task = example_task(tmp_path / "task")
    agent = tmp_path / "rollout" / "logs" / "agent"
    agent.mkdir(parents=True)
    for name in files:
        (agent / name).write_text('{"schema_version": "ATIF-v1.4", "steps": []}' if name.endswith(".json") else "done")
    message = tmp_path / "answer.txt"
    message.write_text("my answer")
    proc = _try(task, tmp_path / "rollout", message)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{tmp_path / 'rollout'} has the container layout: {said}" in proc.stderr, proc.stderr
    if "trajectory.json" not in files:
        assert "message is logs/agent/trajectory.json" not in proc.stderr
