"""Trial 39 P-4: ``cowork-judge run --tests-dir`` given the task folder (as init, try and lint take it) or a typo
ended ``bad rubric: rubric file not found: …`` with no hint, where every other command says "did you mean". The
error now names the ``tests/`` that holds the rubric. The real CLI in a child process; the run is still an error
(``judge:scorer_error``: no rubric was read), never a score."""

from __future__ import annotations

import json
from pathlib import Path

from testkit import run_cli, verifier_result

ROWS = [{"id": "C1", "description": "a file", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
         "code_method_params": {"glob": "*"}}]


def _task(tmp_path: Path) -> tuple[Path, Path, Path]:
    task, app, logs = tmp_path / "deck-task", tmp_path / "app", tmp_path / "logs"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": ROWS}), encoding="utf-8")
    (app / "output").mkdir(parents=True)
    (logs / "agent").mkdir(parents=True)
    return task, app, logs


def test_the_task_folder_as_tests_dir_names_its_tests(tmp_path):
    task, app, logs = _task(tmp_path)
    proc = run_cli(app, logs, task)
    doc = verifier_result(logs)
    assert proc.returncode == 1 and doc["exit_code"] == "judge:scorer_error", proc.stderr
    assert f"did you mean --tests-dir {task / 'tests'}? ({task} is the task folder)" in doc["exit_reason"]


def test_a_mistyped_tests_dir_gets_did_you_mean(tmp_path):
    task, app, logs = _task(tmp_path)
    proc = run_cli(app, logs, task / "test")
    assert proc.returncode == 1
    assert f"--tests-dir {task / 'test'} does not exist: did you mean {task / 'tests'}?" in verifier_result(logs)["exit_reason"]


def test_a_tests_dir_with_its_rubric_says_nothing_new(tmp_path):
    task, app, logs = _task(tmp_path)
    (task / "tests" / "rubric.json").write_text("{not json", encoding="utf-8")  # a bad rubric where it belongs
    run_cli(app, logs, task / "tests")
    assert "did you mean" not in verifier_result(logs)["exit_reason"]
