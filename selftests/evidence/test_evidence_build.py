"""Every shared fixture deck through sniff → structure → render → checks, against an
expected-outcome table. Nothing raises, nothing hangs, every written document validates."""

from __future__ import annotations

import json

import jsonschema
import pytest

from cowork_judge.evidence.documents import ChecksDoc, Digest, EvidenceSummary, SlideDoc

from .conftest import HANG_GUARD_SEC, require_tools

# deck: (sniff status, slide count (None = no structure), pages rendered, {(check, slide)} findings)
EXPECTED = {
    "01__python-pptx__minimal.pptx": ("ok", 0, 0, {("empty_deck", None)}),
    "02__python-pptx__no-slides.pptx": ("ok", 0, 0, {("empty_deck", None)}),
    "05__python-pptx__shp-groupshape.pptx": ("ok", 1, 1, set()),
    "06__python-pptx__shp-shapes.pptx": ("ok", 2, 2, set()),
    "07__python-pptx__txt-font-typeface.pptx": ("ok", 1, 1, set()),
    "08__python-pptx__tbl-cell.pptx": ("ok", 3, 3, set()),
    # slide 9 holds an empty media placeholder (p:sp with p:ph type="media", nothing in it)
    "09__python-pptx__ph-populated-placeholders.pptx": ("ok", 9, 9, {("placeholder_text", 9)}),
    "11__python-pptx__prs-notes.pptx": ("ok", 1, 1, {("blank_page", 1)}),
    # one wrap="none" line of ~1,800 pt on a 720 pt slide: runs off the right edge
    "12__python-pptx__txt-fit-text.pptx": ("ok", 1, 1, {("text_overflow", 1)}),
    "14__poi__SmartArt.pptx": ("ok", 1, 1, set()),
    # empty title/subtitle placeholders; the 5.8 pt "tiny font" was a superscript footnote mark; the grow-to-fit
    # body's rendered text runs into the text box and the footnote (visible on the page: "Here is a text box" drawn over
    # "Row 1 column 1"), found since text_overlap compares rendered extents (issue 24)
    "16__poi__with_japanese.pptx": ("ok", 1, 1, {("missing_glyph", 1), ("text_overflow", 1), ("placeholder_text", 1),
                                                 ("text_overlap", 1)}),
    "17__poi__sample_pptx_grouping_issues.pptx": ("ok", 1, 1, set()),
    "19__poi__missing-blip-fill.pptx": ("ok", 1, 1, {("blank_page", 1)}),
    "21__poi__bar-chart.pptx": ("ok", 1, 1, set()),
    "23__poi__aascu.org_workarea_downloadasset.aspx_id=5864.pptx": ("ok", 34, 34, {
        ("off_slide", 1), ("off_slide", 13), ("off_slide", 23), ("off_slide", 32),
        ("text_overflow", 3), ("text_overflow", 6), ("text_overflow", 10), ("text_overflow", 34),
        ("text_overflow", 7),  # the wrap="none" title, grown about its centre, is cut at both slide edges
        ("text_overlap", 26), ("tiny_font", 33)}),
    "25__poi__clusterfuzz-testcase-minimized-POIXSLFFuzzer-6254434927378432.pptx": ("corrupt_zip", None, 0, set()),
    "27__poi__testPPT.ppsx": ("ok", 3, 3, {("placeholder_text", 2), ("placeholder_text", 3)}),  # empty titles
    "29__poi__44296.ppt": ("ok_legacy_ppt", None, 1, set()),
    "30__Open-XML-SDK__Accent1sysClr.pptx": ("ok_strict", 1, 1, set()),
    "31__Open-XML-SDK__encrypted_pptx.pptx": ("encrypted", None, 0, set()),
    "33__Open-XML-SDK__Presentation.potx": ("ok", 3, 3, {("placeholder_text", 1)}),  # empty subtitle
    "35__Open-XML-SDK__AllSlidesConverterSC.pptx": ("ok", 5, 5, set()),
    "38__docling__powerpoint_malformed_pictures.pptx": ("ok", 3, 3, set()),
    "39__docling__powerpoint_unrecognized_shape.pptx": ("ok", 3, 3, set()),
    "40__docling__pptx_chart.pptx": ("ok", 2, 2, set()),
    "41__unstructured__fake-power-point-malformed.pptx": ("ok", 1, 1, set()),
    "43__unstructured__eng_spa_mult.ppt": ("ok", 6, 6, set()),
    "44__markitdown__test.pptx": ("ok", 6, 6, set()),
    "45__PPTAgent__build_effective_agents.pptx": ("ok", 10, 10, set()),
}
BROKEN_REASON = {"corrupt_zip", "encrypted"}


def _deck(summary, name):
    return next(d for d in summary.decks if d.source == name)


def test_table_covers_every_fixture(fixture_build, decks_dir):
    summary, _out = fixture_build
    assert sorted(d.source for d in summary.decks) == sorted(EXPECTED)
    assert sorted(p.name for p in decks_dir.iterdir() if p.name != "SOURCES.md") == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_expected_outcome(fixture_build, name):
    require_tools("soffice", "pymupdf")
    summary, out = fixture_build
    status, slides, pages, findings = EXPECTED[name]
    deck = _deck(summary, name)
    assert deck.sniff_status == status
    assert deck.slide_count == slides
    assert deck.pages_rendered == pages
    got = {(f["check"], f["slide"]) for f in json.loads((out / deck.checks).read_text())["findings"]}
    assert got == findings
    assert deck.seconds < HANG_GUARD_SEC
    if status in BROKEN_REASON:
        assert {(s.layer, s.kind) for s in deck.layers_skipped} == {("structure", "deck_broken"), ("render", "deck_broken")}
    if pages:
        assert len(list((out / "pages" / deck.deck).glob("page-*.png"))) == pages


def test_empty_deck_placeholder_page_is_mapped_to_no_slide(fixture_build):
    require_tools("soffice", "pymupdf")
    summary, _out = fixture_build
    deck = _deck(summary, "02__python-pptx__no-slides.pptx")
    assert deck.page_count == 1 and deck.page_to_slide == {1: None} and deck.pages_rendered == 0


def test_legacy_ppt_renders_without_structure(fixture_build):
    require_tools("soffice", "pymupdf")
    summary, out = fixture_build
    deck = _deck(summary, "29__poi__44296.ppt")
    assert not deck.structure_ok and deck.page_to_slide == {1: 1}
    digest = json.loads((out / deck.digest).read_text())
    assert digest["render"]["mapping"] == "assumed_order"
    assert [(s.layer, s.kind) for s in deck.layers_skipped] == [("structure", "not_applicable")]


def test_total_pages_is_the_sum(fixture_build):
    summary, _out = fixture_build
    assert summary.pages_rendered == sum(d.pages_rendered for d in summary.decks)
    assert summary.pages_rendered == sum(v[2] for v in EXPECTED.values()) or not summary.capabilities["soffice"]


def test_written_documents_validate_against_their_schemas(fixture_build):
    summary, out = fixture_build
    schemas = {name: model.model_json_schema(by_alias=True) for name, model in
               [("digest", Digest), ("checks", ChecksDoc), ("slide", SlideDoc), ("index", EvidenceSummary)]}
    jsonschema.validate(json.loads((out / "index.json").read_text()), schemas["index"])
    for deck in summary.decks:
        digest = json.loads((out / deck.digest).read_text())
        jsonschema.validate(digest, schemas["digest"])
        assert digest["schema"] == "cowork-judge/evidence-digest@1"
        assert "could not extract" in digest["structure_note"]
        if deck.checks:
            jsonschema.validate(json.loads((out / deck.checks).read_text()), schemas["checks"])
        for slide in (out / deck.deck / "pages").glob("slide-*.json"):
            jsonschema.validate(json.loads(slide.read_text()), schemas["slide"])


def test_deck_names_are_filesystem_safe_and_unique(tmp_path):
    from cowork_judge.evidence.layout import deck_name

    taken: set[str] = set()
    names = [deck_name(rel, taken) for rel in ["a b/deck.pptx", "a_b/deck.pptx", "../x.pptx", "é/" + "x" * 300 + ".pdf"]]
    assert names[0] == "a_b__deck.pptx" and names[1] == "a_b__deck.pptx-2" and names[2] == "x.pptx"
    assert len(set(names)) == 4 and all("/" not in n and len(n) <= 120 for n in names)
