"""Trial 44 P-3 through the real CLI in a subprocess: a folder deeper inside a task than ``solution/``
(``<task>/solution/output``, the reference deliverables) is refused by ``gen-ppt-rubrics`` with the "did you mean
<task>?" that ``<task>/solution`` gets (it wrote ``rubric.json`` and a ``workflow_assets/`` folder among the
deliverables, exit 0), and ``init``, ``try`` and ``lint-rubric`` name the task the same way."""

from __future__ import annotations

from install.test_given_paths_trial18 import _task, cli
from install.test_init_trial17 import RUBRIC


def _deck_solution(tmp_path):
    task = _task(tmp_path)
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    output = task / "solution" / "output"
    output.mkdir(parents=True)
    (output / "deck.pptx").write_bytes(b"PK\x03\x04 not really a deck")
    return task, output


def test_gen_ppt_rubrics_in_solution_output_names_the_task_and_writes_nothing(tmp_path):
    task, output = _deck_solution(tmp_path)
    given = f"{task.name}/solution/output"
    gen = cli("gen-ppt-rubrics", given, cwd=task.parent)
    assert gen.returncode == 2, gen.stdout + gen.stderr
    assert f"{given} is a task's solution/output/ folder, not its tests/: did you mean {task.name}? (nothing written)" in gen.stderr
    assert sorted(p.name for p in output.iterdir()) == ["deck.pptx"]  # no rubric.json, no workflow_assets/
    inside = cli("gen-ppt-rubrics", ".", cwd=output)
    assert inside.returncode == 2 and "did you mean ../..?" in inside.stderr, inside.stderr
    assert sorted(p.name for p in output.iterdir()) == ["deck.pptx"]


def test_init_try_and_lint_name_the_task_of_a_deeper_folder(tmp_path):
    task, _ = _deck_solution(tmp_path)
    given = f"{task.name}/solution/output"
    for command in (("init", given), ("try", given, "--final-message", "X is explained.")):
        proc = cli(*command, cwd=task.parent)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert f"{given} is a task's solution/output/ folder, not the task folder: did you mean {task.name}?" in proc.stderr
    lint = cli("lint", given, cwd=task.parent)
    assert lint.returncode != 0 and f"P001: a task's solution/output/ folder, not its tests/: did you mean {task.name}?" in lint.stdout
