"""Deterministic layout checks over structure + render: cheap, exact, no model calls.

Each finding names the slide/page, the shape, a measure (units in the keys) and a
confidence in [0, 1]. Render-measured findings lose confidence when the text was drawn in
a font that is neither the requested one nor metric-compatible with it.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from .documents import EMU_PER_PT, CheckLimit, ChecksDoc, Finding, FontMapEntry, ShapeDoc, SlideDoc
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
MAX_TEXT_FRAMES_PER_SLIDE = 300
"""Text frames per slide that the pairwise work considers (text_overlap, and matching rendered
lines to frames): the 300 with the largest footprint. Both compare frames with frames or
lines, so a generated slide of thousands of text boxes would cost millions of comparisons
(an auditor's 3,000-box slide); real slides hold far fewer (a 12 x 20 grid of text boxes is
240). Frames left out still get every per-shape check (off_slide, tiny_font from the
structure, placeholder_text, missing_glyph); a ``text_frame_cap`` limit names the slide."""
MAX_LINES_PER_PAGE = 1000
"""Rendered text lines per page matched to frames (reading order). Each line is compared
with up to ``MAX_TEXT_FRAMES_PER_SLIDE`` frames; a dense real page has a few hundred lines.
Lines past the cap are not matched (their frames fall back to structure-only checks); a
``line_cap`` limit names the page."""
FINDINGS_PER_SLIDE_CAP = 20
"""Findings of one check kept per slide (highest confidence first, then the larger
overlap, then shape-tree order). Twenty colliding frames already say "this slide is a mess";
the cap also keeps a slide of stacked text boxes (up to 44,850 colliding pairs within
``MAX_TEXT_FRAMES_PER_SLIDE``) from building tens of thousands of finding objects. The rest
is counted in ``findings_dropped``."""
FINDINGS_PER_CHECK_CAP = 200
"""Findings of one check written per deck. A real deck with a defect on every one of 60
slides stays under it; past it, findings are a pattern that neither the VLM prompt nor the
report uses one by one, and an uncapped generated deck wrote 943,319 findings (368 MB of
checks.json). Kept round-robin over slides (each slide's best finding first, so later slides
are not starved), written in slide order; the rest is counted in ``findings_dropped``."""


@dataclass
class DeckView:
    """What the checks need. ``slides`` None = structure unavailable; ``pdf`` None = no PDF."""

    slides: list[SlideDoc] | None
    slide_w_emu: int | None
    slide_h_emu: int | None
    pdf: Path | None = None
    page_to_slide: dict[int, int | None] = field(default_factory=dict)
    pngs: dict[int, Path] = field(default_factory=dict)


def run_checks(deck: str, view: DeckView, *, deadline: float | None = None) -> ChecksDoc:
    """All checks that the available layers allow; each skipped check says why.

    Args:
        deck: deck name written into the document.
        view: the layers available for the deck.
        deadline: ``time.monotonic()`` value (seconds) after which no further slide or page
            is checked; None = no limit. Work stops between slides/pages, so the overrun is
            one slide's bounded work. What was found before stays; a ``budget`` entry in
            ``limits`` says how many slides/pages were not checked.

    Returns:
        ChecksDoc. Per check at most ``FINDINGS_PER_SLIDE_CAP`` findings per slide and
        ``FINDINGS_PER_CHECK_CAP`` per deck are written; ``findings_dropped`` counts the rest.
        Never raises for deck content (the caller isolates unexpected errors).
    """
    doc = ChecksDoc(deck=deck)
    if _spent(deadline):
        units = len(view.slides) if view.slides else len(view.page_to_slide)
        for name in ("off_slide", "text_overlap", "text_overflow", "tiny_font", "placeholder_text",
                     "missing_glyph", "blank_page", "empty_deck"):
            doc.checks_skipped[name] = "evidence budget spent before the checks ran"
        doc.limits.append(CheckLimit(kind="budget", count=units,
                                     reason="evidence budget spent before the checks ran; nothing was checked"))
        return doc
    slide_to_page = {s: p for p, s in view.page_to_slide.items() if s is not None}
    lines: dict[int, list[PdfLine]] = {}
    sizes: dict[int, tuple[float, float]] = {}
    if view.pdf is not None:
        lines, sizes = read_lines(view.pdf)
    dropped: dict[str, int] = {}
    if view.slides is not None and view.slide_w_emu:
        w_pt, h_pt = view.slide_w_emu / EMU_PER_PT, (view.slide_h_emu or 0) / EMU_PER_PT
        if not view.slides:
            doc.findings.append(Finding(check="empty_deck", message="the deck has no slides",
                                        confidence=1.0, measure={"slides": 0}))
        assigned: dict[tuple[int, str], list[PdfLine]] = {}
        for pos, slide in enumerate(view.slides):
            if _spent(deadline):
                rest = view.slides[pos:]
                doc.limits.append(CheckLimit(kind="budget", count=len(rest), slide=rest[0].index, reason=(
                    f"evidence budget spent: slides {rest[0].index}-{rest[-1].index} ({len(rest)} of "
                    f"{len(view.slides)}) not checked")))
                break
            page = slide_to_page.get(slide.index)
            rendered = page is not None and page in lines
            frames = _text_frames(slide, doc)
            if rendered:
                page_lines = lines[page]
                if len(page_lines) > MAX_LINES_PER_PAGE:
                    doc.limits.append(CheckLimit(kind="line_cap", slide=slide.index, page=page,
                                                 count=len(page_lines) - MAX_LINES_PER_PAGE, reason=(
                        f"page {page} has {len(page_lines)} rendered text lines; the first "
                        f"{MAX_LINES_PER_PAGE} were matched to frames")))
                    page_lines = page_lines[:MAX_LINES_PER_PAGE]
                scale = w_pt / max(sizes[page][0], 1.0)
                assigned.update(_assign(slide, frames, [_scaled(ln, scale) for ln in page_lines]))
            doc.findings += _cap_slide(_off_slide(slide, page, w_pt, h_pt, assigned if rendered else None), dropped)
            overlaps, lost = _overlap(slide, page, frames, assigned if rendered else None)
            doc.findings += overlaps
            if lost:
                dropped["text_overlap"] = dropped.get("text_overlap", 0) + lost
            if rendered:
                doc.findings += _cap_slide(_overflow(slide, page, assigned, w_pt, h_pt), dropped)
            doc.findings += _cap_slide(_tiny(slide, page, assigned if rendered else {}, w_pt), dropped)
            doc.findings += _cap_slide(_placeholder_text(slide.index, page, [(s, _text_of(s)) for s in slide.shapes
                                                                             if not s.hidden]), dropped)
            doc.findings += _cap_slide(_structure_glyphs(slide, page), dropped)
        doc.font_map = _font_map(view.slides, assigned)
        doc.checks_run += ["empty_deck", "off_slide", "text_overlap", "tiny_font", "placeholder_text", "missing_glyph"]
        if lines:
            doc.checks_run.append("text_overflow")
        else:
            doc.checks_skipped["text_overflow"] = "needs a rendered PDF"
    else:
        for name in ("off_slide", "text_overlap", "text_overflow"):
            doc.checks_skipped[name] = "needs the deck structure"
        if lines:
            doc.findings += _pdf_only(lines, sizes, view.page_to_slide, doc, deadline)
            doc.checks_run += ["tiny_font", "placeholder_text"]
    if view.pdf is not None:
        if _spent(deadline):
            doc.limits.append(CheckLimit(kind="budget", check="missing_glyph", count=len(view.page_to_slide),
                                         reason="evidence budget spent: rendered pages not scanned for missing glyphs"))
        else:
            for page, chars in glyph_problems(view.pdf).items():
                shown = "".join(sorted(set(chars)))[:20]
                doc.findings.append(Finding(check="missing_glyph", page=page, slide=view.page_to_slide.get(page),
                                            measure={"chars": len(chars)}, confidence=0.9, source="render",
                                            message=f"{len(chars)} character(s) drawn as .notdef/U+FFFD: {shown!r}"))
            doc.checks_run.append("missing_glyph")
    if view.pngs:
        texted = {p for p, page_lines in lines.items() if sum(len(ln.key) for ln in page_lines) > 3}
        doc.findings += _blank_pages({p: v for p, v in view.pngs.items() if p not in texted}, view.page_to_slide,
                                     doc, deadline)
        doc.checks_run.append("blank_page")
    else:
        doc.checks_skipped["blank_page"] = "needs rendered pages"
    doc.checks_run = sorted(set(doc.checks_run))
    doc.findings = _cap_deck(doc.findings, dropped)
    doc.findings_dropped = dict(sorted(dropped.items()))
    for check, count in doc.findings_dropped.items():
        doc.limits.append(CheckLimit(kind="finding_cap", check=check, count=count, reason=(
            f"{count} {check} finding(s) not written (at most {FINDINGS_PER_SLIDE_CAP} per slide and "
            f"{FINDINGS_PER_CHECK_CAP} per deck)")))
    return doc


def _spent(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def _rank(f: Finding) -> tuple:
    return (-f.confidence, -float(f.measure.get("box_overlap_frac", 0.0) or 0.0))


def _cap_slide(found: list[Finding], dropped: dict[str, int]) -> list[Finding]:
    """One slide's findings of one check: keep the ``FINDINGS_PER_SLIDE_CAP`` best, in order."""
    if len(found) <= FINDINGS_PER_SLIDE_CAP:
        return found
    keep = set(sorted(range(len(found)), key=lambda i: (_rank(found[i]), i))[:FINDINGS_PER_SLIDE_CAP])
    dropped[found[0].check] = dropped.get(found[0].check, 0) + len(found) - len(keep)
    return [f for i, f in enumerate(found) if i in keep]


def _cap_deck(found: list[Finding], dropped: dict[str, int]) -> list[Finding]:
    """At most ``FINDINGS_PER_CHECK_CAP`` findings per check, round-robin over slides/pages
    (every slide's best finding before any slide's second), original order kept."""
    by_check: dict[str, list[int]] = {}
    for i, f in enumerate(found):
        by_check.setdefault(f.check, []).append(i)
    keep: set[int] = set()
    for check, idx in by_check.items():
        if len(idx) <= FINDINGS_PER_CHECK_CAP:
            keep.update(idx)
            continue
        per_unit: dict[tuple, list[int]] = {}
        for i in sorted(idx, key=lambda i: (_rank(found[i]), i)):
            per_unit.setdefault((found[i].slide, found[i].page), []).append(i)
        order = sorted((pos, _rank(found[i]), i) for group in per_unit.values() for pos, i in enumerate(group))
        keep.update(i for _pos, _r, i in order[:FINDINGS_PER_CHECK_CAP])
        dropped[check] = dropped.get(check, 0) + len(idx) - FINDINGS_PER_CHECK_CAP
    return [f for i, f in enumerate(found) if i in keep]


def _text_frames(slide: SlideDoc, doc: ChecksDoc) -> list[tuple[ShapeDoc, tuple[float, float, float, float]]]:
    """Visible frames with text and a known box, with their footprints (points), in shape-tree
    order; over ``MAX_TEXT_FRAMES_PER_SLIDE`` only the largest are kept (limit recorded)."""
    frames = [(s, s.footprint_pt()) for s in slide.shapes if s.box is not None and not s.hidden and _text_of(s).strip()]
    if len(frames) <= MAX_TEXT_FRAMES_PER_SLIDE:
        return frames
    largest = sorted(range(len(frames)), key=lambda i: (-_area(frames[i][1]), i))[:MAX_TEXT_FRAMES_PER_SLIDE]
    doc.limits.append(CheckLimit(kind="text_frame_cap", slide=slide.index, count=len(frames) - MAX_TEXT_FRAMES_PER_SLIDE,
                                 reason=(f"slide {slide.index} has {len(frames)} text frames; the "
                                         f"{MAX_TEXT_FRAMES_PER_SLIDE} largest were compared for overlap and "
                                         f"matched to rendered lines, the rest got only per-shape checks")))
    return [frames[i] for i in sorted(largest)]


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


def _assign(slide: SlideDoc, frames: list[tuple[ShapeDoc, tuple]],
            lines: list[PdfLine]) -> dict[tuple[int, str], list[PdfLine]]:
    """Give each rendered line to the frame whose text contains it and whose footprint is
    nearest (ties: the smaller footprint), then keep per frame only the lines connected to it
    (inside it, or within 1.5 line heights of a kept line): overflowing text is contiguous, a
    chart label elsewhere that happens to repeat a word is not. ``frames`` are
    :func:`_text_frames` (bounded per slide), so the work is at most lines x frames."""
    cands = [(s, text_key(_text_of(s)), box, _area(box)) for s, box in frames]
    raw: dict[str, list[PdfLine]] = {}
    by_id = {s.id: (s, box) for s, _k, box, _a in cands}
    matching: dict[tuple[str, str], list[int]] = {}  # repeated line texts: one scan of the frames
    for ln in lines:
        idx = matching.get((ln.key, ln.alt_key))
        if idx is None:
            idx = [i for i, c in enumerate(cands) if ln.key in c[1] or (ln.alt_key and ln.alt_key in c[1])]
            matching[(ln.key, ln.alt_key)] = idx
        lx0, ly0, lx1, ly1 = ln.bbox
        best, who = None, -1
        for i in idx:
            x0, y0, x1, y1 = cands[i][2]
            dx, dy = max(0.0, x0 - lx1, lx0 - x1), max(0.0, y0 - ly1, ly0 - y1)
            rank = (dx * dx + dy * dy, cands[i][3])  # squared distance: same order as _dist
            if best is None or rank < best:
                best, who = rank, i
        if who >= 0:
            raw.setdefault(cands[who][0].id, []).append(ln)
    out: dict[tuple[int, str], list[PdfLine]] = {}
    for sid, found in raw.items():
        box = by_id[sid][1]
        kept = [ln for ln in found if _dist(ln.bbox, box) <= max(OVERFLOW_TOL_PT, 0.5 * ln.height)]
        rest = [ln for ln in found if _dist(ln.bbox, box) > max(OVERFLOW_TOL_PT, 0.5 * ln.height)]
        queue = list(kept)
        while queue and rest:  # grow from each kept line once: O(lines^2) per frame, not cubic
            k = queue.pop()
            near = [ln for ln in rest if _dist(ln.bbox, k.bbox) <= 1.5 * max(ln.height, k.height)
                    and min(ln.bbox[2], box[2]) > max(ln.bbox[0], box[0])]
            if near:
                kept += near
                queue += near
                taken = {id(ln) for ln in near}
                rest = [ln for ln in rest if id(ln) not in taken]
        if kept:
            order = {id(ln): i for i, ln in enumerate(found)}
            out[(slide.index, sid)] = sorted(kept, key=lambda ln: order[id(ln)])
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
        x0, y0, x1, y1 = s.footprint_pt()
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


def _inter(a: tuple, b: tuple) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _overlap(slide: SlideDoc, page: int | None, frames: list[tuple[ShapeDoc, tuple]],
             assigned: dict | None) -> tuple[list[Finding], int]:
    """Pairs of text frames whose footprints overlap; with a render, only pairs whose
    rendered lines collide. Sort-and-sweep on the footprints' x intervals: only pairs that
    overlap in x are compared (``frames`` is bounded by ``MAX_TEXT_FRAMES_PER_SLIDE``).
    Returns the best ``FINDINGS_PER_SLIDE_CAP`` findings in shape-tree order and how many
    more were found."""
    cands: list[tuple] = []
    active: list[int] = []
    subst: dict[str, bool] = {}
    for i in sorted(range(len(frames)), key=lambda k: (frames[k][1][0], k)):
        x0, y0, _x1, y1 = frames[i][1]
        active = [j for j in active if frames[j][1][2] > x0]
        for j in active:
            if frames[j][1][3] <= y0 or frames[j][1][1] >= y1:
                continue  # no y overlap
            ia, ib = min(i, j), max(i, j)
            hit = _pair(slide, frames[ia], frames[ib], assigned, subst)
            if hit is not None:
                cands.append((hit[0], ia, ib, hit[1], hit[2], hit[3]))
        active.append(i)
    best = sorted(cands, key=lambda c: (-c[0], -c[3]["box_overlap_frac"], c[1], c[2]))[:FINDINGS_PER_SLIDE_CAP]
    found = []
    for conf, ia, ib, measure, source, what in sorted(best, key=lambda c: (c[1], c[2])):
        a, b = frames[ia][0], frames[ib][0]
        found.append(Finding(check="text_overlap", slide=slide.index, page=page, shape_id=a.id, shape_name=a.name,
                             measure={**measure, "other_shape_id": b.id, "other_shape_name": b.name},
                             message=f"'{a.name}' and '{b.name}': {what}", confidence=conf, source=source))
    return found, len(cands) - len(best)


def _pair(slide: SlideDoc, fa: tuple[ShapeDoc, tuple], fb: tuple[ShapeDoc, tuple], assigned: dict | None,
          subst_cache: dict[str, bool]) -> tuple[float, dict, str, str] | None:
    """``(confidence, measure, source, message)`` when two text frames collide, else None.
    ``subst_cache`` memoises per shape id whether its rendered font was substituted."""
    (a, ba), (b, bb) = fa, fb
    inter = _inter(ba, bb)
    small = min(_area(ba), _area(bb))
    if inter <= 0 or small <= 0:
        return None
    la = assigned.get((slide.index, a.id), []) if assigned is not None else []
    lb = assigned.get((slide.index, b.id), []) if assigned is not None else []
    measure: dict = {"box_overlap_frac": round(inter / small, 3)}
    if la and lb:
        hits = sum(1 for x in la for y in lb if _inter(x.bbox, y.bbox) > 0.1 * min(_area(x.bbox), _area(y.bbox)))
        if not hits:
            return None
        for shape, shape_lines in ((a, la), (b, lb)):
            if shape.id not in subst_cache:
                subst_cache[shape.id] = _substituted(shape, shape_lines)[0]
        subst = subst_cache[a.id] or subst_cache[b.id]
        measure.update(colliding_line_pairs=hits, font_substituted=subst)
        return round(0.9 * (CONFIDENCE_SUBSTITUTED if subst else 1.0), 2), measure, "both", "rendered text lines collide"
    if assigned is None and inter / small >= OVERLAP_MIN_FRAC:
        # a footprint of a frame turned by a non-multiple of 90° overstates its area
        conf = 0.4 if not (a.rot_deg % 90 or b.rot_deg % 90) else 0.3
        return conf, measure, "structure", "text frames overlap (not rendered: collision unverified)"
    return None


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


def _pdf_only(lines: dict[int, list[PdfLine]], sizes: dict, page_to_slide: dict, doc: ChecksDoc,
              deadline: float | None) -> list[Finding]:
    found = []
    pages = list(lines.items())
    for pos, (page, page_lines) in enumerate(pages):
        if _spent(deadline):
            doc.limits.append(CheckLimit(kind="budget", page=page, count=len(pages) - pos,
                                         reason=f"evidence budget spent: {len(pages) - pos} page(s) not checked"))
            break
        limit = TINY_FONT_RATIO * sizes[page][0]
        small = [min(ln.sizes_pt) for ln in page_lines if ln.sizes_pt and min(ln.sizes_pt) < limit]
        if small:
            found.append(Finding(check="tiny_font", page=page, slide=page_to_slide.get(page), source="render", confidence=0.8,
                                 measure={"size_pt": round(min(small), 1), "limit_pt": round(limit, 1), "lines": len(small)},
                                 message=f"{len(small)} line(s) below {limit:.1f} pt"))
        found += _placeholder_text(page_to_slide.get(page), page, [(None, "\n".join(ln.text for ln in page_lines))])
    return found


def _blank_pages(pngs: dict[int, Path], page_to_slide: dict, doc: ChecksDoc, deadline: float | None) -> list[Finding]:
    import pymupdf

    found = []
    items = sorted(pngs.items())
    for pos, (page, path) in enumerate(items):
        if _spent(deadline):
            doc.limits.append(CheckLimit(kind="budget", check="blank_page", page=page, count=len(items) - pos,
                                         reason=f"evidence budget spent: {len(items) - pos} page image(s) not checked"))
            break
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
