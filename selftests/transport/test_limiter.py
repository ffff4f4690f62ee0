"""The run's request limiter on a scripted clock: each formula of `transport.limiter`
(gate, pace, window, the rate-limit share, once-per-round-trip cuts), and the retry wait
of `core.retry` when the server says how long to wait."""

from __future__ import annotations

import random
import threading

import pytest

from cowork_judge.core.retry import RETRY_AFTER_JITTER, RetryPolicy, retry_after_sec
from cowork_judge.transport import limiter as L
from cowork_judge.transport.limiter import Limiter


class Clock:
    """A scripted monotonic clock."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class Fraction(random.Random):
    """A random source whose ``uniform(a, b)`` is always ``a + f·(b − a)``: exact formulas."""

    def __init__(self, f: float) -> None:
        super().__init__(0)
        self.f = f

    def uniform(self, a: float, b: float) -> float:
        return a + self.f * (b - a)


def make(clock: Clock, backoff_max: float = 20.0, rng: random.Random | None = None) -> Limiter:
    return Limiter(backoff_max_sec=backoff_max, rng=rng if rng is not None else random.Random(7), clock=clock)


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


def test_a_lone_refusal_as_the_first_reply_gates_the_run_but_cuts_nothing():
    """One 429 as a run's first reply: the gate's share 1 / (1 + OUTCOME_PRIOR) = 1/3 holds
    every request for the server's ask; the cuts' share 1 / (1 + CUT_PRIOR) = 1/5 < 0.3
    leaves pace and window alone (a random refusal costs the run one ask, not seconds)."""
    clock = Clock(100.0)
    lim = make(clock)
    tickets = [start(lim) for _ in range(4)]
    clock.t = 100.1
    assert lim.rate_limited(tickets[2], 1.0) is False
    assert lim.open_at == pytest.approx(101.1)  # the first refusal in a row: exactly the ask
    assert lim.rate is None and lim.window is None and lim.events == 0
    assert lim.try_start() == (None, pytest.approx(1.0))
    clock.t = 101.1
    assert start(lim) is not None and lim.next_start == -float("inf")  # no pace


def test_refusals_as_the_rule_gate_pace_and_narrow_the_window():
    clock = Clock(100.0)
    lim = make(clock, rng=Fraction(0.5))
    tickets = [start(lim) for _ in range(4)]  # four requests on the wire at t=100
    clock.t = 100.1
    assert lim.rate_limited(tickets[2], 0.5) is False  # the gate's share 1/3 closes it; the cuts' 1/5 waits
    # the second refusal in a row: share 2 / (2 + OUTCOME_PRIOR) = 1/3 >= 0.3, a new event
    assert lim.rate_limited(tickets[3], 0.625) is True  # (a longer ask this time)
    # sent = 4 starts / max(MIN_SPAN_SEC, 0.1 s) = 4/s; got = 0; no pace before:
    # min(β·4, max(0.8·0, β²·4)) = 1/s (nothing got through: a quarter of what was sent)
    assert lim.rate == pytest.approx(min(L.DECREASE * 4.0, max(0.0, L.DECREASE**2 * 4.0))) == pytest.approx(1.0)
    assert lim.window == pytest.approx(max(1.0, L.DECREASE * 3))  # 3 in flight, the refused one included
    # the gate holds exactly the longest ask: it draws no wait of its own (the one jittered
    # wait of an ask is the refused request's, `RetryPolicy.wait_sec`)
    assert lim.open_at == pytest.approx(100.1 + 0.625)
    # the first start after the cut waits half (Fraction 0.5) of CUT_SPREAD / rate
    assert lim.next_start == pytest.approx(100.1 + 0.5 * L.CUT_SPREAD / 1.0)
    clock.t = 100.3
    ticket, wait = lim.try_start()
    assert ticket is None and wait == pytest.approx(lim.open_at - 100.3)
    assert lim.next_start < lim.open_at  # here the gate (100.725) outlasts the first paced start (100.6)
    clock.t = 100.7
    assert lim.try_start() == (None, pytest.approx(0.025))
    clock.t = 100.8
    lim.answered(tickets[0])
    assert lim.window == pytest.approx(1.5 + 1 / 1.5) and lim.rate == pytest.approx(1.0)  # the pace grows with time only
    ticket, wait = lim.try_start()  # 1 in flight < floor(2.17) = 2, gate and pace passed: starts
    assert ticket is not None
    pace = lim.pace()
    assert pace == pytest.approx(1.0 * 2 ** ((100.8 - 100.1) / L.DOUBLING_SEC))
    assert lim.next_start == pytest.approx(100.8 + 1.0 / pace)  # uniform(1 − J, 1 + J) at its middle


def test_the_gate_holds_exactly_the_ask_whatever_the_streak_and_draws_nothing():
    """One ask, one jittered wait: the refused request draws it (`RetryPolicy.wait_sec`, the
    run's retry loop); the gate holds the run for the ask itself, however many refusals came
    in a row, above the backoff cap too (issue 23: the gate used to draw a second wait)."""

    class Counting(random.Random):
        draws = 0

        def uniform(self, a, b):
            Counting.draws += 1
            return super().uniform(a, b)

    clock = Clock(0.0)
    lim = make(clock, backoff_max=3.0, rng=Counting(1))
    tickets = [start(lim) for _ in range(12)]
    before = Counting.draws
    holds = []
    clock.t = 0.001
    lim.rate_limited(tickets[0], 0.25)  # a lone refusal closes the gate and cuts nothing: any draw would be the gate's
    holds.append(lim.open_at - clock.t)
    assert Counting.draws == before and lim.events == 0
    for n, t in enumerate(tickets[1:], 2):
        clock.t = n * 0.001
        lim.rate_limited(t, 0.25)
        holds.append(lim.open_at - clock.t)
    assert holds == [pytest.approx(0.25, abs=1e-9)] * len(holds)
    clock.t = 10.0
    lim2 = make(clock, backoff_max=3.0, rng=Counting(2))
    lim2.rate_limited(start(lim2), 30.0)  # the server asked for more than the cap: it gets it
    assert lim2.open_at == pytest.approx(40.0)


def test_a_whole_cli_attempt_refused_cuts_the_window_but_sets_no_pace():
    """An agent-CLI attempt is one ticket for requests the limiter never saw: its 429 counts
    and halves the window of CLIs in flight; no requests/s pace is guessed from it."""
    clock = Clock(100.0)
    lim = make(clock)
    tickets = [start(lim) for _ in range(5)]
    clock.t = 130.0  # a CLI attempt lasts long: its start is out of RATE_WINDOW_SEC
    assert lim.rate_limited(tickets[0], None, whole_attempt=True) is False  # 1/5
    assert lim.rate_limited(tickets[1], None, whole_attempt=True) is True  # 2/6
    assert lim.pace() is None and lim.rate is None
    assert lim.window == pytest.approx(max(1.0, L.DECREASE * 4)) and lim.events == 1
    assert lim.try_start() == (None, L.POLL_SEC)  # 3 CLIs still running, window 2: no launch
    lim.answered(tickets[2])
    lim.answered(tickets[3])  # window 2 + 1/2 + 1/2.5 = 2.9: two slots, one in use
    assert lim.window == pytest.approx(2.9)
    start(lim)
    assert lim.try_start() == (None, L.POLL_SEC)


def test_pace_doubles_every_doubling_period_without_events():
    clock = Clock(0.0)
    lim = make(clock)
    a, b = start(lim), start(lim)
    lim.rate_limited(a, None)
    assert lim.rate_limited(b, None) is True
    base = lim.rate
    assert lim.pace(L.DOUBLING_SEC) == pytest.approx(2 * base)
    assert lim.pace(3 * L.DOUBLING_SEC) == pytest.approx(8 * base)
    assert lim.pace(1e6) is None  # far above RATE_MAX: no pace at all


def test_refusals_of_requests_started_before_the_cut_are_one_event():
    clock = Clock(0.0)
    lim = make(clock, rng=Fraction(0.0))  # no jitter: the gate is exactly the ask
    a, b, c, d = (start(lim) for _ in range(4))
    clock.t = 0.05
    assert lim.rate_limited(a, 0.2) is False  # cuts' share 1/5
    clock.t = 0.051
    assert lim.rate_limited(b, 0.2) is True  # 2/6: the event
    rate, window = lim.rate, lim.window
    clock.t = 0.06
    assert lim.rate_limited(c, 0.4) is False  # started before the cut: same event, no second cut
    assert (lim.rate, lim.window, lim.events) == (rate, window, 1)
    assert lim.open_at == pytest.approx(0.46)  # but the server's later ask still closes the gate
    lim.failed(d)
    assert lim.in_flight == 0
    clock.t = 5.0
    e = start(lim)
    clock.t = 5.01
    assert lim.rate_limited(e, None) is True and lim.events == 2  # started after the cut: a new event


def test_a_rare_rate_limit_does_not_slow_the_run():
    """A load-independent 429 (one in twelve replies) gates nobody but itself: the share
    ``1 / (10 + 4)`` is under PACE_SHARE."""
    clock = Clock(0.0)
    lim = make(clock)
    for _ in range(11):
        lim.answered(start(lim))
    t = start(lim)
    assert lim.rate_limited(t, 1.0) is False
    assert lim.open_at < clock.t and lim.pace() is None and lim.window is None
    assert lim.rate_limited_replies == 1 and lim.events == 0


def _answered_then_refused(clock: Clock, lim: Limiter, answers: int, gap: float, refusals: int) -> list[bool]:
    """`answers` requests answered `gap` s apart from t=0, then `refusals` requests started
    together at the last answer's time and refused 0.01 s later; returns the events."""
    for i in range(answers):
        clock.t = i * gap
        lim.answered(start(lim))
    tickets = [start(lim) for _ in range(refusals)]
    clock.t += 0.01
    return [lim.rate_limited(t, None) for t in tickets]


def test_the_pace_halves_while_most_requests_get_through():
    clock = Clock(0.0)
    lim = make(clock)
    # the share looks at the last OUTCOME_WINDOW (10) replies: 4/(10+4) < 0.3 <= 5/(10+4)
    assert _answered_then_refused(clock, lim, 10, 0.2, 5) == [False] * 4 + [True]
    sent = 15 / max(L.MIN_SPAN_SEC, 1.81)  # 15 starts (t = 0 … 1.8) in the last RATE_WINDOW_SEC
    got = 10 / 1.81  # 10 answers, t = 0 … 1.8
    assert L.GOT_SHARE * got > L.DECREASE * sent  # plenty got through: a plain halving
    assert lim.rate == pytest.approx(L.DECREASE * sent)


def test_the_pace_falls_towards_what_got_through_but_at_most_to_a_quarter():
    clock = Clock(0.0)
    lim = make(clock)
    # 6 answers at t = 0 … 2.5, then 5 starts at t = 2.5 refused at 2.51
    events = _answered_then_refused(clock, lim, 6, 0.5, 5)
    assert events == [False] * 4 + [True]  # 4/(10+4) < 0.3 <= 5/(10+4)
    sent = 9 / 1.51  # starts in the last 2 s: t = 1.0, 1.5, 2.0 and 6 at 2.5 (oldest 1.0)
    got = 6 / 2.51  # answers in the last 10 s: t = 0 … 2.5
    assert L.DECREASE**2 * sent < L.GOT_SHARE * got < L.DECREASE * sent
    assert lim.rate == pytest.approx(L.GOT_SHARE * got)  # this job's share of a contended key
    lim2 = make(clock := Clock(0.0))
    _answered_then_refused(clock, lim2, 1, 1.0, 12)  # one answer, 12 refused: got far below sent
    sent = 13 / 1.0
    assert lim2.rate == pytest.approx(L.DECREASE**2 * sent)  # never more than a quarter per event


def test_slowest_pace_is_one_request_per_backoff_cap():
    clock = Clock(0.0)
    lim = make(clock, backoff_max=8.0)
    assert lim.rate_min == pytest.approx(1 / 8)
    a, b = start(lim), start(lim)
    clock.t = 100.0  # the starts are out of the measuring window: sent = got = 0
    lim.rate_limited(a, None)
    assert lim.rate_limited(b, None) is True
    assert lim.rate == pytest.approx(1 / 8)


def test_acquire_blocking_waits_for_the_gate_and_honours_cancel():
    clock = Clock(0.0)
    lim = make(clock, rng=Fraction(0.0))
    lim.rate_limited(start(lim), 30.0)  # 1/3: the gate closes for 30 s
    assert lim.acquire_blocking(threading.Event(), give_up_at=10.0) is None  # would pass give_up_at
    cancel = threading.Event()
    cancel.set()
    assert lim.acquire_blocking(cancel) is None
    clock.t = 31.0
    assert lim.acquire_blocking(threading.Event()) is not None


def test_acquire_gives_up_when_the_gate_outlasts_the_call():
    import asyncio

    clock = Clock(0.0)
    lim = make(clock, rng=Fraction(0.0))
    lim.rate_limited(start(lim), 3600.0)  # 1/3: the gate closes for the server's hour
    assert lim.held_past(150.0) and not lim.held_past(3601.0)
    assert asyncio.run(lim.acquire(give_up_at=150.0)) is None  # returns at once, nothing started
    assert lim.in_flight == 0
    clock.t = 3600.0
    assert asyncio.run(lim.acquire(give_up_at=3700.0)) is not None


# ---------------------------------------------------------------- the failing request's own wait

@pytest.mark.parametrize("asked", [0.05, 1.0, 7.5])
def test_wait_is_never_below_the_servers_ask_and_jitters_upward(asked):
    policy = RetryPolicy(backoff_max_sec=20.0)
    draws = [policy.wait_sec("rate_limit", 1, random.Random(seed), asked) for seed in range(300)]
    assert min(draws) >= asked
    assert max(draws) <= asked * (1 + RETRY_AFTER_JITTER)
    assert max(draws) > asked * (1 + RETRY_AFTER_JITTER / 2)  # the jitter really spreads the retries


def test_the_spread_of_a_refused_call_doubles_with_each_refusal():
    """A bucket gives every client it refused the same ask; the n-th refusal of one block
    or call spreads its retry over ``a · (1 + uniform(0, RETRY_AFTER_JITTER · 2^(n−1)))``."""
    policy = RetryPolicy(backoff_max_sec=20.0)
    for n in (1, 2, 3, 4):
        draws = [policy.wait_sec("rate_limit", n, random.Random(seed), 0.25) for seed in range(400)]
        top = 0.25 * (1 + RETRY_AFTER_JITTER * 2 ** (n - 1))
        assert 0.25 <= min(draws) and max(draws) <= top
        assert max(draws) > 0.25 + 0.9 * (top - 0.25)


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
