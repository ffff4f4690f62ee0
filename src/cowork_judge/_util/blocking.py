"""One concurrency model for the run's waiting loops: each loop is written ONCE, as a
coroutine (`transport.limiter.Admission.acquire`, `transport.retrying.retry_async`), and a
caller on a plain thread (a workflow cell) runs that same coroutine here, on its own thread.

The blocking caller hands the coroutine blocking steps (`cancellable_sleep`, an attempt that
calls the model and returns) instead of asyncio ones; the coroutine then never suspends, so
`run_blocking` drives it to its end with one ``send`` — no event loop, no thread hop, no
asyncio import (a code-only run's start-up never loads it for this). State a loop shares
(the limiter's counters, under its lock; the fleet's Redis store) is the loop's own, so the
threads of a workflow and the agentic blocks on their event loop still share one limiter.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["NotBlocking", "blocking", "cancellable_sleep", "run_blocking"]


class NotBlocking(RuntimeError):
    """The coroutine `run_blocking` drove awaited something that suspends (an asyncio sleep or
    future): a step was left asyncio's where the blocking caller must give its own."""


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to its end on the calling thread and return its value (or raise what it raised).

    Every await in `coro` must complete without suspending (blocking steps: `blocking`,
    `cancellable_sleep`).

    Raises:
        NotBlocking: `coro` suspended (it is closed first, so its ``finally`` blocks run).
    """
    try:
        coro.send(None)
    except StopIteration as stop:
        value: T = stop.value
        return value
    coro.close()
    raise NotBlocking(f"{getattr(coro, '__qualname__', coro)!s} suspended: give it blocking steps to run on a thread")


def blocking(fn: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`fn` as an awaitable step that blocks the calling thread (for `run_blocking`)."""

    async def step(*args: Any) -> T:
        return fn(*args)

    return step


def cancellable_sleep(cancel: threading.Event, *, slice_sec: float = float("inf")) -> Callable[[float], Awaitable[bool]]:
    """A sleep step for `run_blocking`: waits up to its seconds on this thread, or less when
    `cancel` is set; returns True when `cancel` woke it (a loop then stops waiting).

    Args:
        slice_sec: the longest single wait before the caller's loop looks again (seconds).
    """

    async def sleep(sec: float) -> bool:
        return cancel.wait(min(sec, slice_sec))

    return sleep
