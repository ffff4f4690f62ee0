"""Issue 35's design intent for the deck checks, pinned on one small deck rendered once through
the real LibreOffice + PyMuPDF. Each case comes from the blind round 6
(bench/deckblind/make_round6.py): every "clean" test here failed before the fix (a clean
design lost a row to a decisive finding), every "defect" test guards what the fix must keep.

- a picture or a textless decoration that leaves the slide only informs the model (never
  measured, below the default min_confidence); text that leaves the slide still decides;
- small print (a one- or two-line source or footnote at the foot of the slide) is held to
  7 pt, body text to 9 pt;
- two overlapping frames holding the same sentences each keep their own rendered lines, so the
  collision is found (not one frame's "overflow" made of the other's lines);
- a CJK family drawn under another regional name of the same installed font file (Noto Sans
  CJK SC embedded as NotoSansCJKjp) is the requested face, so its overflow is measured.
"""

from __future__ import annotations

import json

import pytest

from cowork_judge.evidence import build_evidence
from cowork_judge.evidence.checks import is_measured
from cowork_judge.evidence.documents import Finding

from .conftest import require_tools

CASES = ["oversized_photo", "deco_circle", "edge_bar", "footnote_8", "footnote_5", "body_8", "cjk_off_bottom",
         "text_off_right", "twin_boxes_overlap"]
"""Slide order (slide n = CASES[n - 1]), 16:9 13.333 x 7.5 in."""

CJK = "第三季度收入同比增长百分之十四，主要来自服务业务。营业利润率保持在百分之二十一。"


def _deck(path, photo):
    import pptx
    from pptx.dml.color import RGBColor
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.enum.text import MSO_AUTO_SIZE
    from pptx.util import Inches, Pt

    prs = pptx.Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)

    def box(slide, x, y, w, h, lines, size, name, font="Carlito"):
        tb = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
        tb.name = name
        tf = tb.text_frame
        tf.word_wrap, tf.auto_size = True, MSO_AUTO_SIZE.SHAPE_TO_FIT_TEXT
        for i, line in enumerate(lines):
            p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
            r = p.add_run()
            r.text, r.font.size, r.font.name = line, Pt(size), font
            if font.startswith("Noto Sans CJK"):
                rpr = r._r.get_or_add_rPr()
                rpr.append(rpr.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}ea",
                                           {"typeface": font}))
        return tb

    for case in CASES:
        s = prs.slides.add_slide(prs.slide_layouts[6])
        box(s, 0.6, 0.4, 10, 1, [f"Slide about {case.replace('_', ' ')}"], 32, "Title")
        if case == "oversized_photo":
            pic = s.shapes.add_picture(str(photo), -Inches(0.25), -Inches(0.25), prs.slide_width + Inches(0.5),
                                       prs.slide_height + Inches(0.5))
            pic.name = "Photo"
        elif case == "deco_circle":
            c = s.shapes.add_shape(MSO_SHAPE.OVAL, prs.slide_width - Inches(1.5), -Inches(1.5), Inches(4), Inches(4))
            c.name = "Circle"
            c.fill.solid()
            c.fill.fore_color.rgb = RGBColor(0x2E, 0x86, 0xC1)
        elif case == "edge_bar":
            bar = s.shapes.add_shape(MSO_SHAPE.RECTANGLE, prs.slide_width - Inches(0.3), 0, Inches(0.6),
                                     prs.slide_height)
            bar.name = "Bar"
        elif case == "footnote_8":
            box(s, 0.8, 1.8, 11, 2, ["Revenue grew 14 % year on year."], 20, "Body")
            box(s, 0.8, 6.9, 11, 0.35, ["* Prices exclude VAT. Offer valid until 31 March 2026."], 8, "Footnote")
        elif case == "footnote_5":
            box(s, 0.8, 1.8, 11, 2, ["Revenue grew 14 % year on year."], 20, "Body")
            box(s, 0.8, 6.9, 11, 0.35, ["Source: company filings 2025; figures unaudited."], 5, "Footnote")
        elif case == "body_8":
            box(s, 0.8, 1.8, 11, 2, ["Revenue grew 14 % year on year.", "Margin held at 21 %."], 8, "Body")
        elif case == "cjk_off_bottom":
            box(s, 0.8, 2.0, 11.5, 1, [CJK] * 8, 28, "正文", font="Noto Sans CJK SC")
        elif case == "twin_boxes_overlap":
            body = ["Revenue grew 14 % year on year, led by the services segment.",
                    "Operating margin held at 21 % despite higher input costs.",
                    "Two new regions opened in Q3; both reached break-even in Q4.",
                    "Customer churn fell from 6.1 % to 4.8 %.",
                    "Next year: focus on retention and the partner channel."]
            box(s, 0.8, 1.8, 8, 2, body[:4], 22, "Left")  # blind round 6's d04
            box(s, 3.0, 2.4, 8, 2, body[1:], 22, "Right")
        elif case == "text_off_right":
            box(s, 9.5, 2, 6, 2, ["North region: revenue up 12 % on the year"], 28, "Regions")
    prs.save(path)
    return path


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    require_tools("soffice", "pymupdf")
    from PIL import Image

    src = tmp_path_factory.mktemp("intent-src")
    photo = src / "photo.png"
    Image.new("RGB", (800, 450), (90, 140, 200)).save(photo)
    _deck(src / "intent.pptx", photo)
    out = tmp_path_factory.mktemp("intent-evidence")
    summary = build_evidence(["intent.pptx"], out, budget_sec=600, width_px=800, root=src)
    found = json.loads((out / summary.decks[0].checks).read_text())["findings"]
    by_case: dict[str, list[dict]] = {c: [] for c in CASES}
    for f in found:
        if f["slide"]:
            by_case[CASES[f["slide"] - 1]].append(f)
    return by_case


def _deciding(fs: list[dict], check: str, min_confidence: float = 0.5) -> list[dict]:
    """Findings of ``check`` that decide a cell at 0 (measured, confidence ≥ min_confidence)."""
    return [f for f in fs if f["check"] == check and f["confidence"] >= min_confidence
            and is_measured(Finding.model_validate(f))]


@pytest.mark.parametrize("case,shape", [("oversized_photo", "Photo"), ("deco_circle", "Circle"), ("edge_bar", "Bar")])
def test_clean_a_picture_or_decoration_leaving_the_slide_only_informs(findings, case, shape):
    off = [f for f in findings[case] if f["check"] == "off_slide"]
    assert [f["shape_name"] for f in off] == [shape]  # still reported to the model ...
    assert off[0]["measure"]["has_text"] is False and off[0]["confidence"] < 0.5
    assert _deciding(findings[case], "off_slide") == []  # ... but decides nothing


def test_defect_text_leaving_the_slide_still_decides(findings):
    assert [f["shape_name"] for f in _deciding(findings["text_off_right"], "off_slide")] == ["Regions"] or \
        [f["shape_name"] for f in _deciding(findings["text_off_right"], "text_overflow")] == ["Regions"]


def test_clean_an_8_pt_footnote_at_the_foot_of_the_slide_is_small_print(findings):
    assert [f for f in findings["footnote_8"] if f["check"] == "tiny_font"] == []


def test_defect_a_5_pt_footnote_and_8_pt_body_text_stay_tiny(findings):
    (foot,) = [f for f in findings["footnote_5"] if f["check"] == "tiny_font"]
    assert foot["shape_name"] == "Footnote" and foot["measure"]["small_print"] is True
    assert foot["measure"]["limit_pt"] == 7.0
    (body,) = [f for f in findings["body_8"] if f["check"] == "tiny_font"]
    assert body["shape_name"] == "Body" and "small_print" not in body["measure"] and body["measure"]["limit_pt"] == 9.0


def test_defect_cjk_text_drawn_under_another_regional_name_is_measured(findings):
    over = [f for f in findings["cjk_off_bottom"] if f["check"] == "text_overflow"]
    assert over and over[0]["measure"]["font_substituted"] is False
    assert _deciding(findings["cjk_off_bottom"], "text_overflow")


def test_an_odp_renamed_pptx_is_named_as_what_it_is(tmp_path):
    """Blind round 6's d12: LibreOffice's own .odp, renamed .pptx, was 'no presentation main part'."""
    require_tools("soffice")
    import shutil
    import subprocess

    import pptx

    from cowork_judge.evidence.sniff import sniff_deck

    src = tmp_path / "roadmap.pptx"
    prs = pptx.Presentation()
    prs.slides.add_slide(prs.slide_layouts[1]).shapes.title.text = "Roadmap"
    prs.save(src)
    soffice = shutil.which("soffice") or "soffice"
    subprocess.run([soffice, f"-env:UserInstallation=file://{tmp_path}/profile", "--headless", "--convert-to", "odp",
                    "--outdir", str(tmp_path), str(src)], capture_output=True, timeout=300, check=False)
    odp = tmp_path / "roadmap.odp"
    if not odp.is_file():
        pytest.skip("LibreOffice wrote no .odp")
    renamed = tmp_path / "deck.pptx"
    odp.rename(renamed)
    r = sniff_deck(renamed)
    assert r.status == "not_presentation"
    assert r.main_content_type == "application/vnd.oasis.opendocument.presentation"
    assert r.reason.startswith("an OpenDocument presentation (.odp) named .pptx")


def test_defect_overlapping_frames_with_the_same_sentences_collide(findings):
    fs = findings["twin_boxes_overlap"]
    assert [f["check"] for f in fs] == ["text_overlap"]
    assert _deciding(fs, "text_overlap")
