"""Trial 10 F1: a `depends_on` id naming no row is a rubric fault the fleet can mask, not a
clean judged miss: the row is unjudged ``dep_missing`` (as an unknown code method is
``code_missing``), so coverage drops; since trial 19 P-4 a rubric fault on any row makes the run systemic
(``judge:scorer_error``, exit 1): it lowers every rollout's reward alike. A real `cowork-judge run` against the
simulator over HTTP."""

from __future__ import annotations

import json
import shutil

from testkit import EXAMPLE_TESTS, ROLLOUTS


def test_a_dangling_dependency_leaves_the_row_unjudged_dep_missing(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    rubric = {"rubrics": [
        {"id": "A", "description": "names the Rayleigh criterion", "weight": 1, "depends_on": ["NOPE"]},
        {"id": "B", "description": "answers the question", "weight": 1},
        {"id": "C-NEG", "description": "states a falsehood", "weight": -1, "depends_on": ["NOPE"]},
    ]}
    (tests / "rubric.json").write_text(json.dumps(rubric))
    shutil.copy(EXAMPLE_TESTS / "judge_instruction.md", tests)
    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}, "B": {"hit": True}, "C-NEG": {"hit": False}})
    assert run.returncode == 1, run.stderr
    assert (run.doc["status"], run.doc["exit_code"]) == ("error", "judge:scorer_error"), run.doc["exit_reason"]
    v = run.verdicts
    assert v["A"]["judged"] is False and v["A"]["error_kind"] == "dep_missing", v["A"]
    assert "NOPE" in v["A"]["reason"] and v["A"]["gate"] == "closed"
    assert v["B"]["judged"] and v["B"]["hit"] is True
    assert v["C-NEG"]["judged"] and v["C-NEG"]["hit"] is False  # a deduction ignores gates: judged as before
    asked = {i for e in run.sim.log.entries() for i in e.row_ids}
    assert "A" not in asked
    ef = run.doc["extra_fields"]
    assert ef["judge_coverage"] < 1.0 and ef["judge_degraded"] is True, ef
