"""The load-dependent limit of the simulated judge: one token bucket shared by all requests.

Real rate limits belong to an API key, so every job of a fleet drains the same budget. The
bucket holds at most ``burst`` requests and refills at ``rpm / 60`` requests per second; a
model request (chat completions, responses, messages) takes one token or is refused with
HTTP 429. The wait until one token is back is sent as ``Retry-After`` (whole seconds,
rounded up) and ``retry-after-ms`` (milliseconds, rounded up), which is what the openai and
anthropic SDKs read. Everything is a function of the injected clock, so tests are exact.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

__all__ = ["TokenBucket", "default_burst", "retry_headers"]


def default_burst(rpm: float) -> int:
    """Burst used when none is given: one second's worth, ``max(1, ceil(rpm / 60))``.

    OpenAI documents that a per-minute limit may be enforced over shorter periods (a 60 RPM
    key can be refused after one request in the same second); this default models that.
    """
    return max(1, math.ceil(rpm / 60.0))


class TokenBucket:
    """Thread-safe token bucket: ``burst`` tokens, refilled at ``rpm / 60`` tokens per second.

    Args:
        rpm: requests per minute, > 0.
        burst: bucket capacity in requests, >= 1; None = ``default_burst(rpm)``. The bucket
            starts full.
        clock: monotonic clock in seconds (``time.monotonic`` by default).

    Raises:
        ValueError: ``rpm`` <= 0 or ``burst`` < 1.
    """

    def __init__(self, rpm: float, burst: int | None = None, *, clock: Callable[[], float] = time.monotonic) -> None:
        if isinstance(rpm, bool) or not isinstance(rpm, (int, float)) or not math.isfinite(rpm) or rpm <= 0:
            raise ValueError(f"rpm must be a number > 0, got {rpm!r}")
        if burst is None:
            burst = default_burst(rpm)
        if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
            raise ValueError(f"burst must be an integer >= 1, got {burst!r}")
        self.rpm = float(rpm)
        self.burst = burst
        self.clock = clock
        self._rate_per_s = self.rpm / 60.0
        self._tokens = float(burst)
        self._last_s = clock()
        self._lock = threading.Lock()

    def _refill(self, now_s: float) -> None:
        elapsed = max(0.0, now_s - self._last_s)
        self._tokens = min(float(self.burst), self._tokens + elapsed * self._rate_per_s)
        self._last_s = now_s

    def take(self) -> float:
        """Take one token. Returns 0.0 when taken, else the seconds until one is available (> 0)."""
        with self._lock:
            self._refill(self.clock())
            if self._tokens >= 1.0 - 1e-9:
                self._tokens = max(0.0, self._tokens - 1.0)
                return 0.0
            return (1.0 - self._tokens) / self._rate_per_s

    def available(self) -> float:
        """Tokens in the bucket now (fractional), without taking any."""
        with self._lock:
            self._refill(self.clock())
            return self._tokens


def retry_headers(wait_s: float) -> dict[str, str]:
    """``retry-after`` (integer seconds, rounded up, >= 1) and ``retry-after-ms`` (rounded up)."""
    return {
        "retry-after": str(max(1, math.ceil(wait_s))),
        "retry-after-ms": str(max(1, math.ceil(wait_s * 1000.0))),
    }
