"""The visual axis's page cells asked several times, by one judge or a panel (issue 28).

The single-ask unit is "judge this page cell once": `visual._PageJudge.call`, unchanged —
one VLM request about some rows on one page, and the resplit of rows its reply left out.
Each (judge, round) gets its own `_PageJudge` writing to its own `aggregate.Board`, so the
rounds never mix; this layer decides which rows of which page go into each round and
folds the rounds' cells into the run's board:

- round one asks every planned call `WorkflowSampling.first_round` times (2 when adaptive,
  k when fixed) through each judge;
- once every call of a page (for a judge) has come back, that page's rows whose cell could
  still change (`core.sampling.settled`, on the 21-step grid with N/A) are asked again,
  REGROUPED per page across the planned calls: one call for all of them (``combined``),
  chunks of ``group_size`` (``grouped``) or one per row (``split``), up to k;
- the calls run on the workflow's `PageFirstPool`, lowest page first and a page's later
  rounds before the next page, so a budget that runs out still loses the LAST pages;
- each cell's answer is its judges' samples reduced and voted (`core.sampling`): the
  median level (the lower one for an even count), N/A by majority; a cell none of whose
  samples came back is lost with the first sample's cause, as a single ask's would be.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.sampling import Sample, Scale, agreement, cap_reason, reduce_unit, representative, settled
from cowork_judge.workflow._contract import GRID_21, SampledJudge, WorkflowContext

from . import timing
from .aggregate import Board, Cell
from .schedule import Call, PageFirstPool
from .settings import PptSettings

CELL_SCALE = Scale(negative=False, choices=GRID_21)
"""Page cells are answered on the 21-step grid (or N/A), whatever the row's own levels."""


class PageUnit(Protocol):
    """The single-ask unit a judge's round runs (`visual._PageJudge`)."""

    def call(self, call: Call) -> Sequence[Call]:
        """Ask once; returns the resplit calls to run next."""
        ...

    def drop(self, call: Call) -> None:
        """A call not made for want of time: its cells are lost."""
        ...


MakeUnit = Callable[[WorkflowContext, Board], PageUnit]
"""``(judge's context, its board) → the unit``."""


@dataclass(frozen=True, order=True)
class SampledCall:
    """One ask of a planned (or regrouped) call by one judge in one round; ordered page first,
    then round, so a page's re-asks run before the next page's first asks."""

    page: int
    round: int
    phase: int
    seq: int
    inner: Call = field(compare=False)
    judge: int = field(compare=False, default=0)


@dataclass
class CellSamples:
    """What the rounds gave a row: its samples (with their pages) and each cell's agreement."""

    samples: list[Sample] = field(default_factory=list)
    agreements: list[float | None] = field(default_factory=list)


class SampledCells:
    """Runs the rounds (module docstring) and folds them into `board`.

    Args:
        ctx: the workflow context (``ctx.sampling`` set).
        make_unit: ``(judge's context, its board) → _PageJudge``: the single-ask unit.
        board: the run's board (checks-decided cells already set).
        vlm_rows: page → ids of the rows the VLM judges there.
        settings: ``mode`` and ``group_size`` for the regrouped re-asks.
        budget_end: monotonic time after which no call starts.
    """

    def __init__(self, ctx: WorkflowContext, make_unit: MakeUnit, board: Board, vlm_rows: Mapping[int, Sequence[str]],
                 settings: PptSettings, budget_end: float) -> None:
        assert ctx.sampling is not None
        self.ctx, self.sampling, self.board, self.settings, self.budget_end = ctx, ctx.sampling, board, settings, budget_end
        self.vlm_rows = {p: list(r) for p, r in vlm_rows.items()}
        self.make_unit = make_unit
        self.units: dict[tuple[int, int], PageUnit] = {}
        self.boards: dict[tuple[int, int], Board] = {}
        self.pending: Counter[tuple[int, int]] = Counter()
        self.asked: dict[tuple[int, int, str], int] = {}
        self.seq = itertools.count()
        self.lock = threading.Lock()

    @property
    def judges(self) -> tuple[SampledJudge, ...]:
        return self.sampling.judges

    def _unit(self, judge: int, rnd: int) -> PageUnit:
        with self.lock:
            key = (judge, rnd)
            if key not in self.units:
                board = Board(self.board.pages, self.board.rows)
                jctx = dataclasses.replace(self.ctx, transport=self.judges[judge].transport)
                self.boards[key] = board
                self.units[key] = self.make_unit(jctx, board)
            return self.units[key]

    def _tag(self, call: Call, judge: int, rnd: int) -> Call:
        who = f"{self.judges[judge].slug}-" if len(self.judges) > 1 else ""
        return dataclasses.replace(call, group=f"{call.group}#{who}s{rnd}")

    def start(self, calls: Sequence[Call]) -> list[SampledCall]:
        """The first round's asks of every planned call, through every judge."""
        out = []
        first = self.sampling.first_round
        for j in range(len(self.judges)):
            for call in calls:
                for rnd in range(1, first + 1):
                    out.append(SampledCall(call.page, rnd, call.phase, next(self.seq), self._tag(call, j, rnd), j))
                for row in call.rows:
                    self.asked[(j, call.page, row)] = first
                self.pending[(j, call.page)] += first
        return sorted(out)

    def out_of_time(self) -> bool:
        """No further call may start."""
        return timing.out_of_time(self.ctx, self.budget_end)

    def run(self, sc: SampledCall) -> Sequence[SampledCall]:
        """Ask once (the unit's resplits follow in the same round); then, when the page's
        asks are all back, its next round."""
        unit = self._unit(sc.judge, sc.round)
        follow = unit.call(sc.inner)
        return self._after(sc, follow)

    def drop(self, sc: SampledCall) -> None:
        """An ask not made for want of time: its cells are lost in that round's board."""
        self._unit(sc.judge, sc.round).drop(sc.inner)
        self._after(sc, ())

    def _after(self, sc: SampledCall, follow: Sequence[Call]) -> list[SampledCall]:
        with self.lock:
            out = [SampledCall(sc.page, sc.round, f.phase, next(self.seq), f, sc.judge) for f in follow]
            key = (sc.judge, sc.page)
            self.pending[key] += len(out) - 1
            if self.pending[key] == 0:
                out += self._next_round(sc.judge, sc.page)
        return out

    def _samples(self, judge: int, page: int, row: str) -> list[Sample]:
        """The judge's samples of one cell so far (one per round asked)."""
        out = []
        for rnd in range(1, self.asked.get((judge, page, row), 0) + 1):
            board = self.boards.get((judge, rnd))
            cell = board.row(row).get(page) if board is not None else None
            out.append(cell_sample(cell, self.judges[judge].name, page))
        return out

    def _next_round(self, judge: int, page: int) -> list[SampledCall]:
        """Regrouped re-asks of the page's unsettled rows (called under the lock)."""
        k = self.sampling.k
        if self.out_of_time():
            return []
        todo: dict[int, list[str]] = {}
        for row in self.vlm_rows.get(page, []):
            asked = self.asked.get((judge, page, row), 0)
            if asked < k and not settled(self._samples(judge, page, row), asked, k, CELL_SCALE):
                todo.setdefault(asked + 1, []).append(row)
        out = []
        for rnd, rows in sorted(todo.items()):
            for call in regroup(page, rows, self.settings, seq=self.seq):
                out.append(SampledCall(page, rnd, call.phase, call.seq, self._tag(call, judge, rnd), judge))
            for row in rows:
                self.asked[(judge, page, row)] = rnd
        self.pending[(judge, page)] += len(out)
        return out

    def fold(self, *, pending_kind: ErrorKind, pending_reason: str) -> dict[str, CellSamples]:
        """Close the rounds' boards and set every VLM cell of the run's board from its samples;
        returns row id → its samples and cell agreements."""
        for board in list(self.boards.values()):
            board.close(pending_kind=pending_kind, pending_reason=pending_reason)
        out: dict[str, CellSamples] = {}
        weights, vote = self.sampling.weights, self.sampling.vote
        for page, rows in sorted(self.vlm_rows.items()):
            for row in rows:
                samples = [s for j in range(len(self.judges)) for s in self._samples(j, page, row)]
                if not samples:
                    continue
                answer = reduce_unit(samples, CELL_SCALE, weights, vote)
                got = out.setdefault(row, CellSamples())
                got.samples += samples
                got.agreements.append(agreement(samples, answer, CELL_SCALE))
                index = representative(samples, answer, CELL_SCALE)
                if index is None:
                    first = samples[0]
                    self.board.lose(page, [row], first.error_kind or "timeout", first.reason)
                    continue
                self.board.set(page, row, Cell(level=None if answer.na else answer.level, na=answer.na,
                                               reason=samples[index].reason))
        return out


def cell_sample(cell: Cell | None, judge: str, page: int) -> Sample:
    """One round's cell as a `Sample` (a cell not answered is a sample that did not come back)."""
    if cell is None or not cell.judged:
        return Sample(judge=judge, page=page, error_kind=(cell.lost if cell is not None else None) or "timeout",
                      reason=cap_reason(cell.reason if cell is not None else "not judged"))
    if cell.na:
        return Sample(judge=judge, page=page, hit=False, na=True, reason=cap_reason(cell.reason))
    level = cell.level or 0.0
    return Sample(judge=judge, page=page, hit=level > 0, level=level, reason=cap_reason(cell.reason))


def regroup(page: int, rows: Sequence[str], settings: PptSettings, *, seq: itertools.count[int]) -> list[Call]:
    """The re-asks of a page's unsettled rows: one call (``combined``), chunks of
    ``group_size`` rows across the planned groups (``grouped``), one per row (``split``)."""
    if settings.mode == "split":
        return [Call(page, 0, next(seq), (r,), f"row-{r}") for r in rows]
    size = len(rows) if settings.mode == "combined" else max(1, settings.group_size)
    chunks = [tuple(rows[i:i + size]) for i in range(0, len(rows), size)]
    return [Call(page, 0, next(seq), chunk, f"resample-{n}" if len(chunks) > 1 else "resample")
            for n, chunk in enumerate(chunks, start=1)]


def run_sampled(ctx: WorkflowContext, make_unit: MakeUnit, board: Board, calls: Sequence[Call],
                vlm_rows: Mapping[int, Sequence[str]], settings: PptSettings, *, budget_end: float, workers: int,
                wait_until: float) -> tuple[dict[str, CellSamples], int, bool]:
    """Run the sampled rounds on a page-first pool and fold them into `board`.

    Returns:
        (row id → its samples, calls started, whether every call finished in time).
    """
    sampled = SampledCells(ctx, make_unit, board, vlm_rows, settings, budget_end)
    pool: PageFirstPool[SampledCall] = PageFirstPool(workers, sampled.run, sampled.drop, sampled.out_of_time, wait_until)
    finished = pool.run(sampled.start(calls))
    rows = sampled.fold(pending_kind=timing.budget_kind(ctx),
                        pending_reason="the workflow's budget was spent while this page was being judged")
    return rows, pool.started, finished


__all__ = ["CELL_SCALE", "CellSamples", "SampledCall", "SampledCells", "cell_sample", "regroup", "run_sampled"]

