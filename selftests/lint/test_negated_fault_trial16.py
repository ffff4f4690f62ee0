"""Trial 16 P-8: a hurdle worded as a negated requirement ("does not refuse", "without refusing", "no slide
contains placeholder text", "contains no factual errors") passed lint clean because any negation counted as
violation wording. A negation of a FAULT word describes the fault's absence — what a good deliverable looks
like — so a literal judge answers hit=true on the best work: at least R021. A negation of a good thing
("does not cite any source", "no title slide") is still a violation, and so is a missing action on a fault
("does not mention the error")."""

from __future__ import annotations

import json

import pytest
from lint.conftest import rows

from cowork_judge.commands.lint import main
from cowork_judge.lint.polarity import classify, negated_faults

TRIAL = ["The answer does not refuse and gives a clear recommendation.",
         "The answer gives a recommendation without refusing.",
         "No slide contains placeholder text.",
         "The deck contains no factual errors about solar costs."]
STILL_VIOLATIONS = ["The answer does not cite any source.", "No reference list is given.", "The deck has no title slide.",
                    "The report does not mention the error in the figures.", "The script does not fix the bug.",
                    "The assistant refuses to answer.", "The report is not complete and has errors."]
# "Does not claim the bridge is 5 km long." was listed here; since trial 34 P-1 a negated claim verb is a negated fault
# (the absence of the fault "claims …"), so such a hurdle reads as the requirement (R021): test_negated_claims_trial34.


@pytest.mark.parametrize("text", TRIAL)
def test_a_negated_fault_is_not_violation_wording(text):
    assert negated_faults(text)
    assert classify(text) != "violation"


@pytest.mark.parametrize("text", STILL_VIOLATIONS)
def test_a_negated_good_thing_is_still_a_violation(text):
    assert classify(text) == "violation"


def test_lint_flags_the_trial_hurdles(make_instance, capsys):
    hurdles = [{"id": f"H{n}", "description": text, "weight": 0, "hurdle": True}
               for n, text in enumerate(TRIAL + STILL_VIOLATIONS[:3])]
    tests = make_instance(rubric=rows(extra=hurdles))
    main([str(tests), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["instances"][0]["findings"]
    wording = {f["row"]: f for f in findings if f["code"] in ("R020", "R021")}
    assert sorted(wording) == ["H0", "H1", "H2", "H3"]
    assert {row: f["code"] for row, f in wording.items()} == {"H0": "R021", "H1": "R021", "H2": "R020", "H3": "R020"}
    assert "'not refuse' negates a fault" in wording["H0"]["message"]
    assert "'no factual errors' negates a fault" in wording["H3"]["message"]
