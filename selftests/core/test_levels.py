"""Graded levels that cannot be read: percent strings are read, NaN/±inf/out-of-range/missing
levels fall back to the hit (SPEC §4) and the result row and its warnings say so."""

from __future__ import annotations

import json
import math

import pytest

from cowork_judge.core.fold import RunFacts, RunIdentity, fold, stored_run
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy, score
from cowork_judge.core.verdicts import LEVEL_TOLERANCE, Verdict, parse_reply, read_level

ID = RunIdentity(metric_id="m", requested_version=None, version_source="package", judge_backend="openai", judge_model="x")
ROWS = normalize_rubric([
    {"id": "A", "description": "a", "weight": 2},
    {"id": "G", "description": "graded", "weight": 2, "levels": {"0": "none", "0.5": "half", "1": "all"}},
]).criteria


@pytest.mark.parametrize(
    "value,expected",
    [
        (0.5, 0.5), (0, 0.0), (1, 1.0), ("0.5", 0.5), (" 0.75 ", 0.75), ("1e-1", 0.1),
        ("50%", 0.5), ("50 %", 0.5), ("0%", 0.0), ("100%", 1.0), ("12.5%", 0.125),
        (1 + LEVEL_TOLERANCE / 2, 1.0), (-LEVEL_TOLERANCE / 2, 0.0),  # float noise is read, clamped
        (7, None), (75, None), (1.5, None), (-0.2, None), ("150%", None), ("-5%", None),  # another scale
        (math.nan, None), (math.inf, None), (-math.inf, None), ("NaN", None), ("Infinity", None),
        (None, None), (True, None), (False, None), ("half", None), ("0.5/1", None), ([0.5], None), ({"v": 1}, None),
    ],
)
def test_read_level(value, expected):
    assert read_level(value) == expected


def reply(level_json: str | None, hit: str = "true") -> str:
    level = "" if level_json is None else f', "level": {level_json}'
    return f'{{"verdicts": [{{"id": "A", "hit": true, "reason": "ok"}}, {{"id": "G", "hit": {hit}{level}, "reason": "r"}}]}}'


def folded(text: str) -> ResultDocument:
    outcome = parse_reply(text, ROWS)
    return fold(ROWS, outcome.verdicts, ScoringPolicy(), RunFacts(identity=ID, warnings=("run warning",)))


# level as written in the reply → (G's level as scored, fallback?, level_raw in results[], reward)
CASES = [
    ('"50%"', (0.5, False, "50%", 0.75)),  # the reported case: read, no longer full credit
    ("0.5", (0.5, False, 0.5, 0.75)),
    ("NaN", (None, True, "NaN", 1.0)),
    ("Infinity", (None, True, "Infinity", 1.0)),
    ("7", (None, True, 7, 1.0)),
    ("1.5", (None, True, 1.5, 1.0)),
    ('"high"', (None, True, "high", 1.0)),
    ("null", (None, True, None, 1.0)),
    (None, (None, True, None, 1.0)),  # no level at all
]


@pytest.mark.parametrize("level_json,expected", CASES, ids=[str(c[0]) for c in CASES])
def test_unreadable_levels_fall_back_to_hit_and_the_result_says_so(level_json, expected):
    level, fallback, raw, reward = expected
    doc = folded(reply(level_json))
    row = {r.id: r for r in doc.results}["G"]
    assert (row.level, row.level_fallback, row.judged, row.hit) == (level, fallback, True, True)
    assert row.level_raw == raw and doc.task_score == reward
    said = [w for w in doc.details.warnings if w.startswith("graded row 'G'")]
    assert len(said) == (1 if fallback else 0)
    if fallback:
        assert "scored by hit (full credit)" in said[0]
        assert ("no level" in said[0]) is (raw is None)
    assert doc.details.warnings[0] == "run warning"
    written = ResultDocument.model_validate_json(json.dumps(doc.model_dump(mode="json", by_alias=True), allow_nan=False))
    again = fold(*stored_run(written))
    assert again.model_dump(mode="json", by_alias=True) == written.model_dump(mode="json", by_alias=True)


def test_warnings_count_every_fallback_row():
    rows = normalize_rubric([{"id": f"G{i}", "description": "g", "weight": 1, "levels": {"0": "-", "1": "-"}} for i in range(4)]).criteria
    text = json.dumps({"verdicts": [{"id": "G0", "hit": True, "level": 1}, {"id": "G1", "hit": True},
                                    {"id": "G2", "hit": False, "level": "n/a"}, {"id": "G3", "hit": True, "level": 9}]})
    doc = fold(rows, parse_reply(text, rows).verdicts, ScoringPolicy(), RunFacts(identity=ID))
    assert [r.id for r in doc.results if r.level_fallback] == ["G1", "G2", "G3"]
    assert sum(w.startswith("graded row") for w in doc.details.warnings) == 3
    assert any("'G2'" in w and "(no credit)" in w for w in doc.details.warnings)


def test_scoring_reads_levels_the_same_way_whoever_made_the_verdict():
    """A verdict built in Python (a workflow, a stored document) with a level outside [0, 1]
    is not snapped to full marks either."""
    for level, expected in [(7.0, True), (math.nan, True), (1.0000001, False), (0.5, False)]:
        out = score(ROWS, {"A": Verdict(id="A", hit=True, judged=True), "G": Verdict(id="G", hit=True, level=level, judged=True)})
        assert out.rows[1].level_fallback is expected


def test_no_fallback_is_flagged_where_no_level_could_matter():
    """A closed gate (the row earns nothing whatever its level: a [gate] short-circuit) and
    'nothing delivered' (no judge ran) carry no level by design."""
    rows = normalize_rubric([
        {"id": "A", "description": "a", "weight": 2},
        {"id": "G", "description": "g", "weight": 2, "depends_on": ["A"], "levels": {"0": "-", "1": "-"}},
    ]).criteria
    gate = Verdict(id="G", hit=False, judged=True, reason="[gate] A was judged and missed", gate="closed")
    doc = fold(rows, {"A": Verdict(id="A", hit=False, judged=True), "G": gate}, ScoringPolicy(), RunFacts(identity=ID))
    assert not any(r.level_fallback for r in doc.results) and doc.details.warnings == []
    nothing = {c.id: Verdict(id=c.id, hit=False, judged=True, reason="nothing delivered", method="delivery") for c in ROWS}
    doc = fold(ROWS, nothing, ScoringPolicy(), RunFacts(identity=ID))
    assert not any(r.level_fallback for r in doc.results) and doc.details.warnings == []


@pytest.mark.parametrize("level_json", ["1.0", "1", "0.5", '"100%"'])
def test_hit_false_with_credit_is_a_recorded_fallback(level_json):
    """Issue 25 item 19: ``hit=false, level=1.0`` used to earn full credit and show as hit; the
    contradiction is unreadable, so the row falls back to its hit (no credit), flagged like
    any other unreadable level, with what the judge said kept in level_raw."""
    doc = folded(reply(level_json, hit="false"))
    row = {r.id: r for r in doc.results}["G"]
    assert (row.hit, row.level, row.level_fallback, row.judged, row.contribution) == (False, None, True, True, 0.0)
    assert row.level_raw == json.loads(level_json) and doc.task_score == 0.5
    assert any(w.startswith("graded row 'G'") and "(no credit)" in w for w in doc.details.warnings)
