"""Trial 41 P-5 and P-6: a file in a task's ``tests/`` one slip off its name. P-5: the rubric saved as
``tests/rubrics.json``: ``init``, ``lint-rubric`` (R001) and ``try`` said "write it" / "not found" / "missing"
without naming the file beside it; now each names it with the ``mv``. P-6: the judge instruction saved as
``tests/judge-instruction.md``: the run silently used the built-in default and A002 listed the accepted names only;
now the run warns (``details.warnings``, the reward unchanged) and A002 names the file. All through the real CLI
(`python -m cowork_judge init/lint-rubric/try/run`, the simulator for the run), `_util.given_paths.near_file`."""

from __future__ import annotations

from pathlib import Path

from install.test_given_paths_trial18 import cli as _cli
from install.test_init import harbor_init
from install.test_init_trial17 import RUBRIC
from testkit import lint_stdout, write_task


def _rubrics_json_task(tmp_path: Path) -> Path:
    task = harbor_init(tmp_path)
    (task / "instruction.md").write_text("Explain X.\n")
    (task / "tests" / "task_prompt.md").write_text("Explain X.\n")
    (task / "tests" / "rubrics.json").write_text(RUBRIC)  # the slip: not tests/rubric.json
    return task


def test_init_lint_and_try_name_tests_rubrics_json(tmp_path):
    task = _rubrics_json_task(tmp_path)
    t = task.name
    mv = f"did you mean to name it rubric.json? (`mv {t}/tests/rubrics.json {t}/tests/rubric.json`)"
    init = _cli("init", t, cwd=tmp_path)
    assert init.returncode == 0, init.stdout + init.stderr
    (extras,) = [x for x in init.stdout.splitlines() if x.startswith("extras:")]
    said = f"tests/rubric.json is missing, but {task}/tests/rubrics.json sits beside it, spelled alike: did you mean to name"
    assert f"{said} it rubric.json? (`mv {task}/tests/rubrics.json {task}/tests/rubric.json`)" in extras, extras
    lint = _cli("lint", t, cwd=tmp_path)  # the lint-rubric command
    (r001,) = [x for x in lint.stdout.splitlines() if " R001:" in x]
    assert "not found" in r001 and r001.endswith(mv), r001
    (tmp_path / "a.txt").write_text("X is explained.\n")
    tried = _cli("try", t, "--final-message", "a.txt", cwd=tmp_path)
    assert tried.returncode == 2, tried.stdout + tried.stderr
    assert f"{t}/tests/rubric.json: missing, but {t}/tests/rubrics.json sits beside it" in tried.stderr, tried.stderr
    assert mv in tried.stderr


PROMPT = "A customer asks for a refund of an order that arrived broken. Answer them.\n"
ROWS = [{"id": "A-REFUND", "description": "The answer offers a refund.", "weight": 1}]


def _hyphen_instruction(tmp_path: Path) -> Path:
    task = write_task(tmp_path / "chat", ROWS, PROMPT, instruction=PROMPT)
    (task / "tests" / "judge-instruction.md").write_text("Be strict about refunds.\n")  # the slip: a hyphen
    return task


def test_lint_a002_names_judge_hyphen_instruction(tmp_path):
    task = _hyphen_instruction(tmp_path)
    (a002,) = [x for x in lint_stdout(task).splitlines() if " A002:" in x]
    assert "judge-instruction.md is spelled alike but not read: did you mean to name it judge_instruction.md?" in a002
    assert "task_prompt.md" not in a002, a002  # the judge's copy of the task is no slip for judge_prompt.md


def test_the_run_warns_about_judge_hyphen_instruction_and_keeps_the_reward(judge_run, tmp_path):
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("We will refund the order in full.\n")
    run = judge_run(_hyphen_instruction(tmp_path) / "tests", rollout, oracle={"A-REFUND": {"hit": True}})
    assert run.returncode == 0, run.stderr
    assert run.doc["details"]["instruction_source"] == "built-in" and run.doc["reward"] == 1.0, run.doc
    said = [w for w in run.doc["details"]["warnings"] if w.startswith("instruction: ")]
    assert len(said) == 1 and "judge-instruction.md is not read" in said[0], run.doc["details"]["warnings"]
    assert "did you mean to name it judge_instruction.md? (rename the task's tests/judge-instruction.md" in said[0]
