"""Trial 28 P-1 and P-4: a chat task's reference solution.

P-1: ``try CHAT --rollout CHAT/solution`` on a solve.sh that writes the answer with a heredoc (nothing beside it) said
"--rollout <the folder of the deliverables>", a placeholder and the wrong advice for a chat task. It now says where
the answer lives and the line meant (the real ``try`` CLI, `dryrun._answer_in_solve_sh`).

P-4: docs/harbor-task.md step 6's chat reference solution is the copy-a-file shape (``solution/final_answer.txt`` and a
solve.sh copying it), which lint A006 accepts and ``try --final-message`` can dry-run as written."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from cowork_judge.install import dryrun
from install.harness import REPO
from install.test_try_output import shared_cache, try_cli
from install.test_try_trial4 import chat_task

HEREDOC_SOLVE = ("#!/bin/bash\nmkdir -p /logs/agent\ncat > /logs/agent/final_answer.txt <<'ANS'\n"
                 "Take paracetamol 500 mg to 1 g every 4 to 6 hours.\nANS\n")


def try_chat_solution(tmp_path, files: dict[str, str]):
    """(solution/, the finished process) of the real ``try CHAT --rollout CHAT/solution`` on a chat task whose
    ``solution/`` holds `files` (name → text)."""
    task = chat_task(tmp_path)
    solution = task / "solution"
    solution.mkdir()
    for name, text in files.items():
        (solution / name).write_text(text)
    proc = try_cli(str(task), "--rollout", str(solution), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=None)
    return solution, proc


@pytest.mark.slow
def test_try_on_a_heredoc_chat_solution_names_the_answer_file_to_make(tmp_path, sandbox_ready):
    solution, proc = try_chat_solution(tmp_path, {"solve.sh": HEREDOC_SOLVE})
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    answer = solution / "final_answer.txt"
    assert "looks like a task's solution/ folder" in proc.stderr, proc.stderr
    # trial 34 P-2: said again where the reward is read, not only among the lines before the run
    assert "(said of the rollout before the run) " + str(solution) + ": it looks like a task's solution/ folder" \
        in proc.stderr, proc.stderr
    assert f"is tried with: --final-message {answer} (without --rollout), once the answer is in that file: it now " \
           "lives inside solve.sh" in proc.stderr, proc.stderr
    assert "cp /solution/final_answer.txt /logs/agent/final_answer.txt" in proc.stderr, proc.stderr
    assert "<the folder of the deliverables>" not in proc.stderr, proc.stderr


@pytest.mark.parametrize(("solve", "deck", "chat"), [
    ("#!/bin/bash\nmkdir -p /app/output\ncat > /app/output/notes.md <<'EOF'\nx\nEOF\n", True, False),
    ("#!/bin/bash\necho the answer\n", True, True),
])
def test_a_solve_sh_alone_gets_the_deck_line_or_both(tmp_path, solve, deck, chat):
    solution = tmp_path / "task" / "solution"
    solution.mkdir(parents=True)
    (solution / "solve.sh").write_text(solve)
    misread = dryrun.read_rollout(solution).misread
    assert (f"--rollout {solution / 'output'} --trajectory {solution / 'trajectory.json'}" in misread) is deck, misread
    assert (f"--final-message {solution / 'final_answer.txt'} (without --rollout)" in misread) is chat, misread
    assert "<the folder of the deliverables>" not in misread, misread


def _step6_chat_block() -> str:
    text = (REPO / "docs" / "harbor-task.md").read_text(encoding="utf-8")
    step6 = text[text.index("**6. A reference solution"):text.index("**7. Harbor's checks")]
    blocks = [b for b in re.findall(r"```\w*\n(.*?)```", step6, flags=re.DOTALL) if "my-chat-task/solution/solve.sh" in b]
    assert len(blocks) == 1, "step 6 has no chat reference-solution example"
    return blocks[0]


def test_the_docs_step6_chat_solution_lints_clean_and_is_dry_run_with_its_file(tmp_path):
    block = _step6_chat_block()
    assert "cowork-judge try my-chat-task --final-message my-chat-task/solution/final_answer.txt" in block, block
    task = chat_task(tmp_path)
    (task / "solution").mkdir()
    writes = block[:block.index("cowork-judge try")].replace("my-chat-task", str(task))
    subprocess.run(["bash", "-e", "-c", writes], check=True, timeout=60)
    solve = (task / "solution" / "solve.sh").read_text()
    assert "cp /solution/final_answer.txt /logs/agent/final_answer.txt" in solve, solve
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "A006" not in proc.stdout, proc.stdout


def test_what_a_separate_verifier_missed_is_said_again_when_nothing_was_delivered(tmp_path, sandbox_ready):
    """Trial 34 P-2 (the container-layout half): the answer left in app/ rather than app/output/ was named as "not
    an artifact" only before the run; the end said nothing was delivered without naming it. It is said again there."""
    task = chat_task(tmp_path)
    rollout = tmp_path / "rollout"
    (rollout / "app").mkdir(parents=True)
    (rollout / "app" / "answer.md").write_text("Take paracetamol 500 mg to 1 g every 4 to 6 hours.\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    proc = try_cli(str(task), "--rollout", str(rollout), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=None)
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert ("(said of the rollout before the run) /app (besides /app/output) of the rollout is not an artifact of "
            "this task") in proc.stderr, proc.stderr
