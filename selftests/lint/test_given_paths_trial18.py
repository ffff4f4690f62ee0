"""Trial 18 P-6 and P-3, through the real ``lint-rubric`` in a subprocess.

P-6: ``lint-rubric .`` (or ``lint-rubric rubric.json``) run inside a task's ``tests/`` finds ``../task.toml``
and ``../instruction.md`` as ``lint-rubric <task>/tests`` does: no false T010, the task-level checks run, and
the findings name the files relative to where the author stands.
P-3: a ``rubric.json`` saved in the task folder instead of ``tests/`` is an ERROR R001 naming the ``mv`` that
fixes it, not a task folder linted as if it were ``tests/`` with "0 errors"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def lint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real CLI (``python -m cowork_judge lint``) run in `cwd`, as a shell would start it there."""
    return subprocess.run([sys.executable, "-m", "cowork_judge", "lint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PWD": str(cwd)})


@pytest.mark.parametrize("arg", [".", "rubric.json", "./", "../tests"])
def test_lint_inside_tests_finds_the_task_toml_beside_it(make_instance, arg):
    tests = make_instance()
    proc = lint(arg, cwd=tests)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "T010" not in proc.stdout and "0 errors, 0 warnings" in proc.stdout


def test_lint_dot_runs_the_task_level_checks_and_names_files_from_where_it_stands(make_instance):
    tests = make_instance()
    (tests.parent / "instruction.md").write_text("Write a short story.\n", encoding="utf-8")  # drifted: A005
    proc = lint(".", "--format", "json", cwd=tests)
    found = {f["code"]: f for f in json.loads(proc.stdout)["instances"][0]["findings"]}
    assert set(found) == {"A005"}, found
    assert "differs from ../instruction.md" in found["A005"]["message"]
    assert "`cp ../instruction.md ./task_prompt.md`" in found["A005"]["message"]
    from_above = lint("tests", "--format", "json", cwd=tests.parent)
    assert [f["code"] for f in json.loads(from_above.stdout)["instances"][0]["findings"]] == ["A005"]


def test_a_missing_task_toml_inside_tests_is_named_one_folder_up(make_instance):
    tests = make_instance(toml=None)
    proc = lint(".", cwd=tests)
    assert "../task.toml: WARN T010" in proc.stdout, proc.stdout


def test_a_rubric_one_folder_too_high_is_an_error_with_the_move(make_instance):
    tests = make_instance()
    task = tests.parent
    (tests / "rubric.json").rename(task / "rubric.json")
    proc = lint(task.name, cwd=task.parent)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{task.name} is a task folder: linting {task.name}/tests" in proc.stderr
    assert f"{task.name}/tests/rubric.json: ERROR R001: cannot be read: not found" in proc.stdout
    assert f"`mv {task.name}/rubric.json {task.name}/tests/rubric.json`" in proc.stdout
    assert "S001" not in proc.stdout and "T010" not in proc.stdout  # the present files are not called missing
    inside = lint(".", cwd=tests)
    assert inside.returncode == 1 and "`mv ../rubric.json ./rubric.json`" in inside.stdout, inside.stdout


def test_a_rubric_in_both_places_names_no_move(make_instance):
    tests = make_instance()
    (tests.parent / "rubric.json").write_text((tests / "rubric.json").read_text())
    proc = lint(tests.parent.name, cwd=tests.parent.parent)
    assert proc.returncode == 0 and "mv " not in proc.stdout, proc.stdout
    assert f"{tests.parent.name} is a task folder: linting {tests.parent.name}/tests" in proc.stderr


def test_lint_init_try_and_gen_word_the_move_alike(make_instance):
    """One wording of the hint (`install.taskinit.rubric_too_high`): lint, init, try and gen-ppt-rubrics each say
    "a rubric.json sits one folder too high: move it (`mv …`; Harbor copies only tests/ into the verifier)", with
    the paths in their own words (lint: relative to what was typed; the others: the task path as given)."""
    tests = make_instance()
    task = tests.parent
    (tests / "rubric.json").rename(task / "rubric.json")
    said = "a rubric.json sits one folder too high: move it (`mv {}/rubric.json {}`; Harbor copies only tests/ into the verifier)"
    assert said.format(task.name, f"{task.name}/tests/rubric.json") in lint(task.name, cwd=task.parent).stdout
    for command in (["init", task.name, "--force"], ["try", task.name, "--final-message", "x"],
                    ["gen-ppt-rubrics", task.name, "--gate", "C-DECK"]):
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", *command], cwd=task.parent, capture_output=True,
                              text=True, timeout=120, env={**os.environ, "PWD": str(task.parent)})
        shown = str(task) if command[0] == "init" else task.name  # init names the task folder absolute
        assert said.format(shown, f"{shown}/tests/") in proc.stdout + proc.stderr, (command, proc.stdout + proc.stderr)
        assert (task / "rubric.json").is_file() and not (tests / "rubric.json").exists()
