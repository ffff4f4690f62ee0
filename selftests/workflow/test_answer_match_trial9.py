"""Trial 9 F8/F9: answer_match decides by code only what code can be sure of. The real command line against
the simulator (one seam: HTTP); a row the model reads costs one request, a code decision none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.workflow.answer_match.decide import code_decision
from cowork_judge.workflow.answer_match.rows import answer_row

ENV = {"JUDGE_WORKFLOW_START_JITTER": "0"}


def _instance(root: Path, reference: str, message: str) -> tuple[Path, Path]:
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [answer_row("ANSWER", reference, weight=1)]}, ensure_ascii=False))
    (tests / "task_prompt.md").write_text("# Task\n\nWhat is the answer?\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(message, encoding="utf-8")
    return tests, rollout


@pytest.mark.parametrize(("reference", "message"), [
    ("9.81 m/s^2", "Answer: 9,807 m/s^2"),  # standard gravity written with a decimal comma
    ("3 km", "Answer: 2,999 km"),
])
def test_a_lone_three_digit_comma_group_is_not_decided_by_code(judge_run, tmp_path, reference, message):
    """F8: "9,807" is 9.807 (decimal comma) or 9807 (thousands); the readings disagree on the verdict, so the
    model reads it (here: the oracle says correct) instead of code scoring a correct answer 0."""
    tests, rollout = _instance(tmp_path, reference, message)
    run = judge_run(tests, rollout, oracle={"ANSWER": {"hit": True, "level": 1}}, env=ENV)
    assert run.returncode == 0, run.stderr
    assert run.model_requests == 1, run.verdicts["ANSWER"]["reason"]
    assert run.reward == 1.0


@pytest.mark.parametrize(("reference", "answer", "level"), [
    ("9807 N", "Answer: 9,807.0 N", 1.0),       # a decimal point after the group: thousands, unambiguous
    ("12345678", "Answer: 12,345,678", 1.0),    # several groups: thousands
    ("3 km", "Answer: 2,500 km", 0.0),          # 2500 km or 2.5 km: wrong either way, still code
    ("1500 m", "Answer: 1500 m", 1.0),
    ("1,500 m", "Answer: 1500 m", 1.0),         # the reference (the author's text) reads a group as thousands
])
def test_unambiguous_commas_stay_code_decisions(reference, answer, level):
    decision = code_decision([reference], answer, 0.05)
    assert decision is not None and decision.level == level, decision


def test_ambiguous_comma_is_left_to_the_model_without_a_run():
    assert code_decision(["9.81 m/s^2"], "Answer: 9,807 m/s^2", 0.05) is None
    assert code_decision(["9807 m/s^2"], "Answer: 9,807 m/s^2", 0.05) is None


@pytest.mark.parametrize("message", [
    "Final answer: 3 km\nThat was wrong. The correct distance is 7 km.\n",
    "\\boxed{3 km} but I am not sure, maybe 50 km",
])
def test_a_retraction_after_the_final_answer_sends_the_row_to_the_model(judge_run, tmp_path, message):
    """F9: text after the last marked answer that states another quantity of the same dimension contradicts it:
    code is not sure which one counts, so the model reads it all (here: the oracle says incorrect)."""
    tests, rollout = _instance(tmp_path, "3 km", message)
    run = judge_run(tests, rollout, oracle={"ANSWER": {"hit": False, "level": 0}}, env=ENV)
    assert run.returncode == 0, run.stderr
    assert run.model_requests == 1, run.verdicts["ANSWER"]["reason"]
    assert run.reward == 0.0


@pytest.mark.parametrize("message", [
    "Final answer: 3 km\nThat is 3000 m, as expected.",          # the same quantity again
    "Final answer: 3 km\nIt took 2 hours and 4 steps.",           # other dimensions, bare numbers
    "\\boxed{3 km}",
    "The distance is 1.5 km + 1.5 km.\nFinal answer: 3 km",      # quantities before the marker
])
def test_text_after_the_answer_without_a_rival_quantity_stays_code(message):
    decision = code_decision(["3 km"], message, 0.05)
    assert decision is not None and decision.level == 1.0, decision
