"""The three rules that make a run systemic (`core.coverage.account`, docs/scoring.md
"Systemic failure"): the share of unjudged rows, a cut run, and an outage that applied a
negative row under ``JUDGE_UNJUDGED_NEGATIVE=deduct`` (trial 14 F2, F9)."""

from __future__ import annotations

import pytest

from cowork_judge.core.coverage import account
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict

HIT = Verdict(id="", hit=True, judged=True)


def _rows(*extra: dict[str, object]) -> tuple:
    base = [{"id": "P1", "description": "x", "weight": 1}, {"id": "P2", "description": "y", "weight": 3}]
    return tuple(normalize_rubric({"rubrics": [*base, *extra]}).criteria)


def _verdicts(criteria: tuple, unjudged: dict[str, str]) -> dict[str, Verdict]:
    return {c.id: (Verdict.unjudged(c.id, unjudged[c.id], "r") if c.id in unjudged else HIT.model_copy(update={"id": c.id}))
            for c in criteria}


@pytest.mark.parametrize("kind", ["interrupted", "deadline"])
def test_one_row_cut_is_systemic_whatever_the_count(kind):
    crit = _rows()
    report = account(crit, _verdicts(crit, {"P2": kind}), ScoringPolicy())
    assert report.systemic and report.exit_code == "judge:timeout"
    assert report.exit_reason == f"systemic judge failure: 1 of 2 rows not judged ({kind})"


def test_one_flaky_positive_row_stays_below_the_floor():
    crit = _rows({"id": "P3", "description": "z", "weight": 1})
    report = account(crit, _verdicts(crit, {"P2": "api_error"}), ScoringPolicy())
    assert not report.systemic and report.exit_code is None and report.degraded


@pytest.mark.parametrize("row", [{"id": "H", "description": "h", "weight": 0, "hurdle": True},
                                 {"id": "H", "description": "d", "weight": -1}], ids=["hurdle", "deduction"])
@pytest.mark.parametrize("kind,code", [("api_error", "judge:api_error"), ("timeout", "judge:timeout"),
                                       ("rate_limit", "judge:api_error")])
def test_an_outage_that_applied_a_negative_row_is_systemic(row, kind, code):
    crit = _rows(row)
    report = account(crit, _verdicts(crit, {"H": kind}), ScoringPolicy())
    assert report.systemic and report.exit_code == code
    assert report.exit_reason == (f"systemic judge failure: 1 of 3 rows not judged ({kind}): the judge's failure "
                                  "applied 1 negative row(s) (H) under JUDGE_UNJUDGED_NEGATIVE=deduct")


@pytest.mark.parametrize("kind", ["code_error", "delivery_unreadable", "request_rejected", "parse_error", "not_applicable"])
def test_a_content_caused_negative_row_stays_below_the_floor(kind):
    """A deliverable that breaks the judge must not escape its penalties — and is no outage."""
    crit = _rows({"id": "H", "description": "h", "weight": 0, "hurdle": True})
    report = account(crit, _verdicts(crit, {"H": kind}), ScoringPolicy())
    assert not report.systemic and report.exit_code is None


def test_ignore_applies_nothing_so_an_outage_row_is_not_systemic():
    crit = _rows({"id": "H", "description": "h", "weight": 0, "hurdle": True})
    report = account(crit, _verdicts(crit, {"H": "api_error"}), ScoringPolicy(unjudged_negative="ignore"))
    assert not report.systemic and report.exit_code is None


def test_a_document_of_the_old_rule_refolds_without_a_repeated_reason():
    """`rescore` of a cut run written before trial 14 (no ``systemic …`` prefix, no exit_code): the
    run's own note is recovered once, and the document becomes systemic under today's rule."""
    from cowork_judge.core.fold import RunFacts, RunIdentity, fold, stored_run

    ident = RunIdentity(metric_id="m", requested_version="0.1.0", version_source="injection", judge_backend="openai",
                        judge_model="x")
    crit = _rows()
    note = "the judge was stopped by SIGTERM"
    doc = fold(crit, _verdicts(crit, {"P2": "interrupted"}), ScoringPolicy(), RunFacts(identity=ident, exit_note=note))
    assert doc.exit_reason == f"systemic judge failure: 1 of 2 rows not judged (interrupted); {note}"
    old = doc.model_copy(update={"exit_code": None, "status": "success",
                                 "exit_reason": f"1 of 2 rows not judged (interrupted); {note}"})
    again = fold(*stored_run(old))
    assert (again.exit_code, again.exit_reason) == (doc.exit_code, doc.exit_reason)


@pytest.mark.parametrize("kind", ["code_missing", "workflow_missing", "dep_missing", "asset_broken", "render_env"])
def test_a_task_fault_that_applied_a_negative_row_is_systemic(kind):
    """A hurdle on a misspelt code method (or a broken workflow asset, no renderer…) is unjudged for every rollout
    of the task; under ``deduct`` it zeroed them all with ``status: success``. The task's fault, not the rollout's:
    systemic, ``judge:scorer_error``."""
    crit = _rows({"id": "H", "description": "h", "weight": 0, "hurdle": True})
    report = account(crit, _verdicts(crit, {"H": kind}), ScoringPolicy())
    assert report.systemic and report.exit_code == "judge:scorer_error"
    assert "applied 1 negative row(s) (H)" in (report.exit_reason or "")


def _mixed() -> tuple:
    return tuple(normalize_rubric({"rubrics": [
        {"id": "C1", "description": "c", "weight": 1, "judge_method": "code", "code_method_name": "file_exists"},
        {"id": "C2", "description": "c", "weight": 1, "judge_method": "code", "code_method_name": "file_exists"},
        {"id": "C3", "description": "c", "weight": 1, "judge_method": "code", "code_method_name": "file_exists"},
        {"id": "A1", "description": "a", "weight": 3}, {"id": "A2", "description": "a", "weight": 2}]}).criteria)


def test_an_endpoint_that_answered_no_row_is_systemic_below_the_share():
    """Trial 15 P-10: a mistyped JUDGE_BASE_URL left 2 of 5 rows (71 % of the weight) unjudged api_error; 2/5 is not
    above the 0.4 share, so the run was status success with the code rows' reward. No model answered: systemic."""
    crit = _mixed()
    report = account(crit, _verdicts(crit, {"A1": "api_error", "A2": "api_error"}), ScoringPolicy())
    assert report.systemic and report.exit_code == "judge:api_error"
    assert "the endpoint answered none" in (report.exit_reason or "")


def test_one_model_row_answered_keeps_the_share_rule():
    crit = _mixed()
    report = account(crit, _verdicts(crit, {"A1": "api_error"}), ScoringPolicy())
    assert not report.systemic and report.degraded
    task_fault = account(crit, _verdicts(crit, {"A1": "workflow_missing", "A2": "workflow_missing"}), ScoringPolicy())
    assert not task_fault.systemic  # not an endpoint outage nor a rubric fault: rule 1 decides (2 of 5 is not above 0.4)


@pytest.mark.parametrize("kind", ["code_missing", "code_params", "dep_missing"])
@pytest.mark.parametrize("unjudged_negative", ["deduct", "ignore"])
def test_a_rubric_fault_on_one_positive_row_is_systemic(kind, unjudged_negative):
    """Trial 19 P-4: a row the rubric itself makes unjudgeable (an unknown method, parameters its method refuses, a
    dangling depends_on) lowers every rollout's reward alike, a positive row too: systemic whatever the policy."""
    crit = _mixed()
    report = account(crit, _verdicts(crit, {"C2": kind}), ScoringPolicy(unjudged_negative=unjudged_negative))
    assert report.systemic and report.exit_code == "judge:scorer_error"
    assert "the rubric cannot be judged as written: 1 row(s) (C2)" in (report.exit_reason or "")
    content = account(crit, _verdicts(crit, {"C2": "code_error"}), ScoringPolicy(unjudged_negative=unjudged_negative))
    assert not content.systemic and content.degraded  # the method raised on this rollout's files: as before
