"""The time of one block attempt: ``JUDGE_PER_TIMEOUT`` (bounded by the block budget and the
deadline) of the attempt's OWN time, which a wait in place does not use.

An attempt whose model request is refused at admission waits the server's ``Retry-After``
inside the attempt (the turn is re-sent in place, `agentic.scheduler`): that wait, and the
wait for a lane after it (`agentic.lanes`), is not the model being slow, so it pauses the
attempt's clock — neither the attempt's time limit nor the block budget (attempt time,
SPEC §11) is charged for it. `AttemptClock.run` is ``asyncio.wait_for`` with an end that
moves by the paused time (`aio.wait_for_quietly`'s rule: no exception is left unretrieved).

Times are monotonic seconds of the injected clock (tests script it); asyncio only.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from cowork_judge._util.aio import retrieve

T = TypeVar("T")


class AttemptClock:
    """One attempt's time limit, paused while the attempt waits in place.

    Args:
        limit_sec: the attempt's own time, seconds (> 0): it starts running now.
        clock: monotonic clock, seconds.
    """

    def __init__(self, limit_sec: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit_sec = limit_sec
        self._clock = clock
        self._used = 0.0
        self._since: float | None = clock()
        self._changed: asyncio.Event | None = None

    @property
    def running(self) -> bool:
        """False while paused."""
        return self._since is not None

    def spent(self) -> float:
        """Seconds of the attempt's own time used so far (pauses excluded)."""
        return self._used + (self._clock() - self._since if self._since is not None else 0.0)

    @property
    def ends_at(self) -> float:
        """When the attempt must end if it is not paused again (monotonic s); ``inf`` while paused."""
        if self._since is None:
            return math.inf
        return self._since + (self.limit_sec - self._used)

    def pause(self) -> None:
        """Stop counting (idempotent)."""
        if self._since is not None:
            self._used += self._clock() - self._since
            self._since = None
            self._poke()

    def resume(self) -> None:
        """Count again (idempotent)."""
        if self._since is None:
            self._since = self._clock()
            self._poke()

    def _poke(self) -> None:
        if self._changed is not None:
            self._changed.set()

    async def run(self, aw: Awaitable[T]) -> T:
        """Wait for `aw` until the attempt's own time is used up.

        Raises:
            asyncio.TimeoutError: the time ran out (`aw` is cancelled).
            asyncio.CancelledError: the waiting task was cancelled (`aw` is cancelled too).
            Whatever `aw` raised.
        """
        task = asyncio.ensure_future(aw)
        task.add_done_callback(retrieve)
        self._changed = changed = asyncio.Event()
        try:
            while not task.done():
                changed.clear()
                left = self.ends_at - self._clock()
                if left <= 0:
                    task.cancel()
                    await asyncio.wait({task})
                    if task.cancelled() or task.exception() is not None:
                        raise asyncio.TimeoutError()
                    return task.result()
                poked = asyncio.ensure_future(changed.wait())
                try:
                    await asyncio.wait({task, poked}, timeout=None if math.isinf(left) else left,
                                       return_when=asyncio.FIRST_COMPLETED)
                finally:
                    poked.cancel()
            return task.result()
        except asyncio.CancelledError:
            task.cancel()
            await asyncio.wait({task})  # as asyncio.wait_for: the attempt cleans up (a CLI is killed) first
            raise
        finally:
            self._changed = None
