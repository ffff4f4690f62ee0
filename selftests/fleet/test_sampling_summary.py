"""The summary's `sampling` section (`fleet.sampling.SamplingStats`): only for sampled or priced fleets."""

from __future__ import annotations

from cowork_judge.core.cost import JudgeCost, ModelUsage
from cowork_judge.core.fold import RunFacts, fold
from cowork_judge.core.identity import RunIdentity
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.sampling import JudgeWeight, Sample, SamplingRecord
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict
from cowork_judge.fleet.sampling import SamplingStats

ROWS = normalize_rubric([{"id": "A", "description": "a", "weight": 2}, {"id": "B", "description": "b", "weight": 1}]).criteria
IDENTITY = RunIdentity(metric_id="m", requested_version=None, version_source="package", judge_backend="openai", judge_model="x")
RECORD = SamplingRecord(samples=3, mode="adaptive", vote="majority", judges=(JudgeWeight(name="x", model="x"),))


def _doc(a_hits: list[bool], b_hits: list[bool], *, sampled: bool = True, cost: JudgeCost | None = None):
    def verdict(rid: str, hits: list[bool]) -> Verdict:
        majority = hits.count(True) > hits.count(False)
        agree = hits.count(majority) / len(hits)
        return Verdict(id=rid, hit=majority, judged=True, samples=tuple(Sample(judge="x", hit=h) for h in hits),
                       agreement=agree)
    verdicts = {"A": verdict("A", a_hits), "B": verdict("B", b_hits)} if sampled else {
        "A": Verdict(id="A", hit=True, judged=True), "B": Verdict(id="B", hit=False, judged=True)}
    facts = RunFacts(identity=IDENTITY, sampling=RECORD if sampled else None, cost=cost)
    return fold(ROWS, verdicts, ScoringPolicy(), facts)


def test_an_unsampled_unpriced_fleet_has_no_section():
    stats = SamplingStats()
    stats.add(_doc([], [], sampled=False))
    assert not stats.seen


def test_agreement_least_stable_rows_and_cost():
    priced = JudgeCost(usd=0.5, models={"x": ModelUsage(calls=3, input_tokens=100, cached_input_tokens=40, output_tokens=10)})
    unpriced = JudgeCost(usd=None, models={"y": ModelUsage(calls=1, input_tokens=5)}, unpriced=["y"])
    stats = SamplingStats()
    docs = [_doc([True, True], [True, False, False], cost=priced), _doc([True, True], [False, True, True], cost=unpriced),
            _doc([True, False, True], [True, True])]
    for doc in docs:
        stats.add(doc)
    assert docs[0].judge_agreement == round((2 * 1.0 + 1 * (2 / 3)) / 3, 6)
    out = stats.report()
    assert out["documents"] == {"sampled": 3, "priced": 1, "unpriced": 1, "samples": {"3": 3}, "votes": {"majority": 3}}
    assert [r["id"] for r in out["least_stable_rows"]] == ["B", "A"]
    assert out["least_stable_rows"][0] == {"id": "B", "agreement_mean": round((2 / 3 + 2 / 3 + 1) / 3, 6), "rows": 3,
                                           "not_unanimous": 2}
    assert out["agreement"]["rows"]["rows"] == 6 and sum(out["agreement"]["histogram"]["counts"]) == 3
    assert out["cost"] == {"usd": 0.5, "documents_priced": 1, "documents_unpriced": 1, "unpriced_models": {"y": 1},
                           "models": {"x": {"cached_input_tokens": 40, "calls": 3, "input_tokens": 100, "output_tokens": 10,
                                            "unsplit_tokens": 0},
                                      "y": {"cached_input_tokens": 0, "calls": 1, "input_tokens": 5, "output_tokens": 0,
                                            "unsplit_tokens": 0}}}


def _panel_doc(b_down: bool):
    """A panel of two; judge b's endpoint down for the whole run when `b_down`."""
    record = SamplingRecord(samples=1, mode="adaptive", vote="majority",
                            judges=(JudgeWeight(name="a", model="a"), JudgeWeight(name="b", model="b")))
    b = Sample(judge="b", error_kind="api_error") if b_down else Sample(judge="b", hit=True)
    verdicts = {rid: Verdict(id=rid, hit=True, judged=True, samples=(Sample(judge="a", hit=True), b),
                             agreement=None if b_down else 1.0) for rid in ("A", "B")}
    return fold(ROWS, verdicts, ScoringPolicy(), RunFacts(identity=IDENTITY, sampling=record))


def test_a_panel_judge_down_makes_the_document_degraded_and_the_summary_counts_it():
    from cowork_judge.fleet.summarize import classify

    down, whole = _panel_doc(True), _panel_doc(False)
    assert (down.extra_fields.judge_coverage, down.extra_fields.judge_degraded, down.extra_fields.judge_error_kind) == (
        1.0, True, "api_error")
    assert (whole.extra_fields.judge_degraded, whole.extra_fields.judge_error_kind, whole.exit_reason) == (False, None, None)
    assert down.judge_agreement is None  # one answer per row: no agreement to report, never 1.0
    assert (classify(down), classify(whole)) == ("degraded", "scored")
    stats = SamplingStats()
    for doc in (down, whole, down):
        stats.add(doc)
    assert stats.report()["lost"] == {"documents": 2, "documents_judge_lost": 2, "rows": 4, "samples": 4,
                                      "error_kinds": {"api_error": 4}, "judges": {"b": 4}}
    assert SamplingStats().report()["lost"]["documents"] == 0
