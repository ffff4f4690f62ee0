"""`core.grounding` and its place in scoring (issue 37 B): a credited verdict's quote must be in
the evidence text sent — whitespace and case aside, nothing fuzzy — and JUDGE_UNGROUNDED decides
what a verdict without one scores."""

from __future__ import annotations

import pytest

from cowork_judge.core import grounding
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy, score
from cowork_judge.core.verdicts import Verdict, parse_reply, verdict_schema

ROWS = normalize_rubric([
    {"id": "P", "description": "The deck includes a line of Japanese text.", "weight": 2},
    {"id": "N", "description": "The report states a wrong dose.", "weight": -1},
    {"id": "A", "description": "The deck has no placeholder text.", "weight": 1},
    {"id": "G", "description": "How complete the table is.", "weight": 1, "type": "gradient",
     "levels": {"0": "none", "0.5": "half", "1": "all"}},
    {"id": "D", "description": "Builds on the table.", "weight": 1, "depends_on": ["G"]},
]).criteria
EVIDENCE = grounding.evidence_of(["ゾルゲと尾崎、淡々と最期\n（ＧＨＱ）", "1111 | 2222 | 3333\nThe dose is  5 mg\ttwice daily."])


def v(rid: str, hit: bool, *, quote: str | None = None, level: float | None = None) -> Verdict:
    return Verdict(id=rid, hit=hit, level=level, judged=True, reason="r", quote=quote)


@pytest.mark.parametrize(("quote", "found"), [
    ("ゾルゲと尾崎", True),                          # CJK, verbatim
    ("（ＧＨＱ）", True),                           # full-width letters as sent
    ("(GHQ)", False),                              # ... not folded to ASCII: nothing fuzzy beyond case and whitespace
    ("1111 | 2222", True),                         # a table row as the extracted text joins its cells
    ("the DOSE is 5 mg twice daily.", True),       # case and whitespace runs (a tab, two spaces) do not count
    ("the dose is 5mg twice daily.", False),       # a removed space does
    ("The dose is 10 mg", False),
    ("mg", False),                                 # shorter than QUOTE_MIN_CHARS
    ("", False), (None, False),
])
def test_quote_found_compares_without_case_and_whitespace_only(quote, found):
    assert grounding.quote_found(quote, EVIDENCE) is found


def test_ground_marks_credited_verdicts_and_exempts_absence_and_pages():
    verdicts = {"P": v("P", True, quote="淡々と最期"), "N": v("N", False, quote="The dose is 7 mg"),
                "A": v("A", True), "G": v("G", True, quote="1111 | 2222", level=0.5), "D": v("D", False)}
    out = grounding.ground(ROWS, verdicts, EVIDENCE)
    assert (out["P"].grounded, out["P"].grounding) == (True, grounding.FOUND)
    assert out["N"].grounded is False and "not in the evidence" in (out["N"].grounding or "")  # a negative row's miss
    assert (out["A"].grounded, out["A"].grounding) == (None, grounding.EXEMPT_ABSENCE)
    assert out["G"].grounded is True
    assert (out["D"].grounded, out["D"].grounding) == (None, None)  # claims no credit: nothing to check
    pages = grounding.ground(ROWS, verdicts, None, exempt=grounding.EXEMPT_PAGES)
    assert all(pages[k].grounded is None for k in "PNAG") and pages["P"].grounding == grounding.EXEMPT_PAGES


def test_a_quote_found_only_in_the_rubric_or_the_prompt_grounds_nothing():
    """The evidence is the agent's text only: the row's own words, quoted back, are not in it."""
    out = grounding.ground(ROWS, {"P": v("P", True, quote="The deck includes a line of Japanese text.")}, EVIDENCE)
    assert out["P"].grounded is False


def test_a_short_quote_is_named_too_short_not_missing():
    """Trial 23 P-4: "mg" IS in the evidence; the reason says it is too short, the re-ask asks for four characters."""
    out = grounding.ground(ROWS, {"P": v("P", True, quote=" “mg” "), "N": v("N", False, quote="The dose is 7 mg")}, EVIDENCE)
    assert out["P"].grounded is False
    assert out["P"].grounding == ("the quote '“mg”' is too short to check (under 4 characters, spaces not counted): "
                                  "quote a longer phrase that contains it")
    assert out["N"].grounding == grounding.NOT_FOUND  # a longer quote that is not there: as before
    text = grounding.reask_text(out)
    assert "a quote that could not be checked against the evidence text" in text
    assert "give a short quote (at least 4 characters, spaces not counted) copied" in text
    only_missing = grounding.reask_text({"N": out["N"]})  # no short quote: the re-ask reads as before
    assert "a quote that is not in the evidence text" in only_missing and "at least 4" not in only_missing
    assert grounding.why_not_found("   ") == "no quote given" and grounding.why_not_found(None) == "no quote given"


def test_the_reask_settles_on_the_second_answer():
    first = grounding.ground(ROWS, {"P": v("P", True, quote="invented words here")}, EVIDENCE)
    again = grounding.ground(ROWS, {"P": v("P", True, quote="ゾルゲと尾崎")}, EVIDENCE)
    assert grounding.settle_reasked(first, again)["P"].grounded is True
    still = grounding.ground(ROWS, {"P": v("P", True, quote="still invented")}, EVIDENCE)
    settled = grounding.settle_reasked(first, still)["P"]
    assert settled.grounded is False and settled.grounding.startswith("asked again once")
    honest_miss = grounding.ground(ROWS, {"P": v("P", False)}, EVIDENCE)
    assert grounding.settle_reasked(first, honest_miss)["P"].hit is False


@pytest.mark.parametrize(("setting", "reward"), [("keep", 1.0), ("miss", 0.0)])
def test_ungrounded_verdicts_score_by_the_policy_and_gate_by_it(setting, reward):
    rows = normalize_rubric([{"id": "G", "description": "How complete.", "weight": 1, "type": "gradient",
                              "levels": {"0": "none", "1": "all"}},
                             {"id": "D", "description": "Builds on it.", "weight": 1, "depends_on": ["G"]},
                             {"id": "N", "description": "States a wrong dose.", "weight": -1}]).criteria
    verdicts = {"G": v("G", True, level=1.0).model_copy(update={"grounded": False}), "D": v("D", True),
                "N": v("N", False).model_copy(update={"grounded": False})}
    out = score(rows, verdicts, ScoringPolicy(ungrounded=setting))
    by = {r.id: r for r in out.rows}
    if setting == "miss":
        assert by["G"].withdrawn and by["G"].contribution == 0 and by["D"].gate is False  # its dependant's gate closes
        assert by["N"].counted_hit is True and by["N"].contribution == -1  # a withdrawn "no fault" deducts
        assert out.reward == 0.0
    else:
        assert out.reward == pytest.approx(reward)


def test_the_default_is_miss():
    assert ScoringPolicy().ungrounded == "miss"


def test_the_schema_asks_for_the_quote_after_the_reason_and_the_parser_reads_it():
    item = verdict_schema(ROWS[:1], quote=True)["properties"]["verdicts"]["items"]
    assert list(item["properties"]) == item["required"] == ["id", "reason", "quote", "hit", "level"]
    text = '{"verdicts": [{"id": "P", "reason": "line 2", "quote": "ゾルゲと尾崎", "hit": true, "level": null}]}'
    assert parse_reply(text, ROWS[:1]).verdicts["P"].quote == "ゾルゲと尾崎"
    cut = '{"verdicts": [{"id": "P", "reason": "x", "quote": "ゾルゲ", "hit": true, "le'
    assert parse_reply(cut, ROWS[:1]).verdicts["P"].quote == "ゾルゲ"  # salvaged from a truncated reply
