"""Verdict parsing: the five recovery steps on realistic broken replies, and the schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.verdicts import parse_reply, verdict_schema

BLOCK = normalize_rubric(
    [
        {"id": "A1", "description": "states revenue", "weight": 2},
        {"id": "A2", "description": "charts readable", "weight": 3, "levels": {"0": "no", "0.5": "some", "1": "all"}},
        {"id": "N1", "description": "placeholder text left", "weight": -1},
        {"id": "H1", "description": "the deliverable is missing", "weight": 0, "hurdle": True},
    ]
).criteria

GOOD = {
    "verdicts": [
        {"id": "A1", "hit": True, "level": None, "reason": "slide 2 states Q3 revenue of $4.1M"},
        {"id": "A2", "hit": True, "level": 0.5, "reason": "two of four charts lack axis labels"},
        {"id": "N1", "hit": False, "level": None, "reason": "no placeholder text found"},
        {"id": "H1", "hit": False, "level": None, "reason": "report.pptx is present"},
    ]
}


def judged(outcome):
    return {k: (v.hit, v.level) for k, v in outcome.verdicts.items() if v.judged}


def test_step1_whole_text_is_json():
    out = parse_reply(json.dumps(GOOD), BLOCK)
    assert out.step == "json"
    assert judged(out) == {"A1": (True, None), "A2": (True, 0.5), "N1": (False, None), "H1": (False, None)}
    assert out.verdicts["A1"].reason == "slide 2 states Q3 revenue of $4.1M"


def test_step2_markdown_fence():
    reply = "Here is my assessment.\n\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\n"
    out = parse_reply(reply, BLOCK)
    assert out.step == "fenced" and len(judged(out)) == 4


def test_step3_prose_around_json():
    reply = (
        "I opened output/report.pptx with pptx_text and looked at pages 1-4. "
        "My verdicts follow {as requested}: " + json.dumps(GOOD) + " Let me know if you need more detail."
    )
    out = parse_reply(reply, BLOCK)
    assert out.step == "brace_scan" and len(judged(out)) == 4


def test_step3_bare_list_of_rows():
    reply = "Verdicts:\n" + json.dumps(GOOD["verdicts"])
    out = parse_reply(reply, BLOCK)
    assert out.step in ("brace_scan", "json") and len(judged(out)) == 4


def test_step4_truncated_mid_row():
    text = json.dumps(GOOD)
    cut = text[: text.index('"reason": "no placeholder') + 22]  # cut inside N1's reason
    out = parse_reply(cut, BLOCK)
    assert out.step == "row_salvage"
    assert judged(out) == {"A1": (True, None), "A2": (True, 0.5), "N1": (False, None)}
    assert "truncated" in out.verdicts["N1"].reason
    assert out.verdicts["H1"].judged is False and out.verdicts["H1"].error_kind == "parse_error"


def test_step4_graded_row_cut_before_its_level_is_not_judged():
    cut = '{"verdicts": [{"id": "A1", "hit": true, "level": null, "reason": "ok"}, {"id": "A2", "hit": true, "lev'
    out = parse_reply(cut, BLOCK)
    assert judged(out) == {"A1": (True, None)}
    assert out.verdicts["A2"].error_kind == "parse_error"


@pytest.mark.parametrize("reply", ["", "   ", "I could not open the deck, sorry.", '{"verdicts": "none"}', "{{{{", "null"])
def test_step5_nothing_usable(reply):
    out = parse_reply(reply, BLOCK)
    assert out.step == "none" and not out.usable
    assert all(not v.judged and v.error_kind == "parse_error" for v in out.verdicts.values())
    assert set(out.verdicts) == {"A1", "A2", "N1", "H1"}


def test_missing_ids_are_unjudged_and_extra_ids_ignored():
    reply = {"verdicts": [GOOD["verdicts"][0], {"id": "Z9", "hit": True, "reason": "invented"}, {"id": "a1", "hit": True}]}
    out = parse_reply(json.dumps(reply), BLOCK)
    assert judged(out) == {"A1": (True, None)}
    assert "Z9" not in out.verdicts
    assert all(out.verdicts[i].error_kind == "parse_error" for i in ("A2", "N1", "H1"))
    assert any("Z9" in p for p in out.problems)


def test_wrong_types_are_coerced_or_rejected_per_row():
    reply = {
        "verdicts": [
            {"id": "A1", "hit": "yes", "reason": 42},
            {"id": "A2", "hit": "true", "level": "0.8"},
            {"id": "N1", "hit": "maybe"},
            {"id": "H1", "hit": 0},
        ]
    }
    out = parse_reply(json.dumps(reply), BLOCK)
    assert judged(out) == {"A1": (True, None), "A2": (True, 1.0), "H1": (False, None)}
    assert out.verdicts["A1"].reason == "42"
    assert out.verdicts["A2"].level_raw == "0.8"
    assert out.verdicts["N1"].error_kind == "parse_error"


@pytest.mark.parametrize("raw,snapped", [(0.3, 0.5), ("0.26", 0.5), (0.24, 0.0), ("50%", 0.5), (1.0000001, 1.0), (-1e-9, 0.0)])
def test_levels_in_range_snap_to_the_nearest_legal_level(raw, snapped):
    out = parse_reply(json.dumps({"verdicts": [{"id": "A2", "hit": True, "level": raw}]}), BLOCK)
    assert out.verdicts["A2"].level == snapped and out.verdicts["A2"].level_raw == raw
    assert out.verdicts["A2"].hit is (snapped > 0)


@pytest.mark.parametrize("raw", [75, 7, 1.5, -0.2, "150%"])
def test_levels_out_of_range_are_not_snapped_but_fall_back_to_hit(raw):
    """A level outside [0, 1] is on another scale: the row is scored by its hit, flagged
    (test_levels.py follows it into the result document)."""
    out = parse_reply(json.dumps({"verdicts": [{"id": "A2", "hit": False, "level": raw}]}), BLOCK)
    assert out.verdicts["A2"].level is None and out.verdicts["A2"].hit is False and out.verdicts["A2"].level_raw == raw
    assert any("level_fallback" in p for p in out.problems)


def test_non_finite_level_falls_back_to_hit():
    out = parse_reply('{"verdicts": [{"id": "A2", "hit": true, "level": NaN}]}', BLOCK)
    assert out.verdicts["A2"].level is None and out.verdicts["A2"].hit is True


def test_level_without_hit_derives_hit():
    out = parse_reply(json.dumps({"verdicts": [{"id": "A2", "level": 0}]}), BLOCK)
    assert judged(out)["A2"] == (False, 0.0)


def test_duplicate_ids_agreeing_keep_the_first_and_conflicting_are_unjudged():
    same = {"verdicts": [{"id": "A1", "hit": True, "reason": "one"}, {"id": "A1", "hit": True, "reason": "two"}]}
    out = parse_reply(json.dumps(same), BLOCK)
    assert judged(out)["A1"] == (True, None) and out.verdicts["A1"].reason == "one"
    conflicting = {"verdicts": [{"id": "A1", "hit": True}, {"id": "A1", "hit": False}, GOOD["verdicts"][2]]}
    out = parse_reply(json.dumps(conflicting), BLOCK)  # more cases: test_reply_objects.py
    assert out.verdicts["A1"].error_kind == "parse_error" and judged(out) == {"N1": (False, None)}


def test_pathological_reply_is_bounded():
    reply = "[" * 5000 + "{" * 5000
    out = parse_reply(reply, BLOCK)
    assert out.step == "none"


def test_schema_accepts_good_and_rejects_bad():
    schema = verdict_schema(BLOCK)
    jsonschema.validate(GOOD, schema)
    assert schema["properties"]["verdicts"]["items"]["anyOf"]  # graded and binary rows differ
    for bad in (
        {"verdicts": [{"id": "A2", "hit": True, "level": None, "reason": "no level"}]},  # level required for graded rows
        {"verdicts": [{"id": "A1", "hit": True, "level": 0.5, "reason": "level on a binary row"}]},
        {"verdicts": [{"id": "ZZ", "hit": True, "level": None, "reason": "unknown id"}]},
        {"verdicts": [{"id": "A2", "hit": True, "level": 0.7, "reason": "illegal level"}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_schema_single_scale_has_no_anyof():
    schema = verdict_schema(BLOCK[:1])
    assert schema["properties"]["verdicts"]["items"]["properties"]["id"]["enum"] == ["A1"]


def test_graded_hit_is_reconciled_with_its_level():
    """hit=false with credit is unreadable (issue 25 item 19): scored by its hit, flagged level_fallback,
    never full credit; hit=true with level 0 earns nothing either (the lower of the two answers)."""
    reply = {"verdicts": [{"id": "A2", "hit": False, "level": 0.5}, {"id": "A1", "hit": True}]}
    out = parse_reply(json.dumps(reply), BLOCK)
    assert judged(out)["A2"] == (False, None) and out.verdicts["A2"].level_raw == 0.5
    assert any("hit=false contradicts level 0.5 (above 0); scored as a miss (level_fallback)" in p for p in out.problems)
    zero = parse_reply(json.dumps({"verdicts": [{"id": "A2", "hit": True, "level": 0}]}), BLOCK)
    assert judged(zero)["A2"] == (False, 0.0)
