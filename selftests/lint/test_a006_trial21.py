"""Trial 21 P-3 (lint side): a chat task's ``solution/solve.sh`` that writes the answer to ``/logs/agent/answer.txt``
(a name the judge never reads) passed ``lint-rubric``: A006 accepted any mention of ``logs/agent``. A006 now wants one
of the names the judge reads (`core.layout.MESSAGE_NAMES`) and names the file solve.sh writes instead (a real
``python -m cowork_judge lint`` over a real task folder)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from install.test_try_trial4 import chat_task

MISNAMED = "#!/bin/bash\nmkdir -p /logs/agent && cp /solution/answer.txt /logs/agent/answer.txt\n"


def _lint(task: Path) -> list[str]:
    """The A006 lines ``lint-rubric`` prints for `task`."""
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return [line for line in proc.stdout.splitlines() if "A006" in line]


def _task(root: Path, solve: str, **scripts: str) -> Path:
    task = chat_task(root)
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text(solve)
    (task / "solution" / "answer.txt").write_text("Take paracetamol 500 mg to 1 g every 4 to 6 hours.\n")
    for name, text in scripts.items():
        (task / "solution" / name.replace("_py", ".py")).write_text(text)
    return task


def test_a_solve_sh_writing_answer_txt_under_logs_agent_is_a006_naming_it(tmp_path):
    lines = _lint(_task(tmp_path, MISNAMED))
    assert len(lines) == 1 and "solution/solve.sh: WARN A006" in lines[0], lines
    line = lines[0]
    assert "writes /logs/agent/answer.txt, which the judge does not read" in line, line
    assert "/logs/agent/trajectory.json, final_answer.txt or response.txt" in line, line
    assert "write /logs/agent/final_answer.txt instead of /logs/agent/answer.txt" in line, line
    assert "never writes under /logs/agent" not in line, line


@pytest.mark.parametrize(("solve", "said"), [
    ("mkdir -p /logs/agent && cp /solution/answer.txt /logs/agent/\n", "writes /logs/agent/answer.txt,"),
    ("cp /solution/answer.txt /logs/agent/my_response.txt\n", "writes /logs/agent/my_response.txt,"),
    ('DIR=/logs/agent\nmkdir -p "$DIR"\nprintf \'%s\\n\' "$(cat /solution/answer.txt)" > "$DIR/answer.txt"\n',
     "names /logs/agent but no file the judge reads there"),
    ("mkdir -p /logs/agent/out\ncat /solution/answer.txt\n", "names /logs/agent but no file the judge reads there"),
    ("cat /solution/answer.txt\n", "never writes under /logs/agent"),
])
def test_a006_says_what_solve_sh_writes_under_logs_agent(tmp_path, solve, said):
    lines = _lint(_task(tmp_path, "#!/bin/bash\n" + solve))
    assert len(lines) == 1 and said in lines[0], lines


@pytest.mark.parametrize("solve", [
    "mkdir -p /logs/agent && cp /solution/answer.txt /logs/agent/final_answer.txt\n",
    "mkdir -p /logs/agent\ncat > /logs/agent/final_answer.txt <<'EOF'\nTake paracetamol 500 mg.\nEOF\n",
    "mkdir -p /logs/agent\ncat /solution/answer.txt | tee /logs/agent/final_answer.txt\n",
    'DIR=/logs/agent\nmkdir -p "$DIR"\nprintf \'%s\\n\' "$(cat /solution/answer.txt)" > "$DIR/final_answer.txt"\n',
    "mkdir -p /logs/agent\ncp /solution/answer.txt /logs/agent/response.txt\n",
    "mkdir -p /logs/agent && cp /solution/trajectory.json /logs/agent/\n",  # docs/harbor-task.md step 6
    "python3 /solution/solve.py\n",
])
def test_an_honest_solve_sh_is_clean(tmp_path, solve):
    solve_py = "open('/logs/agent/final_answer.txt', 'w').write(open('/solution/answer.txt').read())\n"
    assert _lint(_task(tmp_path, "#!/bin/bash\n" + solve, solve_py=solve_py)) == []
