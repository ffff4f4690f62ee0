"""Trial 17 P-10: spelled-out units ("8.3 minutes", "499 seconds") are numbers with units, decided
by code with no model call; a word is a unit only right after a number (prose stays prose)."""

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
    rubric = [answer_row("ANSWER", reference, weight=1, rel_tol=0.05)]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}))
    (tests / "task_prompt.md").write_text("How long does sunlight take to reach Earth? Answer in your final message.\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(message, encoding="utf-8")
    return tests, rollout


@pytest.mark.parametrize(("reference", "message", "reward"), [
    ("8.3 minutes", "Final answer: 499 seconds", 1.0),   # the trial's case: 498 s vs 499 s, within 5 %
    ("8.3 minutes", "Final answer: 499 s", 1.0),
    ("8.3 min", "Final answer: 499 seconds", 1.0),
    ("8.3 minutes", "Final answer: 8 seconds", 0.0),     # a code miss, not the simulator's word overlap
])
def test_spelled_out_units_are_decided_by_code_in_the_real_run(judge_run, tmp_path, reference, message, reward):
    tests, rollout = _instance(tmp_path, reference, message)
    run = judge_run(tests, rollout, oracle={"ANSWER#a": {"hit": True, "level": 1}}, env=ENV)
    assert run.returncode == 0, run.stderr
    assert run.model_requests == 0 and run.doc["extra_fields"]["judge_calls"] == 0, run.verdicts
    assert run.verdicts["ANSWER"]["reason"].startswith("[code, no model call]")
    assert run.reward == reward


@pytest.mark.parametrize(("reference", "response", "level"), [
    ("3 kilometres", "Final answer: 3000 m", 1.0),
    ("3 Kilometers", "Final answer: 2.5 km", 0.0),
    ("2.5 hours", "Final answer: 150 minutes", 1.0),
    ("12 percent", "Final answer: 12%", 1.0),
    ("12 per cent", "Final answer: 15 percent", 0.0),
    ("4.2 litres", "Final answer: 4200 millilitres", 1.0),
    ("4.2 liters", "Final answer: 4.2 L", 1.0),
    ("6 feet", "Final answer: 72 inches", 1.0),
    ("2 amperes", "Final answer: 2000 mA", 1.0),
    ("1 atmosphere", "Final answer: 101.3 kilopascals", 1.0),
    ("10 NEWTONS", "Final answer: 10 N", 1.0),
])
def test_unit_names_convert_like_their_symbols(reference, response, level):
    got = code_decision([reference], response, 0.05)
    assert got is not None and got.level == level, (reference, response, got)


@pytest.mark.parametrize(("reference", "response"), [
    ("8.3 minutes", "Final answer: it took minutes"),
    ("5 seconds", "Final answer: a few seconds"),
    ("30 seconds", "Final answer: 30 seconds later the ball lands"),
    ("2 hours", "Final answer: 2 hours or so, maybe 3"),
    ("7 minutes", "Final answer: 7 minutes and 30 seconds"),
    ("5 pounds", "Final answer: 2.27 kg"),            # pound: mass, force or money: left to the model
    ("8.3 furlongs", "Final answer: 8.3 furlongs"),   # not a known unit
])
def test_prose_and_unknown_words_stay_with_the_model(reference, response):
    assert code_decision([reference], response, 0.05) is None


def test_a_rival_in_unit_words_after_the_final_answer_goes_to_the_model():
    # the retraction rule (trial 9 F9) now sees "150 metres" as a length that disagrees
    assert code_decision(["100 m"], "Final answer: 100 m\nActually the correct distance is 150 metres.", 0.05) is None
    same = code_decision(["100 m"], "Final answer: 100 m\nThat is 0.1 kilometres.", 0.05)  # the same length restated
    assert same is not None and same.level == 1.0
