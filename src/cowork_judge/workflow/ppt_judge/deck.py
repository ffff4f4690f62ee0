"""The located deck's evidence, as ``ppt_judge`` uses it, and who is to blame when there is none.

The evidence layer renders every delivered deck ONCE per run, before any workflow runs
(`cowork_judge.evidence.build`): page images, per-slide structure and the deterministic
findings (``checks.json``), all under ``ctx.evidence_dir`` (tree in
`cowork_judge.evidence.layout`). This module finds the deck the code segment located
(``artifacts.deck_path``) in that tree and turns its render record into either the pages
to judge (`DeckEvidence`) or a `DeckProblem` that says whose fault the missing pages are:

- the deliverable's (`DeckProblem.deck_fault`: broken or empty deck, no deck delivered):
  every visual row is judged, level 0;
- the judge's environment (no LibreOffice/Chromium/PyMuPDF, evidence off, a renderer that
  crashed or hung, or exited 0 without a PDF for a deck that opened — see
  `cowork_judge.evidence.render_blame`): rows unjudged ``render_env`` — the deck is not penalised for the image;
- the time plan (the evidence budget, a share of JUDGE_DEADLINE, ran out before rendering):
  rows unjudged ``evidence_budget`` (nothing timed out; a longer JUDGE_DEADLINE fixes it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.evidence.documents import ChecksDoc, DeckSummary, Digest, EvidenceSummary, SlideDoc
from cowork_judge.evidence.layout import EvidenceLayout
from cowork_judge.segment.delivery import LocatedDeck

SLIDE_TEXT_MAX_CHARS = 4000
"""Characters of a slide's extracted text kept for its prompt (a dense real slide has ~1,500)."""
MAX_EVIDENCE_FILE_BYTES = 64 * 1024 * 1024
"""Largest evidence JSON file read (the evidence layer caps findings and text far below this)."""


@dataclass(frozen=True)
class Page:
    """One rendered page to judge.

    Attributes:
        number: 1-based page number of the render (the ``N`` of ``page-NNN.png``).
        slide: 1-based slide index shown on it (None when the render could not map it).
        image: absolute path of the PNG.
        image_rel: the PNG relative to the evidence folder (``pages/<deck>/page-003.png``).
        title: the slide's title from the structure, if any.
        text: the slide's extracted text (at most `SLIDE_TEXT_MAX_CHARS`).
        visuals: pictures, charts and diagrams (SmartArt) on the slide, by the structure
            (0 when the structure does not say: PDF/HTML decks, or no structure).
        textless: the slide's text layer was read and shows no text at all (False when
            there is no text layer for the page: unknown is not textless). Rows about text
            properties are N/A on such a page (`decided.PageChecks.decide`).
    """

    number: int
    slide: int | None
    image: Path
    image_rel: str
    title: str | None = None
    text: str = ""
    visuals: int = 0
    textless: bool = False


@dataclass
class DeckEvidence:
    """The pages of the located deck and its deterministic findings.

    Attributes:
        deck: the deck's evidence folder name.
        source: the deliverable path relative to output/.
        pages: rendered pages of shown slides, ascending.
        total_pages: M, the pages the deck shows (hidden slides left out); ``len(pages)``
            plus `lost_pages`.
        lost_pages: pages of shown slides that the render did not produce (the evidence
            budget cut it short), with the reason; they count as "not judged".
        lost_kind: error kind of the lost pages (``evidence_budget`` or ``render_env``).
        checks: the deck's ``checks.json`` (None when absent or unreadable).
        checks_note: why `checks` is None, else "".
        page_to_slide: the render's page → slide map (all pages).
    """

    deck: str
    source: str
    pages: list[Page]
    total_pages: int
    lost_pages: dict[int, str] = field(default_factory=dict)
    lost_kind: ErrorKind = "evidence_budget"
    checks: ChecksDoc | None = None
    checks_note: str = ""
    page_to_slide: dict[int, int | None] = field(default_factory=dict)


@dataclass(frozen=True)
class DeckProblem:
    """No page can be judged. ``deck_fault``: the deliverable is to blame (rows judged,
    level 0); otherwise rows are unjudged with `kind`."""

    deck_fault: bool
    kind: ErrorKind | None
    reason: str


def load_deck(evidence_dir: Path, located: LocatedDeck | None, *,
              delivered_decks: Sequence[str] = ()) -> DeckEvidence | DeckProblem:
    """Find the located deck's evidence and the pages to judge.

    Args:
        evidence_dir: the run's shared evidence folder.
        located: the deck the code segment located (`WorkflowContext.deck`); without one,
            the only deck of the evidence is used.
        delivered_decks: output-relative paths of deck-like deliverables (tells "no deck
            delivered" from "no evidence built").

    Returns:
        `DeckEvidence`, or a `DeckProblem` (see the module docstring for who is to blame).
        Never raises for the content of the evidence files.
    """
    layout = EvidenceLayout(Path(evidence_dir))
    deck_path = located.path if located else None
    deck_rel = located.rel if located else None
    if not deck_path and not delivered_decks:
        return DeckProblem(True, None, "no deck was delivered (no .pptx, .pdf or .html deck among the deliverables)")
    index = _read(layout.index, EvidenceSummary)
    if index is None:
        return DeckProblem(False, "render_env", "the run built no deck evidence (JUDGE_EVIDENCE=0, or the evidence "
                                                "layer failed: see judge.log); ppt_judge judges the run's rendered pages "
                                                "and renders nothing itself")
    summary = _find(index, layout, deck_path, deck_rel)
    if summary is None:
        if deck_path or len(index.decks) != 1:
            where = f"the located deck {deck_rel or deck_path!r}" if deck_path else f"{len(index.decks)} decks and no located one"
            return DeckProblem(False, "workflow_error", f"no evidence to judge: {where} (evidence has "
                                                        f"{', '.join(d.source for d in index.decks) or 'no deck'})")
        summary = index.decks[0]
    digest = _read(layout.digest(summary.deck), Digest)
    if not summary.sniff_status.startswith("ok"):
        why = digest.sniff.reason if digest is not None and digest.sniff.reason else summary.sniff_status
        what = ("the deck is too large for the judge to render" if summary.sniff_status == "too_large"
                else "the deck is broken and cannot be rendered")  # too_large: a size policy (trial 11 F9)
        return DeckProblem(True, None, f"{what} ({summary.sniff_status}: {why})")
    render = digest.render if digest is not None else None
    skip = next((s for s in summary.layers_skipped if s.layer == "render"), None)
    if (digest is not None and digest.structure_ok and digest.slide_count == 0) or (
            render is not None and render.status == "ok" and render.mapping == "none"):
        return DeckProblem(True, None, "the deck has no slides")
    if render is None or not render.pages:
        kind = skip.kind if skip else (render.skip_kind if render is not None and render.skip_kind else "error")
        return _render_problem(kind, skip.reason if skip else (render.reason if render is not None else "no render record"))
    hidden = {s.index for s in digest.slides if s.hidden} if digest is not None else set()
    shown = [p for p in range(1, render.page_count + 1) if render.page_to_slide.get(p) not in hidden]
    if not shown:
        return DeckProblem(True, None, "every slide of the deck is hidden: nothing is shown")
    images = {img.page: img for img in render.pages}
    pages, lost = [], {}
    for number in shown:
        img = images.get(number)
        if img is None:
            lost[number] = render.reason or "the render did not produce this page"
            continue
        slide = render.page_to_slide.get(number)
        doc = _read(layout.slide(summary.deck, slide), SlideDoc) if slide is not None else None
        text = (doc.text if doc is not None else "")[:SLIDE_TEXT_MAX_CHARS]
        pages.append(Page(number, slide, layout.root / img.path, img.path, doc.title if doc is not None else None, text,
                          _visuals(doc), textless=doc is not None and not doc.text.strip()))
    if not pages:
        return _render_problem(skip.kind if skip else "error", render.reason or "no page image was written")
    checks = _read(layout.checks(summary.deck), ChecksDoc)
    lost_kind: ErrorKind = "evidence_budget" if skip is not None and skip.kind == "budget" else "render_env"
    return DeckEvidence(
        deck=summary.deck, source=summary.source, pages=pages, total_pages=len(shown), lost_pages=lost, lost_kind=lost_kind,
        checks=checks, checks_note="" if checks is not None else "checks.json is missing or unreadable",
        page_to_slide=dict(render.page_to_slide),
    )


def _visuals(doc: SlideDoc | None) -> int:
    """Pictures, charts and diagrams of a slide (shapes whose content the text layer cannot show)."""
    if doc is None:
        return 0
    return sum(1 for s in doc.shapes if s.kind == "pic" or s.picture is not None or s.chart is not None
               or s.diagram_text is not None)


def _render_problem(kind: str, reason: str) -> DeckProblem:
    """The deck was not rendered: whose fault by the render layer's skip kind."""
    if kind == "deck_broken":
        return DeckProblem(True, None, f"the deck is broken: LibreOffice could not render it ({reason})")
    if kind == "budget":  # nothing timed out: the run's time plan left the deck too little (raise JUDGE_DEADLINE)
        return DeckProblem(False, "evidence_budget",
                           f"the evidence budget (JUDGE_EVIDENCE, at most a third of the time left) ran out before the "
                           f"deck was rendered: {reason}")
    if kind == "disabled":
        return DeckProblem(False, "render_env", f"deck rendering is off: {reason}")
    # render_env (no renderer in the image), error (a renderer crashed or hung), anything else:
    # the environment's failure, never the deck's
    return DeckProblem(False, "render_env", f"the deck could not be rendered here ({kind}): {reason}")


def _find(index: EvidenceSummary, layout: EvidenceLayout, deck_path: str | None, deck_rel: str | None) -> DeckSummary | None:
    """The index entry of the located deck: same file (resolved paths), else same source."""
    if not deck_path:
        return None
    wanted = os.path.realpath(str(deck_path))
    for summary in index.decks:
        digest = _read(layout.digest(summary.deck), Digest)
        if digest is not None and os.path.realpath(digest.sniff.path) == wanted:
            return summary
    return next((s for s in index.decks if deck_rel and s.source == deck_rel), None)


def _read(path: Path, model: Any) -> Any:
    """A pydantic document read from `path`, or None when missing, too big or invalid."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_EVIDENCE_FILE_BYTES:
            return None
        return model.model_validate_json(path.read_bytes())
    except (OSError, ValueError):
        return None
