"""Deterministic layout checks over structure + render: cheap, exact, no model calls.

Each finding names the slide/page, the shape, a measure (units in the keys) and a
confidence in [0, 1]. Render-measured findings lose confidence when the text was drawn in
a font that is neither the requested one nor metric-compatible with it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .documents import EMU_PER_PT, ChecksDoc, Finding, FontMapEntry, ShapeDoc, SlideDoc
from .fonts import verdict
from .pdftext import PdfLine, glyph_problems, read_lines, text_key

OFF_SLIDE_TOL_FRAC = 0.01
"""A frame may overhang an edge by 1 % of the slide dimension (bleeds, rounding) unflagged."""
OVERFLOW_TOL_PT = 2.0
OVERFLOW_TOL_LINE_FRAC = 0.2
"""Text may pass its frame by max(2 pt, 20 % of a line height): glyph bounding boxes of
tightly fitted frames touch the edge; a real overflow is at least part of a line."""
TINY_FONT_RATIO = 9.0 / 720.0
"""Tiny = below 9 pt on a 720 pt (10 in) wide slide, scaled with the slide width. Our
choice: 9 pt is the smallest footnote size common in corporate templates; projection
guidance asks for ≥ 18 pt body text, so this only catches text few can read."""
FOOTER_PLACEHOLDERS = {"sldNum", "dt", "ftr", "hdr"}
"""Slide number, date, footer, header: small by design; not judged for tiny fonts."""
OVERLAP_MIN_FRAC = 0.2
"""Structure-only overlap: boxes share ≥ 20 % of the smaller box."""
BLANK_TOP_COLOR_FRAC = 0.999
"""A page is blank when one colour covers ≥ 99.9 % of its pixels (a one-word title on a
white 16:9 page inks ~0.3 %) and the PDF, when there is one, has no text on it."""
CONFIDENCE_SUBSTITUTED = 0.55
CONFIDENCE_AUTOFIT = {"none": 1.0, "norm": 0.7, "shape": 0.8}
"""normAutofit: PowerPoint shrinks on open, LibreOffice with its own metrics; spAutoFit: the
frame grows, so the stored frame is only the author's fit with the requested font."""
PLACEHOLDER_PATTERNS = [
    (re.compile(r"\bclick to (add|edit|insert)\b", re.I), 0.9),
    (re.compile(r"\blorem ipsum\b", re.I), 0.9),
    (re.compile(r"\b(insert|add|your) (text|title|subtitle|image|picture|chart|logo|name|company)( here)?\b", re.I), 0.7),
    (re.compile(r"\[(placeholder|insert[^\]]*|todo|tbd)\]", re.I), 0.9),
    (re.compile(r"\b(TODO|TBD|XXX+)\b"), 0.5),
]
"""Leftover template prompts (PowerPoint's own "Click to add …" strings, lorem ipsum) and
author markers. TODO/TBD/XXX may be legitimate content, hence the lower confidence."""


@dataclass
class DeckView:
    """What the checks need. ``slides`` None = structure unavailable; ``pdf`` None = no PDF."""

    slides: list[SlideDoc] | None
    slide_w_emu: int | None
    slide_h_emu: int | None
    pdf: Path | None = None
    page_to_slide: dict[int, int | None] = field(default_factory=dict)
    pngs: dict[int, Path] = field(default_factory=dict)


def run_checks(deck: str, view: DeckView) -> ChecksDoc:
    """All checks that the available layers allow; each skipped check says why."""
    doc = ChecksDoc(deck=deck)
    slide_to_page = {s: p for p, s in view.page_to_slide.items() if s is not None}
    lines: dict[int, list[PdfLine]] = {}
    sizes: dict[int, tuple[float, float]] = {}
    if view.pdf is not None:
        lines, sizes = read_lines(view.pdf)
    if view.slides is not None and view.slide_w_emu:
        w_pt, h_pt = view.slide_w_emu / EMU_PER_PT, (view.slide_h_emu or 0) / EMU_PER_PT
        if not view.slides:
            doc.findings.append(Finding(check="empty_deck", message="the deck has no slides",
                                        confidence=1.0, measure={"slides": 0}))
        assigned: dict[tuple[int, str], list[PdfLine]] = {}
        for slide in view.slides:
            page = slide_to_page.get(slide.index)
            if page is not None and page in lines:
                scale = w_pt / max(sizes[page][0], 1.0)
                assigned.update(_assign(slide, [_scaled(ln, scale) for ln in lines[page]]))
        doc.font_map = _font_map(view.slides, assigned)
        for slide in view.slides:
            page = slide_to_page.get(slide.index)
            rendered = page is not None and page in lines
            doc.findings += _off_slide(slide, page, w_pt, h_pt, assigned if rendered else None)
            doc.findings += _overlap(slide, page, assigned if rendered else None)
            if rendered:
                doc.findings += _overflow(slide, page, assigned, w_pt, h_pt)
            doc.findings += _tiny(slide, page, assigned if rendered else {}, w_pt)
            doc.findings += _placeholder_text(slide.index, page, [(s, _text_of(s)) for s in slide.shapes if not s.hidden])
            doc.findings += _structure_glyphs(slide, page)
        doc.checks_run += ["empty_deck", "off_slide", "text_overlap", "tiny_font", "placeholder_text", "missing_glyph"]
        if lines:
            doc.checks_run.append("text_overflow")
        else:
            doc.checks_skipped["text_overflow"] = "needs a rendered PDF"
    else:
        for name in ("off_slide", "text_overlap", "text_overflow"):
            doc.checks_skipped[name] = "needs the deck structure"
        if lines:
            doc.findings += _pdf_only(lines, sizes, view.page_to_slide)
            doc.checks_run += ["tiny_font", "placeholder_text"]
    if view.pdf is not None:
        for page, chars in glyph_problems(view.pdf).items():
            shown = "".join(sorted(set(chars)))[:20]
            doc.findings.append(Finding(check="missing_glyph", page=page, slide=view.page_to_slide.get(page),
                                        measure={"chars": len(chars)}, confidence=0.9, source="render",
                                        message=f"{len(chars)} character(s) drawn as .notdef/U+FFFD: {shown!r}"))
        doc.checks_run.append("missing_glyph")
    if view.pngs:
        texted = {p for p, page_lines in lines.items() if sum(len(ln.key) for ln in page_lines) > 3}
        doc.findings += _blank_pages({p: v for p, v in view.pngs.items() if p not in texted}, view.page_to_slide)
        doc.checks_run.append("blank_page")
    else:
        doc.checks_skipped["blank_page"] = "needs rendered pages"
    doc.checks_run = sorted(set(doc.checks_run))
    return doc


# ---------------------------------------------------------------------------- helpers


def _text_of(shape: ShapeDoc) -> str:
    if shape.text:
        return shape.text.text
    if shape.table:
        return "\n".join(" ".join(r) for r in shape.table.cells)
    if shape.chart:
        c = shape.chart
        parts = [c.title or ""] + [x.name or "" for x in c.series] + [cat for x in c.series for cat in x.categories]
        return "\n".join(p for p in parts if p)
    return "\n".join(shape.diagram_text or [])


def _scaled(line: PdfLine, scale: float) -> PdfLine:
    if abs(scale - 1.0) < 1e-6:
        return line
    x0, y0, x1, y1 = line.bbox
    return PdfLine(line.page, (x0 * scale, y0 * scale, x1 * scale, y1 * scale), line.text, line.key,
                   line.alt_key, line.fonts, [s * scale for s in line.sizes_pt])


def _dist(bbox: tuple, box: tuple) -> float:
    dx = max(0.0, box[0] - bbox[2], bbox[0] - box[2])
    dy = max(0.0, box[1] - bbox[3], bbox[1] - box[3])
    return math.hypot(dx, dy)


def _assign(slide: SlideDoc, lines: list[PdfLine]) -> dict[tuple[int, str], list[PdfLine]]:
    """Give each rendered line to the shape whose text contains it and whose frame is
    nearest (ties: the smaller frame), then keep per shape only the lines connected to its
    frame (inside it, or within 1.5 line heights of a kept line): overflowing text is
    contiguous, a chart label elsewhere that happens to repeat a word is not."""
    cands = [(s, text_key(_text_of(s)), s.box.pt()) for s in slide.shapes
             if s.box is not None and not s.hidden and _text_of(s).strip()]
    raw: dict[str, list[PdfLine]] = {}
    by_id = {s.id: (s, box) for s, _k, box in cands}
    for ln in lines:
        best = None
        for shape, key, box in cands:
            if ln.key in key or (ln.alt_key and ln.alt_key in key):
                rank = (_dist(ln.bbox, box), _area(box))
                if best is None or rank < best[0]:
                    best = (rank, shape)
        if best is not None:
            raw.setdefault(best[1].id, []).append(ln)
    out: dict[tuple[int, str], list[PdfLine]] = {}
    for sid, found in raw.items():
        box = by_id[sid][1]
        kept = [ln for ln in found if _dist(ln.bbox, box) <= max(OVERFLOW_TOL_PT, 0.5 * ln.height)]
        rest = [ln for ln in found if ln not in kept]
        grew = bool(kept)
        while grew and rest:
            grew = False
            for ln in list(rest):
                if any(_dist(ln.bbox, k.bbox) <= 1.5 * max(ln.height, k.height) for k in kept) and \
                        min(ln.bbox[2], box[2]) > max(ln.bbox[0], box[0]):
                    kept.append(ln)
                    rest.remove(ln)
                    grew = True
        if kept:
            out[(slide.index, sid)] = kept
    return out


def _shape_fonts(shape: ShapeDoc) -> set[str]:
    if not shape.text:
        return set()
    return {r.font for p in shape.text.paragraphs for r in p.runs if r.font and r.text.strip()}


def _font_map(slides: list[SlideDoc], assigned: dict) -> list[FontMapEntry]:
    rendered: dict[str, set[str]] = {}
    for slide in slides:
        for shape in slide.shapes:
            fonts = _shape_fonts(shape)
            got = {f for ln in assigned.get((slide.index, shape.id), []) for f in ln.fonts}
            if len(fonts) == 1 and got:
                rendered.setdefault(next(iter(fonts)), set()).update(got)
            for f in fonts:
                rendered.setdefault(f, set())
    return [FontMapEntry(requested=f, rendered=sorted(r), verdict=verdict(f, r)) for f, r in sorted(rendered.items())]


def _substituted(shape: ShapeDoc, lines: list[PdfLine]) -> tuple[bool, str]:
    want = _shape_fonts(shape)
    got = {f for ln in lines for f in ln.fonts}
    bad = [w for w in want if verdict(w, got) == "substituted"]
    return bool(bad), (f"{', '.join(sorted(want))} → {', '.join(sorted(got))}" if want else "")


def _off_slide(slide: SlideDoc, page: int | None, w_pt: float, h_pt: float, assigned: dict | None) -> list[Finding]:
    found = []
    for s in slide.shapes:
        if s.box is None or s.hidden or s.kind == "grpSp":
            continue
        x0, y0, x1, y1 = _rotated_bounds(s.box.pt(), s.rot_deg)
        over = {"left_pt": -x0, "top_pt": -y0, "right_pt": x1 - w_pt, "bottom_pt": y1 - h_pt}
        tol = {"left_pt": w_pt, "right_pt": w_pt, "top_pt": h_pt, "bottom_pt": h_pt}
        bad = {k: round(v, 1) for k, v in over.items() if v > OFF_SLIDE_TOL_FRAC * tol[k]}
        if not bad:
            continue
        area = max((x1 - x0) * (y1 - y0), 1e-9)
        inside = max(0.0, min(x1, w_pt) - max(x0, 0.0)) * max(0.0, min(y1, h_pt) - max(y0, 0.0))
        frac = round(1.0 - inside / area, 3) if (x1 - x0) > 0 and (y1 - y0) > 0 else 1.0
        has_text = bool(_text_of(s).strip())
        conf = (0.9 if has_text else 0.5) * (0.85 if s.rot_deg % 180 else 1.0)
        where = "entirely off the slide" if inside == 0 else f"{frac:.0%} outside the slide"
        lines = (assigned or {}).get((slide.index, s.id), [])
        if lines and all(ln.bbox[0] >= 0 and ln.bbox[1] >= 0 and ln.bbox[2] <= w_pt and ln.bbox[3] <= h_pt for ln in lines):
            conf, where = 0.4, where + " (its rendered text is on the slide)"
        found.append(Finding(check="off_slide", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                             measure={**bad, "outside_frac": frac, "has_text": has_text},
                             message=f"{s.kind} '{s.name}' is {where}", confidence=round(conf, 2)))
    return found


def _rotated_bounds(box: tuple, rot_deg: float) -> tuple[float, float, float, float]:
    if not rot_deg % 360:
        return box
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    w, h = box[2] - box[0], box[3] - box[1]
    a = math.radians(rot_deg)
    hw = (abs(w * math.cos(a)) + abs(h * math.sin(a))) / 2
    hh = (abs(w * math.sin(a)) + abs(h * math.cos(a))) / 2
    return (cx - hw, cy - hh, cx + hw, cy + hh)


def _inter(a: tuple, b: tuple) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _overlap(slide: SlideDoc, page: int | None, assigned: dict | None) -> list[Finding]:
    shapes = [s for s in slide.shapes if s.box is not None and not s.hidden and _text_of(s).strip()]
    found = []
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            ba, bb = a.box.pt(), b.box.pt()
            inter = _inter(ba, bb)
            small = min((ba[2] - ba[0]) * (ba[3] - ba[1]), (bb[2] - bb[0]) * (bb[3] - bb[1]))
            if inter <= 0 or small <= 0:
                continue
            la = assigned.get((slide.index, a.id), []) if assigned is not None else []
            lb = assigned.get((slide.index, b.id), []) if assigned is not None else []
            measure = {"box_overlap_frac": round(inter / small, 3)}
            if la and lb:
                hits = sum(1 for x in la for y in lb if _inter(x.bbox, y.bbox) > 0.1 * min(_area(x.bbox), _area(y.bbox)))
                if not hits:
                    continue
                subst = _substituted(a, la)[0] or _substituted(b, lb)[0]
                measure.update(colliding_line_pairs=hits, font_substituted=subst)
                conf = round(0.9 * (CONFIDENCE_SUBSTITUTED if subst else 1.0), 2)
                source, what = "both", "rendered text lines collide"
            elif assigned is None and inter / small >= OVERLAP_MIN_FRAC:
                conf, source, what = 0.4, "structure", "text frames overlap (not rendered: collision unverified)"
            else:
                continue
            found.append(Finding(check="text_overlap", slide=slide.index, page=page, shape_id=a.id, shape_name=a.name,
                                 measure={**measure, "other_shape_id": b.id, "other_shape_name": b.name},
                                 message=f"'{a.name}' and '{b.name}': {what}", confidence=conf, source=source))
    return found


def _area(b: tuple) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _overflow(slide: SlideDoc, page: int | None, assigned: dict, w_pt: float, h_pt: float) -> list[Finding]:
    found = []
    for s in slide.shapes:
        lines = assigned.get((slide.index, s.id), [])
        if not lines or s.box is None or s.text is None or s.text.vertical or s.rot_deg % 180:
            continue
        x0, y0, x1, y1 = s.box.pt()
        lh = sorted(ln.height for ln in lines)[len(lines) // 2]
        tol = max(OVERFLOW_TOL_PT, OVERFLOW_TOL_LINE_FRAC * lh)
        over = {"bottom_pt": max(ln.bbox[3] for ln in lines) - y1, "top_pt": y0 - min(ln.bbox[1] for ln in lines)}
        if s.text.wrap != "none":
            over["right_pt"] = max(ln.bbox[2] for ln in lines) - x1
            over["left_pt"] = x0 - min(ln.bbox[0] for ln in lines)
        bad = {k: round(v, 1) for k, v in over.items() if v > tol}
        if not bad:
            continue
        outside = [ln for ln in lines if ln.bbox[3] > y1 + tol or ln.bbox[1] < y0 - tol]
        past_edge = max(ln.bbox[3] for ln in lines) > h_pt or max(ln.bbox[2] for ln in lines) > w_pt
        subst, fonts = _substituted(s, lines)
        conf = 0.9 * CONFIDENCE_AUTOFIT[s.text.autofit] * (CONFIDENCE_SUBSTITUTED if subst else 1.0)
        note = " (auto-fit frame grows: text passes the frame the author saw)" if s.text.autofit == "shape" else ""
        found.append(Finding(
            check="text_overflow", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name, source="both",
            measure={**bad, "lines_outside": len(outside), "line_height_pt": round(lh, 1), "tolerance_pt": round(tol, 1),
                     "autofit": s.text.autofit, "wrap": s.text.wrap, "font_substituted": subst, "fonts": fonts,
                     "past_slide_edge": past_edge},
            message=f"text of '{s.name}' runs {max(bad.values()):.0f} pt past its frame ({', '.join(bad)}){note}",
            confidence=round(conf, 2)))
    return found


def _tiny(slide: SlideDoc, page: int | None, assigned: dict, w_pt: float) -> list[Finding]:
    limit = TINY_FONT_RATIO * w_pt
    found = []
    for s in slide.shapes:
        if s.hidden or s.text is None or s.placeholder in FOOTER_PLACEHOLDERS:
            continue
        lines = assigned.get((slide.index, s.id), [])
        if lines:
            size, source, conf = min(min(ln.sizes_pt) for ln in lines), "render", 0.9
        else:
            runs = [r for p in s.text.paragraphs for r in p.runs if r.text.strip() and r.size_pt]
            if not runs:
                continue
            r = min(runs, key=lambda r: r.size_pt)
            size, source, conf = r.size_pt, "structure", (0.85 if r.size_source == "run" else 0.6)
        if size < limit:
            found.append(Finding(check="tiny_font", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                                 measure={"size_pt": round(size, 1), "limit_pt": round(limit, 1),
                                          "slide_width_pt": round(w_pt, 1)},
                                 message=f"text in '{s.name}' is {size:.1f} pt (< {limit:.1f} pt for this slide width)",
                                 confidence=conf, source=source))
    return found


def _placeholder_text(slide: int | None, page: int | None, items: list[tuple[ShapeDoc | None, str]]) -> list[Finding]:
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


def _structure_glyphs(slide: SlideDoc, page: int | None) -> list[Finding]:
    found = []
    for s in slide.shapes:
        n = _text_of(s).count("\ufffd")
        if n:
            found.append(Finding(check="missing_glyph", slide=slide.index, page=page, shape_id=s.id, shape_name=s.name,
                                 measure={"replacement_chars": n}, confidence=0.95,
                                 message=f"'{s.name}' contains {n} U+FFFD replacement character(s)"))
    return found


def _pdf_only(lines: dict[int, list[PdfLine]], sizes: dict, page_to_slide: dict) -> list[Finding]:
    found = []
    for page, page_lines in lines.items():
        limit = TINY_FONT_RATIO * sizes[page][0]
        small = [min(ln.sizes_pt) for ln in page_lines if ln.sizes_pt and min(ln.sizes_pt) < limit]
        if small:
            found.append(Finding(check="tiny_font", page=page, slide=page_to_slide.get(page), source="render", confidence=0.8,
                                 measure={"size_pt": round(min(small), 1), "limit_pt": round(limit, 1), "lines": len(small)},
                                 message=f"{len(small)} line(s) below {limit:.1f} pt"))
        found += _placeholder_text(page_to_slide.get(page), page, [(None, "\n".join(ln.text for ln in page_lines))])
    return found


def _blank_pages(pngs: dict[int, Path], page_to_slide: dict) -> list[Finding]:
    import pymupdf

    found = []
    for page, path in sorted(pngs.items()):
        pix = pymupdf.Pixmap(str(path))
        if pix.alpha:
            pix = pymupdf.Pixmap(pix, 0)
        if pix.width * pix.height > 640 * 640:
            pix.shrink(2)
        frac, _color = pix.color_topusage()
        if frac >= BLANK_TOP_COLOR_FRAC:
            found.append(Finding(check="blank_page", page=page, slide=page_to_slide.get(page), source="render",
                                 measure={"top_color_frac": round(frac, 4)}, confidence=0.95,
                                 message=f"page {page} is a single colour ({frac:.1%} of pixels)"))
    return found
