"""Text lines and glyph problems read back from a rendered PDF (PyMuPDF), in points."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .fonts import SYMBOL_FONTS, font_file_of, norm

if TYPE_CHECKING:
    import pymupdf


@dataclass
class PdfLine:
    """One rendered text line: ``bbox`` ``(x0, y0, x1, y1)`` in page points, y down."""

    page: int
    bbox: tuple[float, float, float, float]
    text: str
    key: str = field(default="", repr=False)
    alt_key: str = field(default="", repr=False)
    fonts: set[str] = field(default_factory=set)
    sizes_pt: list[float] = field(default_factory=list)
    """Sizes of the line's body spans (points); superscript/subscript spans are left out
    (see :func:`body_spans`), so a footnote marker is not taken for a tiny font."""
    direction: tuple[float, float] = (1.0, 0.0)
    """Writing direction (cos, sin) on the page, y down: (0, 1) is text turned 90° clockwise."""

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]

    def on_page(self, width_pt: float, height_pt: float) -> bool:
        """True when some of the line is inside the page ``width_pt`` x ``height_pt``."""
        x0, y0, x1, y1 = self.bbox
        return x1 > 0 and y1 > 0 and x0 < width_pt and y0 < height_pt


SCRIPT_SIZE_FRAC = 0.85
SCRIPT_SHIFT_FRAC = 0.1
"""A span is a superscript/subscript when it is drawn smaller than 85 % of the line's largest
span AND its baseline is shifted by more than 10 % of that span's size. PowerPoint and
LibreOffice draw ``baseline`` runs at 58-67 % of the size, shifted by 25-33 %; text that is
merely smaller on the same baseline (a smaller word in a heading) stays body text."""

_ENUMERATOR = re.compile(r"^\s*(\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlcdmIVXLCDM]{1,6}[.)])\s*")
"""Auto-numbering LibreOffice draws in the same span as the text ("1.", "a)", "iv.")."""


def text_key(text: str) -> str:
    """Comparison key: NFKC, lowercase, letters and digits only (bullets, spaces, punctuation
    and private-use glyphs differ between the XML and the render, letters do not)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def read_lines(pdf: Path) -> tuple[dict[int, list[PdfLine]], dict[int, tuple[float, float]]]:
    """Lines per 1-based page and page sizes in points.

    Text outside the page box is kept, whole: LibreOffice writes every line of a text that
    runs off the slide into the PDF, and PyMuPDF drops characters outside the page unless
    the clip is infinite (without it a frame spilling 130 pt past the bottom edge measured
    61 pt: only the part on the page).
    """
    import pymupdf

    lines: dict[int, list[PdfLine]] = {}
    sizes: dict[int, tuple[float, float]] = {}
    flags = pymupdf.TEXT_PRESERVE_WHITESPACE  # no MEDIABOX_CLIP: text past the edge counts
    with pymupdf.open(pdf) as doc:
        for num, page in enumerate(doc, start=1):
            sizes[num] = (page.rect.width, page.rect.height)
            out: list[PdfLine] = []
            for block in page.get_text("dict", flags=flags, clip=pymupdf.INFINITE_RECT())["blocks"]:
                for ln in block.get("lines", []):
                    spans = [s for s in ln["spans"] if s["text"].strip()]
                    if not spans:
                        continue
                    text_spans = [s for s in spans if norm(s["font"]) not in SYMBOL_FONTS] or spans
                    text = "".join(s["text"] for s in text_spans)
                    stripped = _ENUMERATOR.sub("", text, count=1)
                    direction = (float(ln["dir"][0]), float(ln["dir"][1]))
                    line = PdfLine(num, tuple(ln["bbox"]), text, text_key(text),
                                   text_key(stripped) if stripped != text else "",
                                   {s["font"] for s in text_spans},
                                   [s["size"] for s in body_spans(text_spans, direction)], direction)
                    if line.key:
                        out.append(line)
            lines[num] = out
    return lines, sizes


def body_spans(spans: list[dict[str, Any]], direction: tuple[float, float]) -> list[dict[str, Any]]:
    """The spans of one line that are not superscript/subscript (``SCRIPT_*`` thresholds).

    Args:
        spans: PyMuPDF span dicts (``size`` in points, ``origin`` the baseline start).
        direction: the line's writing direction (cos, sin), y down.

    Returns:
        The body spans, in order; never empty when ``spans`` is not (the largest span is body).
    """
    main = max(spans, key=lambda s: s["size"])
    nx, ny = -direction[1], direction[0]  # normal to the baseline
    base = main["origin"][0] * nx + main["origin"][1] * ny
    out = []
    for s in spans:
        shift = abs(s["origin"][0] * nx + s["origin"][1] * ny - base)
        if s["size"] < SCRIPT_SIZE_FRAC * main["size"] and shift > SCRIPT_SHIFT_FRAC * main["size"]:
            continue
        out.append(s)
    return out


def glyph_problems(pdf: Path) -> dict[int, list[str]]:
    """Characters per page that were drawn without a real glyph (tofu) or as U+FFFD.

    Subset fonts renumber glyphs, so glyph id 0 alone misses most tofu: each span's font is
    also looked up on this machine by PostScript name (fontconfig) and asked whether it
    covers the character. Fonts that cannot be found are trusted.
    """
    import pymupdf

    found: dict[int, list[str]] = {}
    with pymupdf.open(pdf) as doc:
        for num, page in enumerate(doc, start=1):
            bad: list[str] = []
            for span in page.get_texttrace():
                font = _system_font(span.get("font", ""))
                for ch in span["chars"]:
                    code, glyph = ch[0], ch[1]
                    if code < 0 or code >= 0x110000 or chr(code).isspace():
                        continue
                    private_use = 0xE000 <= code <= 0xF8FF  # symbol fonts (bullets) map PUA codes
                    if code == 0xFFFD or glyph == 0 or (font is not None and not private_use and not font.has_glyph(code)):
                        bad.append(chr(code))
            if bad:
                found[num] = bad
    return found


@functools.lru_cache(maxsize=256)
def _system_font(ps_name: str) -> pymupdf.Font | None:
    """The installed font with this PostScript name (`fonts.font_file_of`: subset prefix and
    ``-V``-like suffixes stripped), as a ``pymupdf.Font``; None when fontconfig does not know it."""
    import pymupdf

    path = font_file_of(ps_name)
    if path is None:
        return None
    try:
        return pymupdf.Font(fontfile=path)
    except Exception:  # noqa: BLE001 - unreadable font file: trust the render
        return None
