"""text_overflow: rendered text lines measured against their frame and the slide (points).

Render-and-measure: each frame's lines come from the PDF LibreOffice drew (all of them, also
those past the page edge), turned back into the frame's own axes, and compared with the
frame the file stores. What this sees and does not see is listed in :func:`overflow_findings`.
"""

from __future__ import annotations

import math
import statistics

from .documents import EMU_PER_PT, Bounds, Box, Finding, ShapeDoc, SlideDoc, TextFrame
from .matching import Assigned, substituted, text_turn_deg
from .pdftext import PdfLine

OVERFLOW_TOL_PT = 2.0
OVERFLOW_TOL_LINE_FRAC = 0.2
"""Text may pass its frame by max(2 pt, 20 % of a line height): glyph bounding boxes of
tightly fitted frames touch the edge; a real overflow is at least part of a line."""
CONFIDENCE_SUBSTITUTED = 0.55
CONFIDENCE_FIT = {"none": 0.9, "norm": 0.63, "shape": 0.72, "edge": 0.9}
"""Base confidence: a fixed frame's spill, measured directly (0.9); a shrink-on-overflow
frame whose spill is inferred from how far LibreOffice had to shrink it (0.63: the amount is
an estimate, the fact is measured); a fitted grow-to-fit frame the render outgrew (0.72: the
frame grows in PowerPoint too once the text is edited); text past the slide edge (0.9). Times
``CONFIDENCE_SUBSTITUTED`` when a requested typeface was drawn with a font of other metrics."""
SHRINK_DETECT_FRAC = 0.9
"""LibreOffice drew a shrink-on-overflow (``normAutofit``) frame's text below 90 % of the size
the file stores (run size x ``fontScale``, what PowerPoint draws until the text is edited):
the text does not fit at that size. 90 %: LibreOffice's own fit steps and rounding stay above
it when the stored scale already fits."""
GROW_FITTED_RATIO = 1.5
"""A grow-to-fit (``spAutoFit``) frame was fitted to its text by the application that saved it
when the rendered text needs at most 1.5 x the stored text area (between the insets): then
text past the stored frame is text the render puts where the author did not (another
typeface's metrics, edited text), reported. A frame whose text needs more than that was never
fitted (a generator's stale height, e.g. 0.4 in for four lines): PowerPoint and LibreOffice
both grow it, and only text past the slide edge counts. Our choice: substituted typefaces
differ from the requested one by well under 50 % in set width, so a fitted frame re-rendered
stays under 1.5 x; stale heights seen in generated decks are one line for several."""
SKEW_SOLVE_MIN = 0.25
"""Recovering a turned line's length and thickness from its axis-aligned box divides by
cos²θ - sin²θ; below 0.25 (within ~7.5° of 45°) the thickness is taken as 1.2 x the font size."""


def overflow_findings(slide: SlideDoc, page: int | None, assigned: Assigned,
                      w_pt: float, h_pt: float) -> list[Finding]:
    """Text frames and tables whose rendered text passes their frame or the slide edge.

    Measured (points, from the render):
        - every frame side, for text frames at any rotation (the lines are turned back into
          the frame's axes; exact at multiples of 90°, and ``vert``/``vert270`` text);
        - left/right only for word-wrapped frames or frames that draw a fill/outline: text of
          an undecorated ``wrap="none"`` label passing its invisible frame shows nothing wrong;
        - text past any slide edge, beyond where its frame already is (a frame hanging off the
          slide is ``off_slide``'s);
        - tables grow their rows to fit, so only their slide-edge spill counts;
        - ``spAutoFit`` frames grow to fit: text past the stored frame counts only when the
          frame had been fitted to its text (``GROW_FITTED_RATIO``), otherwise (a stale
          stored height) only the slide-edge spill;
        - ``normAutofit`` frames: LibreOffice shrinks their text to fit, PowerPoint draws the
          stored ``fontScale``; when LibreOffice drew the text below ``SHRINK_DETECT_FRAC`` of
          the stored size, the frame is reported with the spill estimated at the stored size
          (height x (stored/drawn)², ``estimated: true``).

    Not measured: stacked vertical text (``eaVert``, ``mongolianVert``, word-art), charts and
    SmartArt, text hidden behind other shapes, a ``normAutofit`` spill LibreOffice absorbed by
    tightening line spacing alone (under ~20 % of the frame), and text drawn past a frame
    whose own stored size PowerPoint would have grown (``spAutoFit``) but into other content
    (that is ``text_overlap``'s when it hits other text).

    Returns:
        One finding per frame; ``measure`` has the sides passed (``bottom_pt`` … in points,
        frame-relative), ``past_slide_edge`` / ``past_slide_edge_pt``, the line height and
        tolerance, autofit, wrap, font substitution.
    """
    found = []
    for s in slide.shapes:
        lines = assigned.get((slide.index, s.id), [])
        if not lines or s.box is None or s.hidden:
            continue
        if s.text is not None:
            f = _text_frame(slide, page, s, s.text, s.box, lines, w_pt, h_pt)
        elif s.table is not None:
            f = _edge_only(slide, page, s, lines, w_pt, h_pt, what="table rows grow")
        else:
            f = None
        if f is not None:
            found.append(f)
    return found


def _tolerance(lines: list[PdfLine]) -> tuple[float, float]:
    lh = statistics.median(_thick(ln) for ln in lines)
    return lh, max(OVERFLOW_TOL_PT, OVERFLOW_TOL_LINE_FRAC * lh)


def _thick(ln: PdfLine) -> float:
    dx, dy = ln.direction
    if abs(dy) < 1e-3:
        return ln.height
    if abs(dx) < 1e-3:
        return ln.bbox[2] - ln.bbox[0]
    return 1.2 * max(ln.sizes_pt or [ln.height])


def _edge_over(lines: list[PdfLine], frame: Bounds, w_pt: float, h_pt: float) -> dict[str, float]:
    """Points by which the lines pass each slide edge beyond the frame footprint's own overhang."""
    x0 = min(ln.bbox[0] for ln in lines)
    y0 = min(ln.bbox[1] for ln in lines)
    x1 = max(ln.bbox[2] for ln in lines)
    y1 = max(ln.bbox[3] for ln in lines)
    fx0, fy0, fx1, fy1 = frame
    return {"left": -x0 - max(0.0, -fx0), "top": -y0 - max(0.0, -fy0),
            "right": x1 - w_pt - max(0.0, fx1 - w_pt), "bottom": y1 - h_pt - max(0.0, fy1 - h_pt)}


def _edge_only(slide: SlideDoc, page: int | None, s: ShapeDoc, lines: list[PdfLine], w_pt: float, h_pt: float,
               *, what: str) -> Finding | None:
    footprint = s.footprint_pt()
    if footprint is None:  # no box: the callers measure framed shapes only
        return None
    lh, tol = _tolerance(lines)
    edge = {k: v for k, v in _edge_over(lines, footprint, w_pt, h_pt).items() if v > tol}
    if not edge:
        return None
    subst, fonts = substituted(s, lines)
    conf = CONFIDENCE_FIT["edge"] * (CONFIDENCE_SUBSTITUTED if subst else 1.0)
    most = max(edge.values())
    return Finding(check="text_overflow", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                   source="both", confidence=round(conf, 2),
                   measure={"past_slide_edge": True, "past_slide_edge_pt": round(most, 1),
                            "slide_edges": sorted(edge), "line_height_pt": round(lh, 1),
                            "tolerance_pt": round(tol, 1), "font_substituted": subst, "fonts": fonts},
                   message=f"text of '{s.name}' runs {most:.0f} pt past the slide edge ({', '.join(sorted(edge))}; "
                           f"{what} to fit their text)")


def _text_frame(slide: SlideDoc, page: int | None, s: ShapeDoc, tf: TextFrame, box: Box, lines: list[PdfLine],
                w_pt: float, h_pt: float) -> Finding | None:
    """The overflow finding of the text frame ``tf`` of shape ``s`` (stored ``box``), or None."""
    turn = text_turn_deg(s)
    if turn is None:
        return None
    x0, y0, x1, y1 = box.pt()
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half_w, half_h = _text_area_half(box, tf, tf.vert)
    local = [_to_local(ln, cx, cy, turn) for ln in lines]
    if tf.autofit == "shape" and not _fitted(tf, local, half_w, half_h):
        found = _edge_only(slide, page, s, lines, w_pt, h_pt, what="its frame grows")
        if found is not None and tf.wrap == "none" and turn == 0:
            # LibreOffice grows a wrap="none" frame about its centre, PowerPoint from the stored
            # left edge: sideways spill counts when both placements leave the slide
            found = _edge_only(slide, page, s, _left_anchored(lines, box, tf), w_pt, h_pt, what="its frame grows")
        return found
    lh, tol = _tolerance(lines)
    over = {"bottom_pt": max(r[3] for r in local) - half_h, "top_pt": -half_h - min(r[1] for r in local)}
    if tf.wrap != "none" or s.decorated:
        over["right_pt"] = max(r[2] for r in local) - half_w
        over["left_pt"] = -half_w - min(r[0] for r in local)
    bad = {k: round(v, 1) for k, v in over.items() if v > tol}
    estimated = None
    if tf.autofit == "norm":
        estimated = _shrunk(tf, lines)
        if estimated is not None:
            ratio = estimated
            top, bottom = min(r[1] for r in local), max(r[3] for r in local)
            excess = (bottom - top) / (ratio * ratio) - 2 * half_h + _v_insets_pt(tf)
            if excess <= tol:
                estimated = None
            else:
                side = {"b": ("top_pt",), "ctr": ("top_pt", "bottom_pt")}.get(tf.anchor, ("bottom_pt",))
                bad = {k: round(excess / len(side), 1) for k in side}
    footprint = s.footprint_pt()
    edge = {k: v for k, v in _edge_over(lines, footprint, w_pt, h_pt).items() if v > tol} if footprint is not None else {}
    if not bad and not edge:
        return None
    subst, fonts = substituted(s, lines)
    base = CONFIDENCE_FIT[tf.autofit if tf.autofit in CONFIDENCE_FIT else "none"]
    conf = base * (CONFIDENCE_SUBSTITUTED if subst else 1.0)
    outside = sum(1 for r in local if r[3] > half_h + tol or r[1] < -half_h - tol)
    most_edge = max(edge.values()) if edge else 0.0
    measure = {**bad, "lines_outside": outside, "line_height_pt": round(lh, 1), "tolerance_pt": round(tol, 1),
               "autofit": tf.autofit, "wrap": tf.wrap, "font_substituted": subst, "fonts": fonts,
               "past_slide_edge": bool(edge), "past_slide_edge_pt": round(most_edge, 1)}
    if estimated is not None:
        measure.update(estimated=True, renderer_shrink=round(estimated, 3))
    amount = max(list(bad.values()) + [most_edge])
    where = ", ".join(list(bad) + [f"slide {k}" for k in sorted(edge)])
    note = (f" (LibreOffice shrank it to {estimated:.0%} of the stored size; spill estimated at the stored size)"
            if estimated is not None else "")
    return Finding(check="text_overflow", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                   source="both", confidence=round(conf, 2), measure=measure,
                   message=f"text of '{s.name}' runs {amount:.0f} pt past "
                           f"{'its frame' if bad else 'the slide edge'} ({where}){note}")


def _fitted(tf: TextFrame, local: list[Bounds], half_w: float, half_h: float) -> bool:
    """The rendered text of a grow-to-fit frame needs at most ``GROW_FITTED_RATIO`` x the
    stored text area (height; also width for ``wrap="none"``)."""
    l_in, t_in, r_in, b_in = (v / EMU_PER_PT for v in tf.insets_emu)
    need_h = max(r[3] for r in local) - min(r[1] for r in local)
    if need_h > GROW_FITTED_RATIO * max(2 * half_h - t_in - b_in, 1.0):
        return False
    if tf.wrap == "none":
        need_w: float = max(r[2] for r in local) - min(r[0] for r in local)
        return need_w <= GROW_FITTED_RATIO * max(2 * half_w - l_in - r_in, 1.0)
    return True


def _text_area_half(box: Box, tf: TextFrame, vert: str) -> tuple[float, float]:
    """Half width and half height (points) of the frame in its text's own axes: the stored
    frame, with width and height exchanged for ``vert``/``vert270`` text."""
    x0, y0, x1, y1 = box.pt()
    w, h = x1 - x0, y1 - y0
    if tf.vertical and vert in ("vert", "vert270"):
        w, h = h, w
    return w / 2, h / 2


def _v_insets_pt(tf: TextFrame) -> float:
    _l, t, _r, b = tf.insets_emu
    return (t + b) / EMU_PER_PT


def _to_local(ln: PdfLine, cx: float, cy: float, turn_deg: float) -> Bounds:
    """The line's own rectangle in the frame's text axes, relative to the frame centre
    ``(cx, cy)`` (points): its page box turned back by ``turn_deg`` (clockwise, y down)."""
    bx0, by0, bx1, by1 = ln.bbox
    bw, bh = bx1 - bx0, by1 - by0
    mx, my = (bx0 + bx1) / 2 - cx, (by0 + by1) / 2 - cy
    q = turn_deg / 90.0
    if abs(q - round(q)) < 1e-6:
        cos, sin = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(round(q)) % 4]
        length, thick = (bw, bh) if int(round(q)) % 2 == 0 else (bh, bw)
    else:
        rad = math.radians(turn_deg)
        cos, sin = math.cos(rad), math.sin(rad)
        dc, ds = abs(ln.direction[0]), abs(ln.direction[1])
        det = dc * dc - ds * ds
        if abs(det) >= SKEW_SOLVE_MIN:
            length, thick = (bw * dc - bh * ds) / det, (bh * dc - bw * ds) / det
        else:
            thick = 1.2 * max(ln.sizes_pt or [min(bw, bh)])
            length = (bw - thick * ds) / max(dc, 1e-6)
        length, thick = max(length, 0.0), max(thick, 0.0)
    lx, ly = mx * cos + my * sin, -mx * sin + my * cos
    return (lx - length / 2, ly - thick / 2, lx + length / 2, ly + thick / 2)


def _shrunk(tf: TextFrame, lines: list[PdfLine]) -> float | None:
    """Drawn size / stored size of a ``normAutofit`` frame's body text when LibreOffice drew it
    below ``SHRINK_DETECT_FRAC`` of the stored size (run size x fontScale); else None."""
    stored = [r.size_pt for p in tf.paragraphs for r in p.runs if r.text.strip() and r.size_pt and not r.script]
    drawn = [z for ln in lines for z in ln.sizes_pt]
    if not stored or not drawn:
        return None
    ratio = statistics.median(drawn) / statistics.median(stored)
    return ratio if ratio < SHRINK_DETECT_FRAC else None


def _left_anchored(lines: list[PdfLine], box: Box, tf: TextFrame) -> list[PdfLine]:
    """Lines of a grow-to-fit ``wrap="none"`` frame placed as PowerPoint grows it (from the
    stored left edge; LibreOffice grows it about its centre), when that is further inside."""
    x0 = box.pt()[0] + tf.insets_emu[0] / EMU_PER_PT
    shift = x0 - min(ln.bbox[0] for ln in lines)
    if shift <= 0:
        return lines
    return [PdfLine(ln.page, (ln.bbox[0] + shift, ln.bbox[1], ln.bbox[2] + shift, ln.bbox[3]), ln.text, ln.key,
                    ln.alt_key, ln.fonts, ln.sizes_pt, ln.direction) for ln in lines]
