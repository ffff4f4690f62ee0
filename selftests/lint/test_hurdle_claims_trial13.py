"""Trial 13 L1: R021 ("no violation wording found") warned on a hurdle worded as a claim the answer makes —
"The answer claims the bridge is 5 km long" describes the fault (that claim, made), so it is a violation.
The verb is read, not the word: "claim" the noun ("supports each claim with a source") is still no cue."""

from __future__ import annotations

import json

import pytest
from lint.conftest import rows

from cowork_judge.commands.lint import main
from cowork_judge.lint.polarity import classify

CLAIMS = ["The answer claims the bridge is 5 km long.", "The response claims that ibuprofen cures the flu.",
          "Claims the study was peer reviewed when it was a preprint.", "The report asserts that the 2023 revenue was $12M.",
          "The agent claims to have run the test suite.", "The answer falsely alleges the author was convicted."]
NOT_CLAIMS = ["The report supports each claim with a source.", "The response's claims are backed by citations.",
              "The summary lists the claims made in the paper.", "The answer states the bridge's length in kilometres."]


@pytest.mark.parametrize("text", CLAIMS)
def test_a_claim_the_answer_makes_is_a_violation(text):
    assert classify(text) == "violation"


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_the_noun_claim_is_no_violation_cue(text):
    assert classify(text) != "violation"


def test_lint_no_longer_warns_r021_on_a_claims_hurdle(make_instance, capsys):
    hurdles = [{"id": f"H{n}", "description": text, "weight": 0, "hurdle": True}
               for n, text in enumerate([CLAIMS[0], "Does not claim the bridge is 5 km long.", NOT_CLAIMS[0]])]
    tests = make_instance(rubric=rows(extra=hurdles))
    main([str(tests), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["instances"][0]["findings"]
    # H1 "Does not claim …" negates the claim, the fault: R021 since trial 34 P-1 (test_negated_claims_trial34)
    assert sorted(f["row"] for f in findings if f["code"] in ("R020", "R021")) == ["H1", "H2"]
