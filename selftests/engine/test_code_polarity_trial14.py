"""Trial 14 F8: a hurdle or a deduction judged by a code method whose hit means "the requirement
is met" (``locate_deck``, ``check_deck_openable``…) was read backwards: a good deck was fatal
(reward 0.0) and a rollout without a deck scored 1.0, status success, coverage 1.0, lint silent.

The run now refuses such a rubric the way it refuses any rubric it cannot score right
(``judge:scorer_error``, "bad rubric: …", no model call), and ``lint-rubric`` reports each row
as M007. A real ``cowork-judge run`` against the simulator over HTTP, and a real ``lint``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from testkit import deck, write_task

ROWS: list[dict[str, Any]] = [  # the trial's rubric, verbatim
    {"id": "A", "description": "The deliverable explains evaporation.", "weight": 1},
    {"id": "H-NO-DECK", "description": "No slide deck is delivered (the deck is missing).", "weight": 0, "hurdle": True,
     "judge_method": "code", "code_method_name": "locate_deck"},
    {"id": "D-NOT-OPEN", "description": "The deck does not open.", "weight": -1,
     "judge_method": "code", "code_method_name": "check_deck_openable"},
]


def _tests(root: Path, rows: list[dict[str, Any]]) -> Path:
    return write_task(root / "task", rows, "Make a deck about the water cycle; save it as .pptx in /app/output.\n") / "tests"


def _good_deck(app: Path) -> None:
    (app / "output").mkdir(parents=True)
    shutil.copy(deck("01__python-pptx__minimal.pptx"), app / "output" / "deck.pptx")


def _no_deck(app: Path) -> None:
    (app / "output").mkdir(parents=True)
    (app / "output" / "notes.md").write_text("Evaporation: the sun heats water and it rises as vapour.\n")


@pytest.mark.parametrize("rollout", [_good_deck, _no_deck], ids=["good-deck", "no-deck"])
def test_a_backwards_code_hurdle_and_deduction_refuse_the_rubric(judge_run, tmp_path, rollout):
    tests = _tests(tmp_path, ROWS)
    run = judge_run(tests, oracle={"A": {"hit": True}}, setup=lambda root: rollout(root / "app"))
    doc = run.doc
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error", (doc["status"], doc["exit_reason"])
    assert run.reward == 0.0 and doc["extra_fields"]["judge_coverage"] == 0.0
    reason = doc["exit_reason"]
    assert reason.startswith("bad rubric:"), reason
    assert "row 'H-NO-DECK': locate_deck hits when the requirement is met, but a hurdle" in reason
    assert "row 'D-NOT-OPEN': check_deck_openable hits when the requirement is met, but a deduction (weight -1)" in reason
    assert "Use a gate (depends_on) for a deliverable that must exist, or a positive row" in reason
    assert run.model_requests == 0  # refused before anything was judged


def test_found_methods_still_judge_negative_rows_and_positive_deck_rows_run(judge_run, tmp_path):
    """What stays allowed: a deduction on text_contains ("the answer contains X"), a hurdle on
    regex_match, and the deck methods on positive rows (the gate the fix points to)."""
    rows = [
        {"id": "C-DECK", "description": "A deck is delivered.", "weight": 1, "judge_method": "code",
         "code_method_name": "locate_deck"},
        {"id": "C-OPEN", "description": "The deck opens.", "weight": 1, "judge_method": "code",
         "code_method_name": "check_deck_openable", "depends_on": ["C-DECK"]},
        {"id": "D-LOREM", "description": "The notes contain lorem ipsum.", "weight": -1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "lorem ipsum"}},
        {"id": "H-SECRET", "description": "The notes leak an API key.", "weight": 0, "hurdle": True,
         "judge_method": "code", "code_method_name": "regex_match", "code_method_params": {"pattern": "sk-[A-Za-z0-9]{20,}"}},
    ]
    tests = _tests(tmp_path, rows)

    def setup(root: Path) -> None:
        _good_deck(root / "app")
        (root / "app" / "output" / "notes.md").write_text("Lorem ipsum dolor.\n")

    run = judge_run(tests, sim=False, setup=setup)
    doc = run.doc
    assert doc["status"] == "success" and doc["exit_code"] is None, doc["exit_reason"]
    v = run.verdicts
    assert v["C-DECK"]["hit"] is True and v["C-OPEN"]["hit"] is True
    assert v["D-LOREM"]["hit"] is True and v["H-SECRET"]["hit"] is False
    assert run.reward == pytest.approx(0.5)  # (1 + 1 − 1) / 2


def test_lint_reports_m007_on_each_backwards_row(tmp_path):
    tests = _tests(tmp_path, [*ROWS, {"id": "D-OCEAN", "description": "The answer says ocean.", "weight": -1,
                                      "judge_method": "code", "code_method_name": "text_contains",
                                      "code_method_params": {"text": "ocean"}}])
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests.parent)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    m007 = [line for line in proc.stdout.splitlines() if " M007 " in line]
    assert len(m007) == 2, proc.stdout
    assert "row 'H-NO-DECK' field hurdle: locate_deck hits when the requirement is met" in m007[0]
    assert "row 'D-NOT-OPEN' field weight: check_deck_openable hits when the requirement is met" in m007[1]
    assert all("use a gate (depends_on)" in line.lower() for line in m007)


def test_every_registered_method_says_what_its_hit_means():
    """The classification is on each registration, so a new method cannot be added without one."""
    from cowork_judge.code_methods import CODE_METHODS, registration

    kinds = {name: registration(name).hit_kind for name in CODE_METHODS}  # type: ignore[union-attr]
    assert {n for n, k in kinds.items() if k == "found"} == {"text_contains", "regex_match", "tool_called"}
    assert set(kinds.values()) == {"found", "requirement_met"}
