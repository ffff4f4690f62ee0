"""Trial 18 P-3 and P-6 for ``cowork-judge init`` and ``cowork-judge try``, through the real CLI in a
subprocess started inside the task's folders (``.``/``..`` arguments).

P-3: a ``rubric.json`` saved in the task folder instead of ``tests/``: init says so, with the ``mv``, instead of
"no readable tests/rubric.json yet". P-6: ``try .`` inside ``tests/`` is told it stands in the tests folder and
named ``..`` (it used to read ``Path(".").name`` as no tests folder and say tests/test.sh was missing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from install.test_init import harbor_init
from install.test_init_trial17 import RUBRIC


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PWD": str(cwd)})


def _task(tmp_path: Path) -> Path:
    task = harbor_init(tmp_path)
    (task / "instruction.md").write_text("Explain X.\n")
    (task / "tests" / "task_prompt.md").write_text("Explain X.\n")
    return task


def test_init_names_a_rubric_saved_one_folder_too_high(tmp_path):
    task = _task(tmp_path)
    (task / "rubric.json").write_text(RUBRIC)  # the mistake: not task/tests/rubric.json
    for arg, cwd in ((task.name, task.parent), (".", task), ("..", task / "tests")):
        proc = cli("init", arg, "--force", cwd=cwd)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        line = next(x for x in proc.stdout.splitlines() if x.startswith("extras:"))
        assert "no readable tests/rubric.json yet" not in line
        assert f"a rubric.json sits one folder too high: move it (`mv {task}/rubric.json {task}/tests/`" in line, line


def test_init_without_any_rubric_still_says_none_yet(tmp_path):
    task = _task(tmp_path)
    proc = cli("init", ".", cwd=task)
    assert proc.returncode == 0 and "extras: none (no readable tests/rubric.json yet" in proc.stdout, proc.stderr


def test_try_dot_inside_tests_names_the_task_folder_above(tmp_path):
    task = _task(tmp_path)
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    assert cli("init", ".", cwd=task).returncode == 0
    proc = cli("try", ".", "--final-message", "X is explained.", cwd=task / "tests")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert ". is a task's tests/ folder, not the task folder: did you mean ..? (`cowork-judge try .. …`)" in proc.stderr
    assert "test.sh: missing" not in proc.stderr
