"""The run's deadline (JUDGE_DEADLINE) as the engine and the segments read it."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Deadline:
    """The run's wall-clock limit on the monotonic clock (seconds)."""

    at: float

    @classmethod
    def after(cls, seconds: float, *, start: float | None = None) -> Deadline:
        """A deadline `seconds` after `start` (default: now)."""
        return cls((time.monotonic() if start is None else start) + seconds)

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.at - time.monotonic()

    def passed(self) -> bool:
        """True once the deadline is reached."""
        return self.remaining() <= 0
