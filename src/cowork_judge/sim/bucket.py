"""The load-dependent limit of the simulated judge: one token bucket shared by all requests.

Real rate limits belong to an API key, so every job of a fleet drains the same budget. The
bucket holds at most ``burst`` requests and refills at ``rpm / 60`` requests per second; a
model request (chat completions, responses, messages) takes one token or is refused with
HTTP 429. The wait until one token is back is sent as ``Retry-After`` (whole seconds,
rounded up) and ``retry-after-ms`` (milliseconds, rounded up), which is what the openai and
anthropic SDKs read. Everything is a function of the injected clock, so tests are exact.

A second bucket counts tokens (``--tpm``): a request takes its prompt's estimated tokens.
Every reply can carry the buckets' state as the vendors' rate-limit headers
(`openai_headers`: ``x-ratelimit-limit/remaining/reset-requests`` and ``-tokens``, the reset
a Go-style duration; `anthropic_headers`: ``anthropic-ratelimit-requests-*`` and
``-tokens-*``, the reset an RFC 3339 time): the limit per minute, what the bucket holds
now (whole units) and the time until it is full again.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

__all__ = ["TokenBucket", "anthropic_headers", "default_burst", "go_duration", "openai_headers", "retry_headers"]


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

    def take(self, cost: float = 1.0) -> float:
        """Take `cost` tokens (at most ``burst``). Returns 0.0 when taken, else the seconds
        until that many are available (> 0)."""
        cost = min(max(0.0, cost), float(self.burst))
        with self._lock:
            self._refill(self.clock())
            if self._tokens >= cost - 1e-9:
                self._tokens = max(0.0, self._tokens - cost)
                return 0.0
            return (cost - self._tokens) / self._rate_per_s

    def give_back(self, cost: float = 1.0) -> None:
        """Return `cost` tokens taken by a request that another bucket then refused."""
        with self._lock:
            self._tokens = min(float(self.burst), self._tokens + max(0.0, cost))

    def state(self) -> tuple[float, float]:
        """``(tokens now, seconds until the bucket is full)``, without taking any."""
        with self._lock:
            self._refill(self.clock())
            return self._tokens, (float(self.burst) - self._tokens) / self._rate_per_s

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


def go_duration(seconds: float) -> str:
    """`seconds` as OpenAI writes a reset: ``"6m0s"``, ``"1.5s"``, ``"20ms"`` (Go's time.Duration)."""
    seconds = max(0.0, seconds)
    if seconds < 1.0:
        return f"{max(0, math.ceil(seconds * 1000.0))}ms"
    minutes, rest = divmod(seconds, 60.0)
    text = f"{rest:.3f}".rstrip("0").rstrip(".") + "s"
    return f"{int(minutes)}m{text}" if minutes else text


def openai_headers(requests: TokenBucket | None, tokens: TokenBucket | None) -> dict[str, str]:
    """``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` of the buckets' state now."""
    out: dict[str, str] = {}
    for name, bucket in (("requests", requests), ("tokens", tokens)):
        if bucket is None:
            continue
        held, to_full = bucket.state()
        out[f"x-ratelimit-limit-{name}"] = f"{bucket.rpm:g}"
        out[f"x-ratelimit-remaining-{name}"] = str(int(math.floor(held + 1e-9)))
        out[f"x-ratelimit-reset-{name}"] = go_duration(to_full)
    return out


def anthropic_headers(requests: TokenBucket | None, tokens: TokenBucket | None) -> dict[str, str]:
    """``anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}`` of the buckets' state
    now; the reset is an RFC 3339 time (UTC, milliseconds) on the wall clock."""
    import time as _time
    from datetime import datetime, timezone

    out: dict[str, str] = {}
    for name, bucket in (("requests", requests), ("tokens", tokens)):
        if bucket is None:
            continue
        held, to_full = bucket.state()
        when = datetime.fromtimestamp(_time.time() + to_full, tz=timezone.utc)
        out[f"anthropic-ratelimit-{name}-limit"] = f"{bucket.rpm:g}"
        out[f"anthropic-ratelimit-{name}-remaining"] = str(int(math.floor(held + 1e-9)))
        out[f"anthropic-ratelimit-{name}-reset"] = when.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return out
