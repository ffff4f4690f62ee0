"""The endpoint's own account of the key's rate limit: its ``x-ratelimit-*`` (OpenAI, a
LiteLLM proxy) and ``anthropic-ratelimit-*`` (Anthropic Messages API) reply headers.

`read_quota(headers)` turns the headers of ONE reply (an answer, or a 429's
``exc.response.headers``) into a `Quota`: per budget (requests, tokens) the key's limit,
what remains, and the seconds until the budget is whole again. Nothing here decides
anything; the limiters do (`transport.limiter`, `transport.fleet`).

Headers read (case-insensitive; a budget needs at least ``remaining``):

- OpenAI / LiteLLM: ``x-ratelimit-limit-requests``, ``x-ratelimit-remaining-requests``,
  ``x-ratelimit-reset-requests`` and the same with ``-tokens``. The reset is a Go-style
  duration (``"6m0s"``, ``"1s"``, ``"20ms"``, ``"1h2m3.5s"``) or a bare number of seconds
  (OpenAI's rate-limit guide, "Rate limits in headers").
- Anthropic: ``anthropic-ratelimit-requests-limit``, ``-remaining``, ``-reset`` and the same
  for ``tokens`` (else ``input-tokens``); the reset is an RFC 3339 time, read against the
  local clock (the reply's ``date`` header when the two are more than `SKEW_SEC` apart) (Anthropic API docs, "Rate
  limits", response headers).

Both vendors give per-minute limits, so the key's sustainable rate is ``limit / 60`` per
second (`Budget.per_sec`).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

LIMIT_WINDOW_SEC = 60.0
"""The period of the limits both vendors report (requests and tokens per MINUTE)."""
RESET_MAX_SEC = 24 * 3600.0
"""A reset further away than this is read as this (a clock gone wrong, not a limit)."""

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)")
_UNIT_SEC = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


@dataclass(frozen=True)
class Budget:
    """One budget of the key (requests or tokens) as one reply reported it.

    Attributes:
        limit: the key's limit per `LIMIT_WINDOW_SEC` (None when not sent).
        remaining: what the key had left when the reply was made (≥ 0).
        reset_sec: seconds until the budget is whole again (None when not sent).
    """

    limit: float | None
    remaining: float
    reset_sec: float | None

    @property
    def per_sec(self) -> float | None:
        """The key's sustainable rate, units per second (``limit / 60``); None without a limit."""
        return self.limit / LIMIT_WINDOW_SEC if self.limit else None


@dataclass(frozen=True)
class Quota:
    """What one reply said about the key's rate limit.

    Attributes:
        requests: the requests budget, or None when the reply said nothing about it.
        tokens: the tokens budget (Anthropic: ``tokens``, else ``input-tokens``), or None.
    """

    requests: Budget | None = None
    tokens: Budget | None = None


def parse_duration(text: str) -> float | None:
    """Seconds in a Go-style duration (``"6m0s"``, ``"1s"``, ``"20ms"``, ``"1h2m3.5s"``) or a
    bare number of seconds; None when unreadable or negative (not clamped: `read_quota`
    reads a huge bare number as an epoch time and clamps to `RESET_MAX_SEC`)."""
    raw = str(text).strip().lower()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        pos, total = 0, 0.0
        for match in _DURATION_PART.finditer(raw):
            if match.start() != pos:
                return None
            total += float(match.group(1)) * _UNIT_SEC[match.group(2)]
            pos = match.end()
        if pos != len(raw) or pos == 0:
            return None
        value = total
    return value if math.isfinite(value) and value >= 0 else None


def _number(raw: Any) -> float | None:
    if raw is None:
        return None
    try:
        value = float(str(raw).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def _rfc3339_in_sec(raw: Any, now_wall: float) -> float | None:
    """Seconds from `now_wall` (epoch seconds) until the RFC 3339 time `raw`; ≥ 0."""
    if raw is None:
        return None
    text = str(raw).strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return min(max(0.0, when.timestamp() - now_wall), RESET_MAX_SEC)


EPOCH_MIN = 1e9
"""A bare number reset at or above this is an epoch time (seconds since 1970: LiteLLM documents
"the time at which the rate limit will reset"), not a duration."""


def _reset_sec(raw: Any) -> float | None:
    """An ``x-ratelimit-reset-*`` value in seconds from now: a Go-style duration or bare
    seconds (OpenAI), an epoch time (a bare number ≥ `EPOCH_MIN`), or an RFC 3339 time;
    at most `RESET_MAX_SEC`."""
    if raw is None:
        return None
    value = parse_duration(str(raw))
    if value is None:
        return _rfc3339_in_sec(raw, time.time())
    if value >= EPOCH_MIN:
        value -= time.time()  # an epoch time
    return min(max(0.0, value), RESET_MAX_SEC)


def _budget(limit: Any, remaining: Any, reset_sec: float | None) -> Budget | None:
    left = _number(remaining)
    if left is None:
        return None
    return Budget(limit=_number(limit) or None, remaining=left, reset_sec=reset_sec)


def read_quota(headers: Mapping[str, str] | Any) -> Quota | None:
    """The `Quota` in one reply's headers (an ``httpx.Headers`` or any mapping with a
    case-insensitive ``get``); None when they hold no readable rate-limit header. Never
    raises."""
    if headers is None or not hasattr(headers, "get"):
        return None
    try:
        get = headers.get
        requests = _budget(get("x-ratelimit-limit-requests"), get("x-ratelimit-remaining-requests"),
                           _reset_sec(get("x-ratelimit-reset-requests")))
        tokens = _budget(get("x-ratelimit-limit-tokens"), get("x-ratelimit-remaining-tokens"),
                         _reset_sec(get("x-ratelimit-reset-tokens")))
        anthropic = any(get(f"anthropic-ratelimit-{k}-remaining") is not None for k in ("requests", "tokens", "input-tokens"))
        if requests is None and tokens is None and anthropic:
            now_wall = _server_now(get("date"))
            requests = _budget(get("anthropic-ratelimit-requests-limit"), get("anthropic-ratelimit-requests-remaining"),
                               _rfc3339_in_sec(get("anthropic-ratelimit-requests-reset"), now_wall))
            kind = "tokens" if get("anthropic-ratelimit-tokens-remaining") is not None else "input-tokens"
            tokens = _budget(get(f"anthropic-ratelimit-{kind}-limit"), get(f"anthropic-ratelimit-{kind}-remaining"),
                             _rfc3339_in_sec(get(f"anthropic-ratelimit-{kind}-reset"), now_wall))
    except Exception:  # noqa: BLE001 - a header we cannot read is a header we do not have
        return None
    if requests is None and tokens is None:
        return None
    return Quota(requests=requests, tokens=tokens)


SKEW_SEC = 5.0
"""The local clock is trusted for an Anthropic reset unless the reply's ``date`` header
(whole seconds) is further from it than this: then the server's clock is used."""


def _server_now(date: Any) -> float:
    """Now as epoch seconds: the local clock, or the reply's ``date`` header when the two
    differ by more than `SKEW_SEC` (a container whose clock is off)."""
    now = time.time()
    if date:
        from email.utils import parsedate_to_datetime  # only for Anthropic's headers

        try:
            server = parsedate_to_datetime(str(date)).timestamp()
        except (TypeError, ValueError, IndexError):
            return now
        if abs(server - now) > SKEW_SEC:
            return server
    return now


def quota_of(exc: BaseException) -> Quota | None:
    """The `Quota` in the headers of the reply an exception carries (``exc.response.headers``,
    as the ``openai`` client's status errors do); None without one."""
    return read_quota(getattr(getattr(exc, "response", None), "headers", None))


# --------------------------------------------------------------------------- reading a quota

LOW_SHARE = 0.25
"""A budget is LOW when what remains is under ``max(1, LOW_SHARE × capacity)`` (capacity:
the most the key has been seen to hold, `KeyState`): the key is nearly spent and the next
requests of the fleet would be refused. At or above it the key has capacity left, and a
429 that says so is a random refusal (a flaky gateway), not the key's limit."""


@dataclass(frozen=True)
class Reading:
    """What one `Quota` means for the next requests (`KeyState.read`).

    Attributes:
        rate: the key's sustainable request rate, requests/s (``limit / 60`` of the requests
            budget; of the tokens budget divided by the mean tokens per request when known;
            the lower of the two), None when no limit was sent.
        low: some budget is LOW (`LOW_SHARE`).
        gap_sec: seconds to leave before the next start so that what remains is spread over
            the time until the budget is whole again: ``reset / (remaining + 1)`` (remaining
            in whole requests: at none left, the whole reset), the largest over the
            budgets, 0 when nothing says to wait. (``reset / remaining`` made one job
            alone 8 % slower in `bench/limiter_model.py --headers`; at none left, the
            whole reset rather than one request's refill spreads a fleet that read the
            same empty key: 8 jobs × 40 rows, 0.29 → 0.26 wasted per useful call.)
    """

    rate: float | None
    low: bool
    gap_sec: float


class KeyState:
    """What a limiter has learned of the key from its replies' headers: the capacity of each
    budget (the most it was seen to hold) and the mean tokens per request. Not thread-safe:
    its owner calls it under its own lock."""

    def __init__(self) -> None:
        self.capacity: dict[str, float] = {}
        self.tokens_per_request: float | None = None
        self.rate: float | None = None
        """The key's sustainable request rate from the last reading that had one, requests/s."""

    def note_tokens(self, tokens: int) -> None:
        """An answered request used `tokens` (prompt + completion): the mean moves (EMA 0.2)."""
        if tokens > 0:
            mean = self.tokens_per_request
            self.tokens_per_request = float(tokens) if mean is None else 0.8 * mean + 0.2 * tokens

    def read(self, quota: Quota) -> Reading:
        """Fold `quota` into the state and say what it means (`Reading`)."""
        rates: list[float] = []
        low = False
        gap = 0.0
        per_request = {"requests": 1.0, "tokens": self.tokens_per_request or 0.0}
        for name, budget in (("requests", quota.requests), ("tokens", quota.tokens)):
            if budget is None:
                continue
            cost = per_request[name]
            capacity = max(self.capacity.get(name, 0.0), budget.remaining, cost)
            self.capacity[name] = capacity
            if budget.per_sec is not None and cost > 0:
                rates.append(budget.per_sec / cost)
            if budget.remaining < max(1.0, cost, LOW_SHARE * capacity):
                low = True
            if budget.reset_sec is not None and cost > 0:
                left = budget.remaining / cost  # requests' worth left
                gap = max(gap, budget.reset_sec / (math.floor(left) + 1.0))
        if rates:
            self.rate = min(rates)
        return Reading(rate=min(rates) if rates else None, low=low, gap_sec=gap)

    def capacity_left(self, quota: Quota | None) -> bool:
        """True when `quota` (a refusal's own headers) shows every budget it names at or above
        its LOW mark: the refusal was not the key's limit (a random refusal)."""
        if quota is None or (quota.requests is None and quota.tokens is None):
            return False
        for name, budget in (("requests", quota.requests), ("tokens", quota.tokens)):
            if budget is None:
                continue
            cost = 1.0 if name == "requests" else (self.tokens_per_request or 1.0)
            capacity = max(self.capacity.get(name, 0.0), budget.remaining)
            if budget.remaining < max(1.0, cost, LOW_SHARE * capacity):
                return False
        return True


