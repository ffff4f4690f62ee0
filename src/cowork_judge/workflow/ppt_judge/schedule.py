"""Page-first scheduling of the VLM calls: which rows each call judges, and the pool that runs them.

`plan_calls` turns the cells the VLM must judge (page → rows) into calls by the mode:

- ``combined``: one call per page with every row the page needs;
- ``grouped``: one call per page × ``workflow_group``, a group cut into chunks of
  ``group_size`` rows (rows without a group form one group of their own);
- ``split``: one call per page × row.

With V_p the VLM rows of page p, g a group and s the group size, the planned calls are
``Σ_p [V_p ≠ ∅]`` (combined), ``Σ_p Σ_g ⌈|V_p ∩ g| / s⌉`` (grouped), ``Σ_p |V_p|`` (split);
a row left out of a reply costs one more call, for that row alone on that page (the
cell-level resplit, `PageFirstPool` priority keeps it with its page).

`PageFirstPool` runs calls on as many worker threads as the run's in-flight limit allows,
always taking the lowest page first (a resplit of page 3 goes before page 4's calls). So
when the budget runs out, what is lost is the LAST pages, for every row alike: rows keep
their verdicts, judged on fewer pages.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from .settings import Mode


class _Ordered(Protocol):
    """What the pool's heap needs of a call: an order."""

    def __lt__(self, other: Any, /) -> bool: ...


T = TypeVar("T", bound=_Ordered)
"""A call the pool runs: any ordered value (`Call` here, `content.ContentCall` for the content axis)."""

POOL_MAX_WORKERS = 64
"""Upper bound of worker threads (the in-flight limit decides; this only caps a bad value)."""


@dataclass(frozen=True, order=True)
class Call:
    """One VLM request: `rows` on `page`. Ordered by (page, phase, seq): page first."""

    page: int
    phase: int
    seq: int
    rows: tuple[str, ...] = field(compare=False)
    group: str = field(compare=False, default="")

    @property
    def label(self) -> str:
        """Audit name: ``page-003/layout``, ``page-003/all``, ``page-003/row-V-X``."""
        return f"page-{self.page:03d}/{self.group}"


def plan_calls(vlm_rows: Mapping[int, Sequence[str]], mode: Mode, *, groups: Mapping[str, str | None],
               group_size: int) -> list[Call]:
    """The planned calls, page-first (see the module docstring for the counts).

    Args:
        vlm_rows: page number → ids of the rows the VLM judges there, in rubric order.
        mode: ``combined``, ``grouped`` or ``split``.
        groups: row id → its ``workflow_group`` (None: no group).
        group_size: rows per call in ``grouped`` mode (≥ 1).

    Returns:
        Calls sorted by page, then in rubric order of their first row.
    """
    seq = itertools.count()
    calls: list[Call] = []
    for page in sorted(vlm_rows):
        rows = list(vlm_rows[page])
        if not rows:
            continue
        if mode == "combined":
            calls.append(Call(page, 0, next(seq), tuple(rows), "all"))
        elif mode == "split":
            calls += [Call(page, 0, next(seq), (r,), f"row-{r}") for r in rows]
        else:
            by_group: dict[str, list[str]] = {}
            for r in rows:
                by_group.setdefault(groups.get(r) or "", []).append(r)
            for name, members in by_group.items():
                chunks = [members[i:i + max(1, group_size)] for i in range(0, len(members), max(1, group_size))]
                for n, chunk in enumerate(chunks, start=1):
                    label = (name or "ungrouped") + (f"-{n}" if len(chunks) > 1 else "")
                    calls.append(Call(page, 0, next(seq), tuple(chunk), label))
    return calls


def count_calls(pages: int, group_rows: Sequence[int], mode: Mode, group_size: int) -> int:
    """Planned calls when the VLM judges every row on every page: ``pages`` (combined),
    ``pages × Σ_g ⌈r_g / group_size⌉`` (grouped), ``pages × Σ_g r_g`` (split).

    Args:
        pages: pages judged.
        group_rows: VLM rows per group (r_g).
        mode: the mode.
        group_size: rows per call in ``grouped`` mode.
    """
    if not any(group_rows):
        return 0
    if mode == "combined":
        return pages
    if mode == "split":
        return pages * sum(group_rows)
    return pages * sum(-(-r // max(1, group_size)) for r in group_rows)


class PageFirstPool(Generic[T]):
    """Worker threads that run calls lowest first (`Call`: page first), until done or told to stop.

    Args:
        workers: threads (the run's in-flight limit: more would only queue at the transport
            and lose the page order there).
        run_call: judges one call; returns follow-up calls (resplits) to queue. Must not raise.
        drop_call: called for each call not run because `stop` said so.
        stop: True once no further call may start (budget spent, cancel set).
        wait_until: monotonic time after which `run` returns even if workers are still busy.
    """

    def __init__(self, workers: int, run_call: Callable[[T], Sequence[T]], drop_call: Callable[[T], None],
                 stop: Callable[[], bool], wait_until: float) -> None:
        self.workers = max(1, min(int(workers), POOL_MAX_WORKERS))
        self.run_call, self.drop_call, self.stop, self.wait_until = run_call, drop_call, stop, wait_until
        self._heap: list[T] = []
        self._busy = 0
        self._cond = threading.Condition()
        self.started = 0

    def run(self, calls: Sequence[T]) -> bool:
        """Run `calls` (and their follow-ups); True when all finished, False when `wait_until`
        came first (workers still busy then finish in the background)."""
        with self._cond:
            for c in calls:
                heapq.heappush(self._heap, c)
        threads = [threading.Thread(target=self._work, name=f"ppt-judge-{i}", daemon=True)
                   for i in range(min(self.workers, max(1, len(calls))))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(max(0.0, self.wait_until - time.monotonic()))
        return not any(t.is_alive() for t in threads)

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._heap and self._busy:
                    self._cond.wait(0.1)
                if not self._heap:
                    self._cond.notify_all()
                    return
                call = heapq.heappop(self._heap)
                self._busy += 1
                stopped = self.stop()
                self.started += 0 if stopped else 1
            follow: Sequence[T] = ()
            try:
                if stopped:
                    self.drop_call(call)
                else:
                    follow = self.run_call(call)
            finally:
                with self._cond:
                    self._busy -= 1
                    for c in follow:
                        heapq.heappush(self._heap, c)
                    self._cond.notify_all()
