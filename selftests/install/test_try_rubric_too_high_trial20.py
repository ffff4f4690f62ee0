"""`try` on a task whose rubric.json was saved one folder too high names the `mv`, as init and lint do
(trial 20 P-6)."""

from __future__ import annotations

from pathlib import Path

from install.test_given_paths_trial18 import _task, cli
from install.test_init_trial17 import RUBRIC


def test_try_names_the_mv_for_a_rubric_one_folder_too_high(tmp_path: Path) -> None:
    task = _task(tmp_path)
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    assert cli("init", task.name, "--force", cwd=task.parent).returncode == 0
    (task / "tests" / "rubric.json").rename(task / "rubric.json")  # the mistake
    (tmp_path / "a.txt").write_text("4\n")
    proc = cli("try", task.name, "--final-message", str(tmp_path / "a.txt"), cwd=task.parent)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    assert f"a rubric.json sits one folder too high: move it (`mv {task.name}/rubric.json {task.name}/tests/`" in out, out
