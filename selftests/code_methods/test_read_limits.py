"""Read limits are the deliverable's doing: a code row whose answer a limit hides is
JUDGED against the deliverable (a miss for a positive row, the deduction for a negative
row or hurdle), its reason names the limit, and nothing is ``over_limit``."""

from __future__ import annotations

import pytest
from testkit import make_ctx

from cowork_judge.code_methods import CODE_METHODS
from cowork_judge.code_methods.files import NoText, ReadLimit
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route

HIDDEN = "hidden"
"""Expected outcome of a method whose answer the limit hides: it raises `ReadLimit`."""


@pytest.fixture
def cut(tmp_path, monkeypatch):
    """Three deliverables listed; ``zz_report.md`` and ``zz_slides.pptx`` seen past the limit."""
    from cowork_judge.run import collect as delivery

    monkeypatch.setattr(delivery, "MAX_FILES", 3)
    files = {"a0.txt": "alpha x", "a1.txt": "beta x", "a2.json": '{"a": 1}',
             "zz_report.md": "# the report", "zz_slides.pptx": b"PK\x03\x04 not really"}
    return make_ctx(tmp_path, files)


# method, params → True / False (an answer the limit does not hide) or HIDDEN
LISTING_CASES = [
    ("file_exists", {"glob": "*.txt"}, True),
    ("file_exists", {"glob": "*.md"}, True),  # seen by name past the limit: it exists
    ("file_exists", {"glob": "*.csv"}, False),  # every entry was seen: certainly absent
    ("file_nonempty", {"glob": "*.md", "min_bytes": 5}, True),  # its size was seen
    ("file_nonempty", {"glob": "*.md", "min_bytes": 5000}, False),
    ("file_matches_glob", {"glob": "*", "min_count": 5, "max_count": 5}, True),  # listed + seen
    ("file_matches_glob", {"glob": "zz_*", "max_count": 1}, False),
    ("text_contains", {"text": "beta"}, True),  # found in what was read: certain
    ("text_contains", {"text": "the report", "glob": "*.md"}, HIDDEN),  # the .md was never read
    ("text_contains", {"text": "nowhere", "glob": "*.txt"}, False),  # every .txt was read
    ("regex_match", {"pattern": "rep.rt", "glob": "**/*"}, HIDDEN),
    ("word_count_between", {"min_words": 2, "glob": "*.txt"}, True),
    ("word_count_between", {"min_words": 50}, HIDDEN),
    ("json_valid", {"glob": "*.json"}, True),
    ("json_valid", {"glob": "zz_*"}, HIDDEN),
    ("locate_deck", {}, HIDDEN),  # a deck-like name past the limit could be the deck
    ("locate_deck", {"exclude": ["zz_*"]}, False),  # ...unless the rubric excludes it: no deck
    ("check_deck_openable", {"path": "zz_slides.pptx"}, HIDDEN),
]


@pytest.mark.parametrize("method,params,expected", LISTING_CASES, ids=[f"{m}-{i}" for i, (m, _, _) in enumerate(LISTING_CASES)])
def test_a_cut_listing_hides_only_what_it_hides(cut, method, params, expected):
    if expected == HIDDEN:
        with pytest.raises(ReadLimit) as info:
            CODE_METHODS[method](cut.segment(), **params)
        assert info.value.limit == "only the first 3 deliverables are listed"
    else:
        hit, reason, _ = CODE_METHODS[method](cut.segment(), **params)
        assert hit is expected, reason


def test_a_scan_that_stopped_early_hides_absence(tmp_path, monkeypatch):
    from cowork_judge.run import collect as delivery

    monkeypatch.setattr(delivery, "MAX_SCAN_ENTRIES", 4)  # the output folder + 3 of its 5 files
    ctx = make_ctx(tmp_path, {f"f{i}.txt": "x" for i in range(5)})
    assert ctx.delivery.scan_cut and len(ctx.delivery.files) == 3
    assert any("stopped after 4 entries" in n for n in ctx.delivery.notes)
    assert CODE_METHODS["file_exists"](ctx.segment(), glob="f0.txt")[0] is True
    with pytest.raises(ReadLimit) as info:
        CODE_METHODS["file_exists"](ctx.segment(), glob="*.md")
    assert info.value.limit == "only 4 directory entries are scanned"
    assert CODE_METHODS["file_matches_glob"](ctx.segment(), glob="*.txt", max_count=2)[0] is False  # 3 > 2 already


def test_text_past_the_read_limit_is_named(tmp_path, monkeypatch):
    from cowork_judge.code_methods import files

    monkeypatch.setattr(files, "MAX_TEXT_BYTES", 1000)
    body = "lorem ipsum " * 200 + "NEEDLE_AT_END"  # 2413 bytes: the needle is past the first 1000
    ctx = make_ctx(tmp_path, {"big.md": body})
    m = CODE_METHODS
    assert m["text_contains"](ctx.segment(), text="lorem")[0] is True
    with pytest.raises(ReadLimit, match="big.md was read only up to 1000 of its 2413 bytes") as info:
        m["text_contains"](ctx.segment(), text="NEEDLE_AT_END")
    assert info.value.limit == "1000 bytes are read per file"
    with pytest.raises(ReadLimit):
        m["regex_match"](ctx.segment(), pattern="NEEDLE_AT_END")
    assert m["word_count_between"](ctx.segment(), min_words=10)[0] is True  # ≥ 10 in what was read: certain
    with pytest.raises(ReadLimit):
        m["word_count_between"](ctx.segment(), min_words=300)


def _row(row_id: str, weight: float, method: str, params: dict, **extra) -> dict:
    return {"id": row_id, "description": row_id, "weight": weight, "judge_method": "code",
            "code_method_name": method, "code_method_params": params, **extra}


# weight, hurdle → the judged hit of a row whose answer is hidden, and how the reason says it
POLARITY_CASES = [(2, False, False, "a miss"), (-2, False, True, "hit, the deduction applies"),
                  (0, True, True, "hit, the hurdle is fatal"), (3, True, True, "hit, the hurdle is fatal")]


@pytest.mark.parametrize("weight,hurdle,hit,side", POLARITY_CASES, ids=["positive", "deduction", "hurdle", "weighted-hurdle"])
def test_a_hidden_answer_is_judged_against_the_deliverable(cut, weight, hurdle, hit, side):
    rows = normalize_rubric([_row("P", 1, "file_exists", {"glob": "*.txt"}),
                             _row("R", weight, "text_contains", {"text": "the report", "glob": "*.md"}, hurdle=hurdle)]).criteria
    v = route(rows, cut)["R"]
    assert v.judged is True and v.error_kind is None and v.hit is hit
    assert v.reason.startswith("[read limit] text_contains:")
    assert "only the first 3 deliverables are listed" in v.reason
    assert v.reason.endswith(f"counted against the deliverable: {side}")
    assert any(n.startswith("code row R: [read limit]") for n in cut.delivery.notes)  # what was not read


def test_the_cut_listing_is_a_delivery_note_and_a_bounded_detail(tmp_path, monkeypatch):
    from cowork_judge.run import collect as delivery

    monkeypatch.setattr(delivery, "MAX_FILES", 3)
    monkeypatch.setattr(delivery, "MAX_DETAIL_ENTRIES", 5)
    ctx = make_ctx(tmp_path, {f"f{i:02}.txt": "x" for i in range(20)})
    assert len(ctx.delivery.files) == 3 and len(ctx.delivery.unlisted) == 17
    assert [n for n in ctx.delivery.notes if "17 deliverable(s) past the first 3 were not listed" in n]
    details = delivery.delivery_details(ctx.delivery)
    assert details.ignored[:5] == [f"f{i:02}.txt (listing_limit)" for i in range(3, 8)]
    assert details.ignored[5:] == ["... and 12 more not named here"]


def test_nothing_to_count_names_the_file_read_as_binary(tmp_path):
    """Trial 4's L1: an all-NUL ``.txt`` (a sparse file) left ``word_count_between`` with the
    bare reason "nothing to count"; the reason now names the file and why it gave no text. Every matching
    file being binary, the method raises `NoText` with that reason (trial 17 P-1): the runner judges a
    positive row a miss with it, a hurdle or deduction unjudged ``no_text``."""
    ctx = make_ctx(tmp_path, {"report.txt": b"\x00" * 20000})
    with pytest.raises(NoText) as caught:
        CODE_METHODS["word_count_between"](ctx.segment(), min_words=10, glob="*.txt")
    reason = caught.value.reason
    assert "report.txt" in reason and "binary" in reason and "NUL" in reason and caught.value.binary == ["report.txt"]


def test_nothing_to_count_says_no_deliverable_matched(tmp_path):
    ctx = make_ctx(tmp_path, {"notes.md": "some words here"})
    hit, reason, _ = CODE_METHODS["word_count_between"](ctx.segment(), min_words=1, glob="*.txt")
    assert hit is False
    assert reason == "nothing to count: no deliverable matches '*.txt'"


def test_a_chinese_answer_is_counted_by_its_characters(tmp_path):
    """Trial 5, F16: 210 characters of Chinese prose (no spaces) counted as "1 words", so a
    ``min_words`` row could never be met by a Chinese answer. Each CJK character is a word;
    CJK punctuation separates; English still counts by spaces."""
    answer = "传输控制协议提供可靠的、有序的传输。" * 10  # 16 characters and two punctuation marks, ten times
    ctx = make_ctx(tmp_path, {}, final_message=answer + " TCP and UDP")
    hit, reason, _ = CODE_METHODS["word_count_between"](ctx.segment(), min_words=150, max_words=170, source="response")
    assert hit and reason == "163 words; required [150, 170]", reason
    hit, reason, _ = CODE_METHODS["word_count_between"](make_ctx(tmp_path / "b", {}, final_message="done").segment(),
                                                         min_words=2, source="response")
    assert not hit and reason == "1 word; required [2, ∞]", reason
