"""Trial 29 P-4: ``try CHAT --rollout CHAT/solution`` where the reference answer beside solve.sh has another name
(``solution/answer.txt``, solve.sh copying it to ``/logs/agent/final_answer.txt``) said "--rollout <the folder of
the deliverables>". The line is now read from solve.sh: ``--final-message`` the file it copies to the chat answer
(the real ``try`` CLI, and `dryrun._answer_copied_by_solve_sh` on the shapes a solve.sh copies with)."""

from __future__ import annotations

import pytest

from cowork_judge.install import dryrun
from install.test_try_chat_solution_trial28 import try_chat_solution

P4_SOLVE = "#!/bin/bash\nmkdir -p /logs/agent && cp /solution/answer.txt /logs/agent/final_answer.txt\n"


@pytest.mark.slow
def test_try_on_a_chat_solution_with_answer_txt_names_that_file(tmp_path, sandbox_ready):
    solution, proc = try_chat_solution(tmp_path, {"solve.sh": P4_SOLVE,
                                                  "answer.txt": "Take paracetamol 500 mg to 1 g every 4 to 6 hours.\n"})
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "looks like a task's solution/ folder" in proc.stderr, proc.stderr
    assert f"is tried with: --final-message {solution / 'answer.txt'}" in proc.stderr, proc.stderr
    assert "<the folder of the deliverables>" not in proc.stderr, proc.stderr


@pytest.mark.parametrize(("solve", "meant"), [
    (P4_SOLVE, "--final-message {s}/answer.txt"),
    ("#!/bin/bash\ncp -f \"/solution/answer.txt\" '/logs/agent/response.txt'\n", "--final-message {s}/answer.txt"),
    ("cat /solution/answer.txt > /logs/agent/final_answer.txt  # the answer\n", "--final-message {s}/answer.txt"),
    ("install -m 644 /solution/answer.txt /logs/agent/final_answer.txt\n", "--final-message {s}/answer.txt"),
    ("mkdir -p /logs/agent\nmv answer.txt \\\n  /logs/agent/final_answer.txt\n", "--final-message {s}/answer.txt"),
    ("cp /solution/missing.txt /logs/agent/final_answer.txt\n", "--final-message {s}/final_answer.txt (without --rollout), once"),
    ("cp /solution/answer.txt /app/output/\n", "--rollout {s}/output --trajectory {s}/trajectory.json, once"),
    ("echo hello\n", "for a deck task, --rollout {s}/output"),
])
def test_the_solution_line_is_read_from_solve_sh(tmp_path, solve, meant):
    solution = tmp_path / "task" / "solution"
    solution.mkdir(parents=True)
    (solution / "solve.sh").write_text(solve)
    (solution / "answer.txt").write_text("Take paracetamol.\n")
    misread = dryrun.read_rollout(solution).misread
    assert f"is tried with: {meant.format(s=solution)}" in misread, misread
    assert "<the folder of the deliverables>" not in misread, misread


def test_an_output_folder_keeps_rollout_beside_the_copied_answer(tmp_path):
    solution = tmp_path / "task" / "solution"
    (solution / "output").mkdir(parents=True)
    (solution / "solve.sh").write_text(P4_SOLVE)
    (solution / "answer.txt").write_text("Take paracetamol.\n")
    misread = dryrun.read_rollout(solution).misread
    assert misread.endswith(f"is tried with: --rollout {solution / 'output'} --final-message {solution / 'answer.txt'}")
