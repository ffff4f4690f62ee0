"""Issue 39 item 4: a graded row's contradiction is reported as what happened, and a graded row
can set its pass bar (``pass_level``) on its own level scale, honoured by the parser, the
gates (router and scorer) and the warnings."""

from __future__ import annotations

import json

import pytest

from cowork_judge.core.fold import RunFacts, RunIdentity, fold, stored_run
from cowork_judge.core.gates import mark_open, pre_gate
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.rubric import RubricError, normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy, score
from cowork_judge.core.verdicts import Verdict, graded_hit, parse_reply

ID = RunIdentity(metric_id="m", requested_version=None, version_source="package", judge_backend="openai", judge_model="x")
TEN = {f"{n / 10:g}": f"{n} of 10" for n in range(1, 11)}
"""A WritingBench-style 1–10 scale written as fractions of the weight: 6 of 10 is 0.6."""


def rubric(pass_level: object = 0.6, **graded: object) -> list[dict]:
    return [
        {"id": "G", "description": "The essay argues its thesis.", "weight": 4, "levels": TEN, "pass_level": pass_level,
         **graded},
        {"id": "D", "description": "The conclusion follows from the argument.", "weight": 1, "depends_on": ["G"]},
    ]


def rows(pass_level: object = 0.6):
    return normalize_rubric(rubric(pass_level)).criteria


def test_the_warning_says_the_judge_contradicted_itself_not_that_the_level_was_off_scale():
    """The reported case: hit:false with level 0.5 on a row without a pass bar is scored as a miss,
    and the warning says so instead of "level 0.5, not a fraction in [0, 1]"."""
    crit = normalize_rubric([{"id": "G", "description": "g", "weight": 2, "levels": {"0": "-", "0.5": "-", "1": "-"}}]).criteria
    text = json.dumps({"verdicts": [{"id": "G", "hit": False, "level": 0.5, "reason": "r"}]})
    doc = fold(crit, parse_reply(text, crit).verdicts, ScoringPolicy(), RunFacts(identity=ID))
    said = [w for w in doc.details.warnings if w.startswith("graded row 'G'")]
    assert said == ["graded row 'G': the judge said hit:false but gave level 0.5 (above 0); the two contradict each other, "
                    "so the row is scored as a miss (no credit)"]
    assert "not a fraction" not in said[0]
    row = doc.results[0]
    assert (row.hit, row.level, row.level_fallback, row.contribution) == (False, None, True, 0.0)
    again = fold(*stored_run(ResultDocument.model_validate_json(doc.model_dump_json(by_alias=True))))
    assert again.details.warnings == doc.details.warnings  # re-derived exactly from the stored rows


@pytest.mark.parametrize("level_raw,said", [(7, "the judge gave level 7, not a fraction in [0, 1]"),
                                             (None, "the judge gave no level")])
def test_an_unreadable_level_keeps_its_own_warning(level_raw, said):
    crit = normalize_rubric([{"id": "G", "description": "g", "weight": 2, "levels": {"0": "-", "1": "-"}}]).criteria
    text = json.dumps({"verdicts": [{"id": "G", "hit": False, "level": level_raw}]})
    doc = fold(crit, parse_reply(text, crit).verdicts, ScoringPolicy(), RunFacts(identity=ID))
    assert doc.details.warnings == [f"graded row 'G': {said}; scored by hit (no credit)"]


# pass_level as written → the error's words (None: accepted)
VALIDATION = [
    (0.6, None),
    ("0.6", None),
    (1, None),  # the top level itself: only a perfect answer passes
    (0.55, None),  # between two levels: 0.6 and above pass
    (6, "'pass_level' = 6 is outside [0, 1]: it is a level on the row's own scale, the fraction of the weight its "
        "`levels` keys give (6 of 10 is 0.6)"),
    (-0.1, "is outside [0, 1]"),
    (0.1, "at or below the row's lowest level 0.1: every level would pass"),
    (0.05, "at or below the row's lowest level"),
    ("high", "must be a number on the row's level scale"),
    (True, "must be a number on the row's level scale"),
    ([0.6], "must be a number on the row's level scale"),
    (10 ** 400, "is outside [0, 1]"),
]


@pytest.mark.parametrize("value,error", VALIDATION, ids=[repr(v)[:20] for v, _ in VALIDATION])
def test_pass_level_is_checked_against_the_rows_scale(value, error):
    if error is None:
        crit = normalize_rubric(rubric(value)).criteria[0]
        assert crit.pass_level == float(value)
        assert f"hit=true when level >= {crit.pass_level:g}" in crit.hit_means
        return
    with pytest.raises(RubricError) as exc:
        normalize_rubric(rubric(value))
    assert str(exc.value).startswith("row 'G': field 'pass_level'") and error in str(exc.value)


def test_pass_level_above_the_top_level_and_on_rows_scored_by_hit():
    low = [{"id": "G", "description": "g", "weight": 1, "levels": {"0": "-", "0.5": "-", "0.8": "-"}, "pass_level": 0.9}]
    with pytest.raises(RubricError, match="above the row's highest level 0.8: no level could pass"):
        normalize_rubric(low)
    for row in ({"type": "binary"}, {"hurdle": True, "weight": 0, "description": "the essay is missing"},
                {"weight": -1, "levels": TEN}):
        base = {"id": "B", "description": "b", "weight": 1, "pass_level": 0.5, **row}
        out = normalize_rubric([base, {"id": "P", "description": "p", "weight": 1}])
        assert out.criteria[0].pass_level is None
        assert any("pass_level 0.5 is ignored: the row is scored by hit" in w for w in out.warnings)


def test_a_row_without_pass_level_keeps_its_document_shape():
    crit = normalize_rubric([{"id": "G", "description": "g", "weight": 1, "levels": {"0": "-", "1": "-"}}]).criteria[0]
    assert "pass_level" not in crit.model_dump(mode="json")
    assert rows()[0].model_dump(mode="json")["pass_level"] == 0.6


# the judge's (hit, level) → (hit, level, level_fallback, contribution of G (weight 4), D's gate)
PARSED = [
    ((True, 0.8), (True, 0.8, False, 3.2, True)),
    ((True, 0.6), (True, 0.6, False, 2.4, True)),  # at the bar: met
    ((False, 0.5), (False, 0.5, False, 2.0, False)),  # below the bar: a miss that still earns its level
    ((True, 0.5), (False, 0.5, False, 2.0, False)),  # hit:true below the bar: the level decides
    ((False, 0.7), (False, None, True, 0.0, False)),  # hit:false at or above the bar: a contradiction, a miss
    ((True, 0.1), (False, 0.1, False, 0.4, False)),
]


@pytest.mark.parametrize("said,expected", PARSED, ids=[f"hit={h}-level={lv}" for (h, lv), _ in PARSED])
def test_the_parser_and_the_scorer_read_hit_by_the_pass_bar(said, expected):
    hit, level = said
    crit = rows()
    text = json.dumps({"verdicts": [{"id": "G", "hit": hit, "level": level, "reason": "r"},
                                    {"id": "D", "hit": True, "reason": "r"}]})
    out = parse_reply(text, crit)
    verdicts = dict(out.verdicts)
    doc = fold(crit, verdicts, ScoringPolicy(), RunFacts(identity=ID))
    g, d = doc.results
    assert (g.hit, g.level, g.level_fallback, g.contribution, d.gate == "open") == expected
    assert d.contribution == (1.0 if expected[4] else 0.0)
    if expected[2]:
        assert any("at or above the row's pass_level 0.6" in w for w in doc.details.warnings)
        assert any("hit=false contradicts level 0.7 (at or above the row's pass bar 0.6)" in p for p in out.problems)


@pytest.mark.parametrize("level,hit", [(0.5, False), (0.6, True), (0.59999999999, True), (1.0, True)])
def test_every_segment_is_gated_by_the_bar(level, hit):
    """A workflow's graded verdict says hit = level > 0; the router's mark_open reads it by the
    row's bar before any gate does, and the scorer does the same for a verdict that never went
    through the router (calibrate's labels, an edited stored document)."""
    g, d = rows()
    raw = Verdict(id="G", hit=level > 0, level=level, judged=True, method="workflow")
    settled = mark_open(g, raw, {}, {"G": g, "D": d})
    assert settled.hit is hit and graded_hit(g, raw.hit, raw.level) is hit
    gated = pre_gate(d, {"G": settled}, {"G": g, "D": d})
    assert (gated is not None and gated.gate == "closed") is (not hit)
    out = score([g, d], {"G": raw, "D": Verdict(id="D", hit=True, judged=True)})
    assert out.rows[0].hit is hit and out.rows[1].gate is hit
    assert out.rows[0].contribution == pytest.approx(4 * level if level != 0.59999999999 else 2.4)


def test_rows_without_a_bar_are_unchanged():
    crit = normalize_rubric([{"id": "G", "description": "g", "weight": 1, "levels": {"0": "-", "0.5": "-", "1": "-"}}]).criteria[0]
    for hit, level in [(True, 0.5), (False, 0.0), (True, None)]:
        v = Verdict(id="G", hit=hit, level=level, judged=True)
        assert mark_open(crit, v, {}, {"G": crit}) == v


def test_samples_are_reduced_and_settled_by_the_bar():
    """JUDGE_SAMPLES: the reduced answer's hit follows the bar, and two samples one step apart on
    either side of it (5 and 6 of 10) are not settled, as 0 and 0.1 are not (issue 28's rule,
    read at the row's bar)."""
    from cowork_judge.core.sampling import Sample, Scale, reduce_samples, settled

    scale = Scale.of(rows()[0])
    assert scale.pass_level == 0.6
    s = [Sample(judge="j", hit=True, level=0.5), Sample(judge="j", hit=True, level=0.6)]
    assert reduce_samples(s, scale).hit is False  # the lower median, 0.5, is below the bar
    assert settled(s, 2, 3, scale) is False
    above = [Sample(judge="j", hit=True, level=0.7), Sample(judge="j", hit=True, level=0.6)]
    assert settled(above, 2, 3, scale) is True and reduce_samples(above, scale).hit is True
    plain = Scale.of(normalize_rubric([{"id": "G", "description": "g", "weight": 1, "levels": TEN}]).criteria[0])
    assert plain.pass_level is None and settled(s, 2, 3, plain) is True  # without a bar: same side of 0


def test_a_fallback_whose_level_would_not_pass_is_not_called_a_contradiction():
    """A verdict that carries a readable level_raw of 0 but no level (a stored document, a
    workflow) with hit:false contradicts nothing: the warning does not claim it does."""
    g = rows()[0]
    doc = fold([g], {"G": Verdict(id="G", hit=False, level=None, level_raw=0.1, judged=True)}, ScoringPolicy(),
               RunFacts(identity=ID))
    assert doc.results[0].level_fallback
    assert doc.details.warnings == ["graded row 'G': the verdict holds no level (level_raw 0.1); scored by hit (no credit)"]
