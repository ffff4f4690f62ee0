"""The in-flight lanes of the agentic blocks: ``JUDGE_CONCURRENCY`` of them.

A block works in a lane: every model request it makes (or an agent CLI it runs) is made
while it holds one, so the run never has more than ``JUDGE_CONCURRENCY`` blocks — hence
requests — in flight; that count is the multiplier of a fleet's peak request rate. A block
whose turn waits out a RANDOM refusal's ``Retry-After`` in place (`agentic.scheduler`)
sends nothing meanwhile: it gives its lane back (`Lane.wait`) so that another block can
work in it, and takes one back when its wait is over — before any block that has not
started yet (blocks coming back are served first, in the order they asked), so a waiting
block is never starved by the blocks behind it: it waits at most for the first lane to
free up. Every other wait keeps the lane (the scheduler says why).

The first wave's start jitter is slept HOLDING the lane (`agentic.scheduler.run_blocks`),
as before: a lane given back during a retry wait never lets a block skip the jitter of
another, and a new block that takes it starts after a request of the run already went out.

asyncio only (one event loop: the agentic segment's); not thread-safe.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType


class Lanes:
    """`size` lanes shared by the blocks of one run (see the module docstring).

    Args:
        size: JUDGE_CONCURRENCY (≥ 1).
    """

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self.free = self.size
        """Lanes nobody holds."""
        self._back: deque[asyncio.Future[None]] = deque()
        self._new: deque[asyncio.Future[None]] = deque()
        self.most_held = 0
        """The most lanes held at once (tests read it: never above `size`)."""

    @property
    def held(self) -> int:
        """Lanes held now."""
        return self.size - self.free

    async def take(self, *, back: bool = False) -> None:
        """Wait for a lane and hold it. `back`: a block coming back from a wait (served
        before every block that has not started). Cancelling the wait never loses a lane."""
        if self.free > 0 and not self._back and (back or not self._new):
            self._hold()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._back if back else self._new
        queue.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # handed over, then cancelled: pass it on
                self.give()
            else:
                try:
                    queue.remove(future)
                except ValueError:
                    pass
            raise

    def give(self) -> None:
        """Give a held lane back: to the first block coming back, else to the first new one."""
        for queue in (self._back, self._new):
            while queue:
                future = queue.popleft()
                if not future.done():
                    future.set_result(None)  # the lane passes over: `free` does not change
                    return
        self.free += 1

    def _hold(self) -> None:
        self.free -= 1
        self.most_held = max(self.most_held, self.held)

    def lane(self) -> Lane:
        """A lane for one block, taken on entering ``async with`` (see `Lane`)."""
        return Lane(self)


class Lane:
    """One block's lane: ``async with lanes.lane() as lane`` holds it; `wait` gives it back
    for a retry wait and takes one back after; leaving the ``with`` gives it back if held."""

    def __init__(self, lanes: Lanes) -> None:
        self.lanes = lanes
        self.holding = False

    async def __aenter__(self) -> Lane:
        await self.lanes.take()
        self.holding = True
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self.holding:
            self.holding = False
            self.lanes.give()

    async def wait(self, sec: float) -> None:
        """Sleep `sec` seconds without the lane, then take one back (first in line)."""
        if self.holding:
            self.holding = False
            self.lanes.give()
        await asyncio.sleep(sec)
        await self.lanes.take(back=True)
        self.holding = True
