"""Trial 27 P-3: lint A006 passed any chat solve.sh that merely MENTIONED ``final_answer.txt`` — ``cat
/solution/final_answer.txt`` (prints only) or ``cp /solution/final_answer.txt /logs/agent/answer.txt`` (writes another
name). A006 now wants a write of a judged name under ``/logs/agent`` (a real ``python -m cowork_judge lint`` over a
real task folder whose reference answer is ``solution/final_answer.txt``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.test_a006_trial21 import _lint
from install.test_try_trial4 import chat_task

def _task(root: Path, solve: str) -> Path:
    task = chat_task(root)
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n" + solve)
    (task / "solution" / "final_answer.txt").write_text("Take paracetamol 500 mg to 1 g every 4 to 6 hours.\n")
    return task


@pytest.mark.parametrize(("solve", "said"), [
    ("cat /solution/final_answer.txt\n", "never writes under /logs/agent"),
    ("mkdir -p /logs/agent; cp /solution/final_answer.txt /logs/agent/answer.txt\n",
     "writes /logs/agent/answer.txt, which the judge does not read"),
    ("mkdir -p /logs/agent && cat /solution/final_answer.txt   # final_answer.txt\n",
     "names /logs/agent but no file the judge reads there"),
    ('DIR=/tmp\nprintf \'%s\\n\' "$(cat /solution/final_answer.txt)" > "$DIR/final_answer.txt"\n',
     "never writes under /logs/agent"),
])
def test_a_solve_sh_that_only_mentions_final_answer_txt_is_a006(tmp_path, solve, said):
    lines = _lint(_task(tmp_path, solve))
    assert len(lines) == 1 and "solution/solve.sh: WARN A006" in lines[0] and said in lines[0], lines


@pytest.mark.parametrize("solve", [
    "mkdir -p /logs/agent && cp /solution/final_answer.txt /logs/agent/final_answer.txt\n",  # harbor-task.md step 6
    "mkdir -p /logs/agent\ncat > /logs/agent/final_answer.txt <<'EOF'\nTake paracetamol 500 mg.\nEOF\n",
    "mkdir -p /logs/agent && cp /solution/final_answer.txt /logs/agent/\n",
    "mkdir -p /logs/agent\ncat /solution/final_answer.txt | tee /logs/agent/final_answer.txt\n",
    'OUT="/logs/agent"\nmkdir -p "$OUT"\ncp /solution/final_answer.txt "${OUT}/response.txt"\n',
    "mkdir -p /logs/agent && cd /logs/agent && cat /solution/final_answer.txt > final_answer.txt\n",
])
def test_a_solve_sh_that_writes_a_judged_name_under_logs_agent_is_clean(tmp_path, solve):
    assert _lint(_task(tmp_path, solve)) == []

