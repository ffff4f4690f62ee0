"""Trial 34 P-1: the hurdle "The answer does not claim the sky reflects the ocean." linted clean: "not" is a
violation cue and "claim" was no fault word, so the negation was read as the fault. The claim verbs of an
attributed assertion (trial 13: "the answer claims …" is a fault) are now fault words, so a negated one describes
the fault's absence: R021 on a hurdle, R027 on a deduction. A claim made, and the noun "claim", read as before."""

from __future__ import annotations

import json

import pytest
from lint.conftest import rows

from cowork_judge.commands.lint import main
from cowork_judge.lint.polarity import classify, negated_faults, reads_as_requirement

NEGATED = ["The answer does not claim the sky reflects the ocean.", "Never claims that vaccines cause autism.",
           "The report doesn't assert that revenue doubled.", "The summary does not allege misconduct by the CEO."]
MADE = ["The answer claims the sky reflects the ocean.", "The response falsely alleges the author was convicted.",
        "The answer does not cite a source and claims certainty."]


@pytest.mark.parametrize("text", NEGATED)
def test_a_negated_claim_reads_as_the_requirement(text):
    assert negated_faults(text) and reads_as_requirement(text), text


@pytest.mark.parametrize("text", MADE)
def test_a_claim_made_is_still_the_fault(text):
    assert classify(text) == "violation" and not reads_as_requirement(text), text


def test_lint_warns_r021_on_the_trials_hurdle_and_r027_on_such_a_deduction(make_instance, capsys):
    extra = [{"id": "H-OCEAN", "description": NEGATED[0], "weight": 0, "hurdle": True},
             {"id": "D-VACCINE", "description": NEGATED[1], "weight": -2},
             {"id": "H-MADE", "description": MADE[0], "weight": 0, "hurdle": True}]
    main([str(make_instance(rubric=rows(extra=extra))), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["instances"][0]["findings"]
    flagged = sorted((f["row"], f["code"]) for f in findings if f["code"] in ("R020", "R021", "R027"))
    assert flagged == [("D-VACCINE", "R027"), ("H-OCEAN", "R021")], flagged
