"""``cowork-judge try`` for a chat task (issue 39 item 20): the final message alone is the rollout, no empty
folder for ``--rollout``. The fast tests read and stage it; the slow one runs the dry run for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.commands import main as cli
from cowork_judge.install import dryrun
from install.test_try_output import shared_cache, try_cli

CHAT_TOML = """version = "1.0"
artifacts = ["/app/output", "/logs/agent/trajectory.json"]

[verifier]
timeout_sec = 900.0
environment_mode = "{mode}"
"""
ANSWER = "Take paracetamol 500 mg to 1 g every 4 to 6 hours, at most 4 g a day."


def chat_task(root: Path, mode: str = "shared") -> Path:
    task = root / "chat"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho hi\n")
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "A-DOSE", "description": "The answer gives the adult paracetamol dose of 500 mg to 1 g every 4 to 6 hours.",
         "weight": 2}]}))
    (task / "tests" / "task_prompt.md").write_text("A patient asks which fever medicine to take, and how much.\n")
    (task / "tests" / "judge_instruction.md").write_text("Judge the chat answer against each row.\n")
    (task / "task.toml").write_text(CHAT_TOML.format(mode=mode))
    return task


@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_the_final_message_alone_is_a_rollout_without_deliverables(tmp_path, mode):
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    rollout = dryrun.read_rollout(None, final_message=answer)
    assert rollout.layout == "message" and rollout.files == {"/logs/agent/trajectory.json": answer}
    assert "no deliverables" in rollout.describe()
    task = dryrun.read_task(chat_task(tmp_path, mode))
    staged = dryrun.stage(task, rollout, tmp_path / "out")
    assert staged.placed == ["/logs/agent/trajectory.json"] and not staged.left_out
    assert not any(staged.app.iterdir())  # nothing in /app
    doc = json.loads((staged.logs / "agent" / "trajectory.json").read_text())
    assert doc["steps"][-1]["message"] == ANSWER


def test_an_atif_trajectory_alone_is_copied_as_it_is(tmp_path):
    traj = tmp_path / "trajectory.json"
    traj.write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [{"step_id": 1, "source": "agent", "message": ANSWER}]}))
    rollout = dryrun.read_rollout(None, trajectory=traj)
    assert rollout.layout == "message" and not rollout.message_as_text


def test_no_rollout_and_no_message_is_a_usage_error(tmp_path, capsys):
    assert cli(["try", str(chat_task(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert "--final-message FILE" in err and "--rollout FOLDER" in err and "Traceback" not in err
    with pytest.raises(dryrun.TryError, match="no such file"):
        dryrun.read_rollout(None, final_message=tmp_path / "nope.txt")


@pytest.mark.slow
def test_a_chat_dry_run_from_the_final_message_alone(tmp_path, sandbox_ready):
    """The whole dry run (this checkout's wheel, the simulator) with `--final-message` and no `--rollout`."""
    task = chat_task(tmp_path)
    assert cli(["init", str(task), "--force"]) == 0  # the real test.sh and [verifier] blocks
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    proc = try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=None)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "the final message alone (no deliverables)" in proc.stdout
    assert "coverage: 1.000 (1 of 1 rows judged)" in proc.stdout
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert doc["status"] == "success" and doc["results"][0]["hit"] is True
