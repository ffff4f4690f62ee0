"""Trial 43 P-3: A006's example fix for a chat solve.sh that only prints its answer (``cat
/solution/final_answer.txt``) named ``/solution/answer.txt``, a file the task does not hold, so pasting it gave A007.
The fix now copies the ``/solution/…`` file solve.sh prints, else an answer file beside solve.sh (a real
``python -m cowork_judge lint`` over a real task folder)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from install.test_try_trial4 import chat_task


def _lint_lines(task: Path) -> list[str]:
    """Every finding line ``lint`` prints for `task`."""
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.parametrize(("solve", "answer", "source"), [
    ("cat /solution/final_answer.txt\n", "final_answer.txt", "/solution/final_answer.txt"),  # the trial's shape
    ("echo 'Rayleigh scattering.'\n", "response.txt", "/solution/response.txt"),  # an answer file beside solve.sh
])
def test_a006_fix_copies_the_answer_file_the_solution_holds(tmp_path, solve, answer, source):
    task = chat_task(tmp_path)
    (task / "solution").mkdir()
    (task / "solution" / answer).write_text("Rayleigh scattering makes the sky blue.\n")
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n" + solve)
    found = [line for line in _lint_lines(task) if "A006" in line]
    assert len(found) == 1, found
    fix = re.search(r"e\.g\. `([^`]+)`", found[0])
    assert fix and fix.group(1) == f"mkdir -p /logs/agent && cp {source} /logs/agent/final_answer.txt", found
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n" + fix.group(1) + "\n")  # pasted as offered
    assert [line for line in _lint_lines(task) if "A006" in line or "A007" in line] == []
