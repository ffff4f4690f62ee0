"""asyncio helpers shared by the agentic scheduler (and its attempt clock) and the chat transport."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["retrieve", "wait_for_quietly"]


def retrieve(task: asyncio.Future[Any]) -> None:
    """Mark the task's exception as retrieved (the caller saw, or chose to drop, it); a
    done-callback."""
    if not task.cancelled():
        task.exception()


async def wait_for_quietly(aw: Awaitable[T], timeout_sec: float) -> T:
    """``asyncio.wait_for(aw, timeout_sec)`` that never leaves an unretrieved exception.

    When the waiting task is cancelled (the run's deadline) or the timeout fires while the
    inner task is finishing with an error of its own (e.g. the HTTP client's
    ``APITimeoutError``), ``asyncio.wait_for`` cancels the inner task and drops that error:
    the event loop later prints "Task exception was never retrieved" with a traceback on
    stderr (seen on Python 3.10 in the deadline test). The inner task here retrieves its
    own outcome when done; results and errors still reach the caller as with ``wait_for``.

    Args:
        aw: the coroutine or future to wait for.
        timeout_sec: seconds (as for ``asyncio.wait_for``).

    Raises:
        asyncio.TimeoutError: the timeout fired (the inner task is cancelled).
        asyncio.CancelledError: the waiting task was cancelled.
        Whatever ``aw`` raised.
    """
    task = asyncio.ensure_future(aw)
    task.add_done_callback(retrieve)
    return await asyncio.wait_for(task, timeout=timeout_sec)
