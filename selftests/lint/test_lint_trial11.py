"""Issue 39, trial 11: what lint says matches what the run does.

F2: lint R008 said "a hurdle row turns off the equal-weight fallback" for a rubric with no hurdle row (its only
row a deduction, weight -1); the run's refusal was right. Both now give the one reason (`unscorable_reason`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.commands.lint import main

SRC = Path(__file__).resolve().parents[2] / "src"

DEDUCTION = {"id": "A", "description": "The answer is wrong.", "weight": -1}
HURDLE = {"id": "H-EMPTY", "description": "The deliverable is missing.", "weight": 0, "hurdle": True}


def _r008(tmp_path: Path, rows: list[dict[str, object]], capsys: pytest.CaptureFixture[str]) -> str:
    tests = tmp_path / "t" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    assert main([str(tests), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    found = [f["message"] for f in doc["instances"][0]["findings"] if f["code"] == "R008"]
    assert len(found) == 1, doc
    return str(found[0])


def _run_reason(tmp_path: Path) -> str:
    """The run's exit_reason on the rubric written by `_r008` (a real `cowork-judge run`; no model call)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    env.update(PYTHONPATH=str(SRC), JUDGE_START_JITTER="0", JUDGE_EVIDENCE="0")
    app, logs = tmp_path / "app", tmp_path / "logs"
    (app / "output").mkdir(parents=True)
    (logs / "agent").mkdir(parents=True)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                           "--tests-dir", str(tmp_path / "t" / "tests")], env=env, capture_output=True, text=True, timeout=120)
    doc = json.loads((logs / "verifier" / "result.json").read_text())
    assert doc["exit_code"] == "judge:scorer_error", proc.stderr
    return str(doc["exit_reason"])


def test_r008_on_only_deductions_names_the_deductions_not_a_hurdle(tmp_path, capsys):
    message = _r008(tmp_path, [DEDUCTION], capsys)
    assert "hurdle" not in message
    assert "every row is a deduction (negative weight), so the equal-weight fallback has no weight-0 row" in message
    reason = _run_reason(tmp_path)
    assert "every row is a deduction (negative weight)" in reason and "hurdle" not in reason


def test_r008_with_a_hurdle_names_that_hurdle_row(tmp_path, capsys):
    message = _r008(tmp_path, [HURDLE, DEDUCTION, {"id": "Z", "description": "The deck has a title.", "weight": 0}], capsys)
    assert "a hurdle row (H-EMPTY) turns off the equal-weight fallback" in message
