"""Running a function in a worker thread with a time limit (code methods, workflows).

A thread cannot be killed: on timeout it is abandoned (a daemon thread, never joined at
exit), which is why slow work that can be killed runs in child processes instead
(`cowork_judge._util.procs`, `cowork_judge.safety.saferegex`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def call_with_timeout(fn: Callable[[], Any], timeout_sec: float, *, thread_name: str = "worker") -> tuple[Any, BaseException | None] | None:
    """Run `fn` in a daemon thread for at most `timeout_sec` seconds.

    Returns:
        None on timeout, else ``(value, None)`` or ``(None, exception)`` — exceptions are
        reported as values, never raised here.
    """
    box: list[tuple[Any, BaseException | None]] = []

    def target() -> None:
        try:
            box.append((fn(), None))
        except BaseException as exc:  # reported as a value, never raised here
            box.append((None, exc))

    worker = threading.Thread(target=target, name=thread_name, daemon=True)
    worker.start()
    worker.join(timeout_sec)
    return box[0] if box else None
