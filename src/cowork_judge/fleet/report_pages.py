"""Which page cost which row what: the report's per-row cost lines and per-page row levels. Pure.

Read from the result document alone (no audit folder needed): a per-page row (ppt_judge's
visual rows) carries ``pages_below`` (page → level of every judged page below 1) and an
``aggregate`` (exponent, exact mean, what the downward snap took off, and the findings of
the row's check kinds with ``role`` decided/informed and ``measured``). A row judged whole
(agentic, code) has neither: its cost line names no page.

Points lost by a row = its weight − its contribution for a positive row (what it could have
earned and did not), −contribution for a deduction; the share of the reward is that over W
(the positive weight total). Both are the scoring core's own terms (SPEC §4), not recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cowork_judge.core.page_detail import PageFinding
from cowork_judge.core.result import ResultDocument, RowResult
from cowork_judge.fleet.pagemap import parse_evidence_ref


@dataclass(frozen=True)
class RowCost:
    """One row's cost line.

    Attributes:
        id: row id.
        level: the scored level (None for rows scored by hit).
        lost: points lost (weight units, ≥ 0).
        share: `lost` / W, the part of the reward lost (None when W is unknown or 0).
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
        out.append(RowCost(id=r.id, level=r.level, lost=lost, share=(lost / total) if total else None, pages=pages,
                           deck=row_deck(r, decks) if r.pages_below is not None else None,
                           mean=agg.mean if agg else None, snap_changed=agg.snap_changed if agg else 0.0,
                           p=agg.p if agg else None, critical=bool(agg and agg.critical),
                           passed_measured=sorted({f.page for f in (agg.findings if agg else [])
                                                   if f.measured and f.role == "informed" and f.level == 1.0})))
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


def passed_despite(rows: Sequence[PageRow], findings: Iterable[Mapping], per_page_rows: bool) -> list[str]:
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
