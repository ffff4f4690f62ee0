"""A deck's kind comes from its content, never from its name: every code method that
looks at a deck (locate_deck, check_deck_openable, check_pptx_openable,
page_count_between) agrees on it, over a table of contents × names."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from testkit import deck, make_ctx

from cowork_judge.code_methods import CODE_METHODS
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route
from cowork_judge.segment.delivery import LocatedDeck

HTML = "<!doctype html><html><body><section>One</section><section>Two</section></body></html>"


def _pdf() -> bytes:
    pymupdf = pytest.importorskip("pymupdf", reason="PyMuPDF makes the PDF these cases read")
    doc = pymupdf.open()
    for _ in range(2):
        doc.new_page()
    return doc.tobytes()


def _docx() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
        zf.writestr("word/document.xml", "<w:document/>")
    return buf.getvalue()


CONTENTS = {
    "html": lambda: HTML.encode(),
    "pdf": _pdf,
    "pptx": lambda: deck("45__PPTAgent__build_effective_agents.pptx").read_bytes(),  # 10 slides
    "legacy_ppt": lambda: deck("29__poi__44296.ppt").read_bytes(),
    "text": lambda: b"Once upon a time, a deck.",
    "docx": _docx,
}

# (file name, content) → (deck_kind located, check_deck_openable hit, check_pptx_openable hit,
#                          words check_pptx_openable's reason must hold, pages counted or None)
CASES = [
    ("deck.pptx", "html", "html", True, False, "HTML document, not a PowerPoint presentation", 2),
    ("deck.pptx", "pdf", "pdf", True, False, "PDF document, not a PowerPoint presentation", 2),
    ("deck.ppt", "pptx", "pptx", True, True, "misleading file extension", 10),
    ("deck.html", "pptx", "pptx", True, True, "misleading file extension", 10),
    ("deck.pdf", "pptx", "pptx", True, True, "misleading file extension", 10),
    ("deck.pptx", "pptx", "pptx", True, True, "opens (OOXML presentation)", 10),
    ("deck.pptx", "legacy_ppt", "pptx", True, True, "legacy binary PowerPoint 97-2003", None),
    ("deck.html", "pdf", "pdf", True, False, "PDF document, not a PowerPoint presentation", 2),
    ("deck.pdf", "html", "html", True, False, "HTML document, not a PowerPoint presentation", 2),
    ("deck.htm", "html", "html", True, False, "HTML document, not a PowerPoint presentation", 2),
    # no recognisable deck inside: the deck the name offers, broken (the checks say why)
    ("deck.pptx", "text", "pptx", False, False, "unknown_format", None),
    ("deck.pptx", "docx", "pptx", False, False, "not_presentation", None),
    ("deck.pdf", "text", "pdf", False, False, "unknown_format", None),
]


@pytest.mark.parametrize("name,content,kind,deck_ok,pptx_ok,needle,pages", CASES,
                         ids=[f"{c[1]}-named-{c[0]}" for c in CASES])
def test_deck_kind_by_content(tmp_path, name, content, kind, deck_ok, pptx_ok, needle, pages):
    ctx = make_ctx(tmp_path, {name: CONTENTS[content]()})
    m = CODE_METHODS
    hit, reason, art = m["locate_deck"](ctx.segment())
    assert hit and art["deck_rel"] == name and art["deck_kind"] == kind, reason
    ctx.deck = LocatedDeck.from_artifacts(art)  # what the engine merges from the row's outcome
    hit, reason, _ = m["check_deck_openable"](ctx.segment())
    assert hit is deck_ok, reason
    hit, reason, _ = m["check_pptx_openable"](ctx.segment())
    assert hit is pptx_ok and needle in reason, reason
    if pages is not None:
        hit, reason, facts = m["page_count_between"](ctx.segment(), min_pages=pages, max_pages=pages)
        assert hit and facts == {"deck_pages": pages}, reason


@pytest.mark.parametrize("content,shown", [("html", "HTML"), ("pdf", "PDF")])
def test_a_misnamed_deck_says_what_it_is(tmp_path, content, shown):
    ctx = make_ctx(tmp_path, {"deck.pptx": CONTENTS[content]()})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit and f"{shown} content named .pptx" in reason
    ctx.deck = LocatedDeck.from_artifacts(art)  # what the engine merges from the row's outcome
    hit, reason, _ = CODE_METHODS["check_deck_openable"](ctx.segment())
    assert hit and f"{shown} content named .pptx" in reason
    hit, reason, _ = CODE_METHODS["page_count_between"](ctx.segment(), min_pages=1)
    assert hit and f"{shown} content named .pptx" in reason


def test_prefer_pptx_does_not_take_html_named_pptx(tmp_path):
    ctx = make_ctx(tmp_path, {"deck.pptx": HTML})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment(), prefer=["pptx"])
    assert not hit and art == {}
    assert "deck.pptx is html by its content" in reason


def test_content_breaks_name_ties(tmp_path):
    # named as two pptx decks, only one is: the other is an HTML page named .pptx
    ctx = make_ctx(tmp_path, {"a.pptx": HTML, "b.pptx": CONTENTS["pptx"]()})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit and art["deck_rel"] == "b.pptx" and art["deck_kind"] == "pptx", reason


def test_html_named_pptx_through_the_router(tmp_path):
    rows = normalize_rubric([
        {"id": "L", "description": "one deck", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck",
         "code_method_params": {"prefer": ["pptx"]}},
        {"id": "P", "description": "a pptx that opens", "weight": 1, "judge_method": "code",
         "code_method_name": "check_pptx_openable", "code_method_params": {"path": "deck.pptx"}},
        {"id": "N", "description": "3 to 20 slides", "weight": 1, "judge_method": "code",
         "code_method_name": "page_count_between", "code_method_params": {"min_pages": 3, "max_pages": 20,
                                                                          "path": "deck.pptx"}},
    ]).criteria
    v = route(rows, make_ctx(tmp_path, {"deck.pptx": HTML}))
    assert all(x.judged for x in v.values())
    assert v["L"].hit is False and v["P"].hit is False and v["N"].hit is False  # 2 sections, not a 3-20 slide pptx
    assert "not a PowerPoint presentation" in v["P"].reason


def MINIMAL() -> bytes:
    return deck("01__python-pptx__minimal.pptx").read_bytes()


def _linked_deck(tmp_path, link: str = "deck.pptx", target: str = "src/real.pptx"):
    """An output folder holding one deck at `target` and a relative symbolic link `link` to it."""
    output = tmp_path / "app" / "output"
    (output / link).parent.mkdir(parents=True, exist_ok=True)
    (output / link).symlink_to(Path(target) if "/" not in link else Path("..") / target)
    return make_ctx(tmp_path, {target: MINIMAL()})


def test_a_link_to_the_deck_inside_the_delivery_is_one_deck(tmp_path):
    """Trial 5, F3: ``deck.pptx -> src/real.pptx`` inside output/ was "ambiguous: 2 pptx
    decks" and gated every row (reward 0); the agent delivered one deck."""
    ctx = _linked_deck(tmp_path)
    assert sorted(f.rel for f in ctx.delivery.files) == ["deck.pptx", "src/real.pptx"]  # both names stay listed
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit, reason
    assert LocatedDeck.from_artifacts(art).rel == "src/real.pptx"
    assert "deck.pptx is a link to src/real.pptx: one deck" in reason


def test_the_expected_name_wins_among_links_to_one_deck(tmp_path):
    ctx = _linked_deck(tmp_path)
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment(), expect_name="deck.pptx", require_expect_name=True)
    assert hit, reason
    assert LocatedDeck.from_artifacts(art).rel == "deck.pptx"


def test_two_real_decks_are_still_ambiguous(tmp_path):
    ctx = make_ctx(tmp_path, {"a.pptx": MINIMAL(), "b.pptx": deck("05__python-pptx__shp-groupshape.pptx").read_bytes()})
    hit, reason, _ = CODE_METHODS["locate_deck"](ctx.segment())
    assert not hit and reason.startswith("ambiguous: 2 pptx decks"), reason
