"""Issue 39, trial 3: what ``lint-rubric`` lets through that the verifier then gets wrong. Real
``python -m cowork_judge lint`` child processes on a copy of this repository's example task.

- an invalid value of a setting that changes the verdicts or the reward (``JUDGE_REWARD_MODE = "binry"``,
  ``JUDGE_GUARD = "penalise"``) in ``[verifier.env]`` is the ERROR T012 (batch refuses it), not a WARN (M4);
- a symbolic link in tests/ that leaves the task folder (try and Docker copy it as a dangling link) is the
  ERROR T013 naming the link and its target (M3).
"""

from __future__ import annotations

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
