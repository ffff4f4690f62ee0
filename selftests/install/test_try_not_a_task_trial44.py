"""Trial 44 P-4: ``cowork-judge try`` given a folder that is no task (the task and the rollout swapped, or a folder
deep inside the task) said ``tests/test.sh: missing (… `cowork-judge init <that folder>` writes it)``, and that
init then failed (no task.toml). try now says what was meant. The real CLI in a child process; nothing is run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _try(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "cowork_judge", "try", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _layout(tmp_path: Path) -> None:
    (tmp_path / "deck-task" / "tests").mkdir(parents=True)
    (tmp_path / "deck-task" / "task.toml").write_text("[verifier]\n", encoding="utf-8")
    (tmp_path / "deck-task" / "solution" / "output").mkdir(parents=True)
    (tmp_path / "rollouts" / "good-deck").mkdir(parents=True)
    (tmp_path / "rollouts" / "good-deck" / "deck.pptx").write_bytes(b"PK\x03\x04")


def test_a_swapped_task_and_rollout_are_named(tmp_path):
    _layout(tmp_path)
    proc = _try(tmp_path, "rollouts/good-deck", "--rollout", "deck-task")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert ("rollouts/good-deck is not a task folder (no task.toml), but --rollout deck-task is one: the two "
            "swapped? did you mean `cowork-judge try deck-task --rollout rollouts/good-deck`?") in proc.stderr
    assert "cowork-judge init rollouts/good-deck" not in proc.stderr


def test_a_folder_deep_in_a_task_names_the_task(tmp_path):
    _layout(tmp_path)
    proc = _try(tmp_path, "deck-task/solution/output", "--rollout", "rollouts/good-deck")
    assert proc.returncode == 2
    assert ("deck-task/solution/output is a task's solution/output/ folder, not the task folder: did you mean "
            "deck-task?") in proc.stderr, proc.stderr


def test_any_other_folder_is_told_what_a_task_folder_holds(tmp_path):
    _layout(tmp_path)
    proc = _try(tmp_path, "rollouts", "--rollout", "rollouts/good-deck")
    assert proc.returncode == 2
    assert "rollouts is not a task folder: it holds no task.toml and no tests/test.sh" in proc.stderr, proc.stderr
    assert "cowork-judge init rollouts`" not in proc.stderr
