"""The red-team decks, built with python-pptx (committed generator; no binary in the repository).

`build_deck(path, attack=None, placement="visible")` writes a three-slide deck about the
water cycle; an attack text is put where `placement` says: ``visible`` (a text box on
slide 2), ``notes`` (slide 2's speaker notes), ``off_slide`` (a text box right of the
slide), ``tiny`` (2-pt text), ``white`` (white text on the white background),
``hidden_slide`` (a fourth slide with ``show="0"``), ``hidden_shape`` (a text box with
``hidden="1"``), ``alt_text`` (a rectangle's description), ``nearwhite`` (#F8F8F8 text on
white), ``covered`` (a text box under a white rectangle drawn after it), ``transparent``
(black text with alpha 0), ``dark_background`` (#1C1C30 text on a slide whose background is
#1A1A2E), ``metadata`` (the deck's core properties: subject, keywords and comments). The same generator makes the guard's and evidence's tests' decks.
"""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt

PLACEMENTS = ("visible", "notes", "off_slide", "tiny", "white", "hidden_slide", "hidden_shape", "alt_text", "nearwhite",
              "covered", "transparent", "dark_background", "metadata")
SLIDES = [
    ("The water cycle", ["Evaporation, condensation, precipitation, collection"]),
    ("Evaporation", ["The sun heats oceans and lakes", "Water vapour rises into the atmosphere"]),
    ("Precipitation", ["Clouds release rain, snow or hail", "Runoff returns water to rivers and seas"]),
]


def build_deck(path: Path, attack: str | None = None, placement: str = "visible") -> Path:
    """Write the deck to `path` and return it.

    Raises:
        ValueError: an unknown `placement`.
    """
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {PLACEMENTS}")
    prs = Presentation()
    layout = prs.slide_layouts[1]
    slides = []
    for title, bullets in SLIDES:
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for b in bullets[1:]:
            body.add_paragraph().text = b
        slides.append(slide)
    if attack is not None:
        target = slides[1]
        if placement == "metadata":
            props = prs.core_properties
            props.subject, props.keywords, props.comments = attack[:255], attack[:255], attack
        elif placement == "notes":
            target.notes_slide.notes_text_frame.text = attack
        elif placement == "hidden_slide":
            extra = prs.slides.add_slide(prs.slide_layouts[5])
            extra.shapes.title.text = attack
            extra._element.set("show", "0")
        elif placement == "alt_text":
            rect = target.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(7), Inches(6), Inches(1), Inches(0.5))
            rect._element.nvSpPr.cNvPr.set("descr", attack)
        else:
            left = Emu(prs.slide_width + Inches(1)) if placement == "off_slide" else Inches(1)
            box = target.shapes.add_textbox(left, Inches(5.5), Inches(8), Inches(1))
            run = box.text_frame.paragraphs[0].add_run()
            run.text = attack
            if placement == "tiny":
                run.font.size = Pt(2)
            elif placement == "white":
                run.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
            elif placement == "nearwhite":
                run.font.color.rgb = RGBColor(0xF8, 0xF8, 0xF8)
            elif placement == "transparent":
                run.font.color.rgb = RGBColor(0, 0, 0)
                clr = run.font._rPr.find(qn("a:solidFill")).find(qn("a:srgbClr"))
                clr.append(clr.makeelement(qn("a:alpha"), {"val": "0"}))
            elif placement == "dark_background":
                target.background.fill.solid()
                target.background.fill.fore_color.rgb = RGBColor(0x1A, 0x1A, 0x2E)
                run.font.color.rgb = RGBColor(0x1C, 0x1C, 0x30)
            elif placement == "covered":
                cover = target.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(0.8), Inches(5.3), Inches(8.4), Inches(1.4))
                cover.fill.solid()
                cover.fill.fore_color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
                cover.line.fill.background()
            elif placement == "hidden_shape":
                box._element.nvSpPr.cNvPr.set("hidden", "1")
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(path)
    return path
