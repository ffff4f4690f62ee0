"""Trial 14 F17: a row with ``"type": "binary"`` AND a ``levels`` table is scored by hit alone
(the judge's level 0.5 earned full credit) and neither the run nor lint said a word. The run now
warns in ``details.warnings`` and ``lint-rubric`` reports R025, both naming the scale used. A real
``cowork-judge lint`` and a real ``cowork-judge run`` against the simulator over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from testkit import EXAMPLE_TESTS, ROLLOUTS

LEVELS = {"0": "no", "0.5": "partly", "1": "yes"}
ROWS = [
    {"id": "G2", "description": "The answer explains wavelength.", "weight": 1, "levels": LEVELS},
    {"id": "G3", "description": "The answer explains sunsets.", "weight": 1, "type": "binary", "levels": LEVELS},
]


def _tests(root: Path) -> Path:
    tests = root / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
    (tests / "judge_instruction.md").write_text((EXAMPLE_TESTS / "judge_instruction.md").read_text())
    return tests


def test_lint_reports_r025_on_a_binary_row_with_levels(tmp_path):
    tests = _tests(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests.parent)], capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    r025 = [line for line in proc.stdout.splitlines() if " R025 " in line]
    assert len(r025) == 1, proc.stdout
    assert "row 'G3'" in r025[0] and "scores it as binary" in r025[0] and "levels are ignored" in r025[0], r025
    assert not any(" R009 " in line and "G3" in line for line in proc.stdout.splitlines()), proc.stdout  # said once


def test_the_run_warns_which_scale_it_used(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path), ROLLOUTS / "chat",
                    oracle={"G2": {"hit": True, "level": 0.5}, "G3": {"hit": True, "level": 0.5}})
    assert run.returncode == 0, run.stderr
    v = run.verdicts
    assert v["G2"]["level"] == 0.5 and v["G3"]["contribution"] == pytest.approx(1.0)  # the scale is unchanged
    warnings = [w for w in run.doc["details"]["warnings"] if "'G3'" in w]
    assert len(warnings) == 1, run.doc["details"]["warnings"]
    assert '"type": "binary" with a level table' in warnings[0] and "by hit alone" in warnings[0], warnings
