"""The run's one limiter of model requests to the judge endpoint, shared by agentic blocks
and workflow calls.

A real rate limit belongs to the API key: every job of a fleet drains the same bucket, and
a 429 seen by one request usually means the next ones will meet it too. One `Limiter` per
run decides when ANY model request of the run may start (the agentic backend's calls on the
asyncio loop, the workflow transport's calls from worker threads). Until rate limiting is
seen it does nothing (the segments' own concurrency knobs bound the requests).

What drives it: refusals AT ADMISSION — an HTTP 429 (or another status whose error says
"rate limit"), with the server's ask when it gives one (``retry-after-ms``, else
``Retry-After``). A rate-limit error inside a 200 stream came from a request the endpoint
had admitted; it is retried with backoff like any rate limit (`core.retry`) but tells
the limiter nothing (the call path, `transport.attempts.Held`, settles it as `failed`).

Three mechanisms:

- **Gate** — a refusal with an ask closes the gate for every request of the run.
- **Pace** (``rate``, requests/s) — starts are spaced ``uniform(1 − J, 1 + J) / pace``
  apart (``J = PACE_JITTER`` keeps the jobs of a fleet out of step).
- **Window** — requests in flight.

Load-dependent or not? A random 429 (a flaky gateway) says nothing about the other
requests, and gating or pacing the run for it only slows the run down. So gate and cuts
apply while the recent refusal share is high, the cuts asking for more evidence::

    share(p) = refusals among the last OUTCOME_WINDOW replies / (replies + p)
    gate  when share(OUTCOME_PRIOR = 2) ≥ PACE_SHARE (0.3)   (a lone first refusal: 1/3)
    cuts  when share(CUT_PRIOR = 4)     ≥ PACE_SHARE          (a lone first refusal: 1/5, two: 2/6)

(a gate costs one ask, a cut seconds of pace; an overdrawn key refuses several requests at
once, while a 30 % random refusal rate hovers near the threshold.)

The gate, on such a refusal with an ask ``a``::

    open_at ← max(open_at, now + a)

exactly the ask, drawn from nothing: the ONE jittered wait of an ask is the refused
request's own (`core.retry.RetryPolicy.wait_sec`, at least ``a``, spread wider with each
refusal of the same block or call, drawn once by the run's retry loop,
`transport.retrying`). A bucket computes the same ask for every client it refused, and
clients that come back together are refused together; the refused requests come back
spread by their own draws, the others of the run start at the gate's opening, paced once
a cut has set a pace. (Until issue 23 the gate drew a second wait from the same ask,
``a · (1 + uniform(0, 0.5 · (2^(n−1) − 1)))``, n = refusals in a row;
`bench/limiter_model.py` measured no difference outside the seeds' spread.)

A *rate-limit event* is a refusal that passes the cuts' share, of a request that started at or after the last cut
(replies to requests already on the wire are the same event: TCP's once-per-round-trip
rule). On an event, with ``β = DECREASE`` (0.5)::

    sent    = starts in the last RATE_WINDOW_SEC  / max(MIN_SPAN_SEC, now − oldest of them)
    got     = answers in the last GOT_WINDOW_SEC  / max(MIN_SPAN_SEC, now − oldest of them)
    current = min(pace now, sent)                        (sent when unpaced)
    rate    ← max(rate_min, min(β · current, max(GOT_SHARE · got, β² · current)))
    window  ← max(1, β · in flight)                       (the refused request included)
    next    ← max(next, now + uniform(0, CUT_SPREAD) / rate)

The pace halves, or falls to what actually got through (this job's share of a contended
key) when that is lower, but never below a quarter of what it was in one event;
``rate_min = 1 / JUDGE_RETRY_BACKOFF_MAX`` (never slower than one request per backoff
cap). The first start after a cut waits up to one paced gap, so the jobs a shared key
refused in the same instant do not all come back in the next one. Between events the
pace doubles every DOUBLING_SEC, and the window grows by one slot per window of answers::

    pace now = rate · 2^((now − last cut) / DOUBLING_SEC)      (no pace once above RATE_MAX)
    window  ← window + 1 / window                              per answered request

Other failures (5xx, timeouts, in-stream errors) change nothing. An agent-CLI attempt
(`agentic.cli_base`) is ONE ticket for all the requests the CLI makes: a 429 it reports
counts and cuts the window (``whole_attempt``) but leaves the pace alone.

The constants were chosen with `bench/limiter_model.py` (this class, the retry policy and
the simulator's token bucket on a virtual clock; 60 seeds per scenario), then measured with
`bench/fleet.py`, `bench/peers.py` and `bench/faults.py` (README "Performance"). The
trade-off they settle: a faster regrowth or milder cuts finish a fleet sooner but waste
more refused requests, and no refusal-only rule tells a 30 % random refusal rate from a
key overdrawn by 40 % (the README gives the figures).

**The endpoint's own headers** (`transport.quota`: ``x-ratelimit-*``, ``anthropic-ratelimit-*``),
when replies carry them, come first — they tell the key's state before any refusal:

- the pace never exceeds the key's sustainable rate ``r = limit / 60`` (requests; tokens
  ÷ the mean tokens per request), even before any event;
- after each answer the next start waits ``gap · uniform(1 − J, 1 + J)``, ``gap = reset /
  (remaining + 1)`` (spend what remains over the time until the budget is whole; at none
  left, the whole reset; `transport.quota.Reading`), at most JUDGE_RETRY_BACKOFF_MAX;
- an ANSWER that shows a budget LOW (under ``max(1, LOW_SHARE · capacity)``) is a
  rate-limit event without a refusal (the pace is cut as above, once per round trip):
  the run slows before the key refuses it;
- a 429 whose own headers show capacity left on every budget is a RANDOM refusal: it
  gates nothing, cuts nothing and does not count in the shares (the refused request
  still waits its own ``Retry-After``, without the herd's spread: `capacity_left` is
  asked where the ticket is settled, `transport.attempts.Held`, and
  `core.retry.RetryPolicy.wait_sec` reads the judgement);
- a 429 whose own headers show the key spent needs no share to count: it gates and cuts
  at once (`bench/limiter_model.py --headers --spread 2`, 8 jobs × 40 rows: 0.26 → 0.23
  wasted per useful call).

Without such headers (agent CLIs, endpoints that send none) none of this applies and the
limiter is exactly the refusal-only one above.

State changes happen under one lock and read the injected clock, so tests drive the
formulas exactly; `acquire` (asyncio) and `acquire_blocking` (threads) only wait.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from cowork_judge._util.blocking import cancellable_sleep, run_blocking
from cowork_judge.core.error_kinds import JudgeFailure
from cowork_judge.transport.quota import KeyState, Quota

DECREASE = 0.5
"""β: the factor applied to the pace and the window on a rate-limit event."""
DOUBLING_SEC = 4.0
"""Seconds without a rate-limit event in which the pace doubles."""
RATE_WINDOW_SEC = 2.0
"""Seconds over which the sending rate is measured at an event."""
GOT_WINDOW_SEC = 10.0
"""Seconds over which the answered rate is measured at an event."""
GOT_SHARE = 0.8
"""The pace is cut to no less than this share of the answered rate."""
PACE_JITTER = 0.5
"""Gaps between paced starts are drawn from ``uniform(1 − J, 1 + J) / pace``."""
MIN_SPAN_SEC = 1.0
"""Rates are measured over at least this many seconds (a burst is not a rate)."""
OUTCOME_WINDOW = 10
"""Replies (answered or rate limited) that the rate-limit share looks at."""
OUTCOME_PRIOR = 2
"""Answered replies assumed before the first one by the gate's share (a lone 429 as a run's
first reply is 1/3: it holds every request for its ask)."""
CUT_PRIOR = 4
"""Answered replies assumed before the first one by the cuts' share (a lone 429 is 1/5, two
in a row 2/6). A gate costs one ask; a cut costs seconds of pace until it regrows, so a cut
needs more evidence: `bench/limiter_model.py`, 30 % random 429s on 100 rows, slow-down
10.6× → 7.1× the fault-free run with this prior at 4 instead of 2, a shared key's fleets
unchanged."""
PACE_SHARE = 0.3
"""Rate-limit share from which the gate and the cuts apply to the whole run."""
RATE_MAX = 1000.0
"""Requests/s: a pace above this is no pace."""
CEILING = 256.0
"""Requests in flight: a window above this is no window."""
CUT_SPREAD = 1.0
"""After a cut, the next start waits ``uniform(0, CUT_SPREAD) / rate``: the jobs a shared
key refused together come back spread over one paced gap. Measured with
`bench/limiter_model.py` (8 jobs × 40 rows, 240/min): makespan 1.36 → 1.29× the bound at
the same waste."""
POLL_SEC = 0.05
"""Longest sleep of a request waiting for a window slot or its cancel event."""


class GateClosed(JudgeFailure):
    """The run's gate or pace would hold a request past the time it has (its call's
    timeout): the endpoint asked the run to wait longer than that. Kind ``rate_limit``, so
    the block backs off and tries again within its budget, and a row that runs out of tries
    says ``rate_limit``, not ``timeout``."""

    kind = "rate_limit"


@dataclass(frozen=True)
class Ticket:
    """One started request: when it started (monotonic seconds)."""

    started_at: float


class Admission:
    """Waiting for a ticket, shared by the run's limiters (`Limiter`, `transport.fleet.FleetLimiter`):
    they give `try_start` and `clock`; the waiting loops are the same."""

    clock: Callable[[], float]

    def try_start(self) -> tuple[Ticket | None, float]:
        """``(ticket, 0.0)`` when a request may start now, else ``(None, seconds to wait)``."""
        raise NotImplementedError

    async def acquire(self, give_up_at: float = math.inf,
                      sleep: Callable[[float], Awaitable[bool | None]] | None = None) -> Ticket | None:
        """Wait until a request may start: the run's one admission loop. None when the gate or
        the pace would hold it past `give_up_at` (monotonic seconds), or when `sleep` says its
        wait was cancelled (returns True).

        Args:
            sleep: how one wait (seconds) is waited: default ``asyncio.sleep`` (cancel the
                task to stop waiting); a thread's cancellable sleep through `acquire_blocking`.
        """
        if sleep is None:
            import asyncio  # not at import time: a code-only run never loads it for this

            sleep = asyncio.sleep
        while True:
            ticket, wait = self.try_start()
            if ticket is not None:
                return ticket
            if self.clock() + wait > give_up_at:
                return None
            if await sleep(wait):
                return None

    def acquire_blocking(self, cancel: threading.Event, give_up_at: float = math.inf) -> Ticket | None:
        """`acquire` on a thread (a workflow call; `cowork_judge._util.blocking`): the same
        loop, its waits on this thread, each at most 1 s; None when `cancel` is set or
        `give_up_at` (monotonic seconds) would pass first."""
        return run_blocking(self.acquire(give_up_at, sleep=cancellable_sleep(cancel, slice_sec=1.0)))


class Limiter(Admission):
    """The run's request limiter (see the module docstring for the formulas).

    Args:
        backoff_max_sec: JUDGE_RETRY_BACKOFF_MAX, seconds (≥ 1): the slowest pace is one
            request per this many seconds.
        rng: randomness for the pacing jitter (seeded in tests).
        clock: monotonic clock, seconds (tests inject a scripted one).
    """

    def __init__(self, *, backoff_max_sec: float = 20.0, rng: random.Random | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.backoff_max_sec = max(1.0, backoff_max_sec)
        self.rate_min = 1.0 / self.backoff_max_sec
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
        self.streak = 0
        """Rate-limit replies since the last answer."""
        self.key = KeyState()
        """What the replies' rate-limit headers said of the key (`transport.quota`)."""
        self.random_refusals = 0
        """429s whose own headers showed capacity left (not the key's limit)."""
        self.low_marks = 0
        """Answers whose headers showed a budget LOW (rate-limit events without a refusal)."""
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
                self.next_start = now + self.rng.uniform(1.0 - PACE_JITTER, 1.0 + PACE_JITTER) / rate
            self._starts.append(now)
            self._trim(now)
            return Ticket(now), 0.0

    def answered(self, ticket: Ticket, quota: Quota | None = None, *, tokens: int = 0) -> None:
        """The request got an answer: the pace and the window grow. `quota`: the answer's
        rate-limit headers (`transport.quota`), `tokens`: the tokens it used (prompt +
        completion; 0 when unknown) — see the module docstring for what they do."""
        with self._lock:
            now = self.clock()
            flight = self.in_flight
            self.in_flight = max(0, self.in_flight - 1)
            self._outcomes.append(False)
            self.streak = 0
            self._answers.append(now)
            self._trim(now)
            if self.window is not None:
                self.window = self.window + 1.0 / self.window
                if self.window >= CEILING:
                    self.window = None
            self.key.note_tokens(tokens)
            if quota is not None:
                reading = self.key.read(quota)
                if reading.gap_sec > 0:  # never longer than a refusal's own wait could be
                    gap = min(reading.gap_sec, self.backoff_max_sec) * self.rng.uniform(1.0 - PACE_JITTER, 1.0 + PACE_JITTER)
                    self.next_start = max(self.next_start, now + gap)
                if reading.low and ticket.started_at >= self.last_cut:
                    self.low_marks += 1
                    self._cut(now, flight, whole_attempt=False, window=False)

    def capacity_left(self, quota: Quota | None) -> bool:
        """True when `quota` (a 429's own rate-limit headers) shows capacity left on every
        budget it names: a random refusal, not the key's limit (`KeyState.capacity_left`;
        `rate_limited` applies the same rule)."""
        with self._lock:
            return self.key.capacity_left(quota)

    def failed(self, ticket: Ticket) -> None:
        """The request failed for another reason than rate limiting: nothing changes."""
        with self._lock:
            self.in_flight = max(0, self.in_flight - 1)

    def rate_limited(self, ticket: Ticket, asked_sec: float | None, *, whole_attempt: bool = False,
                     quota: Quota | None = None) -> bool:
        """The request was rate limited; `asked_sec` is the server's wait (``retry-after-ms``
        / ``Retry-After``; None when it said nothing). Returns True for a new event (cut).

        `whole_attempt`: the ticket stood for a whole agent-CLI attempt (many requests the
        limiter never saw, `agentic.cli_base`): the event cuts the window but not the
        pace (a rate in requests/s cannot be measured from attempts). `quota`: the 429's
        own rate-limit headers; when they show capacity left the refusal is random and
        changes nothing."""
        with self._lock:
            now = self.clock()
            flight = self.in_flight  # this request included
            self.in_flight = max(0, self.in_flight - 1)
            if quota is not None:
                if self.key.capacity_left(quota):
                    self.random_refusals += 1
                    return False
                self.key.read(quota)
            at_limit = quota is not None  # the key's own headers say it is spent: no share needed
            self.rate_limited_replies += 1
            self.streak += 1
            self._outcomes.append(True)
            self._trim(now)
            refusals, replies = sum(self._outcomes), len(self._outcomes)
            if (at_limit or refusals / (replies + OUTCOME_PRIOR) >= PACE_SHARE) and asked_sec is not None and asked_sec > 0:
                self.open_at = max(self.open_at, now + asked_sec)  # the ask itself: no draw (module docstring)
            if not at_limit and refusals / (replies + CUT_PRIOR) < PACE_SHARE:
                return False
            if ticket.started_at < self.last_cut:
                return False
            self._cut(now, flight, whole_attempt=whole_attempt)
            return True

    def _cut(self, now: float, flight: int, *, whole_attempt: bool, window: bool = True) -> None:
        """A rate-limit event at `now` with `flight` requests in flight (the module
        docstring's formulas); `window`: cut the window too (a refusal; not a LOW mark)."""
        if not whole_attempt:
            sent = _per_sec(self._starts, now)
            got = _per_sec(self._answers, now)
            pace = self._pace(now)
            current = sent if pace is None else min(pace, sent)
            cut = min(DECREASE * current, max(GOT_SHARE * got, DECREASE * DECREASE * current))
            self.rate = max(self.rate_min, cut)
            self.next_start = max(self.next_start, now + self.rng.uniform(0.0, CUT_SPREAD) / self.rate)
        if window:
            self.window = max(1.0, DECREASE * flight)
        self.next_start = max(self.next_start, now)
        self.last_cut = now
        self.events += 1

    def _pace(self, now: float) -> float | None:
        cap = self.key.rate  # the key's own rate, from its headers (None without them)
        if self.rate is None:
            return cap
        doublings = max(0.0, now - self.last_cut) / DOUBLING_SEC
        rate: float = self.rate * 2.0 ** min(doublings, 64.0)
        if cap is not None:
            return min(rate, cap)
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

    def held_past(self, when: float) -> bool:
        """True when the gate or the pace holds every new request until after `when`
        (monotonic seconds, the limiter's clock)."""
        with self._lock:
            return max(self.open_at, self.next_start) > when

def _per_sec(times: deque[float], now: float) -> float:
    """Events per second in `times` (all within their window), over at least MIN_SPAN_SEC."""
    return len(times) / max(MIN_SPAN_SEC, now - times[0]) if times else 0.0
