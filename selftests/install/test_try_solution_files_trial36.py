"""Trial 36 P-1: a deck task's reference deck kept directly in ``solution/`` (beside solve.sh, which copies
``/solution/good.pptx`` to ``/app/output/``) got the bare placeholder ``--rollout <the folder of the deliverables>``
in try's solution-folder line, which the docs say is gone. The line now names the files (those solve.sh copies into
/app/output, else the regular files beside it) and the copy that makes ``solution/output/``; with none, it says where
the deliverables go. The same for a chat answer beside other files. `dryrun.read_rollout`, the reading try prints."""

from __future__ import annotations

import shlex
from pathlib import Path

from cowork_judge.install import dryrun

TRAJECTORY = '{"schema_version": "ATIF-v1.4", "session_id": "r", "steps": []}\n'


def _solution(root: Path, solve: str, files: dict[str, str]) -> Path:
    solution = root / "task" / "solution"
    solution.mkdir(parents=True)
    (root / "task" / "task.toml").write_text('version = "1.0"\n')
    (solution / "solve.sh").write_text(solve)
    for name, text in files.items():
        (solution / name).write_text(text)
    return solution


def test_the_deck_solve_sh_copies_is_named_with_the_copy_that_makes_output(tmp_path):
    solve = "#!/bin/bash\nmkdir -p /app/output\ncp /solution/good.pptx /app/output/ && cp /solution/trajectory.json /logs/agent/\n"
    solution = _solution(tmp_path, solve, {"good.pptx": "deck", "notes.md": "scratch", "trajectory.json": TRAJECTORY})
    misread = dryrun.read_rollout(solution).misread
    output = solution / "output"
    assert misread.endswith(f"is tried with: --rollout {output} --trajectory {solution / 'trajectory.json'}, once "
                            f"copied there: mkdir -p {shlex.quote(str(output))} && cp "
                            f"{shlex.quote(str(solution / 'good.pptx'))} {shlex.quote(str(output))}/"), misread
    assert "<the folder" not in misread, misread


def test_without_a_copy_in_solve_sh_the_files_beside_it_are_named(tmp_path):
    solution = _solution(tmp_path, "#!/bin/bash\necho hi\n", {"deck.pptx": "d", "trajectory.json": TRAJECTORY})
    misread = dryrun.read_rollout(solution).misread
    assert f"&& cp {shlex.quote(str(solution / 'deck.pptx'))} " in misread and "<the folder" not in misread, misread


def test_with_no_file_beside_solve_sh_the_line_says_where_the_deliverables_go(tmp_path):
    solution = _solution(tmp_path, "#!/bin/bash\necho hi\n", {"trajectory.json": TRAJECTORY})
    misread = dryrun.read_rollout(solution).misread
    assert misread.endswith(f"--trajectory {solution / 'trajectory.json'}, once the reference deliverables are in "
                            f"{solution / 'output'}/ (solve.sh copying them, step 6)"), misread


def test_a_chat_answer_beside_other_files_names_them(tmp_path):
    solve = "#!/bin/bash\ncp /solution/final_answer.txt /logs/agent/final_answer.txt\ncp /solution/table.csv /app/output/\n"
    solution = _solution(tmp_path, solve, {"final_answer.txt": "Take 500 mg.\n", "table.csv": "a,b\n"})
    misread = dryrun.read_rollout(solution).misread
    assert f"--final-message {solution / 'final_answer.txt'} (and --rollout {solution / 'output'} for the files once " \
           f"copied there: mkdir -p" in misread and "<the folder" not in misread, misread
