"""Which page cost which row what: the report's per-row cost lines and per-page row levels. Pure.

Read from the result document alone (no audit folder needed): a per-page row (ppt_judge's
visual rows) carries ``pages_below`` (page → level of every judged page below 1) and an
``aggregate`` (exponent, exact mean, what the downward snap took off, and the findings of
the row's check kinds with ``role`` decided/informed and ``measured``). A row judged whole
(agentic, code) has neither: its cost line names no page.

Points lost by a row = its weight − its contribution for a positive row (what it could have
earned and did not), −contribution for a deduction; its share is that over W (the positive weight
total, the maximum score: not a share of the run's reward, trial 25 P-7). Both are the scoring core's own terms (SPEC §4), not recomputed.

A per-page row's loss is split by page (`split_by_page`): ``weight × (1 − mean)`` goes to its
pages below 1 in proportion to each page's distance from 1 in the row's own power mean
(``|1 − level^p|``; ``−ln level`` at p = 0), which for p = 1 (the plain mean of a normal row)
is exactly ``weight × (1 − level) / pages judged`` per page, and under p ≤ 0 gives everything to
the pages at 0 (a critical row's zero page takes the whole loss); ``weight × snap_changed`` is
the snap's own term. Rows that lost points with no per-page account — the deck could not be
read, or the row was not judged — get their cause said once, before the rows (`loss_causes`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cowork_judge.core.page_detail import PageAggregate, PageFinding
from cowork_judge.core.result import ResultDocument, RowResult
from cowork_judge.fleet.pagemap import parse_evidence_ref


@dataclass(frozen=True)
class RowCost:
    """One row's cost line.

    Attributes:
        id: row id.
        level: the scored level (None for rows scored by hit).
        lost: points lost (weight units, ≥ 0).
        share: `lost` / W, the part of the maximum score lost (None when W is unknown or 0).
        pages: ``(page, level)`` of the pages below 1, lowest first (empty for rows judged whole).
        deck: the deck those pages belong to (None when unknown).
        mean: the exact page mean before the snap (None for rows judged whole).
        snap_changed: what the downward snap took off the mean.
        p: the exponent the pages were folded with.
        critical: a critical row.
    """

    id: str
    level: float | None
    lost: float
    share: float | None
    pages: list[tuple[int, float]] = field(default_factory=list)
    deck: str | None = None
    mean: float | None = None
    snap_changed: float = 0.0
    p: float | None = None
    critical: bool = False
    passed_measured: list[int] = field(default_factory=list)
    """Pages where a measured finding of the row's kinds did not lower the row (the model passed the page)."""
    page_points: list[float] | None = None
    """Points lost on each of `pages` (same order; `split_by_page`); None when the loss is not split."""
    snap_points: float = 0.0
    """Points the downward snap to the grid took off (``weight × snap_changed``), when split."""
    deck_whole: bool = False
    """The row was scored for the whole deck (a ``[deck]`` verdict: the deck could not be read)."""
    not_judged: str | None = None
    """The error kind of a row that was not judged (its loss is its cause's, `loss_causes`)."""


DECK_VERDICT = "[deck] "
"""Reason prefix of a row a deck workflow scored for the whole deck (broken, encrypted, empty deck)."""


@dataclass(frozen=True)
class LossCause:
    """One reason rows lost points without a per-page account, said before the per-row list.

    Attributes:
        text: what happened, in words (the deck's state or the rows' shared reason).
        rows: the rows it cost (ids, result order); empty for a deck-state line.
        lost: the points those rows lost together (weight units).
    """

    text: str
    rows: list[str]
    lost: float


@dataclass(frozen=True)
class PageRow:
    """One per-page row on one page: its level there and the findings behind it."""

    id: str
    level: float | None
    decided: list[PageFinding]
    informed: list[PageFinding]


def points_lost(r: RowResult) -> float:
    """Weight units the row did not earn (positive rows) or took away (deductions)."""
    if r.weight > 0:
        return max(0.0, r.weight - r.contribution)
    return max(0.0, -r.contribution)


def row_deck(r: RowResult, decks: Sequence[str]) -> str | None:
    """The deck a per-page row's pages refer to: named by its evidence references, else the only deck."""
    for ref in r.evidence:
        parsed = parse_evidence_ref(ref)
        if parsed is not None and parsed.deck in decks:
            return parsed.deck
    return decks[0] if len(decks) == 1 else None


def row_costs(doc: ResultDocument, decks: Sequence[str]) -> list[RowCost]:
    """Every row's cost line, in result order."""
    total = doc.details.weight_total
    out = []
    for r in doc.results:
        lost = points_lost(r)
        pages = sorted(((int(pg), lv) for pg, lv in (r.pages_below or {}).items()), key=lambda x: (x[1], x[0]))
        agg = r.aggregate
        split = split_by_page(r.weight, lost, pages, agg) if agg else None
        out.append(RowCost(id=r.id, level=r.level, lost=lost, share=(lost / total) if total else None, pages=pages,
                           deck=row_deck(r, decks) if r.pages_below is not None else None,
                           mean=agg.mean if agg else None, snap_changed=agg.snap_changed if agg else 0.0,
                           p=agg.p if agg else None, critical=bool(agg and agg.critical),
                           passed_measured=sorted({f.page for f in (agg.findings if agg else [])
                                                   if f.measured and f.role == "informed" and f.level == 1.0}),
                           page_points=split[0] if split else None, snap_points=split[1] if split else 0.0,
                           deck_whole=r.judged and r.reason.startswith(DECK_VERDICT) and r.pages_below is None,
                           not_judged=(r.error_kind or "no_verdict") if not r.judged else None))
    return out


SPLIT_TOLERANCE = 1e-6
"""How far (weight units) the page terms plus the snap term may miss the row's points lost and
still be shown as its split (float noise); further off, something else cost the row (a closed
gate), and the loss is not split."""


def split_by_page(weight: float, lost: float, pages: Sequence[tuple[int, float]], agg: PageAggregate
                  ) -> tuple[list[float], float] | None:
    """A per-page row's points lost, split across its pages below 1 (module docstring).

    Args:
        weight: the row's effective weight (> 0 for a split).
        lost: its points lost (`points_lost`).
        pages: ``(page, level)`` of its judged pages below 1.
        agg: how its pages were folded (exponent, exact mean, snap).

    Returns:
        (points lost on each page of `pages`, in order; points the snap took off), or None when
        the row has no such pages or its loss is not its pages' (weight ≤ 0, a closed gate).
    """
    if weight <= 0 or not pages:
        return None
    from_pages = weight * (1.0 - agg.mean)
    snap = weight * agg.snap_changed
    if abs(from_pages + snap - lost) > SPLIT_TOLERANCE * max(1.0, weight):
        return None
    distance = [_distance(level, agg.p) for _, level in pages]
    if any(math.isinf(d) for d in distance):  # p ≤ 0: the pages at 0 decide the mean alone
        distance = [1.0 if math.isinf(d) else 0.0 for d in distance]
    total = math.fsum(distance)
    if total <= 0:
        return None
    return [from_pages * d / total for d in distance], snap


def _distance(level: float, p: float) -> float:
    """A page's distance from 1 in the power mean's own terms (inf: a page at 0 under p ≤ 0)."""
    if p == 0:
        return math.inf if level <= 0 else -math.log(level)
    if p < 0 and level <= 0:
        return math.inf
    power: float = level ** p  # a page level is in [0, 1]: a real power
    return abs(1.0 - power)


def loss_causes(doc: ResultDocument) -> list[LossCause]:
    """Why rows lost points with no per-page account, each cause once, in this order:

    - each deck the evidence layer could not read (stored ``details.evidence.decks``: a status
      other than ``ok…``, or no page rendered), with the layers it skipped;
    - rows scored for the whole deck (``[deck] …``: a broken, encrypted or empty deck), grouped
      by their shared reason;
    - rows not judged, grouped by error kind and reason.

    Empty when every row that lost points was judged page by page or whole by a model.
    """
    out: list[LossCause] = []
    for d in doc.details.evidence.get("decks", []) if isinstance(doc.details.evidence, dict) else []:
        if not isinstance(d, dict):
            continue
        status = str(d.get("status") or "unknown")
        if status.startswith("ok") and d.get("pages_rendered"):
            continue
        skipped = "; ".join(str(x) for x in d.get("skipped") or [])
        state = f"its status is {status}" if not status.startswith("ok") else "it opened"
        out.append(LossCause(f"the deck {d.get('deck') or '?'} could not be read: {state} and no page was rendered"
                             + (f" ({skipped})" if skipped else ""), [], 0.0))
    groups: dict[tuple[str, str], list[RowResult]] = {}
    for r in doc.results:
        if points_lost(r) <= 0:
            continue
        if not r.judged:
            groups.setdefault((r.error_kind or "no_verdict", r.reason), []).append(r)
        elif r.reason.startswith(DECK_VERDICT) and r.pages_below is None:
            groups.setdefault(("[deck]", r.reason[len(DECK_VERDICT):]), []).append(r)
    for (kind, reason), rows in groups.items():
        lost = math.fsum(points_lost(r) for r in rows)
        what = ("scored for the whole deck, not page by page, because the deck could not be read" if kind == "[deck]"
                else f"not judged ({kind})")
        out.append(LossCause(f"{len(rows)} row(s) {what}: {reason}", [r.id for r in rows], lost))
    return out


def rows_on_page(results: Iterable[RowResult], deck: str, page: int, decks: Sequence[str]) -> list[PageRow]:
    """The per-page rows of `deck` with their level on `page` (1 unless in ``pages_below``;
    None when the row judged no page at all) and the findings that decided/informed them there."""
    out = []
    for r in results:
        if r.pages_below is None or r.aggregate is None or row_deck(r, decks) != deck:
            continue
        here = [f for f in r.aggregate.findings if f.page == page]
        level = r.pages_below.get(str(page), 1.0 if r.aggregate.pages_judged else None)
        decided_level = next((f.level for f in here if f.role == "decided"), None)
        out.append(PageRow(r.id, decided_level if decided_level is not None else level,
                           [f for f in here if f.role == "decided"], [f for f in here if f.role == "informed"]))
    return out


def passed_despite(rows: Sequence[PageRow], findings: Iterable[Mapping[str, Any]], per_page_rows: bool) -> list[str]:
    """Notes for measured findings on a page that cost no row anything there, and why.

    Args:
        rows: the page's per-page rows (`rows_on_page`).
        findings: the page's findings as checks.json stores them (``check``, ``measured``, ``message``).
        per_page_rows: the result has per-page rows at all (else nothing can be said per page).
    """
    if not per_page_rows:
        return []
    notes = []
    for f in findings:
        if f.get("measured") is False:
            continue
        check = str(f.get("check"))
        tied = [r for r in rows if any(x.check == check for x in r.decided + r.informed)]
        if any(r.level is not None and r.level < 1.0 for r in tied):
            continue
        if tied:
            why = "; ".join(f"{r.id}: {_why_informed(r, check)}" for r in tied)
            notes.append(f"measured {check} here, but no row lost points on this page ({why})")
        else:
            notes.append(f"measured {check} here, but no row is decided by {check}: it only went to the model's "
                         "prompt for this page, and no row lost points for it")
    return notes


def _why_informed(row: PageRow, check: str) -> str:
    f = next(x for x in row.decided + row.informed if x.check == check)
    cause = ("the finding is below the row's min_confidence" if f.measured else "the finding is estimated")
    shown = "N/A" if row.level is None else f"{row.level:g}"
    return f"{cause}, so the model judged the page and said {shown}"
