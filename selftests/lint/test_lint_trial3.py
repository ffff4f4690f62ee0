"""Issue 39, trial 3: what ``lint-rubric`` lets through that the verifier then gets wrong. Real
``python -m cowork_judge lint`` child processes on a copy of this repository's example task.

- an invalid value of a setting that changes the verdicts or the reward (``JUDGE_REWARD_MODE = "binry"``,
  ``JUDGE_GUARD = "penalise"``) in ``[verifier.env]`` is the ERROR T012 (batch refuses it), not a WARN (M4);
- a symbolic link in tests/ that leaves the task folder (try and Docker copy it as a dangling link) is the
  ERROR T013 naming the link and its target (M3).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _task(root: Path) -> Path:
    shutil.copytree(REPO / "tests", root / "tests")
    shutil.copy2(REPO / "task.toml", root / "task.toml")
    return root


def _lint(task: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)


def _set_env(task: Path, name: str, value: str) -> None:
    toml = task / "task.toml"
    lines = [f'{name} = "{value}"' if line.startswith(f"{name} =") else line for line in toml.read_text().splitlines()]
    if not any(line.startswith(f"{name} =") for line in lines):
        lines.append(f'{name} = "{value}"')
    toml.write_text("\n".join(lines) + "\n")


def test_an_invalid_reward_changing_setting_is_an_error_and_another_stays_a_warning(tmp_path):
    task = _task(tmp_path / "task")
    _set_env(task, "JUDGE_REWARD_MODE", "binry")
    _set_env(task, "JUDGE_GUARD", "penalise")
    _set_env(task, "JUDGE_CONCURRENCY", "two")  # how fast, not what: stays a WARN
    proc = _lint(task)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [line for line in proc.stdout.splitlines() if ": ERROR T012 " in line]
    assert any("JUDGE_REWARD_MODE" in line and "binry" in line for line in errors), proc.stdout
    assert any("JUDGE_GUARD" in line and "penalise" in line for line in errors), proc.stdout
    assert any(": WARN T007 " in line and "JUDGE_CONCURRENCY" in line
               for line in proc.stdout.splitlines()), proc.stdout
    assert "2 errors" in proc.stdout, proc.stdout


def test_a_rubric_json_linked_outside_the_task_is_an_error_naming_the_link_and_its_target(tmp_path):
    task = _task(tmp_path / "task")
    shared = tmp_path / "shared-rubric.json"
    (task / "tests" / "rubric.json").rename(shared)
    (task / "tests" / "rubric.json").symlink_to(shared)
    (task / "tests" / "notes.md").symlink_to("../../elsewhere.md")  # any file of tests/, dangling here too
    proc = _lint(task)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"tests/rubric.json: ERROR P003: a symbolic link to {shared}, outside tests/" in proc.stdout, proc.stdout
    assert "tests/notes.md: ERROR P003: a symbolic link to ../../elsewhere.md, outside tests/" in proc.stdout, proc.stdout


def test_a_link_inside_tests_is_no_finding(tmp_path):
    task = _task(tmp_path / "task")
    (task / "tests" / "copy.json").symlink_to("rubric.json")
    proc = _lint(task)
    assert "P003" not in proc.stdout and proc.returncode == 0, proc.stdout


def test_the_judge_names_a_dangling_rubric_link_and_its_target(tmp_path):
    app, tests = tmp_path / "app", tmp_path / "tests"
    (app / "output").mkdir(parents=True)
    tests.mkdir()
    (tests / "rubric.json").symlink_to("/nonexistent/shared-rubric.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--tests-dir", str(tests)],
                          capture_output=True, text=True, timeout=120, env={**env, "JUDGE_LOGS_DIR": str(tmp_path / "logs")})
    text = proc.stdout + proc.stderr + (tmp_path / "logs" / "verifier" / "result.json").read_text()
    assert (f"rubric file {tests / 'rubric.json'} is a symbolic link to /nonexistent/shared-rubric.json, which does "
            "not exist here") in text, text
    assert "rubric file not found" not in text
