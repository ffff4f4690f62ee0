"""Trial 27 P-2: ``try CHAT_TASK --rollout CHAT_TASK/solution`` (solve.sh beside the reference ``final_answer.txt``)
said the deck fix ("--rollout <the folder of the deliverables>") and dropped the ``--final-message`` line ``try``
gives for the same file without solve.sh. The solution-folder line now gives the command meant for a chat
solution (`dryrun.read_rollout`, the reading ``try`` prints from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cowork_judge.install import dryrun

SOLVE = "#!/bin/bash\nmkdir -p /logs/agent && cp /solution/final_answer.txt /logs/agent/final_answer.txt\n"


def _solution(root: Path, *extra: str, message: str = "final_answer.txt") -> Path:
    solution = root / "task" / "solution"
    solution.mkdir(parents=True)
    (root / "task" / "task.toml").write_text('version = "1.0"\n')
    (solution / "solve.sh").write_text(SOLVE)
    (solution / message).write_text("Take paracetamol 500 mg to 1 g every 4 to 6 hours.\n")
    for name in extra:
        (solution / name).mkdir() if name == "output" else (solution / name).write_text("x\n")
    return solution


@pytest.mark.parametrize("message", ["final_answer.txt", "response.txt"])
def test_a_chat_solution_folder_gives_the_final_message_line(tmp_path, message):
    solution = _solution(tmp_path, message=message)
    misread = dryrun.read_rollout(solution).misread
    assert "looks like a task's solution/ folder" in misread, misread
    assert misread.endswith(f"is tried with: --final-message {solution / message}"), misread
    assert "<the folder of the deliverables>" not in misread and "--rollout" not in misread, misread


def test_a_solution_with_an_output_folder_keeps_rollout_and_adds_the_message(tmp_path):
    solution = _solution(tmp_path, "output")
    misread = dryrun.read_rollout(solution).misread
    assert f"--rollout {solution / 'output'} --final-message {solution / 'final_answer.txt'}" in misread, misread


def test_a_deck_solution_keeps_the_deck_line(tmp_path):
    solution = tmp_path / "task" / "solution"
    solution.mkdir(parents=True)
    (solution / "solve.sh").write_text("#!/bin/bash\ncp /solution/deck.pptx /app/output/\n")
    (solution / "deck.pptx").write_bytes(b"PK")
    misread = dryrun.read_rollout(solution).misread
    # trial 29 P-4: the deck line read from solve.sh, no longer the placeholder
    assert f"is tried with: --rollout {solution / 'output'} --trajectory {solution / 'trajectory.json'}, once" \
        in misread, misread
    assert "--final-message" not in misread, misread
