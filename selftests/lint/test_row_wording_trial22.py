"""Trial 22 P-1: a row whose weight contradicts its wording linted clean. "The answer claims that light
travels instantly" with weight 2 (a forgotten minus sign) paid the wrong answer 0.5 instead of 0; a
deduction worded as the requirement deducted from the right answer; a weight-0 row that is no hurdle and
no gate was judged and never scored. Lint now WARNs R026 / R027 / R028 (a real ``cowork-judge lint`` in a
subprocess). Also the trial's note: ``lint-rubric .`` from the folder of several tasks names
``lint-rubric --batch .`` (which works)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from testkit import EXAMPLE_TESTS

HONEST = [
    {"id": "A-EXPLAIN", "description": "The answer explains the calculation: the Sun-Earth distance divided by the "
                                       "speed of light.", "weight": 2},
    {"id": "A-NO-ASPIRIN", "description": "The answer does not recommend aspirin for a child.", "weight": 1},
    {"id": "A-CLIPPED", "description": "Nothing on the slide is clipped or cut off.", "weight": 1},
    {"id": "D-WRONG", "description": "The answer claims that light takes a year to arrive.", "weight": -2},
    {"id": "H-REFUSES", "description": "The answer refuses to answer.", "weight": 0, "hurdle": True},
    {"id": "G-ON-TOPIC", "description": "The answer is about sunlight.", "weight": 0},
    {"id": "A-GATED", "description": "The answer gives the time in minutes.", "weight": 1, "depends_on": ["G-ON-TOPIC"]},
]
REVERSED = [
    {"id": "A-EXPLAIN", "description": "The answer explains the calculation.", "weight": 2},
    {"id": "D-INSTANT", "description": "The answer claims that light travels instantly or takes no time.", "weight": 2},
    {"id": "H-PLACEHOLDER", "description": "A slide still shows placeholder text such as 'Click to add title'.",
     "weight": 2},
    {"id": "D-CORRECT", "description": "The answer states the correct travel time of about 8 minutes.", "weight": -2},
    {"id": "D-FREE", "description": "The answer is free of factual errors.", "weight": -1},
    {"id": "A-DEAD", "description": "The answer mentions the Sun's distance.", "weight": 0},
    {"id": "C-CODE", "description": "The answer claims to have run a script.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "script", "source": "response"}},
]


def _lint(root: Path, rows: list[dict[str, object]]) -> list[str]:
    tests = root / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "judge_instruction.md").write_text((EXAMPLE_TESTS / "judge_instruction.md").read_text())
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests.parent)], capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return [line for line in proc.stdout.splitlines() if any(f" {c} " in line for c in ("R026", "R027", "R028"))]


def test_reversed_rows_are_warned_with_row_and_fix(tmp_path):
    lines = _lint(tmp_path, REVERSED)
    by_row = {line.split("row '")[1].split("'")[0]: line for line in lines}
    assert set(by_row) == {"D-INSTANT", "H-PLACEHOLDER", "D-CORRECT", "D-FREE", "A-DEAD"}, lines  # not the code row
    assert "WARN R026" in by_row["D-INSTANT"] and "'answer claims'" in by_row["D-INSTANT"], lines
    assert "negative weight" in by_row["D-INSTANT"] and '"hurdle": true' in by_row["D-INSTANT"], lines
    assert "WARN R026" in by_row["H-PLACEHOLDER"] and "'placeholder'" in by_row["H-PLACEHOLDER"], lines
    assert "WARN R027" in by_row["D-CORRECT"] and "WARN R027" in by_row["D-FREE"], lines
    assert "WARN R028" in by_row["A-DEAD"] and "never moves the score" in by_row["A-DEAD"], lines


def test_honest_rows_stay_clean(tmp_path):
    assert _lint(tmp_path, HONEST) == []


def test_weight_zero_rows_count_under_the_equal_weight_fallback(tmp_path):
    rows = [{"id": "A", "description": "The answer explains the calculation.", "weight": 0},
            {"id": "B", "description": "The answer gives the time in minutes.", "weight": 0}]
    assert _lint(tmp_path, rows) == []  # R016 says it; every row scores


def test_lint_dot_in_a_folder_of_tasks_names_batch(tmp_path):
    for name in ("task-a", "task-b"):
        shutil.copytree(EXAMPLE_TESTS, tmp_path / name / "tests")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", "."], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    r001 = [line for line in proc.stdout.splitlines() if " R001:" in line]
    assert len(r001) == 1 and "holds task folders (task-a, task-b)" in r001[0], proc.stdout
    assert "`lint-rubric --batch .`" in r001[0], proc.stdout
    batch = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", "--batch", "."], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert "Traceback" not in batch.stderr and "2 instances in 1 family" in batch.stdout, batch.stdout + batch.stderr
    assert " R001:" not in batch.stdout and "task-a/tests/test.sh" in batch.stdout, batch.stdout  # each task linted


def test_fault_reading_is_the_main_clause_without_negation():
    from cowork_judge.lint.polarity import fault_cues, main_clause

    assert main_clause("A slide still shows placeholder text such as 'TODO'.") == "A slide still shows placeholder text"
    assert fault_cues("The summary omits the main conclusion.") == ["omits"]
    assert fault_cues("Notes that vasopressin is no longer recommended.") == []  # the cue is after "that"
    assert fault_cues("The dataset should load, with clear error handling.") == []  # after the comma
    assert fault_cues("Nothing on the slide is clipped or cut off.") == []  # a negated fault: an absence rewarded
    assert fault_cues("The answer does not recommend aspirin.") == []


def test_blind_set_figures_are_pinned():
    """The figures docs/lint-rubric.md quotes (bench/lint.py --polarity): 12 of 16, 8 of 10 (7 before trial 34 P-1
    read a negated claim verb as a negated fault)."""
    from cowork_judge.lint.polarity import fault_cues, reads_as_requirement

    blind = json.loads((Path(__file__).resolve().parents[2] / "bench/polarity/blind_trial22.json").read_text())
    assert sum(bool(fault_cues(t)) for t in blind["fault_positive"]) == 12
    assert sum(reads_as_requirement(t) for t in blind["requirement_deduction"]) == 8
