"""Trial 12 findings about `cowork-judge try`: a link among the agent's final-message files is named (F12)."""

from __future__ import annotations

import json

from cowork_judge.install import dryrun
from install.test_try_trial4 import ANSWER, chat_task


def test_a_linked_final_answer_is_named_not_blamed_on_the_task(tmp_path):
    """F12: a container-layout rollout whose logs/agent/final_answer.txt is a symbolic link: init's collect hook
    copies regular files only, so the dry run names the link (cp -L), not "/logs/agent is not an artifact"."""
    answer = tmp_path / "answer-good.txt"
    answer.write_text(ANSWER)
    agent = tmp_path / "sl3" / "logs" / "agent"
    agent.mkdir(parents=True)
    (agent / "final_answer.txt").symlink_to(answer)
    task = dryrun.read_task(chat_task(tmp_path))
    staged = dryrun.stage(task, dryrun.read_rollout(tmp_path / "sl3"), tmp_path / "out")
    assert staged.placed == [] and staged.left_out == []
    named = [w for w in staged.warnings if "final_answer.txt" in w]
    assert len(named) == 1, staged.warnings
    assert "symbolic link" in named[0] and str(answer) in named[0] and "cp -L" in named[0]
    assert "[[verifier.collect]]" in named[0]


def test_a_linked_file_beside_a_regular_one_is_named_and_the_rest_not_called_unseen(tmp_path):
    """F12: the regular trajectory.json is carried, the linked response.txt named; agent.log is not named as unseen by
    a separate verifier (trial 21 P-3: the judge reads nothing of /logs/agent but what the hook carries)."""
    agent = tmp_path / "rollout" / "logs" / "agent"
    agent.mkdir(parents=True)
    (agent / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [
        {"step_id": 1, "source": "agent", "message": ANSWER}]}))
    (agent / "response.txt").symlink_to("/nonexistent/response.txt")
    (agent / "agent.log").write_text("not carried\n")
    task = dryrun.read_task(chat_task(tmp_path))
    staged = dryrun.stage(task, dryrun.read_rollout(tmp_path / "rollout"), tmp_path / "out")
    assert [w for w in staged.warnings if "response.txt" in w and "/nonexistent/response.txt" in w]
    assert staged.left_out == []
