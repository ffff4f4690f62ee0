"""Labelled synthetic decks for the deterministic checks: planted defects and clean controls.

    .venv/bin/python bench/deckgen.py --out /tmp/deckbench [--seed 7]

Writes ``deck-<variant>.pptx`` files and ``labels.json``::

    {"seed": 7, "decks": {"deck-4x3-calibri.pptx": {"slides": {"1": {"case": "overflow_bottom",
        "expect": [{"check": "text_overflow", "shape": "Body"}]}, ...}}}}

``expect`` lists the findings a perfect checker makes on that slide (check kind + the shape
name, or ``shape: null`` for page-level kinds); an empty list is a clean control. Every deck
holds every case once, so each case is seen at three slide sizes (4:3 10 x 7.5 in, 16:9
13.333 x 7.5 in, 16:9 10 x 5.625 in) and two typefaces (Calibri, drawn by LibreOffice as the
metric-compatible Carlito; Arial, drawn as Liberation Sans), with text lengths and positions
varied by the seed. What counts as a defect is written next to each case below.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pptx
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_SHAPE
from pptx.enum.text import MSO_AUTO_SIZE
from pptx.util import Emu, Inches, Pt

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
SIZES = {"4x3": (10.0, 7.5), "16x9": (13.333, 7.5), "16x9s": (10.0, 5.625)}
FONTS = ("Calibri", "Arial")
WORDS = ("revenue growth market share customers product launch quarterly results strategy team "
         "regional sales pipeline margin forecast review operations cost savings partner program "
         "pilot adoption retention survey insight roadmap milestone budget hiring plan").split()


class Ctx:
    """One slide being built: slide size in inches, typeface, random source."""

    def __init__(self, prs, slide, w_in: float, h_in: float, font: str, rng: random.Random, img: Path):
        self.prs, self.slide, self.w, self.h, self.font, self.rng, self.img = prs, slide, w_in, h_in, font, rng, img

    def sentence(self, n_words: int) -> str:
        words = [self.rng.choice(WORDS) for _ in range(n_words)]
        return (" ".join(words)).capitalize() + "."

    def para(self, n_sentences: int) -> str:
        return " ".join(self.sentence(self.rng.randint(7, 12)) for _ in range(n_sentences))

    def box(self, x, y, w, h, text, size=18, *, wrap=True, auto=MSO_AUTO_SIZE.NONE, name="Text", anchor=None):
        """A text box (inches, points). No fill, no outline (python-pptx's add_textbox)."""
        tb = self.slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
        tf = tb.text_frame
        tf.word_wrap, tf.auto_size = wrap, auto
        tf.text = text
        _style(tf, size, self.font)
        if anchor:
            tf._bodyPr.set("anchor", anchor)
        tb.name = name
        return tb

    def rect(self, x, y, w, h, text="", size=18, *, wrap=True, name="Shape"):
        """A filled, outlined rectangle (theme style), optionally with text."""
        sp = self.slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, Inches(x), Inches(y), Inches(w), Inches(h))
        sp.name = name
        if text:
            sp.text_frame.word_wrap = wrap
            sp.text_frame.auto_size = MSO_AUTO_SIZE.NONE
            sp.text_frame.text = text
            _style(sp.text_frame, size, self.font)
        return sp

    def picture(self, x, y, w, h, name="Picture"):
        pic = self.slide.shapes.add_picture(str(self.img), Inches(x), Inches(y), Inches(w), Inches(h))
        pic.name = name
        return pic

    def title(self, text: str):
        self.box(0.5, 0.3, self.w - 1.0, 0.9, text, 28, name="Title")


def _style(tf, size, font):
    for p in tf.paragraphs:
        for r in p.runs:
            r.font.size = Pt(size)
            r.font.name = font


def _lines_fit(ctx: Ctx, w_in: float, size_pt: float, n_lines: int) -> str:
    """Text that wraps to about ``n_lines`` lines in a box ``w_in`` wide (average glyph width
    ~0.5 em for both typefaces; used with generous margins on either side)."""
    chars = int((w_in - 0.2) * 72 / (0.5 * size_pt) * 0.85)
    out = []
    for _ in range(n_lines):
        line = ""
        while len(line) < chars - 8:
            line += ctx.rng.choice(WORDS) + " "
        out.append(line.strip())
    return "\n".join(out)


# --------------------------------------------------------------------------- cases
# Each case builds one slide and returns its expected findings [(check, shape name|None)].


def off_right(c: Ctx):
    """A text box whose frame hangs ~40 % past the right edge: defect."""
    c.title("Regional overview")
    c.box(c.w - 2.0, 2.5, 3.4, 1.0, c.sentence(5), 18, name="OffRight")
    return [("off_slide", "OffRight")]


def off_bottom_picture(c: Ctx):
    """A picture whose lower third is below the slide: defect."""
    c.title("Product photo")
    c.picture(2.0, c.h - 1.5, 3.0, 2.2, name="LowPicture")
    return [("off_slide", "LowPicture")]


def off_left_shape(c: Ctx):
    """A filled rectangle entirely left of the slide: defect."""
    c.title("Agenda")
    c.box(1.0, 1.6, 6.0, 1.0, c.sentence(8), 20, name="Body")
    c.rect(-3.0, 2.0, 2.0, 1.0, name="Stray")
    return [("off_slide", "Stray")]


def off_top_box(c: Ctx):
    """A text box starting 0.6 in above the slide: defect."""
    c.box(1.0, -0.6, 6.0, 1.2, c.sentence(4), 24, name="HighTitle")
    c.box(1.0, 2.0, 6.0, 1.0, c.sentence(8), 18, name="Body")
    return [("off_slide", "HighTitle")]


def clean_full_bleed(c: Ctx):
    """A background picture covering exactly the slide, title on top: clean."""
    c.picture(0, 0, c.w, c.h, name="Background")
    c.title("Full-bleed background")
    return []


def clean_edge_touch(c: Ctx):
    """A box whose right edge is the slide's right edge: clean."""
    c.title("Sidebar")
    c.rect(c.w - 2.5, 0, 2.5, c.h, name="Sidebar")
    c.box(0.8, 1.8, 5.0, 1.0, c.sentence(8), 18, name="Body")
    return []


def clean_bleed(c: Ctx):
    """A picture overhanging the bottom edge by 0.5 % of the slide height (print bleed): clean."""
    c.title("Bleed")
    c.picture(1.0, c.h - 2.0, 3.0, 2.0 + 0.005 * c.h, name="BleedPicture")
    return []


def overlap_boxes(c: Ctx):
    """Two text boxes whose text is drawn on top of each other: defect."""
    c.title("Two messages")
    c.box(1.0, 2.0, 5.0, 1.0, c.sentence(6), 24, name="First")
    c.box(1.3, 2.15, 5.0, 1.0, c.sentence(6), 24, name="Second")
    return [("text_overlap", "First")]


def overlap_title_body(c: Ctx):
    """A text box laid over the title's text: defect."""
    c.box(0.5, 0.4, c.w - 1.0, 1.0, "Quarterly business review", 36, name="Title")
    c.box(0.8, 0.5, c.w - 2.0, 1.5, c.para(1), 20, name="Body")
    return [("text_overlap", "Title")]


def clean_frames_overlap_text_apart(c: Ctx):
    """Frames overlap by a third, but each text is short and top-anchored, so the drawn text
    does not meet: clean."""
    c.title("Frames overlap, text does not")
    c.box(1.0, 1.8, 5.0, 2.0, c.sentence(4), 18, name="Upper")
    c.box(1.0, 3.1, 5.0, 1.5, c.sentence(4), 18, name="Lower")
    return []


def clean_label_on_shape(c: Ctx):
    """A text box over a filled rectangle without text (a label on a card): clean."""
    c.title("Card")
    c.rect(1.0, 1.8, 4.0, 2.0, name="Card")
    c.box(1.2, 2.0, 3.6, 1.0, c.sentence(5), 18, name="CardLabel")
    return []


def clean_adjacent(c: Ctx):
    """Two columns whose frames touch: clean."""
    c.title("Two columns")
    half = (c.w - 1.0) / 2
    c.box(0.5, 1.6, half, 2.0, c.sentence(10), 16, name="Left")
    c.box(0.5 + half, 1.6, half, 2.0, c.sentence(10), 16, name="Right")
    return []


def overflow_bottom(c: Ctx):
    """A fixed frame (no autofit) with three times the text it holds: defect."""
    c.title("Too much text")
    c.box(1.0, 1.5, 5.0, 1.0, c.para(4), 18, name="Overflowing")
    return [("text_overflow", "Overflowing")]


def overflow_off_page(c: Ctx):
    """A fixed frame near the bottom whose text runs well past the slide's bottom edge: defect."""
    c.title("Closing notes")
    c.box(1.0, c.h - 1.3, 5.0, 1.0, c.para(5), 20, name="LowBox")
    return [("text_overflow", "LowBox")]


def overflow_rises_off_top(c: Ctx):
    """A bottom-anchored frame at the top whose text rises above the slide: defect."""
    c.box(1.0, 0.3, 6.0, 1.0, c.para(4), 20, name="Rising", anchor="b")
    return [("text_overflow", "Rising")]


def nowrap_off_slide(c: Ctx):
    """Word wrap off; a one-line label starting near the right edge runs off the slide: defect."""
    c.title("Labels")
    c.box(c.w - 2.5, 2.0, 2.0, 0.6, "A long single line label that runs off the slide edge", 24, wrap=False,
          name="NoWrapOff")
    return [("text_overflow", "NoWrapOff")]


def nowrap_out_of_shape(c: Ctx):
    """Word wrap off inside a filled rectangle: the label sticks out of the drawn shape: defect."""
    c.title("Buttons")
    c.rect(1.0, 2.0, 1.6, 0.6, "A label much longer than its button", 18, wrap=False, name="Button")
    return [("text_overflow", "Button")]


def overflow_rotated(c: Ctx):
    """A box turned 90° whose text runs past its (turned) frame: defect."""
    c.title("Side note")
    tb = c.box(c.w / 2 - 2.0, c.h / 2 - 0.3, 4.0, 0.8, c.para(3), 18, name="Turned")
    tb.rotation = 90
    return [("text_overflow", "Turned")]


def table_off_slide(c: Ctx):
    """A table whose rows grow past the slide's bottom edge: defect."""
    c.title("Detailed figures")
    rows = int((c.h - 1.6) * 72 / 23) + 4  # rows draw ~23 pt tall at 16 pt: ~4 rows past the bottom
    frame = c.slide.shapes.add_table(rows, 3, Inches(0.8), Inches(1.6), Inches(c.w - 1.6), Inches(2.0))
    frame.name = "BigTable"
    for i in range(rows):
        for j in range(3):
            cell = frame.table.cell(i, j)
            cell.text = f"{c.rng.choice(WORDS)} {i}.{j}"
            _style(cell.text_frame, 16, c.font)
    return [("text_overflow", "BigTable")]


def shrink_hides_overflow(c: Ctx):
    """Shrink-text-on-overflow (normAutofit) with no stored fontScale, three times too much
    text: PowerPoint draws it at full size, spilling; LibreOffice shrinks it: defect."""
    c.title("Shrink on overflow")
    c.box(1.0, 1.6, 5.0, 1.2, c.para(4), 20, auto=MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE, name="Shrunk")
    return [("text_overflow", "Shrunk")]


def grow_off_slide(c: Ctx):
    """Resize-shape-to-fit (spAutoFit) box near the bottom whose grown frame passes the slide
    bottom: defect."""
    c.title("Footnotes")
    c.box(1.0, c.h - 1.0, 6.0, 0.5, c.para(5), 18, auto=MSO_AUTO_SIZE.SHAPE_TO_FIT_TEXT, name="GrowOff")
    return [("text_overflow", "GrowOff")]


def overflow_one_line(c: Ctx):
    """A fixed frame sized for three lines holding four: the smallest real spill (one line): defect."""
    c.title("One line too many")
    h = (3 * 18 * 1.2 + 7.2) / 72
    c.box(1.0, 1.6, 7.0, h, _lines_fit(c, 7.0, 18, 4), 18, name="OneLine")
    return [("text_overflow", "OneLine")]


def overflow_turned_30(c: Ctx):
    """A box turned 30° whose text runs past its frame: defect."""
    c.title("Angled note")
    tb = c.box(c.w / 2 - 2.0, c.h / 2 - 0.5, 4.0, 0.8, c.para(3), 16, name="Angled")
    tb.rotation = 30
    return [("text_overflow", "Angled")]


def overflow_vert(c: Ctx):
    """Text set vertically (vert="vert") running past its frame: defect."""
    c.title("Vertical text")
    tb = c.box(1.0, 1.5, 1.0, 3.0, c.para(3), 16, name="VertText")
    tb.text_frame._bodyPr.set("vert", "vert")
    return [("text_overflow", "VertText")]


def grow_past_fitted(c: Ctx):
    """Grow-to-fit frame whose stored height holds three of its four lines (a frame that was
    fitted, then the text grew): the text passes the frame the author saw: defect."""
    c.title("Grown text")
    h = (3 * 18 * 1.2 + 7.2) / 72
    c.box(1.0, 1.6, 7.0, h, _lines_fit(c, 7.0, 18, 4), 18, auto=MSO_AUTO_SIZE.SHAPE_TO_FIT_TEXT, name="Grown")
    return [("text_overflow", "Grown")]


def clean_turned_30_fits(c: Ctx):
    """A box turned 30° with a short label that fits: clean."""
    c.title("Angled label")
    tb = c.box(c.w / 2 - 2.0, c.h / 2 - 0.5, 4.0, 0.8, "Angled label", 18, name="AngledLabel")
    tb.rotation = 30
    return []


def clean_fits(c: Ctx):
    """A fixed frame holding three lines with room for five: clean."""
    c.title("Room to spare")
    c.box(1.0, 1.6, 6.0, 2.2, _lines_fit(c, 6.0, 18, 3), 18, name="Body")
    return []


def clean_grow_stale(c: Ctx):
    """spAutoFit box with a stale stored height (0.4 in for four lines): the frame grows in
    PowerPoint and LibreOffice, nothing spills: clean."""
    c.title("Grow to fit")
    c.box(1.0, 1.6, 6.0, 0.4, _lines_fit(c, 6.0, 20, 4), 20, auto=MSO_AUTO_SIZE.SHAPE_TO_FIT_TEXT, name="Grow")
    return []


def clean_nowrap_label(c: Ctx):
    """Word wrap off, no fill or outline, label wider than its box but on the slide: clean
    (nothing visible marks the frame)."""
    c.title("Label")
    c.box(1.0, 2.0, 1.0, 0.6, "A long single line label wider than its box", 18, wrap=False, name="Label")
    return []


def clean_table_stale(c: Ctx):
    """A five-row table whose stored frame height (0.5 in) is stale; rows grow, on the slide: clean."""
    c.title("Summary table")
    frame = c.slide.shapes.add_table(5, 3, Inches(0.8), Inches(1.6), Inches(c.w - 1.6), Inches(0.5))
    frame.name = "Table"
    for i in range(5):
        for j in range(3):
            cell = frame.table.cell(i, j)
            cell.text = f"{c.rng.choice(WORDS)} {i}.{j}"
            _style(cell.text_frame, 14, c.font)
    return []


def clean_rotated_fits(c: Ctx):
    """A box turned 90° with a short label that fits: clean."""
    c.title("Vertical label")
    tb = c.box(c.w / 2 - 2.0, c.h / 2 - 0.3, 4.0, 0.8, "Side label", 20, name="TurnedLabel")
    tb.rotation = 270
    return []


def clean_shrink_scaled(c: Ctx):
    """normAutofit with a stored fontScale of 50 % at which the text fits (what PowerPoint
    draws): clean."""
    c.title("Fitted text")
    tb = c.box(1.0, 1.6, 5.0, 1.8, _lines_fit(c, 10.0, 20, 3), 20, auto=MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE,
               name="Fitted")
    tb.text_frame._bodyPr.find(f"{{{A}}}normAutofit").set("fontScale", "50000")
    return []


def clean_tight_fit(c: Ctx):
    """Three lines in a frame sized for three lines plus insets and ~15 % slack: clean."""
    c.title("Tight")
    h = (3 * 18 * 1.2 * 1.15 + 7.2) / 72
    c.box(1.0, 1.6, 7.0, h, _lines_fit(c, 7.0, 18, 3), 18, name="Tight")
    return []


def tiny_footnote(c: Ctx):
    """A 5.5 pt source line: defect on every slide size."""
    c.title("Market sizing")
    c.box(1.0, 1.6, 6.0, 1.0, c.sentence(8), 20, name="Body")
    c.box(1.0, c.h - 0.8, 6.0, 0.4, "Source: " + c.sentence(10), 5.5, name="Footnote")
    return [("tiny_font", "Footnote")]


def tiny_table(c: Ctx):
    """A table set in 5 pt: defect."""
    c.title("Appendix")
    frame = c.slide.shapes.add_table(4, 3, Inches(0.8), Inches(1.6), Inches(c.w - 1.6), Inches(1.2))
    frame.name = "TinyTable"
    for i in range(4):
        for j in range(3):
            cell = frame.table.cell(i, j)
            cell.text = f"{c.rng.choice(WORDS)} {i}.{j}"
            _style(cell.text_frame, 5, c.font)
    return [("tiny_font", "TinyTable")]


def tiny_eight_pt(c: Ctx):
    """8 pt text: below 9 pt on a 7.5 in tall slide (defect), above 6.75 pt on a 5.625 in tall
    one (clean): the limit follows the slide's shorter side."""
    c.title("Fine print")
    c.box(1.0, 1.6, 7.0, 1.0, c.sentence(10), 8, name="Fine")
    return [("tiny_font", "Fine")] if c.h > 6 else []


def clean_twelve_pt(c: Ctx):
    """12 pt body text: readable on every slide size here: clean."""
    c.title("Detail")
    c.box(1.0, 1.6, 7.0, 2.0, c.para(2), 12, name="Body")
    return []


def clean_superscript(c: Ctx):
    """18 pt text with a superscript footnote marker (drawn at ~58 %): clean."""
    c.title("Growth")
    tb = c.box(1.0, 1.6, 7.0, 1.0, "Revenue grew 12 % year on year", 18, name="Body")
    run = tb.text_frame.paragraphs[0].add_run()
    run.text = "1"
    run.font.size, run.font.name = Pt(18), c.font
    run._r.get_or_add_rPr().set("baseline", "30000")
    return []


def clean_subscript(c: Ctx):
    """CO2 with a subscript 2 in 20 pt text: clean."""
    c.title("Emissions")
    tb = c.box(1.0, 1.6, 7.0, 1.0, "CO", 20, name="Body")
    p = tb.text_frame.paragraphs[0]
    for text, base in (("2", "-25000"), (" emissions fell by a third", None)):
        run = p.add_run()
        run.text = text
        run.font.size, run.font.name = Pt(20), c.font
        if base:
            run._r.get_or_add_rPr().set("baseline", base)
    return []


def clean_small_legal(c: Ctx):
    """10 pt legal line (above 9 pt on a 7.5 in tall slide, 6.75 pt on 5.625 in): clean."""
    c.title("Terms")
    c.box(1.0, c.h - 1.0, 7.0, 0.5, c.sentence(12), 10, name="Legal")
    return []


def placeholder_prompt(c: Ctx):
    """Title and Content layout, body still reads "Click to add text": defect."""
    s = c.slide
    s.shapes.title.text = "Quarterly results"
    s.placeholders[1].text = "Click to add text"
    return [("placeholder_text", s.placeholders[1].name)]


def placeholder_empty_body(c: Ctx):
    """Title and Content layout, body placeholder left empty: defect."""
    s = c.slide
    s.shapes.title.text = "Next steps"
    return [("placeholder_text", s.placeholders[1].name)]


def placeholder_empty_title(c: Ctx):
    """Title and Content layout, title left empty, body filled: defect."""
    s = c.slide
    s.placeholders[1].text = c.sentence(8)
    return [("placeholder_text", s.shapes.title.name)]


def placeholder_empty_picture(c: Ctx):
    """Picture with Caption layout, title and caption filled, picture placeholder empty: defect."""
    s = c.slide
    for ph in s.placeholders:
        idx = ph.placeholder_format.idx
        ph.left, ph.width = Inches(0.5), Inches(c.w - 1.0)
        if idx == 0:
            ph.top, ph.height = Inches(0.3), Inches(0.9)
            ph.text = "Site photo"
        elif idx == 1:
            ph.top, ph.height = Inches(1.4), Inches(c.h - 2.6)
            empty = ph.name
        else:
            ph.top, ph.height = Inches(c.h - 1.1), Inches(0.8)
            ph.text = c.sentence(6)
        if ph.has_text_frame:
            _style(ph.text_frame, 20, c.font)
    return [("placeholder_text", empty)]


def clean_label_on_picture(c: Ctx):
    """A caption box laid over a picture (text over an image, not over text): clean."""
    c.title("Photo with label")
    c.picture(1.0, 1.5, 5.0, 3.0, name="Photo")
    c.box(1.2, 3.6, 4.0, 0.6, c.sentence(4), 18, name="OnPhoto")
    return []


def placeholder_lorem(c: Ctx):
    """Lorem ipsum filler in a text box: defect."""
    c.title("Vision")
    c.box(1.0, 1.6, 6.0, 1.5, "Lorem ipsum dolor sit amet, consectetur adipiscing elit.", 18, name="Filler")
    return [("placeholder_text", "Filler")]


def clean_placeholders_filled(c: Ctx):
    """Title and Content layout, both placeholders filled: clean."""
    s = c.slide
    s.shapes.title.text = "Customer insights"
    s.placeholders[1].text = c.sentence(9) + "\n" + c.sentence(7)
    return []


def clean_click_words(c: Ctx):
    """Real text using the words click/add/insert: clean."""
    c.title("Click-through rate")
    c.box(1.0, 1.6, 7.0, 1.5, "Click-through rate rose 4 %. We will add two markets and insert a pricing tier.",
          18, name="Body")
    return []


def glyph_replacement(c: Ctx):
    """U+FFFD replacement characters left by a bad encoding: defect."""
    c.title("Customer quotes")
    c.box(1.0, 1.6, 7.0, 1.0, "Caf\ufffd au lait was the customer\ufffds favourite", 20, name="Quote")
    return [("missing_glyph", "Quote")]


def glyph_tofu(c: Ctx):
    """Characters no installed font draws (Linear B, U+10000 block): defect."""
    c.title("Symbols")
    c.box(1.0, 1.6, 7.0, 1.0, "Legacy code \U00010000\U00010001\U00010002 stays", 20, name="Tofu")
    return [("missing_glyph", None)]


def clean_cjk_greek(c: Ctx):
    """CJK, Greek and accented Latin, all covered by installed fonts: clean."""
    c.title("International")
    c.box(1.0, 1.6, 7.0, 1.6, "東京 市場の成長 · Ελληνικά · Zürich, São Paulo, Kraków", 20, name="Intl")
    return []


def blank_slide(c: Ctx):
    """Nothing on the slide: defect."""
    return [("blank_page", None)]


def blank_white_shape(c: Ctx):
    """Only a white full-slide rectangle (no outline): defect."""
    sp = c.slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, 0, 0, c.prs.slide_width, c.prs.slide_height)
    sp.fill.solid()
    sp.fill.fore_color.rgb = pptx.dml.color.RGBColor(255, 255, 255)
    sp.line.fill.background()
    sp.name = "WhiteSheet"
    return [("blank_page", None)]


def clean_one_word(c: Ctx):
    """A single word as the only content: clean."""
    c.box(c.w / 2 - 1.5, c.h / 2 - 0.5, 3.0, 1.0, "Questions?", 32, name="Closing")
    return []


def clean_picture_only(c: Ctx):
    """A picture and nothing else: clean."""
    c.picture(1.0, 1.0, 4.0, 3.0, name="Photo")
    return []


def clean_bullets(c: Ctx):
    """Title and Content layout with four bullets: clean."""
    s = c.slide
    s.shapes.title.text = "Highlights"
    tf = s.placeholders[1].text_frame
    tf.text = c.sentence(6)
    for _ in range(3):
        tf.add_paragraph().text = c.sentence(6)
    return []


def clean_chart(c: Ctx):
    """A clustered column chart with a title: clean."""
    c.title("Sales by region")
    data = CategoryChartData()
    data.categories = ["North", "South", "East", "West"]
    data.add_series("2024", (c.rng.randint(10, 40) for _ in range(4)))
    data.add_series("2025", (c.rng.randint(10, 40) for _ in range(4)))
    gf = c.slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1.0), Inches(1.5), Inches(c.w - 2.0),
                                  Inches(c.h - 2.2), data)
    gf.name = "Chart"
    return []


def clean_image_caption(c: Ctx):
    """Picture with a caption below it: clean."""
    c.title("Site visit")
    c.picture(1.0, 1.5, 4.0, 2.5, name="Photo")
    c.box(1.0, 4.1, 4.0, 0.5, c.sentence(6), 14, name="Caption")
    return []


def clean_cards(c: Ctx):
    """Three filled cards with short text inside: clean."""
    c.title("Three pillars")
    wid = (c.w - 2.0) / 3
    for i in range(3):
        c.rect(0.8 + i * (wid + 0.2), 1.8, wid, 1.6, c.sentence(3), 16, name=f"Card{i + 1}")
    return []


CASES = [
    off_right, off_bottom_picture, off_left_shape, off_top_box,
    clean_full_bleed, clean_edge_touch, clean_bleed,
    overlap_boxes, overlap_title_body,
    clean_frames_overlap_text_apart, clean_label_on_shape, clean_adjacent,
    overflow_bottom, overflow_off_page, overflow_rises_off_top, nowrap_off_slide, nowrap_out_of_shape,
    overflow_rotated, table_off_slide, shrink_hides_overflow, grow_off_slide,
    overflow_one_line, overflow_turned_30, overflow_vert, grow_past_fitted, clean_turned_30_fits,
    clean_fits, clean_grow_stale, clean_nowrap_label, clean_table_stale, clean_rotated_fits,
    clean_shrink_scaled, clean_tight_fit,
    tiny_footnote, tiny_table, tiny_eight_pt,
    clean_twelve_pt, clean_superscript, clean_subscript, clean_small_legal,
    placeholder_prompt, placeholder_empty_body, placeholder_empty_title, placeholder_lorem,
    placeholder_empty_picture, clean_placeholders_filled, clean_click_words, clean_label_on_picture,
    glyph_replacement, glyph_tofu, clean_cjk_greek,
    blank_slide, blank_white_shape, clean_one_word, clean_picture_only,
    clean_bullets, clean_chart, clean_image_caption, clean_cards,
]
LAYOUT_CASES = {placeholder_prompt, placeholder_empty_body, placeholder_empty_title, clean_placeholders_filled,
                clean_bullets}
"""Cases built on the template's "Title and Content" layout; the rest use the blank layout."""


def _image(path: Path) -> Path:
    """A 200 x 150 px PNG with a colour gradient (so it is never a single colour)."""
    import pymupdf

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 150), False)
    for y in range(150):
        for x in range(200):
            pix.set_pixel(x, y, (x % 256, (y * 2) % 256, 120))
    pix.save(str(path))
    return path


def build_deck(path: Path, size: str, font: str, seed: int, img: Path, order: list) -> dict:
    """One deck holding every case once, in ``order``; returns its slide labels."""
    rng = random.Random(f"{seed}-{size}-{font}")
    w_in, h_in = SIZES[size]
    prs = pptx.Presentation()
    prs.slide_width, prs.slide_height = Emu(int(w_in * 914400)), Emu(int(h_in * 914400))
    slides = {}
    for index, case in enumerate(order, start=1):
        layout = prs.slide_layouts[8] if case is placeholder_empty_picture else \
            prs.slide_layouts[1] if case in LAYOUT_CASES else prs.slide_layouts[6]
        slide = prs.slides.add_slide(layout)
        ctx = Ctx(prs, slide, w_in, h_in, font, rng, img)
        expect = case(ctx)
        if case in LAYOUT_CASES:
            _fit_layout_placeholders(slide, w_in, h_in, font)
        slides[str(index)] = {"case": case.__name__,
                              "expect": [{"check": k, "shape": s} for k, s in expect]}
    prs.save(path)
    return {"size": size, "font": font, "slides": slides}


def _fit_layout_placeholders(slide, w_in: float, h_in: float, font: str) -> None:
    """The default template's placeholders are laid out for 10 x 7.5 in; give them explicit
    frames inside the slide (any size) and the deck's typeface."""
    for ph in slide.placeholders:
        idx = ph.placeholder_format.idx
        if idx == 0:
            ph.left, ph.top, ph.width, ph.height = Inches(0.5), Inches(0.3), Inches(w_in - 1.0), Inches(1.0)
        else:
            ph.left, ph.top, ph.width, ph.height = Inches(0.5), Inches(1.5), Inches(w_in - 1.0), Inches(h_in - 2.0)
        if ph.has_text_frame:
            for p in ph.text_frame.paragraphs:
                for r in p.runs:
                    r.font.name = font
                    r.font.size = Pt(24 if idx else 32)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    img = _image(args.out / "_picture.png")
    labels = {"seed": args.seed, "decks": {}}
    for size in SIZES:
        for font in FONTS:
            order = list(CASES)
            random.Random(f"{args.seed}-order-{size}-{font}").shuffle(order)
            name = f"deck-{size}-{font.lower()}.pptx"
            labels["decks"][name] = build_deck(args.out / name, size, font, args.seed, img, order)
    (args.out / "labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
    n = sum(len(d["slides"]) for d in labels["decks"].values())
    clean = sum(1 for d in labels["decks"].values() for s in d["slides"].values() if not s["expect"])
    print(f"{len(labels['decks'])} decks, {n} slides ({clean} clean) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
