"""Verdicts sent through a validating answer tool follow the request's verdicts schema."""

from __future__ import annotations

import jsonschema

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.verdicts import verdict_schema
from cowork_judge.sim.conform import conform_verdicts

RUBRIC = {"rubrics": [
    {"id": "B1", "description": "binary row", "weight": 1},
    {"id": "G1", "description": "graded row", "weight": 2, "type": "gradient",
     "levels": {"0": "none", "0.3": "some", "0.6": "most", "1": "all"}},
    {"id": "G2", "description": "another scale", "weight": 1, "type": "gradient", "levels": {"0": "no", "1": "yes"}},
]}


def test_oracle_answers_are_made_schema_valid_as_a_constrained_model_would():
    rows = normalize_rubric(RUBRIC).criteria
    schema = verdict_schema(rows)
    oracle = [{"id": "B1", "hit": True, "reason": "r"},  # no level: required (null) for a binary row
              {"id": "G1", "hit": True, "level": 0.55, "reason": "r"},  # off the grid: the nearest level
              {"id": "G2", "hit": False, "reason": "r"}]  # no level on a graded row: from the hit
    fixed = conform_verdicts(oracle, schema)
    jsonschema.validate({"verdicts": fixed}, schema)
    assert [(v["id"], v["level"]) for v in fixed] == [("B1", None), ("G1", 0.6), ("G2", 0.0)]
    tie = conform_verdicts([{"id": "G2", "hit": True, "level": 0.5, "reason": "r"}], schema)
    assert tie[0]["level"] == 0.0  # a tie goes to the lower level, as the judge's snapping does
    assert oracle[0] == {"id": "B1", "hit": True, "reason": "r"}  # the input is not changed


def test_other_shapes_and_unknown_ids_are_left_alone():
    rows = normalize_rubric(RUBRIC).criteria
    stray = [{"id": "ZZ", "hit": True, "reason": "not in the block"}]
    assert conform_verdicts(stray, verdict_schema(rows)) == stray
    assert conform_verdicts(stray, {"type": "object", "properties": {"title": {"type": "string"}}}) == stray
    assert conform_verdicts(stray, None) == stray
