"""The run's one limiter of model requests to the judge endpoint, shared by agentic blocks
and workflow calls.

A real rate limit belongs to the API key: every job of a fleet drains the same bucket, and
a 429 seen by one request usually means the next ones will meet it too. One `Limiter` per
run decides when ANY model request of the run may start (the agentic backend's calls on the
asyncio loop, the workflow transport's calls from worker threads). It acts only once rate
limiting has been seen; until then requests start freely (the segments' own concurrency
knobs bound them).

Three mechanisms, all driven by rate-limit replies (HTTP 429, in-stream rate-limit errors):

- **Gate** — a rate-limit reply that says how long to wait (``retry-after-ms``, else
  ``Retry-After``) closes the gate for every request of the run until ``now + asked``.
- **Pace** (``rate``, requests/s) — request starts are spaced ``uniform(0.5, 1.5) / rate``
  apart (the jitter keeps the jobs of a fleet out of step).
- **Window** (requests in flight).

Load-dependent or not? A random 429 (a flaky gateway) says nothing about the others, and
gating or pacing the whole run for it only slows the run down (measured: README
"Performance"). So the gate and the cuts apply while the recent rate-limit share is high::

    share = rate-limited replies / (last OUTCOME_WINDOW replies + OUTCOME_PRIOR)   ≥ PACE_SHARE (0.3)

(a lone 429 in a fresh run is 1/3: load-dependent limits push it up at once, a 30 %
random fault rate hovers around it). The failing request itself always waits at least
what the server asked (`core.failures.RetryPolicy.wait_sec`).

A *rate-limit event* is a rate-limit reply, while the share is high, to a request that
started at or after the last cut (replies to requests already on the wire at the first
cut are the same event: TCP's once-per-round-trip rule). On an event, ``β = DECREASE``::

    sent   = starts in the last RATE_WINDOW_SEC / max(MIN_SPAN_SEC, time since the oldest of them)
    got    = answers in the last GOT_WINDOW_SEC / max(MIN_SPAN_SEC, time since the oldest of them)
    rate   ← max(rate_min, β · min(pace now, sent), got)
    window ← max(1, β · (in flight, this request included))
    open_at ← max(open_at, now + asked)

``got`` keeps the pace from collapsing below what actually gets through (random faults,
or this job's share of a contended key); ``rate_min = 1 / JUDGE_RETRY_BACKOFF_MAX``. Between
events the pace doubles every DOUBLING_SEC seconds and grows by GROWTH per answer::

    pace now = rate · 2^((now − last cut) / DOUBLING_SEC)        rate ← rate · (1 + GROWTH) per answer
    window   ← window + 1 / window per answer (one slot per window of answers)

A pace above RATE_MAX or a window above CEILING is no limit. Other failures (5xx,
timeouts) change nothing. The constants were chosen with a discrete-event model of K
jobs against a token bucket and checked with `bench/fleet.py` and `bench/faults.py`.

State changes happen under one lock and read the injected clock, so tests drive the
formulas exactly; `acquire` (asyncio) and `acquire_blocking` (threads) only wait.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

DECREASE = 0.5
"""β: the factor applied to the pace and the window on a rate-limit event."""
GROWTH = 0.125
"""The pace grows by this fraction per answered request."""
DOUBLING_SEC = 4.0
"""Seconds without a rate-limit event in which the pace doubles."""
RATE_WINDOW_SEC = 2.0
"""Seconds over which the sending rate is measured at an event."""
GOT_WINDOW_SEC = 10.0
"""Seconds over which the answered rate is measured at an event."""
MIN_SPAN_SEC = 1.0
"""Rates are measured over at least this many seconds (a burst is not a rate)."""
OUTCOME_WINDOW = 10
"""Replies (answered or rate limited) that the rate-limit share looks at."""
OUTCOME_PRIOR = 2
"""Answered replies assumed before the first one (a lone 429 is a share of 1/3)."""
PACE_SHARE = 0.3
"""Rate-limit share from which the gate and the cuts apply to the whole run."""
RATE_MAX = 1000.0
"""Requests/s: a pace above this is no pace."""
CEILING = 256.0
"""Requests in flight: a window above this is no window."""
POLL_SEC = 0.05
"""Longest sleep of a request waiting for a window slot or its cancel event."""


@dataclass(frozen=True)
class Ticket:
    """One started request: when it started (monotonic seconds)."""

    started_at: float


class Limiter:
    """The run's request limiter (see the module docstring for the formulas).

    Args:
        backoff_max_sec: JUDGE_RETRY_BACKOFF_MAX, seconds (≥ 1): the slowest pace is one
            request per this many seconds.
        rng: randomness for the pacing jitter (seeded in tests).
        clock: monotonic clock, seconds (tests inject a scripted one).
    """

    def __init__(self, *, backoff_max_sec: float = 20.0, rng: random.Random | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate_min = 1.0 / max(1.0, backoff_max_sec)
        self.rng = rng if rng is not None else random.Random()
        self.clock = clock
        self.rate: float | None = None
        """Pace set at the last cut, requests/s (None: no pace)."""
        self.window: float | None = None
        """Requests in flight allowed (None: no window)."""
        self.open_at = -math.inf
        self.next_start = -math.inf
        self.last_cut = -math.inf
        self.in_flight = 0
        self.events = 0
        """Rate-limit events so far (each cut the pace and the window once)."""
        self.rate_limited_replies = 0
        """Rate-limit replies so far."""
        self._starts: deque[float] = deque()
        self._answers: deque[float] = deque()
        self._outcomes: deque[bool] = deque(maxlen=OUTCOME_WINDOW)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the state machine

    def pace(self, now: float | None = None) -> float | None:
        """The pace at `now` (default: the clock), requests/s; None when unpaced."""
        with self._lock:
            return self._pace(self.clock() if now is None else now)

    def try_start(self) -> tuple[Ticket | None, float]:
        """Start a request now if the gate, the pace and the window allow it.

        Returns:
            ``(ticket, 0.0)`` when started (report its end with `answered`, `rate_limited`
            or `failed`), else ``(None, seconds)`` until it is worth asking again (> 0).
        """
        with self._lock:
            now = self.clock()
            not_before = max(self.open_at, self.next_start)
            if now < not_before:
                return None, not_before - now
            if self.window is not None and self.in_flight >= math.floor(self.window):
                return None, POLL_SEC
            self.in_flight += 1
            rate = self._pace(now)
            if rate is not None:
                self.next_start = now + self.rng.uniform(0.5, 1.5) / rate
            self._starts.append(now)
            self._trim(now)
            return Ticket(now), 0.0

    def answered(self, ticket: Ticket) -> None:
        """The request got an answer: the pace and the window grow."""
        with self._lock:
            now = self.clock()
            self.in_flight = max(0, self.in_flight - 1)
            self._outcomes.append(False)
            self._answers.append(now)
            self._trim(now)
            if self.rate is not None:
                self.rate = min(RATE_MAX, self.rate * (1.0 + GROWTH))
            if self.window is not None:
                self.window = self.window + 1.0 / self.window
                if self.window >= CEILING:
                    self.window = None

    def failed(self, ticket: Ticket) -> None:
        """The request failed for another reason than rate limiting: nothing changes."""
        with self._lock:
            self.in_flight = max(0, self.in_flight - 1)

    def rate_limited(self, ticket: Ticket, asked_sec: float | None) -> bool:
        """The request was rate limited; `asked_sec` is the server's wait (``retry-after-ms``
        / ``Retry-After``; None when it said nothing). Returns True for a new event (cut)."""
        with self._lock:
            now = self.clock()
            flight = self.in_flight  # this request included
            self.in_flight = max(0, self.in_flight - 1)
            self.rate_limited_replies += 1
            self._outcomes.append(True)
            self._trim(now)
            if sum(self._outcomes) / (len(self._outcomes) + OUTCOME_PRIOR) < PACE_SHARE:
                return False
            if asked_sec is not None and asked_sec > 0:
                self.open_at = max(self.open_at, now + asked_sec)
            if ticket.started_at < self.last_cut:
                return False
            sent = _per_sec(self._starts, now)
            got = _per_sec(self._answers, now)
            pace = self._pace(now)
            current = sent if pace is None else min(pace, sent)
            self.rate = max(self.rate_min, DECREASE * current, got)
            self.window = max(1.0, DECREASE * flight)
            self.next_start = max(self.next_start, now)
            self.last_cut = now
            self.events += 1
            return True

    def _pace(self, now: float) -> float | None:
        if self.rate is None:
            return None
        doublings = max(0.0, now - self.last_cut) / DOUBLING_SEC
        rate = self.rate * 2.0 ** min(doublings, 64.0)
        return None if rate >= RATE_MAX else rate

    def _trim(self, now: float) -> None:
        while self._starts and self._starts[0] < now - RATE_WINDOW_SEC:
            self._starts.popleft()
        while self._answers and self._answers[0] < now - GOT_WINDOW_SEC:
            self._answers.popleft()

    def snapshot(self) -> dict[str, float | int | None]:
        """The state, for logs and tests: pace now, window, gate, in flight, events, replies."""
        with self._lock:
            now = self.clock()
            return {"pace": self._pace(now), "window": self.window, "gate_open_in": max(0.0, self.open_at - now),
                    "in_flight": self.in_flight, "events": self.events, "rate_limited_replies": self.rate_limited_replies}

    # ------------------------------------------------------------------ waiting

    async def acquire(self) -> Ticket:
        """Wait (asyncio) until a request may start; cancel the task to stop waiting."""
        import asyncio  # not at import time: a code-only run never loads it for this

        while True:
            ticket, wait = self.try_start()
            if ticket is not None:
                return ticket
            await asyncio.sleep(wait)

    def acquire_blocking(self, cancel: threading.Event, give_up_at: float = math.inf) -> Ticket | None:
        """Wait (a thread) until a request may start; None when `cancel` is set or `give_up_at`
        (monotonic seconds) would pass first."""
        while True:
            ticket, wait = self.try_start()
            if ticket is not None:
                return ticket
            if self.clock() + wait > give_up_at:
                return None
            if cancel.wait(min(wait, 1.0)):
                return None


def _per_sec(times: deque[float], now: float) -> float:
    """Events per second in `times` (all within their window), over at least MIN_SPAN_SEC."""
    return len(times) / max(MIN_SPAN_SEC, now - times[0]) if times else 0.0
