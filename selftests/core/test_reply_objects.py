"""Replies holding several verdict objects, and ids given twice: the final answer decides,
and a disagreement nobody resolved is an unjudged ``parse_error`` — never the first answer."""

from __future__ import annotations

import json
import time

import pytest

from cowork_judge.core.reply_scan import MAX_FRAGMENTS
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.verdicts import parse_reply

BLOCK = normalize_rubric(
    [
        {"id": "A1", "description": "states revenue", "weight": 2},
        {"id": "A2", "description": "charts readable", "weight": 3, "levels": {"0": "no", "0.5": "some", "1": "all"}},
        {"id": "N1", "description": "placeholder text left", "weight": -1},
    ]
).criteria


def obj(a1: bool, a2: float, n1: bool, *, reason: str = "r") -> str:
    return json.dumps({"verdicts": [
        {"id": "A1", "hit": a1, "level": None, "reason": reason},
        {"id": "A2", "hit": a2 > 0, "level": a2, "reason": reason},
        {"id": "N1", "hit": n1, "level": None, "reason": reason},
    ]})


MISSES = obj(False, 0, True, reason="draft")
HITS = obj(True, 1, False, reason="checked")


def answers(outcome) -> dict:
    return {k: (v.hit, v.level) if v.judged else v.error_kind for k, v in outcome.verdicts.items()}


ALL_HITS = {"A1": (True, None), "A2": (True, 1.0), "N1": (False, None)}
ALL_MISSES = {"A1": (False, None), "A2": (False, 0.0), "N1": (True, None)}
CONFLICT = {"A1": "parse_error", "A2": "parse_error", "N1": "parse_error"}


# reply → expected answers; the last object decides when it is clearly final (a final-answer
# marker before it, or nothing but whitespace/fences after it); otherwise rows that differ
# are unjudged.
CASES = [
    ("draft, then a marked final answer (the reported bug)",
     f"Draft: {MISSES}\nFinal answer after checking: {HITS}", ALL_HITS, "brace_scan"),
    ("marked final answer followed by prose", f"Draft: {MISSES}\nFinal verdicts: {HITS}\nHope this helps.", ALL_HITS, "brace_scan"),
    ("unmarked, but the reply ends with the last object", f"First look: {MISSES}\nOn a second look at slide 4: {HITS}\n",
     ALL_HITS, "brace_scan"),
    ("fenced draft and fenced final", f"Draft:\n```json\n{MISSES}\n```\nCorrected:\n```json\n{HITS}\n```\n", ALL_HITS, "fenced"),
    ("fenced draft, unfenced final", f"```json\n{MISSES}\n```\nFinal: {HITS}", ALL_HITS, "brace_scan"),
    ("one object nests a draft and a final", json.dumps({"draft": json.loads(MISSES), "final": json.loads(HITS)}),
     ALL_HITS, "brace_scan"),
    ("the same answer twice is no conflict", f"{HITS}\nTo repeat: {HITS}\nThanks.", ALL_HITS, "brace_scan"),
    ("unmarked objects with prose after the last", f"Option one: {MISSES}\nOption two: {HITS}\nEither could apply.",
     CONFLICT, "none"),
    ("the last object is introduced as a draft", f"Final verdicts: {HITS}\nMy earlier draft was: {MISSES}", CONFLICT, "none"),
    ("an earlier object claims to be final", f"Final: {HITS}\nAlternatively: {MISSES}", CONFLICT, "none"),
]


@pytest.mark.parametrize("label,reply,expected,step", CASES, ids=[c[0] for c in CASES])
def test_the_final_object_decides_or_the_disagreement_is_unjudged(label, reply, expected, step):
    out = parse_reply(reply, BLOCK)
    assert answers(out) == expected
    assert out.step == step
    if expected == CONFLICT:
        assert all("conflicting verdicts" in v.reason for v in out.verdicts.values())
        assert any("none is clearly final" in p for p in out.problems)


def test_only_the_rows_that_disagree_are_unjudged():
    other = obj(True, 0.5, True)  # A1 agrees with HITS; A2 (level) and N1 (hit) differ
    out = parse_reply(f"One reading: {HITS}\nAnother: {other}\nNot sure which.", BLOCK)
    assert answers(out) == {"A1": (True, None), "A2": "parse_error", "N1": "parse_error"}
    assert "level=1" in out.verdicts["A2"].reason and "level=0.5" in out.verdicts["A2"].reason
    assert out.step == "brace_scan" and out.usable


def test_a_final_object_that_leaves_a_row_out_keeps_the_earlier_answer_and_says_so():
    final = json.dumps({"verdicts": json.loads(HITS)["verdicts"][:2]})  # no N1
    out = parse_reply(f"Draft: {obj(False, 0, False)}\nFinal: {final}", BLOCK)
    assert answers(out) == {"A1": (True, None), "A2": (True, 1.0), "N1": (False, None)}
    assert any("N1" in p and "taken from object 1" in p for p in out.problems)


def test_a_final_answer_cut_off_after_a_complete_draft_decides_what_it_reached():
    final = HITS[: HITS.index('"id": "N1"') + 12]  # cut inside N1: A1, A2 complete
    out = parse_reply(f"Draft: {MISSES}\nFinal answer: {final}", BLOCK)
    assert answers(out) == {"A1": (True, None), "A2": (True, 1.0), "N1": (True, None)}
    assert out.step == "row_salvage"
    assert out.verdicts["N1"].reason == "draft"  # only the draft answered N1, and nothing contradicts it


def test_a_quoted_rubric_is_not_a_verdict_object():
    quoted = json.dumps([{"id": "A1", "description": "states revenue"}, {"id": "N1", "description": "placeholder"}])
    out = parse_reply(f"The rows are {quoted}. My verdicts: {HITS}. Done.", BLOCK)
    assert answers(out) == ALL_HITS


# --------------------------------------------------------------------------- an id given twice


@pytest.mark.parametrize(
    "rows,expected",
    [
        ([{"id": "A1", "hit": True}, {"id": "A1", "hit": False}], "parse_error"),
        ([{"id": "A1", "hit": False, "reason": "x"}, {"id": "A1", "hit": True, "reason": "y"}], "parse_error"),
        ([{"id": "A1", "hit": True, "reason": "x"}, {"id": "A1", "hit": True, "reason": "y"}], (True, None)),
        ([{"id": "A1", "hit": True}, {"id": "A1", "hit": "maybe"}], "parse_error"),
        ([{"id": "A2", "hit": True, "level": 0.5}, {"id": "A2", "hit": True, "level": 1}], "parse_error"),
        ([{"id": "A2", "hit": True, "level": 0.5}, {"id": "A2", "hit": True, "level": 0.55}], (True, 0.5)),  # same snapped level
    ],
)
def test_an_id_given_twice(rows, expected):
    other = {"id": "N1", "hit": False}
    row_id = rows[0]["id"]
    for reply in (json.dumps({"verdicts": [*rows, other]}), "Verdicts: " + json.dumps([*rows, other]) + " — end"):
        out = parse_reply(reply, BLOCK)
        assert answers(out)[row_id] == expected
        assert answers(out)["N1"] == (False, None)
        if expected == "parse_error":
            assert "conflicting verdicts" in out.verdicts[row_id].reason
            assert any(f"row {row_id!r}: given 2 times with different answers" in p for p in out.problems)


def test_conflicting_repeats_in_a_truncated_reply_are_unjudged():
    cut = '{"verdicts": [{"id": "A1", "hit": false}, {"id": "N1", "hit": true}, {"id": "A1", "hit": true, "reason": "on re'
    out = parse_reply(cut, BLOCK)
    assert out.step == "row_salvage"
    assert answers(out) == {"A1": "parse_error", "A2": "parse_error", "N1": (True, None)}


def test_a_reply_whose_every_row_conflicts_is_not_usable_and_says_why():
    out = parse_reply(json.dumps({"verdicts": [{"id": "A1", "hit": True}, {"id": "A1", "hit": False}]}), BLOCK[:1])
    assert out.step == "none" and not out.usable
    assert "conflicting verdicts" in out.verdicts["A1"].reason


@pytest.mark.parametrize("lead", [HITS + " ", ""])
def test_a_flood_of_row_fragments_is_parsed_in_bounded_time(lead):
    reply = lead + '{"id": "A1", "hit": false, ' * 200_000  # 5 MB of unclosed fragments, after an answer or alone
    t0 = time.monotonic()
    out = parse_reply(reply, BLOCK)
    assert time.monotonic() - t0 < 10
    assert any(f"skipped {200_000 - MAX_FRAGMENTS} more" in p for p in out.problems)
    # the cut-off object is the last thing the judge wrote: it decides A1; A2 only the first object answered
    assert answers(out)["A1"] == (False, None)
    assert answers(out)["A2"] == ((True, 1.0) if lead else "parse_error")
