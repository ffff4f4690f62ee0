"""``cowork-judge try`` on a separate-verifier task as ``cowork-judge init`` writes it (trial 4 H1): the
final message reaches the verifier through init's ``[[verifier.collect]]`` hook, as in Harbor, not "nothing
delivered". The fast tests stage the rollout; the slow one runs the whole dry run of the README's chat path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.commands import main as cli
from cowork_judge.install import dryrun
from cowork_judge.install.taskinit import AGENT_COPY_DIR
from install.test_try_output import shared_cache, try_cli

ANSWER = "Take paracetamol 500 mg to 1 g every 4 to 6 hours, at most 4 g a day."
HARBOR_INIT_TOML = """version = "1.0"

[verifier]
timeout_sec = 600.0
environment_mode = "separate"
"""


def chat_task(root: Path) -> Path:
    """A chat task as `harbor init -t` + `cowork-judge init` leave it: a separate verifier, artifacts
    ``/app/output`` only, the agent's final message carried by the collect hook."""
    task = root / "chat"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "A-DOSE", "description": "The answer gives the adult paracetamol dose of 500 mg to 1 g every 4 to 6 hours.",
         "weight": 2}]}))
    (task / "tests" / "task_prompt.md").write_text("A patient asks which fever medicine to take, and how much.\n")
    (task / "tests" / "judge_instruction.md").write_text("Judge the chat answer against each row.\n")
    (task / "task.toml").write_text(HARBOR_INIT_TOML)
    assert cli(["init", str(task)]) == 0
    toml = (task / "task.toml").read_text()
    assert AGENT_COPY_DIR in toml and "/logs/agent/trajectory.json" not in toml
    return task


def test_the_final_message_is_carried_by_inits_collect_hook(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    task = dryrun.read_task(chat_task(tmp_path))
    assert task.separate and task.collect_agent and task.collect_other == []
    staged = dryrun.stage(task, dryrun.read_rollout(None, final_message=answer), tmp_path / "out")
    assert staged.placed == [f"{AGENT_COPY_DIR}/trajectory.json"] and staged.left_out == []
    doc = json.loads((staged.logs / "artifacts" / "cowork-judge-agent" / "trajectory.json").read_text())
    assert doc["steps"][-1]["message"] == ANSWER
    assert not any((staged.logs / "agent").iterdir())  # test.sh restores it there, as in a separate verifier


def test_a_container_rollout_keeps_only_what_the_hook_copies(tmp_path):
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "app" / "output" / "notes.md").write_text("notes\n")
    agent = rollout / "logs" / "agent"
    agent.mkdir(parents=True)
    (agent / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [
        {"step_id": 1, "source": "agent", "message": ANSWER}]}))
    (agent / "response.txt").symlink_to("/etc/hostname")  # the hook copies regular files only
    (agent / "agent.log").write_text("not carried\n")
    task = dryrun.read_task(chat_task(tmp_path))
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out")
    copied = staged.logs / "artifacts" / "cowork-judge-agent"
    assert sorted(p.name for p in copied.iterdir()) == ["trajectory.json"]
    assert f"{AGENT_COPY_DIR}/trajectory.json" in staged.placed and "/app/output" in staged.placed
    # /app holds nothing besides /app/output: not named (trial 19 P-2: empty folders were named as unseen); nor is
    # agent.log: the judge reads nothing of /logs/agent but what the hook carries (trial 21 P-3)
    assert staged.left_out == [] and staged.unread_agent == ""


def test_a_hook_the_dry_run_cannot_run_is_named(tmp_path):
    task = chat_task(tmp_path)
    with (task / "task.toml").open("a") as fh:
        fh.write('\n[[verifier.collect]]\ncommand = "cp /logs/agent/notes.md /logs/artifacts/"\n')
    info = dryrun.read_task(task)
    assert info.collect_agent and info.collect_other == ["cp /logs/agent/notes.md /logs/artifacts/"]


@pytest.mark.slow
def test_the_readme_chat_dry_run_on_a_separate_verifier_judges_the_answer(tmp_path, sandbox_ready):
    """`cowork-judge try <task> --final-message answer.txt` on what init writes: the answer is judged
    (in 0.2.0–d8de314 every row was "[no delivery]" and the reward 0.0)."""
    task = chat_task(tmp_path)
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    proc = try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=None)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "nothing of the rollout reaches the verifier" not in proc.stderr
    assert "init's [[verifier.collect]] hook copies them" in proc.stdout
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert doc["details"]["delivery"]["missing"] is False
    assert doc["status"] == "success" and doc["results"][0]["hit"] is True and doc["reward"] == 1.0
