"""From page cells to row verdicts: the power mean across pages, N/A, and lost pages.

A cell is one row on one page: a level on the 21-step grid (from the VLM or the checks),
N/A, or not judged (why: ``vlm_error``, ``parse_error``, ``timeout``/``deadline`` for the
budget, ``render_env`` for a page the render could not produce). Per row (SPEC §9):

- some page has a level ⇒ the power mean of the judged levels with the row's
  ``page_mean_p`` (else the config's), snapped to the grid; N/A pages and pages not judged
  are left out, and the reason says "N of M pages not judged" — pages, not rows, are lost;
- every judged page is N/A ⇒ the row's ``na_policy``: ``pass`` 1.0, ``fail`` 0.0,
  ``unjudged`` (the default) ⇒ unjudged ``not_applicable``;
- no page judged ⇒ unjudged with the cause of most lost cells.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cowork_judge.core.failures import ErrorKind
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.scales import format_level
from cowork_judge.core.verdicts import Verdict
from cowork_judge.workflow._contract import apply_na_policy, level_row, power_mean, unjudged_row

CAUSE_ORDER: tuple[str, ...] = ("vlm_error", "parse_error", "render_env", "deadline", "timeout", "workflow_error")
"""Tie-break among the causes of lost cells when no page of a row was judged."""
REASON_PAGES = 4
"""Pages below level 1 quoted in a row's reason (lowest first)."""
PAGE_REASON_CHARS = 140
EVIDENCE_REFS = 10
"""Page images listed in a verdict's ``evidence`` (the lowest-level pages)."""


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


def aggregate_row(row: Criterion, cells: Mapping[int, Cell], *, total_pages: int, p: float,
                  image_refs: Mapping[int, str]) -> Verdict:
    """The row's verdict from its cells (rules in the module docstring).

    Args:
        row: the rubric row (``na_policy`` read here).
        cells: page → cell, for every page of the deck that is shown (judged or lost).
        total_pages: M, the pages shown.
        p: the power-mean exponent for this row.
        image_refs: page → evidence-relative page image, for the verdict's ``evidence``.
    """
    levels = {pg: c.level for pg, c in cells.items() if c.judged and not c.na and c.level is not None}
    na_pages = sorted(pg for pg, c in cells.items() if c.judged and c.na)
    lost = {pg: c for pg, c in cells.items() if not c.judged}
    lost_note = _lost_note(lost, total_pages)
    checked = sum(1 for c in cells.values() if c.judged and c.source == "checks")
    if levels:
        value = power_mean(list(levels.values()), p)
        parts = [f"{format_level(value)} = power mean (p={p:g}) of {len(levels)} judged page(s)"
                 + (f", {checked} decided by the checks" if checked else "")]
        low = sorted((lv, pg) for pg, lv in levels.items() if lv < 1.0)
        if low:
            parts.append("; ".join(f"p{pg} {format_level(lv)}: {_short(cells[pg].reason)}" for lv, pg in low[:REASON_PAGES])
                         + (f"; +{len(low) - REASON_PAGES} more page(s) below 1" if len(low) > REASON_PAGES else ""))
        if na_pages:
            parts.append(f"N/A on page(s) {page_ranges(na_pages)}")
        if lost_note:
            parts.append(lost_note)
        refs = [f"evidence/{image_refs[pg]}" for _lv, pg in low[:EVIDENCE_REFS] if pg in image_refs]
        return level_row(row.id, value, " | ".join(parts), evidence=refs)
    if na_pages:
        value = apply_na_policy([None] * len(na_pages), row.na_policy)
        policy = row.na_policy or "unjudged"
        note = f"all {len(na_pages)} judged page(s) N/A" + (f" | {lost_note}" if lost_note else "")
        if value is None:
            return unjudged_row(row.id, "not_applicable", f"{note}; na_policy {policy}: not judged")
        return level_row(row.id, value, f"{note}; na_policy {policy} ⇒ {format_level(value)}")
    counts = Counter(c.lost or "timeout" for c in lost.values())
    rank = {k: i for i, k in enumerate(CAUSE_ORDER)}
    kind = min(counts, key=lambda k: (-counts[k], rank.get(k, len(rank)))) if counts else "workflow_error"
    example = next((c.reason for c in lost.values() if c.lost == kind and c.reason), "")
    return unjudged_row(row.id, kind, f"no page judged: {lost_note or 'no page to judge'}"
                                      + (f" | e.g. {_short(example)}" if example else ""))


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
