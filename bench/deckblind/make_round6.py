"""Round 6 of the deck checks' blind benchmark: 34 decks written from the user docs alone.

    .venv/bin/python bench/deckblind/make_round6.py --out /tmp/deckround6

Written before reading any check rule (issue 35's blind protocol): each deck is what a design
team or a careless agent would deliver, and ``labels.json`` says what a reviewer would say of
it — ``clean`` (nothing a reader would call a defect, including full-bleed photos, decorative
shapes that bleed off the edge, 8–10 pt source lines, CJK text, tables, charts, groups) or the
defects it has: ``{"slide": n, "kind": <check kind the docs name>, "critical": bool, "what": ...}``.
The kinds are those docs/deck-judging.md lists (``text_overflow``, ``off_slide``,
``text_overlap``, ``missing_glyph``, ``blank_page``, ``tiny_font``, ``placeholder_text``) and
``unreadable`` for a file that is not a readable .pptx. The pictures are generated gradients
(no third-party images). Requires python-pptx and Pillow; the .odp deck needs LibreOffice.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.dml.color import RGBColor
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.enum.text import MSO_AUTO_SIZE
from pptx.util import Inches, Pt

W, H = Inches(13.333), Inches(7.5)
LATIN = "Carlito"
SC = "Noto Sans CJK SC"
JP = "Noto Sans CJK JP"

BODY = [
    "Revenue grew 14 % year on year, led by the services segment.",
    "Operating margin held at 21 % despite higher input costs.",
    "Two new regions opened in Q3; both reached break-even in Q4.",
    "Customer churn fell from 6.1 % to 4.8 %.",
    "Next year: focus on retention and the partner channel.",
]
CJK_SC = ["第三季度收入同比增长百分之十四，主要来自服务业务。", "营业利润率保持在百分之二十一。",
          "新开设的两个区域在第四季度实现盈亏平衡。", "客户流失率从百分之六点一降至百分之四点八。"]
CJK_JP = ["第3四半期の売上高は前年同期比14％増加しました。", "営業利益率は21％を維持しました。",
          "新たに開設した2地域は第4四半期に黒字化しました。"]


def _photo(path: Path, w: int = 1600, h: int = 900, seed: int = 0) -> Path:
    """A gradient 'photo' with a few shapes: stands in for a stock image."""
    img = Image.new("RGB", (w, h))
    draw = ImageDraw.Draw(img)
    for y in range(h):
        c = int(40 + 180 * y / h)
        draw.line([(0, y), (w, y)], fill=((c + seed * 40) % 256, (c // 2 + 60) % 256, (200 - c // 3) % 256))
    for i in range(6):
        x0 = (i * 263 + seed * 97) % w
        draw.ellipse([x0, h // 3, x0 + 180, h // 3 + 180], fill=(240, 220 - i * 20, 120))
    img.save(path)
    return path


def _deck() -> Presentation:
    prs = Presentation()
    prs.slide_width, prs.slide_height = W, H
    return prs


def _box(slide, x, y, w, h, lines, size=18, font=LATIN, grow=True, bold=False, name=None, color=None):
    tb = slide.shapes.add_textbox(x, y, w, h)
    if name:
        tb.name = name
    tf = tb.text_frame
    tf.word_wrap = True
    tf.auto_size = MSO_AUTO_SIZE.SHAPE_TO_FIT_TEXT if grow else MSO_AUTO_SIZE.NONE
    for i, line in enumerate(lines):
        p = tf.paragraphs[0] if i == 0 else tf.add_paragraph()
        r = p.add_run()
        r.text = line
        r.font.size = Pt(size)
        r.font.name = font
        r.font.bold = bold
        if color is not None:
            r.font.color.rgb = color
        if font in (SC, JP):  # the east-Asian font slot, as PowerPoint writes it
            rpr = r._r.get_or_add_rPr()
            ea = rpr.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}ea", {"typeface": font})
            rpr.append(ea)
    return tb


def _title(slide, text, font=LATIN, size=36):
    return _box(slide, Inches(0.6), Inches(0.4), Inches(12), Inches(1.0), [text], size=size, font=font, bold=True,
                name="Title")


def _blank(prs):
    return prs.slides.add_slide(prs.slide_layouts[6])


def _std(prs, title, lines=BODY, size=20, font=LATIN):
    s = _blank(prs)
    _title(s, title, font=font)
    _box(s, Inches(0.8), Inches(1.7), Inches(11.5), Inches(4.5), lines, size=size, font=font, name="Body")
    return s


def _save(prs, out: Path, name: str) -> str:
    prs.save(out / name)
    return name


# ---------------------------------------------------------------- clean designs

def c01_plain(out, img):
    prs = _deck()
    _std(prs, "Annual results 2025")
    _std(prs, "Outlook", BODY[2:])
    return _save(prs, out, "c01-plain.pptx"), []


def c02_fullbleed(out, img):
    prs = _deck()
    s = _blank(prs)
    s.shapes.add_picture(str(img), 0, 0, W, H)
    band = s.shapes.add_shape(MSO_SHAPE.RECTANGLE, 0, Inches(5.2), W, Inches(1.6))
    band.fill.solid()
    band.fill.fore_color.rgb = RGBColor(0, 0, 0)
    band.line.fill.background()
    _box(s, Inches(0.8), Inches(5.4), Inches(11), Inches(1.0), ["Building the partner channel"], size=36,
         color=RGBColor(255, 255, 255), bold=True)
    _std(prs, "Why partners", BODY[:3])
    return _save(prs, out, "c02-fullbleed-photo.pptx"), []


def c03_oversized(out, img):
    prs = _deck()
    s = _blank(prs)
    bleed = Inches(0.25)
    s.shapes.add_picture(str(img), -bleed, -bleed, W + 2 * bleed, H + 2 * bleed)
    _box(s, Inches(1), Inches(3), Inches(8), Inches(1.2), ["Customer stories"], size=40, bold=True,
         color=RGBColor(255, 255, 255))
    _std(prs, "Three customers, three results", BODY[1:4])
    return _save(prs, out, "c03-oversized-photo.pptx"), []


def c04_deco_circles(out, img):
    prs = _deck()
    for title in ("Our strategy", "Priorities"):
        s = _blank(prs)
        for x, y, d in ((W - Inches(1.5), -Inches(1.5), Inches(4)), (-Inches(1), H - Inches(1.2), Inches(3))):
            c = s.shapes.add_shape(MSO_SHAPE.OVAL, x, y, d, d)
            c.fill.solid()
            c.fill.fore_color.rgb = RGBColor(0x2E, 0x86, 0xC1)
            c.line.fill.background()
        _title(s, title)
        _box(s, Inches(1.2), Inches(1.8), Inches(9), Inches(3.5), BODY[:4], size=20)
    return _save(prs, out, "c04-decorative-circles-off-edge.pptx"), []


def c05_deco_lines(out, img):
    prs = _deck()
    s = _std(prs, "Timeline", ["2023: pilot", "2024: two regions", "2025: national roll-out"], size=22)
    s.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, -Inches(0.5), Inches(6.6), W + Inches(0.5), Inches(6.6))
    bar = s.shapes.add_shape(MSO_SHAPE.RECTANGLE, W - Inches(0.3), 0, Inches(0.6), H)
    bar.fill.solid()
    bar.fill.fore_color.rgb = RGBColor(0xC0, 0x39, 0x2B)
    bar.line.fill.background()
    return _save(prs, out, "c05-decorative-bars-off-edge.pptx"), []


def c06_footnote9(out, img):
    prs = _deck()
    for t in ("Market size", "Share by region"):
        s = _std(prs, t, BODY[:3], size=20)
        _box(s, Inches(0.8), Inches(6.8), Inches(11), Inches(0.4),
             ["Source: company filings 2025; figures unaudited. Market estimates from public reports."], size=9)
    return _save(prs, out, "c06-source-line-9pt.pptx"), []


def c07_cjk_sc(out, img):
    prs = _deck()
    _std(prs, "二〇二五年度业绩", CJK_SC, size=22, font=SC)
    _std(prs, "展望", CJK_SC[:2], size=22, font=SC)
    return _save(prs, out, "c07-cjk-sc.pptx"), []


def c08_table(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Results by quarter")
    rows, cols = 5, 4
    tbl = s.shapes.add_table(rows, cols, Inches(0.8), Inches(1.8), Inches(11.5), Inches(3.5)).table
    data = [["Quarter", "Revenue", "Margin", "Churn"], ["Q1", "120", "20 %", "6.1 %"], ["Q2", "131", "21 %", "5.6 %"],
            ["Q3", "140", "21 %", "5.0 %"], ["Q4", "152", "22 %", "4.8 %"]]
    for r in range(rows):
        for c in range(cols):
            cell = tbl.cell(r, c)
            cell.text = data[r][c]
            for p in cell.text_frame.paragraphs:
                for run in p.runs:
                    run.font.size = Pt(14)
    return _save(prs, out, "c08-table.pptx"), []


def c09_chart(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Revenue by segment")
    cd = CategoryChartData()
    cd.categories = ["Products", "Services", "Licences"]
    cd.add_series("2024", (52, 61, 18))
    cd.add_series("2025", (55, 74, 19))
    s.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(1.6), Inches(11), Inches(5.4), cd)
    return _save(prs, out, "c09-chart.pptx"), []


def c10_group(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "How it works")
    for i, label in enumerate(("Collect", "Review", "Decide")):
        grp = s.shapes.add_group_shape()
        r = grp.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, Inches(1 + 4 * i), Inches(2.5), Inches(3.2), Inches(2))
        r.fill.solid()
        r.fill.fore_color.rgb = RGBColor(0xEA, 0xF2, 0xF8)
        _ = grp.shapes.add_textbox(Inches(1.2 + 4 * i), Inches(3.1), Inches(2.8), Inches(0.8))
        tf = _.text_frame
        tf.text = label
        tf.paragraphs[0].runs[0].font.size = Pt(24)
    return _save(prs, out, "c10-groups.pptx"), []


def c11_ten_slides(out, img):
    prs = _deck()
    for i in range(10):
        _std(prs, f"Section {i + 1}", BODY[i % 3: i % 3 + 3])
    return _save(prs, out, "c11-ten-slides.pptx"), []


def c12_two_pictures(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Before and after")
    s.shapes.add_picture(str(img), Inches(0.8), Inches(1.6), Inches(5.6), Inches(3.15))
    s.shapes.add_picture(str(img), Inches(6.9), Inches(1.6), Inches(5.6), Inches(3.15))
    _box(s, Inches(0.8), Inches(4.9), Inches(5.6), Inches(0.5), ["Before: manual review"], size=10)
    _box(s, Inches(6.9), Inches(4.9), Inches(5.6), Inches(0.5), ["After: assisted review"], size=10)
    return _save(prs, out, "c12-two-pictures-captions.pptx"), []


def c13_cjk_jp(out, img):
    prs = _deck()
    _std(prs, "2025年度の業績", CJK_JP, size=22, font=JP)
    return _save(prs, out, "c13-cjk-jp.pptx"), []


def c14_shrink_fits(out, img):
    prs = _deck()
    s = prs.slides.add_slide(prs.slide_layouts[1])  # title and content placeholders
    s.shapes.title.text = "Highlights"
    body = s.placeholders[1]
    body.text_frame.text = BODY[0]
    for line in BODY[1:]:
        body.text_frame.add_paragraph().text = line
    bp = body.text_frame._txBody.bodyPr
    for child in list(bp):
        bp.remove(child)
    bp.append(bp.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}normAutofit",
                             {"fontScale": "92500", "lnSpcReduction": "10000"}))
    return _save(prs, out, "c14-shrink-to-fit-that-fits.pptx"), []


def c15_footnote8(out, img):
    prs = _deck()
    for t in ("Pricing", "Terms"):
        s = _std(prs, t, BODY[1:4], size=20)
        _box(s, Inches(0.8), Inches(6.9), Inches(11), Inches(0.35),
             ["* Prices exclude VAT. Offer valid until 31 March 2026. See terms at the back of this deck."], size=8)
    return _save(prs, out, "c15-footnote-8pt.pptx"), []


def c16_watermark_logo(out, img):
    prs = _deck()
    s = _std(prs, "Team", ["Ana — lead", "Ben — analysis", "Chen — design"], size=22)
    s.shapes.add_picture(str(img), W - Inches(1.6), H - Inches(1.0), Inches(2.2), Inches(1.2))  # logo bleeding corner
    return _save(prs, out, "c16-logo-bleeding-corner.pptx"), []


# ---------------------------------------------------------------- defects

def d01_off_bottom(out, img):
    prs = _deck()
    _std(prs, "Summary", BODY[:2])
    s = _blank(prs)
    _title(s, "Details")
    _box(s, Inches(0.8), Inches(5.0), Inches(11.5), Inches(1), BODY + BODY, size=20, name="Details")
    return _save(prs, out, "d01-text-runs-off-bottom.pptx"), [
        {"slide": 2, "kind": "text_overflow", "critical": True, "what": "10 bullets at 20 pt from 5 in: the last lines are past the bottom"}]


def d02_off_right(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Regions")
    _box(s, Inches(9.5), Inches(2), Inches(6), Inches(2), ["North region: revenue up 12 % on the year", "South region: revenue up 9 % on the year"], size=28,
         name="Regions")
    return _save(prs, out, "d02-box-off-right-edge.pptx"), [
        {"slide": 1, "kind": "off_slide", "critical": True, "what": "text box 2.2 in past the right edge, text cut"}]


def d03_overflow_box(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Risks")
    frame = s.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(0.8), Inches(1.7), Inches(5), Inches(1.2))
    frame.fill.solid()
    frame.fill.fore_color.rgb = RGBColor(0xFD, 0xED, 0xEC)
    tf = frame.text_frame
    tf.word_wrap = True
    tf.auto_size = MSO_AUTO_SIZE.NONE
    tf.text = " ".join(BODY)
    for p in tf.paragraphs:
        for r in p.runs:
            r.font.size = Pt(20)
            r.font.color.rgb = RGBColor(0, 0, 0)
    return _save(prs, out, "d03-text-overflows-its-box.pptx"), [
        {"slide": 1, "kind": "text_overflow", "critical": True, "what": "5 sentences in a 1.2 in high box with no autofit"}]


def d04_overlap(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Plan")
    _box(s, Inches(0.8), Inches(1.8), Inches(8), Inches(2), BODY[:4], size=22, name="Left")
    _box(s, Inches(3.0), Inches(2.4), Inches(8), Inches(2), BODY[1:5], size=22, name="Right")
    return _save(prs, out, "d04-text-boxes-overlap.pptx"), [
        {"slide": 1, "kind": "text_overlap", "critical": True, "what": "two bullet boxes drawn over each other"}]


def d05_tiny5(out, img):
    prs = _deck()
    _std(prs, "Findings", BODY, size=5)
    return _save(prs, out, "d05-body-5pt.pptx"), [
        {"slide": 1, "kind": "tiny_font", "critical": False, "what": "the whole body at 5 pt"}]


def d06_shrink_tiny(out, img):
    prs = _deck()
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Everything we did this year"
    body = s.placeholders[1]
    tf = body.text_frame
    tf.text = BODY[0]
    for i in range(60):
        tf.add_paragraph().text = BODY[i % 5]
    bp = tf._txBody.bodyPr
    for child in list(bp):
        bp.remove(child)
    bp.append(bp.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}normAutofit",
                             {"fontScale": "25000", "lnSpcReduction": "20000"}))
    return _save(prs, out, "d06-shrink-to-fit-drawn-tiny.pptx"), [
        {"slide": 1, "kind": "tiny_font", "critical": False, "what": "61 bullets shrunk to fit: drawn at about 4-5 pt"}]


def d07_placeholder(out, img):
    prs = _deck()
    _std(prs, "Overview", BODY[:3])
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Click to add title"
    s.placeholders[1].text_frame.text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit."
    return _save(prs, out, "d07-leftover-placeholder-text.pptx"), [
        {"slide": 2, "kind": "placeholder_text", "critical": False, "what": "'Click to add title' and lorem ipsum"}]


def d08_no_glyph(out, img):
    prs = _deck()
    _std(prs, "Glossary", ["Linear B sign: \U00010000\U00010001\U00010002", "Hieroglyph: \U00013000\U00013001",
                           "Plain text for context."], size=24)
    return _save(prs, out, "d08-characters-no-font-has.pptx"), [
        {"slide": 1, "kind": "missing_glyph", "critical": True, "what": "Linear B and Egyptian hieroglyphs no installed font has"}]


def d09_cjk_sc_off_bottom(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "详细说明", font=SC)
    _box(s, Inches(0.8), Inches(2.0), Inches(11.5), Inches(1), CJK_SC * 4, size=28, font=SC, name="正文")
    return _save(prs, out, "d09-cjk-sc-runs-off-bottom.pptx"), [
        {"slide": 1, "kind": "text_overflow", "critical": True, "what": "16 CJK lines at 28 pt from 2 in: far past the bottom"}]


def d10_cjk_jp_off_right(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "地域別", font=JP)
    _box(s, Inches(8.5), Inches(2.0), Inches(7.5), Inches(2), CJK_JP, size=24, font=JP, name="本文")
    return _save(prs, out, "d10-cjk-jp-off-right.pptx"), [
        {"slide": 1, "kind": "off_slide", "critical": True, "what": "Japanese box 2.7 in past the right edge"}]


def d11_blank_middle(out, img):
    prs = _deck()
    _std(prs, "Agenda", BODY[:3])
    _blank(prs)
    _std(prs, "Next steps", BODY[3:])
    return _save(prs, out, "d11-blank-slide-in-the-middle.pptx"), [
        {"slide": 2, "kind": "blank_page", "critical": True, "what": "slide 2 has nothing on it"}]


def d12_odp_renamed(out, img):
    prs = _deck()
    _std(prs, "Roadmap", BODY[:3])
    tmp = Path(tempfile.mkdtemp())
    src = tmp / "roadmap.pptx"
    prs.save(src)
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        return None, []
    subprocess.run([soffice, f"-env:UserInstallation=file://{tmp}/profile", "--headless", "--convert-to", "odp",
                    "--outdir", str(tmp), str(src)], check=False, capture_output=True, timeout=180)
    odp = tmp / "roadmap.odp"
    if not odp.is_file():
        return None, []
    shutil.copy(odp, out / "d12-odp-renamed.pptx")
    shutil.rmtree(tmp, ignore_errors=True)
    return "d12-odp-renamed.pptx", [
        {"slide": 0, "kind": "odp_named_pptx", "critical": False,
         "what": "an OpenDocument presentation named .pptx: LibreOffice opens it; a reviewer would name the format"}]


def d13_corrupt(out, img):
    prs = _deck()
    _std(prs, "Budget", BODY[:3])
    prs.save(out / "tmp-full.pptx")
    data = (out / "tmp-full.pptx").read_bytes()
    (out / "tmp-full.pptx").unlink()
    (out / "d13-truncated.pptx").write_bytes(data[: len(data) // 2])
    return "d13-truncated.pptx", [
        {"slide": 0, "kind": "unreadable", "critical": True, "what": "a .pptx cut in half"}]


def d14_table_off_bottom(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "All accounts")
    rows = 24
    tbl = s.shapes.add_table(rows, 3, Inches(0.8), Inches(1.6), Inches(11.5), Inches(5)).table
    for r in range(rows):
        for c in range(3):
            tbl.cell(r, c).text = f"Account {r}" if c == 0 else f"{(r * 37 + c * 11) % 100} k"
            for p in tbl.cell(r, c).text_frame.paragraphs:
                for run in p.runs:
                    run.font.size = Pt(16)
    return _save(prs, out, "d14-table-runs-off-bottom.pptx"), [
        {"slide": 1, "kind": "text_overflow", "critical": True, "what": "a 24-row table at 16 pt from 1.6 in"}]


def d15_long_deck_one_bad(out, img):
    prs = _deck()
    for i in range(30):
        if i == 22:
            s = _blank(prs)
            _title(s, f"Section {i + 1}")
            _box(s, Inches(0.8), Inches(6.0), Inches(11.5), Inches(1), BODY, size=22, name="Late body")
        else:
            _std(prs, f"Section {i + 1}", BODY[:3])
    return _save(prs, out, "d15-30-slides-one-clipped.pptx"), [
        {"slide": 23, "kind": "text_overflow", "critical": True, "what": "slide 23's body from 6 in runs past the bottom"}]


def d16_group_off_edge(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Partners")
    grp = s.shapes.add_group_shape()
    r = grp.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(10), Inches(3), Inches(5), Inches(2))
    r.fill.solid()
    r.fill.fore_color.rgb = RGBColor(0xEA, 0xF2, 0xF8)
    t = grp.shapes.add_textbox(Inches(10.2), Inches(3.3), Inches(4.6), Inches(1.4))
    t.text_frame.text = "Preferred partners: Acme, Globex, Initech"
    t.text_frame.paragraphs[0].runs[0].font.size = Pt(24)
    return _save(prs, out, "d16-group-text-off-right.pptx"), [
        {"slide": 1, "kind": "off_slide", "critical": True, "what": "a grouped label running 1.7 in past the right edge"}]


def d17_tiny_table(out, img):
    prs = _deck()
    s = _blank(prs)
    _title(s, "Appendix")
    tbl = s.shapes.add_table(6, 3, Inches(0.8), Inches(1.6), Inches(11.5), Inches(2)).table
    for r in range(6):
        for c in range(3):
            tbl.cell(r, c).text = f"value {r}.{c}"
            for p in tbl.cell(r, c).text_frame.paragraphs:
                for run in p.runs:
                    run.font.size = Pt(5)
    return _save(prs, out, "d17-table-5pt.pptx"), [
        {"slide": 1, "kind": "tiny_font", "critical": False, "what": "a whole table at 5 pt"}]


def d18_overlap_title(out, img):
    prs = _deck()
    s = _blank(prs)
    _box(s, Inches(0.6), Inches(0.4), Inches(12), Inches(1), ["Quarterly business review for the board"], size=40,
         bold=True, name="Title")
    _box(s, Inches(0.6), Inches(0.7), Inches(12), Inches(1.5), ["Prepared by finance, strategy and operations"],
         size=28, name="Subtitle")
    return _save(prs, out, "d18-subtitle-over-title.pptx"), [
        {"slide": 1, "kind": "text_overlap", "critical": True, "what": "the subtitle drawn over the title"}]


def d19_cjk_tiny(out, img):
    prs = _deck()
    _std(prs, "附录", CJK_SC, size=5, font=SC)
    return _save(prs, out, "d19-cjk-5pt.pptx"), [
        {"slide": 1, "kind": "tiny_font", "critical": False, "what": "Chinese body at 5 pt"}]


def d20_placeholder_empty_body(out, img):
    prs = _deck()
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Lessons learned"
    s.placeholders[1].text_frame.text = "Lorem ipsum dolor sit amet"
    _std(prs, "Thanks", ["Questions?"])
    return _save(prs, out, "d20-lorem-ipsum-body.pptx"), [
        {"slide": 1, "kind": "placeholder_text", "critical": False, "what": "lorem ipsum left in the body"}]


CLEAN = [c01_plain, c02_fullbleed, c03_oversized, c04_deco_circles, c05_deco_lines, c06_footnote9, c07_cjk_sc,
         c08_table, c09_chart, c10_group, c11_ten_slides, c12_two_pictures, c13_cjk_jp, c14_shrink_fits,
         c15_footnote8, c16_watermark_logo]
DEFECTS = [d01_off_bottom, d02_off_right, d03_overflow_box, d04_overlap, d05_tiny5, d06_shrink_tiny, d07_placeholder,
           d08_no_glyph, d09_cjk_sc_off_bottom, d10_cjk_jp_off_right, d11_blank_middle, d12_odp_renamed, d13_corrupt,
           d14_table_off_bottom, d15_long_deck_one_bad, d16_group_off_edge, d17_tiny_table, d18_overlap_title,
           d19_cjk_tiny, d20_placeholder_empty_body]


def main(argv: list[str] | None = None) -> int:
    """Write the round's decks and ``labels.json`` into ``--out``; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    img = _photo(Path(tempfile.mkdtemp()) / "photo.png")
    labels: dict[str, dict] = {}
    for make in CLEAN + DEFECTS:
        name, defects = make(args.out, img)
        if name is None:
            print(f"skipped {make.__name__}: LibreOffice missing or failed")
            continue
        labels[name] = {"clean": not defects, "defects": defects}
    (args.out / "labels.json").write_text(json.dumps(labels, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(labels)} decks ({sum(v['clean'] for v in labels.values())} clean) in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
