"""From page cells to row verdicts: the power mean across pages, N/A, and lost pages.

A cell is one row on one page: a level on the 21-step grid (from the VLM or the checks),
N/A, or not judged (why: ``vlm_error``, ``parse_error``, ``timeout``/``deadline`` for the
budget, ``render_env`` for a page the render could not produce, ``evidence_budget`` for one
the evidence budget left unrendered). Per row (SPEC §9):

- some page has a level ⇒ the power mean of the judged levels with the row's exponent
  (its ``page_mean_p``; else, for a row tagged critical, ``critical_page_mean_p``, −2 by
  default, under which one page at 0 gives 0 whatever the deck's length; else the config's
  ``page_mean_p``, 1 = the mean), **snapped down** to the 21-step grid (the levels
  `gen-ppt-rubrics` writes; a row with other levels is warned about at run time, since the
  engine snaps to those to the nearest): the highest step not above the exact mean, so a mean below 1 never becomes 1. N/A pages
  and pages not judged are left out, and the reason says "N of M pages not judged" —
  pages, not rows, are lost. The verdict carries ``pages_below`` (page → level of every
  judged page below 1) and a `PageAggregate` (exponent, exact mean, what the snap took
  off, the findings that decided or informed a page);
- every judged page is N/A ⇒ the row's ``na_policy``: ``pass`` 1.0, ``fail`` 0.0,
  ``unjudged`` (the default) ⇒ unjudged ``not_applicable``;
- no page judged ⇒ unjudged with the cause of most lost cells.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.page_detail import FINDING_MESSAGE_CHARS, ROW_FINDINGS_CAP, PageAggregate, PageFinding
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.scales import format_level
from cowork_judge.core.verdicts import Verdict
from cowork_judge.evidence.documents import Finding
from cowork_judge.workflow._contract import GRID_21, apply_na_policy, level_row, power_mean, unjudged_row

CAUSE_ORDER: tuple[str, ...] = ("vlm_error", "parse_error", "render_env", "evidence_budget", "deadline", "timeout",
                                 "workflow_error")
"""Tie-break among the causes of lost cells when no page of a row was judged."""
REASON_PAGES = 4
"""Pages below level 1 quoted in a row's reason (lowest first)."""
PAGE_REASON_CHARS = 140
EVIDENCE_REFS = 10
"""Page images listed in a verdict's ``evidence`` (the lowest-level pages)."""
SNAP_TOLERANCE = 1e-9
"""A mean within this of a grid step counts as on it when snapping down (float noise:
a mean of levels all 1.0 computed as 0.9999999999 is 1)."""


@dataclass
class Cell:
    """One row on one page.

    Attributes:
        level: judged level on the grid (None when N/A or not judged).
        na: the row does not apply to the page.
        source: ``vlm`` or ``checks``.
        reason: what the judge or the checks said.
        lost: why the cell was not judged (None when judged).
    """

    level: float | None = None
    na: bool = False
    source: str = "vlm"
    reason: str = ""
    lost: ErrorKind | None = None

    @property
    def judged(self) -> bool:
        """True for a level or an N/A."""
        return self.lost is None and (self.na or self.level is not None)


class Board:
    """The cells of one run, written by worker threads; `close` freezes it (a straggler's
    late result is then ignored)."""

    def __init__(self, pages: Iterable[int], rows: Iterable[str]) -> None:
        self.pages = list(pages)
        self.rows = list(rows)
        self._cells: dict[tuple[int, str], Cell] = {}
        self._lock = threading.Lock()
        self._closed = False

    def set(self, page: int, row: str, cell: Cell) -> None:
        """Record a cell (the first judged answer wins; a judged cell is never overwritten)."""
        with self._lock:
            old = self._cells.get((page, row))
            if not self._closed and (old is None or not old.judged):
                self._cells[(page, row)] = cell

    def lose(self, page: int, rows: Iterable[str], kind: ErrorKind, reason: str) -> None:
        """Mark cells not judged (cells already judged stay)."""
        for row in rows:
            self.set(page, row, Cell(lost=kind, reason=reason))

    def close(self, *, pending_kind: ErrorKind = "timeout", pending_reason: str = "") -> None:
        """Freeze the board; cells never answered become lost with `pending_kind`."""
        with self._lock:
            self._closed = True
            for page in self.pages:
                for row in self.rows:
                    self._cells.setdefault((page, row), Cell(lost=pending_kind, reason=pending_reason))

    def row(self, row: str) -> dict[int, Cell]:
        """Page → cell of one row."""
        with self._lock:
            return {p: self._cells[(p, row)] for p in self.pages if (p, row) in self._cells}


def snap_down(x: float, grid: Sequence[float] = GRID_21) -> float:
    """The highest value of `grid` (ascending) not above `x` (within `SNAP_TOLERANCE`); the
    lowest value when `x` is below all of them. Snapping a grid value returns it unchanged."""
    below = [g for g in grid if g <= x + SNAP_TOLERANCE]
    return max(below) if below else min(grid)


@dataclass(frozen=True)
class TiedFinding:
    """A finding of one of the row's check kinds on one page, and whether it decided the cell."""

    page: int
    finding: Finding
    decided: bool


def aggregate_row(row: Criterion, cells: Mapping[int, Cell], *, total_pages: int, p: float,
                  image_refs: Mapping[int, str], critical: bool = False,
                  findings: Sequence[TiedFinding] = ()) -> Verdict:
    """The row's verdict from its cells (rules in the module docstring).

    Args:
        row: the rubric row (``na_policy`` read here).
        cells: page → cell, for every page of the deck that is shown (judged or lost).
        total_pages: M, the pages shown.
        p: the power-mean exponent for this row.
        image_refs: page → evidence-relative page image, for the verdict's ``evidence``.
        critical: the row is critical (recorded in the aggregate).
        findings: the findings of the row's ``decided_by`` kinds, by page.
    """
    levels = {pg: c.level for pg, c in cells.items() if c.judged and not c.na and c.level is not None}
    na_pages = sorted(pg for pg, c in cells.items() if c.judged and c.na)
    lost = {pg: c for pg, c in cells.items() if not c.judged}
    lost_note = _lost_note(lost, total_pages)
    checked = sum(1 for c in cells.values() if c.judged and not c.na and c.source == "checks")
    if levels:
        mean = power_mean(list(levels.values()), p)
        value = snap_down(mean)
        snap = (f", snapped down from {mean:.4f}" if mean - value > SNAP_TOLERANCE else "")
        parts = [f"{format_level(value)} = power mean (p={p:g}{', critical' if critical else ''}) of {len(levels)} "
                 f"judged page(s){snap}" + (f", {checked} decided by the checks" if checked else "")]
        low = sorted((lv, pg) for pg, lv in levels.items() if lv < 1.0)
        if low:
            parts.append("; ".join(f"p{pg} {format_level(lv)}: {_short(cells[pg].reason)}" for lv, pg in low[:REASON_PAGES])
                         + (f"; +{len(low) - REASON_PAGES} more page(s) below 1" if len(low) > REASON_PAGES else ""))
        if na_pages:
            parts.append(f"N/A on page(s) {page_ranges(na_pages)}")
        if lost_note:
            parts.append(lost_note)
        refs = [f"evidence/{image_refs[pg]}" for _lv, pg in low[:EVIDENCE_REFS] if pg in image_refs]
        verdict = level_row(row.id, value, " | ".join(parts), evidence=refs)
        aggregate = PageAggregate(p=p, critical=critical, pages_judged=len(levels), pages_na=len(na_pages),
                                  pages_not_judged=len(lost), mean=round(mean, 6), level=value,
                                  snap_changed=round(max(0.0, mean - value), 6),
                                  findings=_page_findings(findings, cells))
        return verdict.model_copy(update={"level_raw": round(mean, 6), "aggregate": aggregate,
                                          "pages_below": {str(pg): lv for pg, lv in sorted(levels.items()) if lv < 1.0}})
    if na_pages:
        na_value = apply_na_policy([None] * len(na_pages), row.workflow.na_policy)
        policy = row.workflow.na_policy or "unjudged"
        why = next((c.reason for pg, c in cells.items() if pg in na_pages and c.source == "checks" and c.reason), "")
        note = (f"all {len(na_pages)} judged page(s) N/A" + (f" ({_short(why)})" if why else "")
                + (f" | {lost_note}" if lost_note else ""))
        if na_value is None:
            return unjudged_row(row.id, "not_applicable", f"{note}; na_policy {policy}: not judged")
        return level_row(row.id, na_value, f"{note}; na_policy {policy} ⇒ {format_level(na_value)}")
    counts = Counter(c.lost or "timeout" for c in lost.values())
    rank = {k: i for i, k in enumerate(CAUSE_ORDER)}
    kind = min(counts, key=lambda k: (-counts[k], rank.get(k, len(rank)))) if counts else "workflow_error"
    example = next((c.reason for c in lost.values() if c.lost == kind and c.reason), "")
    return unjudged_row(row.id, kind, f"no page judged: {lost_note or 'no page to judge'}"
                                      + (f" | e.g. {_short(example)}" if example else ""))


def _page_findings(findings: Sequence[TiedFinding], cells: Mapping[int, Cell]) -> list[PageFinding]:
    """The result's view of the tied findings: decided ones first, then by page; capped."""
    out = []
    for t in sorted(findings, key=lambda t: (not t.decided, t.page, -t.finding.confidence))[:ROW_FINDINGS_CAP]:
        cell = cells.get(t.page)
        level = cell.level if cell is not None and cell.judged and not cell.na else None
        out.append(PageFinding(page=t.page, check=t.finding.check, measured=t.finding.measured,
                               confidence=t.finding.confidence, role="decided" if t.decided else "informed",
                               level=level, message=t.finding.message[:FINDING_MESSAGE_CHARS]))
    return out


def _lost_note(lost: Mapping[int, Cell], total_pages: int) -> str:
    """``"2 of 10 pages not judged (vlm_error: page 4; timeout: page 10)"``, or ""."""
    if not lost:
        return ""
    by_kind: dict[str, list[int]] = {}
    for pg, c in sorted(lost.items()):
        by_kind.setdefault(c.lost or "timeout", []).append(pg)
    detail = "; ".join(f"{kind}: page{'s' if len(pgs) > 1 else ''} {page_ranges(pgs)}" for kind, pgs in by_kind.items())
    return f"{len(lost)} of {total_pages} pages not judged ({detail})"


def page_ranges(pages: Iterable[int]) -> str:
    """``[1, 2, 3, 7]`` → ``"1-3, 7"``."""
    out: list[str] = []
    run: list[int] = []
    for pg in sorted(pages):
        if run and pg == run[-1] + 1:
            run.append(pg)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [pg]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(out)


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= PAGE_REASON_CHARS else text[:PAGE_REASON_CHARS - 1] + "…"
