"""Deterministic layout checks on a synthetic one-defect-per-slide deck and on real decks."""

from __future__ import annotations

import json

from cowork_judge.evidence.checks import DeckView, run_checks
from cowork_judge.evidence.fonts import norm, verdict
from cowork_judge.evidence.structure import extract_structure

from .conftest import make_defects_deck, require_tools


def _findings(out, deck) -> list[dict]:
    return json.loads((out / deck.checks).read_text())["findings"]


def test_each_synthetic_defect_is_found_once_and_nothing_else(synthetic_build):
    require_tools("soffice", "pymupdf")
    summary, out, _src = synthetic_build
    deck = next(d for d in summary.decks if d.source == "defects.pptx")
    got = sorted((f["check"], f["slide"], f["shape_name"]) for f in _findings(out, deck))
    assert got == [
        ("blank_page", 5, None),
        ("off_slide", 1, "OffRight"),
        ("placeholder_text", 4, "Content Placeholder 2"),
        ("text_overflow", 6, "Overflowing"),
        ("text_overlap", 2, "A"),
        ("tiny_font", 3, "Tiny"),
    ]  # slide 7 (wrap="none" label), 8 (hidden) and 9 (group) are clean


def test_finding_measures_have_units_and_confidence(synthetic_build):
    require_tools("soffice", "pymupdf")
    summary, out, _src = synthetic_build
    deck = next(d for d in summary.decks if d.source == "defects.pptx")
    by_check = {f["check"]: f for f in _findings(out, deck)}
    off = by_check["off_slide"]["measure"]
    assert off["right_pt"] == 108.0 and off["outside_frac"] == 0.5  # 8.5 in + 3 in on a 10 in slide
    overflow = by_check["text_overflow"]
    assert overflow["measure"]["bottom_pt"] > 100 and overflow["measure"]["font_substituted"] is False
    assert overflow["confidence"] == 0.9 and overflow["page"] == 6
    assert by_check["tiny_font"]["measure"]["size_pt"] == 5.0
    assert by_check["text_overlap"]["measure"]["other_shape_name"] == "B"
    for f in by_check.values():
        assert 0 < f["confidence"] <= 1 and f["message"]


def test_pdf_only_checks(synthetic_build):
    summary, out, _src = synthetic_build
    deck = next(d for d in summary.decks if d.source == "deck.pdf")
    got = sorted((f["check"], f["page"]) for f in _findings(out, deck))
    assert got == [("placeholder_text", 2), ("tiny_font", 2)]


def test_aascu_deck_overflow_on_slides_3_and_6(fixture_build):
    """The real 34-slide deck: visible overflow on slides 3 and 6 (both drawn with fonts
    substituted for the requested Palatino Linotype / Lucida Sans Unicode)."""
    require_tools("soffice", "pymupdf")
    summary, out = fixture_build
    deck = next(d for d in summary.decks if d.source.startswith("23__poi__aascu"))
    overflow = {f["slide"]: f for f in _findings(out, deck) if f["check"] == "text_overflow"}
    assert {3, 6} <= set(overflow)
    assert overflow[6]["shape_name"] == "Rectangle 3" and overflow[6]["measure"]["bottom_pt"] > 10
    assert overflow[3]["measure"]["autofit"] == "shape"
    for slide in (3, 6):
        assert overflow[slide]["measure"]["font_substituted"] is True
        assert overflow[slide]["confidence"] < 0.9  # substituted, non-metric-compatible font
    font_map = {e["requested"]: e for e in json.loads((out / deck.checks).read_text())["font_map"]}
    assert font_map["Palatino Linotype"]["verdict"] == "substituted"
    assert font_map["Arial"]["verdict"] == "metric_compatible"


def test_checks_without_render_use_structure_only(tmp_path):
    res = extract_structure(make_defects_deck(tmp_path / "d.pptx"), strict=False)
    doc = run_checks("d", DeckView(res.slides, res.slide_width_emu, res.slide_height_emu))
    got = sorted((f.check, f.slide, f.source) for f in doc.findings)
    assert ("off_slide", 1, "structure") in got and ("tiny_font", 3, "structure") in got
    assert ("text_overlap", 2, "structure") in got
    assert all(f.confidence <= 0.9 for f in doc.findings)
    assert doc.checks_skipped["text_overflow"] == "needs a rendered PDF"


def test_font_verdicts():
    assert norm("ABCDEF+DejaVuSans-Bold") == "dejavusans"
    assert verdict("Calibri", {"Carlito-Bold"}) == "metric_compatible"
    assert verdict("Times New Roman", {"LiberationSerif"}) == "metric_compatible"
    assert verdict("Palatino Linotype", {"DejaVuSerif"}) == "substituted"
    assert verdict("DejaVu Sans", {"DejaVuSans-Oblique"}) == "same"
    assert verdict("Arial", {"OpenSymbol"}) == "unknown"
