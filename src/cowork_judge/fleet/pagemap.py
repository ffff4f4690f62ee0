"""Which rows were judged on which deck page, and where a finding sits on its page. Pure.

A row is tied to a page by any of three traces, each labelled in the report:

- ``evidence``: the verdict's own evidence references (``pages/<deck>/page-003.png``,
  ``page:3``, ``p3``, ``slide-3``), as workflows record them;
- ``viewed``: the row's judge block opened the page image (a ``view_image`` tool call in
  the block's audit, ``judge/<block>/attempt-N.jsonl``; the block's rows are those in its
  ``verdicts.json``);
- ``mentioned``: the verdict's reason names the slide or page ("on slide 4", "pages 2-3").

Finding overlays are fractions of the page (0..1, origin top left), from the finding's
shape frame on the slide (EMU) and the slide size; a text overflow also gets the region the
text runs into (its ``*_pt`` measures), a page-level finding (blank page) the whole page.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

EMU_PER_PT = 12700
MAX_RANGE = 60
"""A mentioned range longer than this ("slides 1-500") is ignored as noise."""

_PAGE_PNG = re.compile(r"pages/(?P<deck>[^/]+)/page-(?P<n>\d{1,4})\.png$")
_REF = re.compile(r"^(?:(?P<deck>[^:#@]+)[:#@])?(?P<kind>page|p|slide|s)[-_ :#]?(?P<n>\d{1,4})$", re.IGNORECASE)
_MENTION = re.compile(r"\b(?P<kind>slides?|pages?)\s*#?\s*(?P<list>\d{1,4}(?:\s*(?:,|and|&|-|–|to|or)\s*\d{1,4})*)",
                      re.IGNORECASE)


@dataclass(frozen=True)
class PageRef:
    """A reference to a page (1-based) or a slide (1-based) of a deck (None = unnamed)."""

    deck: str | None
    kind: str  # "page" or "slide"
    number: int


def parse_evidence_ref(ref: str) -> PageRef | None:
    """A verdict evidence reference → a page or slide reference, or None."""
    text = ref.strip().replace("\\", "/")
    m = _PAGE_PNG.search(text)
    if m:
        return PageRef(m["deck"], "page", int(m["n"]))
    m = _REF.match(text)
    if m:
        return PageRef(m["deck"], "slide" if m["kind"].lower().startswith("s") else "page", int(m["n"]))
    return None


def mentions(reason: str) -> list[PageRef]:
    """Slides and pages a reason names: "slide 4", "slides 2 and 5", "pages 3-5"."""
    out: list[PageRef] = []
    for m in _MENTION.finditer(reason):
        kind = "slide" if m["kind"].lower().startswith("slide") else "page"
        numbers = [int(n) for n in re.findall(r"\d+", m["list"])]
        separators = re.findall(r"-|–|to", m["list"])
        if len(numbers) == 2 and separators and 0 < numbers[1] - numbers[0] <= MAX_RANGE:
            numbers = list(range(numbers[0], numbers[1] + 1))
        out += [PageRef(None, kind, n) for n in numbers if n > 0]
    return out


def resolve(ref: PageRef, decks: Mapping[str, Mapping[int, int | None]]) -> list[tuple[str, int]]:
    """(deck, page) pairs a reference denotes. `decks` maps deck → page → slide. A
    reference without a deck applies to the only deck (ambiguous with several: none)."""
    if ref.deck is not None:
        names = [ref.deck] if ref.deck in decks else []
    else:
        names = [next(iter(decks))] if len(decks) == 1 else []
    out: list[tuple[str, int]] = []
    for deck in names:
        pages = decks[deck]
        if ref.kind == "page":
            if ref.number in pages:
                out.append((deck, ref.number))
        else:
            out += [(deck, page) for page, slide in sorted(pages.items()) if slide == ref.number]
    return out


def rows_by_page(results: Iterable[Mapping[str, Any]], decks: Mapping[str, Mapping[int, int | None]],
                 viewed: Mapping[tuple[str, int], Iterable[str]] = {}) -> dict[tuple[str, int], dict[str, list[str]]]:
    """(deck, page) → row id → the traces that tie the row to the page (sorted).

    Args:
        results: ``results[]`` entries of the result document (``id``, ``evidence``, ``reason``).
        decks: deck → page → slide (pages that exist).
        viewed: (deck, page) → row ids whose block viewed the page (from the audit).
    """
    out: dict[tuple[str, int], dict[str, set[str]]] = {}

    def tie(key: tuple[str, int], row: str, trace: str) -> None:
        out.setdefault(key, {}).setdefault(row, set()).add(trace)

    for r in results:
        row = str(r.get("id"))
        for ref_text in r.get("evidence") or ():
            ref = parse_evidence_ref(str(ref_text))
            for key in resolve(ref, decks) if ref else ():
                tie(key, row, "evidence")
        for ref in mentions(str(r.get("reason") or "")):
            for key in resolve(ref, decks):
                tie(key, row, "mentioned")
    for key, rows in viewed.items():
        if key[0] in decks and key[1] in decks[key[0]]:
            for row in rows:
                tie(key, row, "viewed")
    return {key: {row: sorted(traces) for row, traces in sorted(rows.items())} for key, rows in sorted(out.items())}


@dataclass(frozen=True)
class Overlay:
    """A rectangle on a page in fractions of the page (may reach outside 0..1), rotated
    `rot_deg` clockwise about its centre; ``dashed`` marks derived regions."""

    x: float
    y: float
    w: float
    h: float
    label: str
    check: str
    rot_deg: float = 0.0
    dashed: bool = False


def finding_overlays(finding: Mapping[str, Any], shapes: Mapping[str, Mapping[str, Any]], slide_size_emu: tuple[int, int] | None
                     ) -> list[Overlay]:
    """Rectangles to draw for one deterministic finding on its page.

    Args:
        finding: a ``checks.json`` finding (``check``, ``shape_id``, ``measure``, ``message``).
        shapes: shape id → ``{"box": {x_emu, y_emu, cx_emu, cy_emu}, "rot_deg"}`` of its slide.
        slide_size_emu: (width, height) of the slide; None when unknown (then only
            page-level findings are drawn).
    """
    check = str(finding.get("check"))
    label = str(finding.get("message") or check)
    if finding.get("shape_id") is None:
        return [Overlay(0.0, 0.0, 1.0, 1.0, label, check)] if check == "blank_page" else []
    if not slide_size_emu or slide_size_emu[0] <= 0 or slide_size_emu[1] <= 0:
        return []
    measure = finding.get("measure") or {}
    out = []
    for sid in (finding.get("shape_id"), measure.get("other_shape_id")):
        shape = shapes.get(str(sid)) if sid is not None else None
        box = (shape or {}).get("box")
        if not box:
            continue
        sw, sh = slide_size_emu
        x, y, w, h = box["x_emu"] / sw, box["y_emu"] / sh, box["cx_emu"] / sw, box["cy_emu"] / sh
        rot = float((shape or {}).get("rot_deg") or 0.0)
        out.append(Overlay(x, y, w, h, label, check, rot))
        if check == "text_overflow" and sid == finding.get("shape_id") and not rot:  # unrotated frames only
            out += _overflow_regions(x, y, w, h, measure, sw, sh, label, check)
    return out


def _overflow_regions(x: float, y: float, w: float, h: float, measure: Mapping[str, Any], sw: int, sh: int, label: str,
                      check: str) -> list[Overlay]:
    """Dashed regions the text of an overflowing frame runs into, from its ``*_pt`` measures."""
    def pt(key: str, size: int) -> float:
        value = measure.get(key)
        return float(value) * EMU_PER_PT / size if isinstance(value, (int, float)) and math.isfinite(value) and value > 0 else 0.0

    out = []
    for key, region in (("bottom_pt", lambda d: (x, y + h, w, d)), ("top_pt", lambda d: (x, y - d, w, d)),
                        ("right_pt", lambda d: (x + w, y, d, h)), ("left_pt", lambda d: (x - d, y, d, h))):
        d = pt(key, sh if key in ("bottom_pt", "top_pt") else sw)
        if d > 0:
            rx, ry, rw, rh = region(d)
            out.append(Overlay(rx, ry, rw, rh, label, check, dashed=True))
    return out
