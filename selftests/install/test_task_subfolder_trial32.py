"""Trial 32 P-1 and P-4 through the real CLI in a subprocess.

P-1: inside a task's ``solution/`` folder (any folder whose parent holds task.toml, as ``tests/`` already was),
``try .``, ``init .``, ``lint-rubric .`` and ``gen-ppt-rubrics .`` say "did you mean ..?" (they used to send the
author to ``init .``, then to ``harbor init``, and lint reported R001/S001). P-4: ``init`` and ``try`` given the
rubric file name the task folder they take, not its ``tests/`` (which they then refused)."""

from __future__ import annotations

from install.test_given_paths_trial18 import _task, cli
from install.test_init_trial17 import RUBRIC


def _ready(tmp_path):
    task = _task(tmp_path)
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    assert cli("init", ".", cwd=task).returncode == 0
    (task / "solution").mkdir(exist_ok=True)
    return task


def test_all_four_commands_inside_solution_name_the_task_folder(tmp_path):
    task = _ready(tmp_path)
    here = task / "solution"
    tried = cli("try", ".", "--final-message", "X is explained.", cwd=here)
    assert tried.returncode == 2, tried.stdout + tried.stderr
    assert ". is a task's solution/ folder, not the task folder: did you mean ..?" in tried.stderr
    assert "init ." not in tried.stderr
    init = cli("init", ".", cwd=here)
    assert init.returncode == 2 and ". is a task's solution/ folder, not the task folder: did you mean ..?" in init.stderr, init.stderr
    assert "harbor init" not in init.stderr and not (here / "tests").exists()
    lint = cli("lint", ".", cwd=here)
    assert lint.returncode != 0 and "P001: a task's solution/ folder, not its tests/: did you mean ..?" in lint.stdout
    assert "R001" not in lint.stdout and "S001" not in lint.stdout
    gen = cli("gen-ppt-rubrics", ".", cwd=here)
    assert gen.returncode == 2 and ". is a task's solution/ folder, not its tests/: did you mean ..?" in gen.stderr
    assert not (here / "rubric.json").exists()


def test_init_and_try_given_the_rubric_file_name_the_task_folder(tmp_path):
    task = _ready(tmp_path)
    given = f"{task.name}/tests/rubric.json"
    for command in (("init", given), ("try", given, "--final-message", "X is explained.")):
        proc = cli(*command, cwd=task.parent)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"{given} is the rubric file, not a folder: did you mean the task folder {task.name}?" in proc.stderr
        assert "its folder" not in proc.stderr
