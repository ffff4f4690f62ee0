"""Rendered PDF lines matched to the slide's text frames, and frame geometry in points."""

from __future__ import annotations

import math

from .documents import Bounds, FontMapEntry, ShapeDoc, SlideDoc
from .fonts import verdict
from .pdftext import PdfLine, text_key

OVERFLOW_TOL_PT = 2.0
"""Lines within max(2 pt, half a line height) of a frame belong to it outright (glyph boxes of
tightly fitted frames touch the edge)."""
VERT_TURN_DEG = {"horz": 0, "vert": 90, "vert270": 270}
"""Extra turn (degrees clockwise) of the text lines inside a frame per ``a:bodyPr vert``
(ECMA-376 Part 1 §21.1.2.1.39 ST_TextVerticalType). ``eaVert``, ``mongolianVert`` and the
word-art kinds stack glyphs instead: not measured (:func:`text_turn_deg` returns None)."""


def text_of(shape: ShapeDoc) -> str:
    """All text a shape draws: its text frame, table cells, chart title/series/categories or
    SmartArt points (newline-joined)."""
    if shape.text:
        return shape.text.text
    if shape.table:
        return "\n".join(" ".join(r) for r in shape.table.cells)
    if shape.chart:
        c = shape.chart
        parts = [c.title or ""] + [x.name or "" for x in c.series] + [cat for x in c.series for cat in x.categories]
        return "\n".join(p for p in parts if p)
    return "\n".join(shape.diagram_text or [])


def text_turn_deg(shape: ShapeDoc) -> float | None:
    """Clockwise angle (degrees, [0, 360)) of the shape's text lines on the slide: the shape's
    absolute rotation plus the ``vert`` turn. None for stacked vertical text."""
    if shape.text is None:
        return shape.rot_deg
    extra = VERT_TURN_DEG.get(shape.text.vert if shape.text.vertical else "horz")
    if extra is None:
        return None
    return (shape.rot_deg + extra) % 360.0


Assigned = dict[tuple[int, str], list[PdfLine]]
"""Rendered lines per ``(slide index, shape id)``: what `assign` gives each frame."""


def area(b: Bounds) -> float:
    """Area (pt²) of a box; 0 for an empty or inverted one."""
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def inter(a: Bounds, b: Bounds) -> float:
    """Area (pt²) of the intersection of two boxes."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def dist(bbox: Bounds, box: Bounds) -> float:
    """Gap (points) between two boxes; 0 when they touch or overlap."""
    dx = max(0.0, box[0] - bbox[2], bbox[0] - box[2])
    dy = max(0.0, box[1] - bbox[3], bbox[1] - box[3])
    return math.hypot(dx, dy)


def scaled(line: PdfLine, scale: float) -> PdfLine:
    """The line with its box and sizes multiplied by ``scale`` (PDF page points → slide points)."""
    if abs(scale - 1.0) < 1e-6:
        return line
    x0, y0, x1, y1 = line.bbox
    return PdfLine(line.page, (x0 * scale, y0 * scale, x1 * scale, y1 * scale), line.text, line.key,
                   line.alt_key, line.fonts, [s * scale for s in line.sizes_pt], line.direction)


def assign(slide: SlideDoc, frames: list[tuple[ShapeDoc, Bounds]],
           lines: list[PdfLine]) -> Assigned:
    """Give each rendered line to the frame whose text contains it and whose footprint is
    nearest (ties: the footprint holding more of the line, then the smaller footprint — two
    overlapping frames with the same sentences each keep their own lines), then keep per frame only the lines connected to it
    (inside it, or within 1.5 line heights of a kept line and level with the frame across the
    flow of its text: beside it for a frame turned a quarter, above/below it otherwise):
    overflowing text is contiguous, a chart label elsewhere that happens to repeat a word is
    not. ``frames`` are ``(shape, footprint_pt)`` pairs, bounded per slide by the caller, so
    the work is at most lines x frames."""
    cands = [(s, text_key(text_of(s)), box, area(box)) for s, box in frames]
    raw: dict[str, list[PdfLine]] = {}
    by_id = {s.id: (s, box) for s, _k, box, _a in cands}
    matching: dict[tuple[str, str], list[int]] = {}  # repeated line texts: one scan of the frames
    for ln in lines:
        idx = matching.get((ln.key, ln.alt_key))
        if idx is None:
            idx = [i for i, c in enumerate(cands) if ln.key in c[1] or (ln.alt_key and ln.alt_key in c[1])]
            matching[(ln.key, ln.alt_key)] = idx
        lx0, ly0, lx1, ly1 = ln.bbox
        best: tuple[float, float, float] | None = None
        who = -1
        for i in idx:
            x0, y0, x1, y1 = cands[i][2]
            dx, dy = max(0.0, x0 - lx1, lx0 - x1), max(0.0, y0 - ly1, ly0 - y1)
            held = inter(ln.bbox, cands[i][2]) / max(area(ln.bbox), 1e-9)
            rank = (dx * dx + dy * dy, -round(held, 3), cands[i][3])  # squared distance: same order as dist()
            if best is None or rank < best:
                best, who = rank, i
        if who >= 0:
            raw.setdefault(cands[who][0].id, []).append(ln)
    out: dict[tuple[int, str], list[PdfLine]] = {}
    for sid, found in raw.items():
        shape, box = by_id[sid]
        turn = text_turn_deg(shape)
        sideways = turn is not None and abs((turn % 180.0) - 90.0) < 1e-6
        axis = 1 if sideways else 0  # lines must stay level with the frame on this axis
        kept = [ln for ln in found if dist(ln.bbox, box) <= max(OVERFLOW_TOL_PT, 0.5 * ln.height)]
        rest = [ln for ln in found if dist(ln.bbox, box) > max(OVERFLOW_TOL_PT, 0.5 * ln.height)]
        queue = list(kept)
        while queue and rest:  # grow from each kept line once: O(lines^2) per frame, not cubic
            k = queue.pop()
            step = 1.5 * max(_thickness(k), 1.0)
            near = [ln for ln in rest if dist(ln.bbox, k.bbox) <= max(step, 1.5 * _thickness(ln))
                    and min(ln.bbox[axis + 2], box[axis + 2]) > max(ln.bbox[axis], box[axis])]
            if near:
                kept += near
                queue += near
                taken = {id(ln) for ln in near}
                rest = [ln for ln in rest if id(ln) not in taken]
        if kept:
            order = {id(ln): i for i, ln in enumerate(found)}
            out[(slide.index, sid)] = sorted(kept, key=lambda ln: order[id(ln)])
    return out


def _thickness(line: PdfLine) -> float:
    """Line height across its writing direction (points): the box's short side for
    horizontal or vertical text, the font size for text at other angles."""
    dx, dy = line.direction
    if abs(dy) < 1e-3:
        return line.height
    if abs(dx) < 1e-3:
        return line.bbox[2] - line.bbox[0]
    return max(line.sizes_pt or [line.height])


def shape_fonts(shape: ShapeDoc) -> set[str]:
    if not shape.text:
        return set()
    return {r.font for p in shape.text.paragraphs for r in p.runs if r.font and r.text.strip()}


def font_map(slides: list[SlideDoc], assigned: Assigned) -> list[FontMapEntry]:
    """Requested typeface → the fonts its frames were drawn with, and the verdict."""
    rendered: dict[str, set[str]] = {}
    for slide in slides:
        for shape in slide.shapes:
            fonts = shape_fonts(shape)
            got = {f for ln in assigned.get((slide.index, shape.id), []) for f in ln.fonts}
            if len(fonts) == 1 and got:
                rendered.setdefault(next(iter(fonts)), set()).update(got)
            for f in fonts:
                rendered.setdefault(f, set())
    return [FontMapEntry(requested=f, rendered=sorted(r), verdict=verdict(f, r)) for f, r in sorted(rendered.items())]


def substituted(shape: ShapeDoc, lines: list[PdfLine]) -> tuple[bool, str]:
    """Whether a requested typeface of the shape was drawn with a non-compatible font, and a
    ``requested → rendered`` note."""
    want = shape_fonts(shape)
    got = {f for ln in lines for f in ln.fonts}
    bad = [w for w in want if verdict(w, got) == "substituted"]
    return bool(bad), (f"{', '.join(sorted(want))} → {', '.join(sorted(got))}" if want else "")
