"""The run's request limiter on a scripted clock: each formula of `transport.limiter`
(gate, pace, window, the rate-limit share, once-per-round-trip cuts), and the retry wait
of `core.failures` when the server says how long to wait."""

from __future__ import annotations

import random
import threading

import pytest

from cowork_judge.core.failures import RETRY_AFTER_JITTER, RetryPolicy, retry_after_sec
from cowork_judge.transport import limiter as L
from cowork_judge.transport.limiter import Limiter


class Clock:
    """A scripted monotonic clock."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def make(clock: Clock, backoff_max: float = 20.0) -> Limiter:
    return Limiter(backoff_max_sec=backoff_max, rng=random.Random(7), clock=clock)


def start(lim: Limiter):
    ticket, wait = lim.try_start()
    assert ticket is not None and wait == 0.0
    return ticket


def test_no_limit_until_rate_limiting_is_seen():
    clock = Clock()
    lim = make(clock)
    tickets = [start(lim) for _ in range(50)]  # no pace, no window: all start at once
    for t in tickets:
        lim.answered(t)
    assert lim.pace() is None and lim.window is None and lim.events == 0


def test_first_rate_limit_of_a_run_gates_paces_and_narrows_the_window():
    clock = Clock(100.0)
    lim = make(clock)
    tickets = [start(lim) for _ in range(4)]  # four requests on the wire at t=100
    clock.t = 100.1
    # the first reply is a 429 asking for 0.5 s: share 1 / (1 + OUTCOME_PRIOR) = 1/3 >= 0.3
    assert lim.rate_limited(tickets[2], 0.5) is True
    # sent = 4 starts / max(MIN_SPAN_SEC, 0.1 s) = 4/s; got = 0; no pace before
    assert lim.rate == pytest.approx(max(lim.rate_min, L.DECREASE * 4.0, 0.0)) == pytest.approx(2.0)
    assert lim.window == pytest.approx(max(1.0, L.DECREASE * 4))  # 4 in flight, the failed one included
    assert lim.open_at == pytest.approx(100.6)  # the gate: no request before now + asked
    clock.t = 100.3
    ticket, wait = lim.try_start()
    assert ticket is None and wait == pytest.approx(0.3)
    clock.t = 100.6
    ticket, wait = lim.try_start()  # gate open, but 3 in flight >= window 2
    assert ticket is None and wait == L.POLL_SEC
    clock.t = 100.7
    lim.answered(tickets[0])
    assert lim.window == pytest.approx(2.5) and lim.rate == pytest.approx(2.0)  # the pace grows with time only
    lim.answered(tickets[1])
    assert lim.window == pytest.approx(2.5 + 1 / 2.5)
    ticket = start(lim)  # 1 in flight < 2: starts; the next start is paced
    pace = lim.pace()
    assert pace == pytest.approx(2.0 * 2 ** ((100.7 - 100.1) / L.DOUBLING_SEC))
    assert 100.7 + (1 - L.PACE_JITTER) / pace <= lim.next_start <= 100.7 + (1 + L.PACE_JITTER) / pace


def test_a_whole_cli_attempt_refused_cuts_the_window_but_sets_no_pace():
    """An agent-CLI attempt is one ticket for requests the limiter never saw: its 429 counts
    and halves the window of CLIs in flight; no requests/s pace is guessed from it."""
    clock = Clock(100.0)
    lim = make(clock)
    tickets = [start(lim) for _ in range(4)]
    clock.t = 130.0  # a CLI attempt lasts long: its start is out of RATE_WINDOW_SEC
    assert lim.rate_limited(tickets[0], None, whole_attempt=True) is True
    assert lim.pace() is None and lim.rate is None
    assert lim.window == pytest.approx(max(1.0, L.DECREASE * 4)) and lim.events == 1
    assert lim.try_start() == (None, L.POLL_SEC)  # 3 CLIs still running, window 2: no launch
    lim.answered(tickets[1])
    lim.answered(tickets[2])  # window 2 + 1/2 + 1/2.5 = 2.9: two slots, one in use
    assert lim.window == pytest.approx(2.9)
    start(lim)
    assert lim.try_start() == (None, L.POLL_SEC)


def test_pace_doubles_every_doubling_period_without_events():
    clock = Clock(0.0)
    lim = make(clock)
    t = start(lim)
    lim.rate_limited(t, None)
    base = lim.rate
    assert lim.pace(L.DOUBLING_SEC) == pytest.approx(2 * base)
    assert lim.pace(3 * L.DOUBLING_SEC) == pytest.approx(8 * base)
    assert lim.pace(1e6) is None  # far above RATE_MAX: no pace at all


def test_refusals_of_requests_started_before_the_cut_are_one_event():
    clock = Clock(0.0)
    lim = make(clock)
    a, b, c = start(lim), start(lim), start(lim)
    clock.t = 0.05
    assert lim.rate_limited(a, 0.2) is True
    rate, window = lim.rate, lim.window
    clock.t = 0.06
    assert lim.rate_limited(b, 0.4) is False  # started before the cut: same event, no second cut
    assert (lim.rate, lim.window, lim.events) == (rate, window, 1)
    assert lim.open_at == pytest.approx(0.46)  # but the server's later ask still closes the gate
    lim.failed(c)
    assert lim.in_flight == 0
    clock.t = 1.0
    d = start(lim)
    clock.t = 1.01
    assert lim.rate_limited(d, None) is True and lim.events == 2  # started after the cut: a new event


def test_a_rare_rate_limit_does_not_slow_the_run():
    """A load-independent 429 (one in twelve replies) gates nobody but itself: the share
    ``1 / (11 + 2)`` is under PACE_SHARE."""
    clock = Clock(0.0)
    lim = make(clock)
    for _ in range(11):
        lim.answered(start(lim))
    t = start(lim)
    assert lim.rate_limited(t, 1.0) is False
    assert lim.open_at < clock.t and lim.pace() is None and lim.window is None
    assert lim.rate_limited_replies == 1 and lim.events == 0


def test_the_answered_rate_is_a_floor_of_the_pace():
    clock = Clock(0.0)
    lim = make(clock)
    for i in range(8):  # 8 requests answered at t = 0, 0.25 … 1.75
        clock.t = i * 0.25
        lim.answered(start(lim))
    clock.t = 1.99
    tickets = [start(lim) for _ in range(4)]
    clock.t = 2.0
    # the share looks at the last OUTCOME_WINDOW (10) replies: 3/(10+2) < 0.3 <= 4/(10+2)
    assert [lim.rate_limited(t, None) for t in tickets] == [False, False, False, True]
    sent = 12 / 2.0  # 12 starts (t = 0 … 1.99) when the event came, measured over 2 s
    got = 8 / 2.0  # 8 answers since t=0
    assert L.DECREASE * sent < L.GOT_SHARE * got
    assert lim.rate == pytest.approx(L.GOT_SHARE * got)  # not β·sent = 3.0: near what got through


def test_slowest_pace_is_one_request_per_backoff_cap():
    clock = Clock(0.0)
    lim = make(clock, backoff_max=8.0)
    assert lim.rate_min == pytest.approx(1 / 8)
    t = start(lim)
    clock.t = 100.0  # the start is out of the measuring window: sent = got = 0
    lim.rate_limited(t, None)
    assert lim.rate == pytest.approx(1 / 8)


def test_acquire_blocking_waits_for_the_gate_and_honours_cancel():
    clock = Clock(0.0)
    lim = make(clock)
    lim.rate_limited(start(lim), 30.0)
    assert lim.acquire_blocking(threading.Event(), give_up_at=10.0) is None  # would pass give_up_at
    cancel = threading.Event()
    cancel.set()
    assert lim.acquire_blocking(cancel) is None
    clock.t = 31.0
    assert lim.acquire_blocking(threading.Event()) is not None


# ---------------------------------------------------------------- the failing request's own wait

@pytest.mark.parametrize("asked", [0.05, 1.0, 7.5])
def test_wait_is_never_below_the_servers_ask_and_jitters_upward(asked):
    policy = RetryPolicy(backoff_max_sec=20.0)
    draws = [policy.wait_sec("rate_limit", 1, random.Random(seed), asked) for seed in range(300)]
    assert min(draws) >= asked
    assert max(draws) <= asked * (1 + RETRY_AFTER_JITTER)
    assert max(draws) > asked * (1 + RETRY_AFTER_JITTER / 2)  # the jitter really spreads the retries


def test_wait_is_bounded_by_the_cap_unless_the_server_asked_for_more():
    draws = [RetryPolicy(backoff_max_sec=2.0).wait_sec("rate_limit", 1, random.Random(s), 1.8) for s in range(300)]
    assert 1.8 <= min(draws) and max(draws) <= 2.0
    assert RetryPolicy(backoff_max_sec=2.0).wait_sec("rate_limit", 3, random.Random(1), 45.0) == 45.0
    # without an ask: the SPEC §11 formula, unchanged
    assert 1.0 <= RetryPolicy(backoff_max_sec=20.0).wait_sec("rate_limit", 1, random.Random(1), None) <= 2.0
    assert RetryPolicy().wait_sec("api_error", 1, random.Random(1), 5.0) == 1.0  # only backing-off kinds read it


class _Reply:
    def __init__(self, headers):
        self.headers = headers


class _Err(Exception):
    def __init__(self, headers):
        super().__init__("429")
        self.response = _Reply(headers)


@pytest.mark.parametrize(("headers", "expected"), [
    ({"retry-after-ms": "1250", "retry-after": "2"}, 1.25),  # milliseconds win
    ({"retry-after": "3"}, 3.0),
    ({"retry-after": "0.5"}, 0.5),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),  # an HTTP date is not read
    ({"retry-after-ms": "junk", "retry-after": "4"}, 4.0),
    ({"retry-after": "nan"}, None),
    ({"retry-after": "-3"}, None),
    ({"retry-after": "1e12"}, 3600.0),
    ({}, None),
])
def test_retry_after_is_read_from_the_reply_headers(headers, expected):
    assert retry_after_sec(_Err(headers)) == expected


def test_no_reply_no_ask():
    assert retry_after_sec(ValueError("stream disconnected before completion")) is None
