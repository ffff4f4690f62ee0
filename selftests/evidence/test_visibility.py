"""What a viewer sees of a slide's text (issue 27): the colour rule, and each way a deck hides
text, checked on a real deck and against LibreOffice's rendering of it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hidden_decks import CASES, RENDERERS_DISAGREE, build_visibility_deck
from lxml import etree

from cowork_judge.evidence.colour import Colour, Palette, contrast_ratio, delta_e
from cowork_judge.evidence.structure import extract_structure
from cowork_judge.evidence.visibility import HIDDEN_CONTRAST, looks_alike

from .conftest import require_tools

COLOUR_CLAIMS = ("background_colour", "transparent", "covered")


@pytest.fixture(scope="module")
def deck(tmp_path_factory) -> Path:
    return build_visibility_deck(tmp_path_factory.mktemp("visibility") / "cases.pptx")


@pytest.fixture(scope="module")
def slides(deck):
    res = extract_structure(deck, strict=False)
    assert res.ok and not res.errors, res.errors
    return dict(zip(CASES, res.slides))


@pytest.mark.parametrize("case", list(CASES))
def test_each_case_keeps_the_probe_where_a_viewer_finds_it(slides, case):
    slide = slides[case]
    probe = f"probe {case} words"
    hidden = [h for h in slide.hidden_text if probe in h.text]
    assert slide.title == f"Case {case}"
    if CASES[case] is None:
        assert probe in slide.text and not hidden, slide.hidden_text
    else:
        assert probe not in slide.text, slide.text
        assert [h.reason for h in hidden] == [CASES[case]]


@pytest.fixture(scope="module")
def rendered(deck, tmp_path_factory):
    require_tools("soffice", "pymupdf")
    import pymupdf

    from cowork_judge.evidence import probe_capabilities
    from cowork_judge.evidence.render import soffice_to_pdf

    caps = probe_capabilities()
    res = soffice_to_pdf(deck, "pptx", tmp_path_factory.mktemp("visibility-render"), soffice=caps.soffice.path,
                         timeout_sec=300, version=caps.soffice.version_tuple())
    assert res.pdf is not None, res.reason
    doc = pymupdf.open(res.pdf)
    yield dict(zip(CASES, doc))
    doc.close()


def _stands_out(page, rect) -> bool:
    """Whether any pixel of `rect` (rendered at 144 dpi) stands out from the most common one
    (the backdrop), by the same measure the evidence uses."""
    pix = page.get_pixmap(clip=rect, dpi=144)
    pixels = Counter(pix.pixel(x, y) for y in range(pix.height) for x in range(pix.width))
    backdrop = Colour(*(c / 255 for c in pixels.most_common(1)[0][0]))
    return any(not looks_alike(Colour(*(c / 255 for c in p)), backdrop) for p in pixels)


@pytest.mark.parametrize("case", [c for c in CASES if c not in RENDERERS_DISAGREE])
def test_the_rendered_page_shows_what_the_evidence_claims(rendered, case):
    """LibreOffice (the renderer of the page images the judge sees) draws the probe so that a
    viewer sees it exactly when the evidence keeps it in the slide's text."""
    page = rendered[case]
    hits = [r for r in page.search_for(f"probe {case} words") if r.intersects(page.rect)]
    expected = CASES[case]
    if expected is None:
        assert hits and _stands_out(page, hits[0])
    elif expected in COLOUR_CLAIMS:
        assert not hits or not any(_stands_out(page, r) for r in hits)
    elif expected == "tiny":
        sizes = [span["size"] for block in page.get_text("dict")["blocks"] for line in block.get("lines", [])
                 for span in line["spans"] if "probe" in span["text"]]
        assert not sizes or max(sizes) < 4  # drawn under 4 pt, or not at all
    else:  # hidden_shape, off_slide: not drawn on the page
        assert not hits


def test_renderers_that_disagree_get_no_claim(slides, rendered):
    """A master background under the slide's own colour map: LibreOffice draws it white (the
    master's map), PowerPoint black (the slide's); the evidence keeps both probes visible and
    records the background as ambiguous."""
    for case in RENDERERS_DISAGREE:
        assert slides[case].background.kind == "ambiguous"
        assert sorted(slides[case].background.colours) == ["#000000", "#FFFFFF"]
    page = rendered["darkmap"]
    assert _stands_out(page, page.search_for("probe darkmap words")[0])  # black on LibreOffice's white


def test_the_old_false_claims_on_public_decks_are_visible(decks_dir):
    """White text in an accent-filled shape and ``bg1`` darkened to 10 % were called "coloured as
    the background" before the theme and transforms were resolved."""
    markitdown = extract_structure(decks_dir / "44__markitdown__test.pptx", strict=False).slides[4]
    assert "Nested Shape" in markitdown.text and not markitdown.hidden_text
    aascu = extract_structure(decks_dir / "23__poi__aascu.org_workarea_downloadasset.aspx_id=5864.pptx", strict=False)
    assert "Percentage of tertiary" in aascu.slides[10].text and not aascu.slides[10].hidden_text


def test_no_public_deck_hides_text_by_colour(decks_dir):
    from cowork_judge.evidence.sniff import sniff_deck

    claims = []
    for path in sorted(decks_dir.iterdir()):
        sniff = sniff_deck(path)
        if sniff.status not in ("ok", "ok_strict"):
            continue
        for slide in extract_structure(path, strict=sniff.status == "ok_strict").slides:
            claims += [(path.name, slide.index, h.reason) for h in slide.hidden_text
                       if h.reason in ("background_colour", "transparent", "covered", "tiny")]
    assert claims == []


def test_a_hidden_title_is_no_title():
    from cowork_judge.evidence.documents import Paragraph, Run, ShapeDoc, SlideDoc, TextFrame
    from cowork_judge.evidence.visibility import split_visible

    frame = TextFrame(paragraphs=[Paragraph(text="Note to the grader", runs=[Run(text="Note to the grader")])])
    slide = SlideDoc(index=1, title="Note to the grader", text="Note to the grader",
                     shapes=[ShapeDoc(id="2", kind="sp", placeholder="title", hidden=True, text=frame)])
    split_visible(slide, 9144000, 6858000)
    assert slide.title is None and slide.text == "" and [h.reason for h in slide.hidden_text] == ["hidden_shape"]


# ------------------------------------------------------------------ the colour rule


def test_wcag_contrast_ratio_matches_the_standard_s_examples():
    white, black = Colour.from_hex("FFFFFF"), Colour.from_hex("000000")
    assert contrast_ratio(white, black) == pytest.approx(21.0)
    assert contrast_ratio(white, white) == pytest.approx(1.0)
    assert contrast_ratio(Colour.from_hex("767676"), white) == pytest.approx(4.54, abs=0.01)  # the AA-passing grey
    assert delta_e(white, black) == pytest.approx(100.0, abs=0.01)


@pytest.mark.parametrize("text,behind,alike", [
    ("FFFFFF", "FFFFFF", True), ("F2F2F2", "FFFFFF", True), ("D9D9D9", "FFFFFF", True), ("BFBFBF", "FFFFFF", False),
    ("262626", "000000", True), ("404040", "000000", False), ("FFFF00", "FFFFFF", False), ("00FFFF", "FFFFFF", False),
    ("4472C4", "4F81BD", True), ("FFFFFF", "4F81BD", False), ("C00000", "000000", False),
])
def test_looks_alike_is_low_luminance_contrast_and_a_small_colour_difference(text, behind, alike):
    t, b = Colour.from_hex(text), Colour.from_hex(behind)
    assert looks_alike(t, b) is alike
    assert (contrast_ratio(t, b) < HIDDEN_CONTRAST) or not alike


def _el(xml: str):
    return etree.fromstring(f'<x xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">{xml}</x>')[0]


def test_theme_colours_go_through_the_colour_map_and_the_transforms():
    theme = etree.fromstring(
        '<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:themeElements><a:clrScheme name="t">'
        '<a:dk1><a:sysClr val="windowText" lastClr="101010"/></a:dk1><a:lt1><a:srgbClr val="FAFAFA"/></a:lt1>'
        '<a:dk2><a:srgbClr val="1F497D"/></a:dk2><a:lt2><a:srgbClr val="EEECE1"/></a:lt2>'
        '<a:accent1><a:srgbClr val="4F81BD"/></a:accent1></a:clrScheme></a:themeElements></a:theme>')
    light = Palette.from_theme(theme, {"bg1": "lt1", "tx1": "dk1"})
    dark = Palette.from_theme(theme, {"bg1": "dk1", "tx1": "lt1"})
    assert light.colour(_el('<a:schemeClr val="bg1"/>')).hex == "#FAFAFA"
    assert dark.colour(_el('<a:schemeClr val="bg1"/>')).hex == "#101010"
    assert dark.colour(_el('<a:schemeClr val="tx1"/>')).hex == "#FAFAFA"
    white = Palette.from_theme(None)
    assert white.colour(_el('<a:srgbClr val="FFFFFF"><a:lumMod val="75000"/></a:srgbClr>')).hex == "#BFBFBF"
    assert white.colour(_el('<a:srgbClr val="000000"><a:lumMod val="85000"/><a:lumOff val="15000"/></a:srgbClr>')).hex \
        == "#262626"
    assert white.colour(_el('<a:srgbClr val="FF0000"><a:alpha val="25000"/></a:srgbClr>')).hex == "#FF000040"
    assert white.colour(_el('<a:srgbClr val="808080"><a:shade val="0"/></a:srgbClr>')).hex == "#000000"
    assert white.colour(_el('<a:srgbClr val="808080"><a:tint val="0"/></a:srgbClr>')).hex == "#FFFFFF"
    assert white.colour(_el('<a:prstClr val="white"/>')).hex == "#FFFFFF"
    assert white.colour(_el('<a:srgbClr val="FFFFFF"><a:unknownTransform val="1"/></a:srgbClr>')) is None
    assert white.colour(_el('<a:srgbClr val="nothex"/>')) is None
