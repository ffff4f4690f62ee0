"""Trial 43 P-1 through the real CLI in a subprocess: ``init t/tests`` (a task's tests/ folder given as the task)
says what ``try t/tests`` says, with the paths as typed (it led with "…/t/tests/task.toml not found" and absolute
paths)."""

from __future__ import annotations

from install.test_given_paths_trial18 import _task, cli


def test_init_given_the_tests_folder_names_the_task_as_typed(tmp_path):
    task = _task(tmp_path)
    given = f"{task.name}/tests"
    proc = cli("init", given, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    want = f"{given} is a task's tests/ folder, not the task folder: did you mean {task.name}? " \
           f"(`cowork-judge init {task.name}`)"
    assert want in proc.stderr, proc.stderr
    assert "not found" not in proc.stderr and str(tmp_path) not in proc.stderr, proc.stderr
    assert not (task / "tests" / "tests").exists()
