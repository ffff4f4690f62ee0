"""The one fold: every path's document comes from `fold`, the last-resort template agrees
with it, and a written document folds back to itself (the parity `rescore` rests on)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS

from cowork_judge.core.legacy import with_legacy_fields
from cowork_judge.core.fold import RunFacts, RunFailure, RunIdentity, all_unjudged, fallback_document, fold, stored_run
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict
from cowork_judge.config.judge_config import JudgeConfig

ID = RunIdentity(metric_id="m", requested_version="0.1.0", version_source="injection", judge_backend="openai", judge_model="x")
ROWS = normalize_rubric([
    {"id": "A", "description": "a", "weight": 3},
    {"id": "B", "description": "b", "weight": 1, "depends_on": ["A"]},
    {"id": "N", "description": "a fault", "weight": -1},
    {"id": "G", "description": "graded", "weight": 2, "levels": {"0": "none", "0.5": "half", "1": "all"}},
]).criteria


def without_timing(doc: ResultDocument) -> dict:
    data = doc.model_dump(mode="json", by_alias=True)
    data["extra_fields"]["judge_seconds"] = None
    return data


def test_the_fallback_template_is_the_folded_failure_document():
    """The stdlib-only writer fills a packaged template; the template IS fold's document."""
    packaged = json.loads(resources.files("cowork_judge").joinpath("schemas/fallback-result.json").read_text())
    folded = with_legacy_fields(fallback_document(JudgeConfig().identity()).model_dump(mode="json", by_alias=True))
    assert packaged == folded, "regenerate: cowork-judge schema --fallback-template > src/cowork_judge/schemas/fallback-result.json"


def test_a_row_without_a_verdict_is_unjudged_no_verdict_not_an_api_error():
    doc = fold(ROWS, {"A": Verdict(id="A", hit=True, judged=True)}, ScoringPolicy(), RunFacts(identity=ID))
    missing = {r.id: r.error_kind for r in doc.results if not r.judged}
    assert missing == {"B": "no_verdict", "N": "no_verdict", "G": "no_verdict"}
    assert doc.extra_fields.judge_error_kind == "no_verdict" and doc.exit_code == "judge:scorer_error"


def test_failed_and_skipped_runs_have_no_score():
    failed = fold(ROWS, all_unjudged(ROWS, "no_credential", "no key"), ScoringPolicy(),
                  RunFacts(identity=ID, failure=RunFailure(exit_code="judge:no_credential", exit_reason="no key")))
    assert (failed.status, failed.task_score, failed.score_raw, failed.exit_reason) == ("error", 0.0, None, "no key")
    assert failed.extra_fields.judge_error_kind == "no_credential" and failed.extra_fields.judge_degraded
    skipped = fold((), {}, ScoringPolicy(), RunFacts(identity=ID, skipped=True, exit_note="JUDGE_SKIP is set"))
    assert (skipped.status, skipped.task_score, skipped.exit_reason) == ("skipped", None, "JUDGE_SKIP is set")
    assert skipped.extra_fields.judge_coverage == 0.0 and not skipped.extra_fields.judge_degraded


@pytest.mark.parametrize("note", [None, "nothing delivered", "the watchdog ended it"])
def test_a_folded_document_folds_back_to_itself(note):
    verdicts = {"A": Verdict(id="A", hit=True, judged=True, reason="ok", attempts=2, seconds=1.5, evidence=["p1"]),
                "B": Verdict.unjudged("B", "rate_limit", "429"),
                "N": Verdict(id="N", hit=True, judged=True, reason="fault seen"),
                "G": Verdict(id="G", hit=True, level=0.5, level_raw="0.55", judged=True, reason="half")}
    policy = ScoringPolicy(pass_threshold=0.5, unjudged_negative="ignore", systemic_fraction=0.2, systemic_min=1)
    doc = fold(ROWS, verdicts, policy, RunFacts(identity=ID, seconds=3.0, calls=4, tokens=99, warnings=("w",), exit_note=note))
    again = fold(*stored_run(ResultDocument.model_validate_json(doc.model_dump_json(by_alias=True))))
    assert without_timing(again) == without_timing(doc)
    assert doc.details.policy == policy


def test_the_equal_weight_fallback_leaves_a_warning_that_folds_back_once():
    """usertrial #12: all weights 0 ⇒ every row weighs 1 (SPEC §4), silently; now the result says so."""
    rows = normalize_rubric([{"id": "A", "description": "a", "weight": 0}, {"id": "B", "description": "b"}]).criteria
    verdicts = {"A": Verdict(id="A", hit=True, judged=True), "B": Verdict(id="B", hit=False, judged=True)}
    doc = fold(rows, verdicts, ScoringPolicy(), RunFacts(identity=ID))
    assert doc.details.weight_fallback and doc.task_score == 0.5
    said = [w for w in doc.details.warnings if "equal-weight fallback" in w]
    assert len(said) == 1 and "each of the 2 row(s) of weight 0 as 1" in said[0] and "R016" in said[0]
    again = fold(*stored_run(ResultDocument.model_validate_json(doc.model_dump_json(by_alias=True))))
    assert again.details.warnings == doc.details.warnings  # derived again, never doubled
    plain = fold(ROWS, {"A": Verdict(id="A", hit=True, judged=True)}, ScoringPolicy(), RunFacts(identity=ID))
    assert not any("equal-weight" in w for w in plain.details.warnings)


def test_written_result_json_of_a_real_run_folds_back_to_itself(judge_run):
    """Parity on a document the command line wrote (code + agentic rows, gates, a graded row)."""
    from run.test_e2e import DECK_ORACLE

    run = judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE)
    written = ResultDocument.model_validate_json((run.verifier / "result.json").read_text())
    assert without_timing(fold(*stored_run(written))) == without_timing(written)
    nothing = judge_run(EXAMPLE_TESTS, ROLLOUTS / "empty")
    written = ResultDocument.model_validate_json((nothing.verifier / "result.json").read_text())
    assert written.exit_reason == "nothing delivered"
    assert without_timing(fold(*stored_run(written))) == without_timing(written)


def test_the_core_imports_nothing_of_the_run():
    code = ("import sys\nimport cowork_judge.core.fold, cowork_judge.core.gates, cowork_judge.core.budgets\n"
            "bad = [m for m in ('openai', 'cowork_judge.config.judge_config', 'cowork_judge.run', 'httpx') if m in sys.modules]\n"
            "assert not bad, bad\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


HURDLE_ROWS = normalize_rubric([
    {"id": "A", "description": "a", "weight": 3},
    {"id": "H", "description": "the deliverable is missing", "weight": 0, "hurdle": True},
]).criteria


@pytest.mark.parametrize("policy,fatal,reward", [("deduct", True, 0.0), ("ignore", False, 1.0)])
def test_an_unjudged_hurdle_is_fatal_under_deduct_and_says_so(policy, fatal, reward):
    verdicts = {"A": Verdict(id="A", hit=True, judged=True), "H": Verdict.unjudged("H", "timeout", "block timed out")}
    doc = fold(HURDLE_ROWS, verdicts, ScoringPolicy(unjudged_negative=policy), RunFacts(identity=ID, warnings=("w",)))
    assert (doc.fatal, doc.task_score) == (fatal, reward)
    row = {r.id: r for r in doc.results}["H"]
    assert (row.judged, row.counted_hit, row.error_kind) == (False, fatal, "timeout")
    said = [w for w in doc.details.warnings if "hurdle row 'H' was not judged (timeout)" in w]
    assert len(said) == (1 if fatal else 0) and doc.details.warnings[0] == "w"
    again = fold(*stored_run(ResultDocument.model_validate_json(doc.model_dump_json(by_alias=True))))
    assert without_timing(again) == without_timing(doc)  # the derived warning is not doubled
