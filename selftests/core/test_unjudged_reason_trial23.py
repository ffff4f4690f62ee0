"""Trial 23 P-2: the coverage's reason counts every kind of the unjudged rows, the cause (the run's
``judge_error_kind``, the kind that chose the exit code) first, then the most frequent
(`core.coverage.unjudged_phrase`); one kind stays named alone. A document written before names one kind
for rows of several, and `rescore` recovers the run's own note from it once (`core.fold.stored_run`)."""

from __future__ import annotations

from cowork_judge.core.coverage import account
from cowork_judge.core.fold import RunFacts, RunIdentity, fold, stored_run
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict


def _rows(n: int) -> tuple:
    return tuple(normalize_rubric({"rubrics": [{"id": f"R{i}", "description": "x", "weight": 1} for i in range(n)]}).criteria)


def _verdicts(criteria: tuple, kinds: list[str]) -> dict[str, Verdict]:
    """The first ``len(kinds)`` rows unjudged with those kinds, the rest judged and hit."""
    return {c.id: (Verdict.unjudged(c.id, kinds[i], "r") if i < len(kinds) else Verdict(id=c.id, hit=True, judged=True))
            for i, c in enumerate(criteria)}


def test_a_cascade_counts_the_gate_and_the_rows_behind_it():
    crit = _rows(7)
    report = account(crit, _verdicts(crit, ["code_error"] + ["dep_unjudged"] * 4), ScoringPolicy())
    assert report.error_kind == "code_error" and report.exit_code == "judge:scorer_error"
    assert report.exit_reason == "systemic judge failure: 5 of 7 rows not judged (code_error 1, dep_unjudged 4)"
    assert report.unjudged_reason == "5 of 7 rows not judged (code_error 1, dep_unjudged 4)"


def test_the_cause_comes_first_then_the_most_frequent_then_by_name():
    crit = _rows(20)
    kinds = ["dep_unjudged"] * 3 + ["timeout", "api_error", "api_error", "rate_limit", "rate_limit"]
    report = account(crit, _verdicts(crit, kinds), ScoringPolicy())
    assert report.error_kind == "api_error"  # ties broken by name; dep_unjudged is never the cause beside another
    assert report.unjudged_reason == "8 of 20 rows not judged (api_error 2, dep_unjudged 3, rate_limit 2, timeout 1)"


def test_a_degraded_run_counts_its_kinds_too():
    crit = _rows(10)
    report = account(crit, _verdicts(crit, ["code_error", "dep_unjudged"]), ScoringPolicy())
    assert not report.systemic and report.exit_code is None
    assert report.exit_reason == "2 of 10 rows not judged (code_error 1, dep_unjudged 1)"


def test_one_kind_is_named_alone():
    crit = _rows(4)
    report = account(crit, _verdicts(crit, ["code_error"]), ScoringPolicy())
    assert report.exit_reason == "1 of 4 rows not judged (code_error)" and report.former_reasons == ()


def test_a_document_that_named_one_kind_refolds_without_a_repeated_reason():
    ident = RunIdentity(metric_id="m", requested_version="0.1.0", version_source="injection", judge_backend="openai",
                        judge_model="x")
    crit = _rows(7)
    note = "the judge was stopped by SIGTERM"
    doc = fold(crit, _verdicts(crit, ["code_error"] + ["dep_unjudged"] * 4), ScoringPolicy(),
               RunFacts(identity=ident, exit_note=note))
    today = "systemic judge failure: 5 of 7 rows not judged (code_error 1, dep_unjudged 4)"
    assert doc.exit_reason == f"{today}; {note}"
    old = doc.model_copy(update={"exit_reason": f"systemic judge failure: 5 of 7 rows not judged (code_error); {note}"})
    assert fold(*stored_run(old)).exit_reason == f"{today}; {note}"
    plain = doc.model_copy(update={"exit_reason": "systemic judge failure: 5 of 7 rows not judged (code_error)"})
    assert fold(*stored_run(plain)).exit_reason == today
