"""Trial 35 (lint side), through the real ``python -m cowork_judge lint`` over real task folders.

- P-3: a misspelt ``"hurdel": true`` or ``"depend_on"`` leaves no hurdle / no gate (the engine keeps the field as
  data), and lint said so only as WARN R009, exit 0. A misspelt field that decides the score or the route is now
  ERROR R029 (exit 1); other misspelt fields stay R009.
- P-6: a solve.sh copying ``/solution/good.pptx`` while the deck is ``solution/output/good.pptx`` passed lint
  silently (deck task; and a chat task's ``cp /solution/answer.txt`` beside ``solution/final_answer.txt``). It is
  now WARN A007, naming the file of that name or suffix that ``solution/`` holds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import rows


def _lint(target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(target)], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("n", "key", "typo", "known"), [
    (1, "hurdle", "hurdel", "hurdle"),
    (2, "depends_on", "depend_on", "depends_on"),
    (2, "weight", "wieght", "weight"),
])
def test_a_misspelt_key_that_decides_the_score_is_an_error(make_instance, n, key, typo, known):
    changed = rows()
    changed[n][typo] = changed[n].pop(key)
    proc = _lint(make_instance(rubric=changed))
    said = [line for line in proc.stdout.splitlines() if "R029" in line]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert len(said) == 1 and "ERROR R029" in said[0] and f"unknown field {typo!r}" in said[0], proc.stdout
    assert f"did you mean {known!r}?" in said[0] and "decides the score or the route" in said[0]


def test_other_misspelt_keys_stay_a_warning(make_instance):
    proc = _lint(make_instance(rubric=rows((2, {"criterion_typ": "x"}))))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARN R009" in proc.stdout and "did you mean 'criterion_type'?" in proc.stdout and "R029" not in proc.stdout


def _with_solution(tests: Path, solve: str, files: dict[str, str]) -> Path:
    solution = tests.parent / "solution"
    for name, text in files.items():
        (solution / name).parent.mkdir(parents=True, exist_ok=True)
        (solution / name).write_text(text)
    (solution / "solve.sh").write_text("#!/bin/bash\n" + solve)
    return tests


def test_a_deck_solve_sh_copying_from_a_missing_path_is_a007(make_instance):
    tests = _with_solution(make_instance(), "cp /solution/good.pptx /app/output/\n", {"output/good.pptx": "deck"})
    proc = _lint(tests)
    said = [line for line in proc.stdout.splitlines() if "A007" in line]
    assert proc.returncode == 0 and len(said) == 1, proc.stdout + proc.stderr
    assert "solution/solve.sh: WARN A007" in said[0] and "line 2: solve.sh copies /solution/good.pptx" in said[0]
    assert "(it holds output/good.pptx)" in said[0] and "harbor run -a oracle" in said[0]


def test_a_solve_sh_copying_a_missing_answer_names_the_one_held(make_instance):
    solve = "mkdir -p /logs/agent && cp /solution/answer.txt /logs/agent/final_answer.txt\n"
    proc = _lint(_with_solution(make_instance(), solve, {"final_answer.txt": "42\n"}))
    said = [line for line in proc.stdout.splitlines() if "A007" in line]
    assert len(said) == 1 and "copies /solution/answer.txt" in said[0] and "(it holds final_answer.txt)" in said[0]


@pytest.mark.parametrize("solve", [
    "mkdir -p /app/output && cp /solution/output/good.pptx /app/output/\n",
    "cp -r /solution/output/. /app/output/\n",
    'cp "$SRC/good.pptx" /app/output/\n',  # a variable: not read
    "cp /solution/*.pptx /app/output/\n",  # a glob: not read
    "# cp /solution/old.pptx /app/output/\n",
])
def test_a_solve_sh_copying_what_solution_holds_is_clean(make_instance, solve):
    proc = _lint(_with_solution(make_instance(), solve, {"output/good.pptx": "deck"}))
    assert "A007" not in proc.stdout, proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr
