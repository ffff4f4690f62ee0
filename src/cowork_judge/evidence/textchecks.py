"""Text content checks: tiny fonts, leftover placeholder text and empty placeholders, U+FFFD."""

from __future__ import annotations

import re

from .documents import Finding, ShapeDoc, SlideDoc, TextFrame
from .matching import Assigned, substituted, text_of
from .pdftext import PdfLine, text_key

TINY_FONT_MIN_PT = 9.0
TINY_FONT_REF_SIDE_PT = 540.0
"""Tiny = below 9 pt on a slide whose shorter side is 540 pt (7.5 in: PowerPoint's 4:3
10 x 7.5 in and 16:9 13.333 x 7.5 in defaults), scaled with the shorter side (6.75 pt on a
10 x 5.625 in slide). Our choice: 9 pt is the smallest footnote size common in corporate
templates; projection guidance asks for ≥ 18 pt body text, so this only catches text few can
read. The shorter side, not the width: a 16:9 slide is shown as tall as a 4:3 one on the same
screen, so its text is no smaller (scaling by width made 12 pt on 13.333 in the limit)."""
TINY_FONT_TOL_PT = 0.1
"""Sizes within 0.1 pt under the limit are rounding: LibreOffice writes 12 pt as 11.991 pt and
9 pt as 9.0 ± 0.01 pt."""
SMALL_PRINT_MIN_PT = 7.0
"""The limit for small print (on the 540-pt reference side, scaled as ``TINY_FONT_MIN_PT``): a
source line, footnote or disclaimer of at most ``SMALL_PRINT_MAX_LINES`` lines whose frame
starts in the bottom ``1 - SMALL_PRINT_TOP_FRAC`` of the slide. Our choice: corporate and
financial templates set such lines at 7–8 pt by design (issue 35: an 8-pt footnote cost a
clean deck of the blind round 6 its text-size row on every page); body text keeps 9 pt."""
SHRINK_MATCHED_MIN_FRAC = 0.5
"""A shrink-on-overflow (``normAutofit``) frame is judged at the size LibreOffice drew when the
rendered lines matched to it hold at least half of its letters and digits; with fewer (lines
past the page's line cap, text the render split or dropped) its drawn size is not known, and
it stays an estimate at the stored size."""
CONFIDENCE_SHRINK_DRAWN = 0.85
"""A shrink-to-fit frame's drawn size: measured on the page, but it is LibreOffice's own fit
(LibreOffice ignores the stored ``fontScale`` and re-fits the text); another renderer's line
breaking can land a little above or below it. Below the 0.9 of other rendered sizes, above any
``min_confidence`` a row sets by default (0.5)."""
SMALL_PRINT_TOP_FRAC = 0.8
SMALL_PRINT_MAX_LINES = 2
FOOTER_PLACEHOLDERS = {"sldNum", "dt", "ftr", "hdr"}
"""Slide number, date, footer, header: small by design; not judged for tiny fonts, and left
empty on purpose (PowerPoint fills them from the header/footer settings)."""
PLACEHOLDER_PATTERNS = [
    (re.compile(r"\bclick to (add|edit|insert)\b", re.I), 0.9),
    (re.compile(r"\blorem ipsum\b", re.I), 0.9),
    (re.compile(r"\b(insert|add|your) (text|title|subtitle|image|picture|chart|logo|name|company)( here)?\b", re.I), 0.7),
    (re.compile(r"\[(placeholder|insert[^\]]*|todo|tbd)\]", re.I), 0.9),
    (re.compile(r"\b(TODO|TBD|XXX+)\b"), 0.5),
]
"""Leftover template prompts (PowerPoint's own "Click to add …" strings, lorem ipsum) and
author markers. TODO/TBD/XXX may be legitimate content, hence the lower confidence."""
CONFIDENCE_EMPTY_PLACEHOLDER = 0.8
"""A placeholder with no text on a slide: PowerPoint shows its "Click to add …" prompt while
editing and nothing in the show, so the slide lacks the title/body/picture its layout asked
for. Not 0.9: an author may keep an empty placeholder as deliberate white space."""


def tiny_limit_pt(w_pt: float, h_pt: float) -> float:
    """The tiny-font limit (points) for a slide ``w_pt`` x ``h_pt`` points (see ``TINY_FONT_*``)."""
    side = min(w_pt, h_pt) if h_pt > 0 else w_pt
    return TINY_FONT_MIN_PT * side / TINY_FONT_REF_SIDE_PT


def is_small_print(s: ShapeDoc, lines: list[PdfLine], h_pt: float) -> bool:
    """Whether ``s`` is a short line of small print at the foot of the slide (a source, a
    footnote): its frame's top in the bottom fifth of a slide ``h_pt`` points high and at most
    ``SMALL_PRINT_MAX_LINES`` lines (rendered lines when there are any, else paragraphs)."""
    box = s.footprint_pt()
    if box is None or h_pt <= 0 or box[1] < SMALL_PRINT_TOP_FRAC * h_pt or s.text is None:
        return False
    count = len(lines) if lines else sum(1 for p in s.text.paragraphs if "".join(r.text for r in p.runs).strip())
    return 0 < count <= SMALL_PRINT_MAX_LINES


def is_tiny(size_pt: float, limit_pt: float) -> bool:
    """``size_pt`` is below ``limit_pt`` by more than the rounding tolerance."""
    return size_pt < limit_pt - TINY_FONT_TOL_PT


def tiny_findings(slide: SlideDoc, page: int | None, assigned: Assigned, w_pt: float, h_pt: float) -> list[Finding]:
    """Text frames and tables whose body text is below :func:`tiny_limit_pt`.

    With a render: the smallest body span of the frame's rendered lines (superscripts and
    subscripts left out). A shrink-on-overflow (``normAutofit``) frame is judged at the size
    LibreOffice drew it (LibreOffice re-fits the text and ignores the stored ``fontScale``):
    measured, with the stored size (run size x ``fontScale``, what PowerPoint draws until the
    text is edited) beside it; see :func:`_shrink_size` for when the stored size is used.
    Without a render: the smallest non-script run size the file states or inherits (an
    estimate). Charts and SmartArt are not judged. Small print (:func:`is_small_print`) is
    held to ``SMALL_PRINT_MIN_PT`` instead of ``TINY_FONT_MIN_PT``.

    Returns:
        One finding per frame; ``measure`` has ``size_pt`` (the size judged), ``limit_pt``,
        the slide size, ``small_print`` when held to that bar, and for shrink-to-fit frames
        ``autofit: "norm"``, ``font_scale``, ``stored_size_pt`` and ``drawn_size_pt`` (None
        when the frame's text was not matched on the page).
    """
    body_limit = tiny_limit_pt(w_pt, h_pt)
    found = []
    for s in slide.shapes:
        if s.hidden or s.placeholder in FOOTER_PLACEHOLDERS or (s.text is None and s.table is None):
            continue
        lines = [ln for ln in assigned.get((slide.index, s.id), []) if ln.sizes_pt]
        small_print = is_small_print(s, assigned.get((slide.index, s.id), []), h_pt)
        limit = body_limit * SMALL_PRINT_MIN_PT / TINY_FONT_MIN_PT if small_print else body_limit
        extra: dict[str, object] = {}
        if s.text is not None and s.text.autofit == "norm":
            judged = _shrink_size(s, s.text, lines, limit)
            if judged is None:
                continue
            size, source, conf, extra = judged
        elif lines:
            size, source, conf = min(min(ln.sizes_pt) for ln in lines), "render", 0.9
        elif s.text is not None:
            stored = _stored_size(s.text)
            if stored is None:
                continue
            size, source, conf = stored[0], "structure", stored[1]
        elif s.table is not None and s.table.min_size_pt is not None:
            size, source, conf = s.table.min_size_pt, "structure", 0.6
        else:
            continue
        if is_tiny(size, limit):
            note = extra.pop("note", "")
            found.append(Finding(check="tiny_font", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                                 measure={"size_pt": round(size, 1), "limit_pt": round(limit, 2),
                                          **({"small_print": True} if small_print else {}),
                                          "slide_width_pt": round(w_pt, 1), "slide_height_pt": round(h_pt, 1),
                                          **extra},
                                 message=f"text in '{s.name}' is {size:.1f} pt (< {limit:.1f} pt for this slide "
                                         f"size){note}",
                                 confidence=conf, source=source))
    return found


def _stored_size(tf: TextFrame) -> tuple[float, float] | None:
    """The smallest non-script run size the file states or inherits (points, ``fontScale``
    included) and the confidence of reading it there (0.85 stated on the run, 0.6 inherited);
    None when no run has text and a size."""
    runs = [(pt, r) for p in tf.paragraphs for r in p.runs if r.text.strip() and (pt := r.size_pt) and not r.script]
    if not runs:
        return None
    pt, r = min(runs, key=lambda sized: sized[0])
    return pt, (0.85 if r.size_source == "run" else 0.6)


def _shrink_size(s: ShapeDoc, tf: TextFrame, lines: list[PdfLine],
                 limit: float) -> tuple[float, str, float, dict[str, object]] | None:
    """The size a shrink-on-overflow frame is judged at: ``(size_pt, source, confidence,
    measure extras)``, or None when it has no sized text.

    - its rendered lines hold at least ``SHRINK_MATCHED_MIN_FRAC`` of its text: the smallest
      body span LibreOffice drew (``source="render"``, measured; ``font_substituted`` when a
      requested typeface was drawn with a font of other metrics, whose fit differs: then an
      estimate) — unless that is readable while the stored size is tiny (PowerPoint draws the
      stored ``fontScale`` until the text is edited): then the stored size, an estimate the
      model decides, with the drawn size beside it;
    - not matched on the page: the stored size, an estimate (``drawn_size_pt: None``).
    An extra ``note`` (popped by the caller) says which size was judged, for the message.
    """
    stored = _stored_size(tf)
    drawn = min(min(ln.sizes_pt) for ln in lines) if lines else None
    extra: dict[str, object] = {"autofit": "norm", "font_scale": round(tf.font_scale, 4),
                                "stored_size_pt": round(stored[0], 1) if stored else None,
                                "drawn_size_pt": round(drawn, 1) if drawn is not None else None}
    if drawn is not None and _matched_frac(s, lines) >= SHRINK_MATCHED_MIN_FRAC:
        if is_tiny(drawn, limit) or stored is None or not is_tiny(stored[0], limit):
            subst, fonts = substituted(s, lines)
            if subst:
                extra.update(font_substituted=True, fonts=fonts)
            stored_note = f", {stored[0]:.1f} pt as stored" if stored else ""
            extra["note"] = f" as LibreOffice drew this shrink-to-fit frame{stored_note}"
            return drawn, "render", CONFIDENCE_SHRINK_DRAWN, extra
        extra["note"] = (f" as stored (fontScale {tf.font_scale:.0%}, what PowerPoint draws until the text is "
                         f"edited); LibreOffice re-fit it at {drawn:.1f} pt")
    else:
        extra["drawn_size_pt"] = None
        extra["note"] = " as stored; its text was not matched on the rendered page, so the drawn size is unknown"
    if stored is None:
        return None
    return stored[0], "structure", stored[1], extra


def _matched_frac(s: ShapeDoc, lines: list[PdfLine]) -> float:
    """Share of the frame's letters and digits held by its matched rendered ``lines`` (0..1)."""
    want = len(text_key(text_of(s)))
    if want == 0:
        return 0.0
    return min(1.0, sum(len(ln.key) for ln in lines) / want)


def placeholder_findings(slide: int | None, page: int | None,
                         items: list[tuple[ShapeDoc | None, str]]) -> list[Finding]:
    """Leftover prompt or filler text (``PLACEHOLDER_PATTERNS``) in each ``(shape, text)``."""
    found = []
    for shape, text in items:
        for pattern, conf in PLACEHOLDER_PATTERNS:
            m = pattern.search(text)
            if m:
                found.append(Finding(check="placeholder_text", slide=slide, page=page,
                                     shape_id=shape.id if shape else None, shape_name=shape.name if shape else None,
                                     measure={"match": m.group(0)}, confidence=conf,
                                     source="structure" if shape else "render",
                                     message=f"leftover placeholder text {m.group(0)!r}"))
                break
    return found


def empty_placeholder_findings(slide: SlideDoc, page: int | None) -> list[Finding]:
    """Visible placeholder shapes (``p:sp`` with ``p:ph``, footers excepted) that hold no text.

    A filled picture/table/chart placeholder becomes a ``p:pic``/``p:graphicFrame`` and is not
    looked at. ``measure``: ``{"empty_placeholder": true, "placeholder": <type>}``."""
    found = []
    for s in slide.shapes:
        if s.kind != "sp" or s.placeholder is None or s.hidden or s.placeholder in FOOTER_PLACEHOLDERS:
            continue
        if text_of(s).strip():
            continue
        found.append(Finding(check="placeholder_text", slide=slide.index, page=page, shape_id=s.id,
                             shape_name=s.name, confidence=CONFIDENCE_EMPTY_PLACEHOLDER, source="structure",
                             measure={"empty_placeholder": True, "placeholder": s.placeholder},
                             message=f"{s.placeholder} placeholder '{s.name}' was left empty"))
    return found


def structure_glyph_findings(slide: SlideDoc, page: int | None) -> list[Finding]:
    """Shapes whose text holds U+FFFD replacement characters."""
    found = []
    for s in slide.shapes:
        n = text_of(s).count("\ufffd")
        if n:
            found.append(Finding(check="missing_glyph", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                                 measure={"replacement_chars": n}, confidence=0.95,
                                 message=f"'{s.name}' contains {n} U+FFFD replacement character(s)"))
    return found


def pdf_only_findings(page: int, slide: int | None, page_lines: list[PdfLine],
                      size: tuple[float, float]) -> list[Finding]:
    """tiny_font and placeholder_text for a page without a deck structure (PDF decks)."""
    found = []
    limit = tiny_limit_pt(*size)
    small = [min(ln.sizes_pt) for ln in page_lines if ln.sizes_pt and is_tiny(min(ln.sizes_pt), limit)]
    if small:
        found.append(Finding(check="tiny_font", page=page, slide=slide, source="render", confidence=0.8,
                             measure={"size_pt": round(min(small), 1), "limit_pt": round(limit, 2), "lines": len(small)},
                             message=f"{len(small)} line(s) below {limit:.1f} pt"))
    found += placeholder_findings(slide, page, [(None, "\n".join(ln.text for ln in page_lines))])
    return found
