"""A deck's text split by what a viewer sees: visible text, invisible text with its reason,
alternative text, speaker notes.

Read through the evidence's structure reader (`cowork_judge.evidence.structure.
extract_structure`), whose `cowork_judge.evidence.visibility.split_visible` is the one rule
of what a viewer sees: the guard and the judge's prompts agree on what is hidden. The
guard reads the deck itself (the evidence build may be off, or out of budget). Invisible
(`HIDDEN_REASONS`): speaker notes, and every reason of `HiddenText.reason` (hidden slide,
hidden shape, outside the slide, covered, under 4 pt, transparent, coloured as what lies
behind it). Chart titles, series names and categories count as visible text.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from cowork_judge.evidence.documents import HiddenText, ShapeDoc, SlideDoc
from cowork_judge.evidence.reads import StructureReads

HIDDEN_REASONS: tuple[str, ...] = ("notes", *get_args(HiddenText.model_fields["reason"].annotation))
"""Why text is invisible: speaker notes, or a `HiddenText.reason` of the evidence."""
READ_BUDGET_SEC = 120.0
"""Seconds the guard spends reading one deck at most (a deck of 100,000 shapes is cut; the
slides read stay scanned, `DeckText.cut` says so)."""


@dataclass
class SlideText:
    """One slide's text: `visible` (what a viewer sees), `hidden` (reason, text) pairs, `alt` texts."""

    index: int
    visible: str = ""
    hidden: list[tuple[str, str]] = field(default_factory=list)
    alt: list[str] = field(default_factory=list)


@dataclass
class DeckText:
    """A deck's slides (`SlideText`), or `error` when it could not be read; `cut` when the
    read budget ran out before the last slide."""

    slides: list[SlideText] = field(default_factory=list)
    error: str | None = None
    cut: bool = False


def _chart_text(shape: ShapeDoc) -> str:
    chart = shape.chart
    if chart is None:
        return ""
    parts = [chart.title or ""]
    for series in chart.series:
        parts += [series.name or "", *series.categories]
    return "\n".join(p for p in parts if p.strip())


def slide_text(slide: SlideDoc) -> SlideText:
    """The guard's view of one evidence slide: its visible text (with chart text), its
    hidden text with reasons (speaker notes last), its shapes' alternative texts."""
    out = SlideText(index=slide.index, visible=slide.text, hidden=[(h.reason, h.text) for h in slide.hidden_text])
    hidden_ids = {h.shape for h in slide.hidden_text}
    charts = [(s, _chart_text(s)) for s in slide.shapes if s.chart is not None]
    for shape, text in charts:
        if not text:
            continue
        if slide.hidden or shape.hidden or shape.id in hidden_ids:
            out.hidden.append(("hidden_slide" if slide.hidden else "hidden_shape", text))
        else:
            out.visible = f"{out.visible}\n{text}" if out.visible else text
    out.alt = [s.alt for s in slide.shapes if s.alt]
    if slide.notes and slide.notes.strip():
        out.hidden.append(("notes", slide.notes))
    return out


def read_deck_text(path: Path, *, budget_sec: float = READ_BUDGET_SEC, reads: StructureReads | None = None) -> DeckText:
    """The text of an OOXML deck (``.pptx``/``.pptm``/``.ppsx``/``.potx``…, Strict too), slide by slide.

    `reads`: the run's deck reads (`evidence.reads.StructureReads`), which the evidence build
    reuses: a deck is parsed once per run. Never raises: a deck that cannot be read returns `DeckText.error` (not an OOXML deck by
    its content, refused by the sniff's zip-bomb caps, python-pptx missing or refusing it).
    """
    from cowork_judge.evidence.sniff import sniff_deck

    sniff = sniff_deck(path)  # stdlib only; refuses zip bombs before anything inflates
    if sniff.status not in ("ok", "ok_strict"):
        return DeckText(error=f"not a readable OOXML deck ({sniff.status}: {sniff.reason})")
    reads = reads if reads is not None else StructureReads()
    res = reads.read(path, strict=sniff.status == "ok_strict", deadline=time.monotonic() + budget_sec)
    if not res.ok:
        return DeckText(error="; ".join(e.error for e in res.errors)[:300] or "not readable")
    return DeckText(slides=[slide_text(s) for s in res.slides], cut=res.budget_cut)
