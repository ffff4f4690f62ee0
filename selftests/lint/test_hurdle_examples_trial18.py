"""Trial 18 P-4: a hurdle worded as a negated requirement passed lint as soon as it listed examples of the
fault ("The deck has no placeholder text such as Lorem ipsum or TODO."): the fault word in the example list
was read as a violation cue. Examples (after such as / like / e.g. / for example / including, a parenthesis,
a quoted string) are no cues of their own when the sentence's head clause negates a fault; a violation that
lists examples stays clean."""

from __future__ import annotations

import json

import pytest
from lint.conftest import rows

from cowork_judge.commands.lint import main
from cowork_judge.lint.polarity import classify, head_clause

TRIAL = ["The deck has no placeholder text such as Lorem ipsum or TODO.",
         "The deck has no placeholder text (no 'Lorem ipsum', 'TODO' or 'Click to add title').",
         "The deck does not contain leftover placeholder text like Lorem ipsum.",
         "The essay contains no plagiarism, e.g. paragraphs copied from Wikipedia.",
         "The summary contains no fabricated figures, including invented percentages."]
STILL_VIOLATIONS = ["The deck contains placeholder text such as Lorem ipsum.",
                    "The chart has overlapping labels (e.g. the legend covers the axis title).",
                    "At least one slide displays a template placeholder such as 'Insert image here'.",
                    "The response includes irrelevant content such as recipes or sports scores.",
                    "The essay copies paragraphs from a source (e.g. Wikipedia) without attribution.",
                    "A slide shows 'Lorem ipsum'."]


@pytest.mark.parametrize("text", TRIAL)
def test_examples_of_a_negated_fault_are_not_violation_wording(text):
    assert classify(text) == "requirement"


@pytest.mark.parametrize("text", STILL_VIOLATIONS)
def test_a_violation_that_lists_examples_stays_a_violation(text):
    assert classify(text) == "violation"


def test_head_clause_drops_examples_and_quotes():
    assert head_clause("The deck has no placeholder text such as Lorem ipsum or TODO.").split() == \
        "The deck has no placeholder text .".split()
    assert "Lorem" not in head_clause("No slide text (no 'Lorem ipsum').")
    assert head_clause("The answer doesn't refuse.") == "The answer doesn't refuse."


def test_lint_flags_the_trial_hurdles(make_instance, capsys):
    hurdles = [{"id": f"H{n}", "description": text, "weight": 0, "hurdle": True}
               for n, text in enumerate(TRIAL[:3] + STILL_VIOLATIONS[:2])]
    tests = make_instance(rubric=rows(extra=hurdles))
    main([str(tests), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["instances"][0]["findings"]
    wording = {f["row"]: f["code"] for f in findings if f["code"] in ("R020", "R021")}
    assert wording == {"H0": "R020", "H1": "R020", "H2": "R020"}
