"""The run's limiter with the endpoint's rate-limit headers (`transport.limiter`, module
docstring "The endpoint's own headers"), on a scripted clock: the key's rate caps the pace,
what remains is spread over the reset, a LOW answer slows the run before any refusal, and
a 429 whose own headers show capacity left changes nothing."""

from __future__ import annotations

import pytest
from .test_limiter import Clock, Fraction, make, start

from cowork_judge.transport.quota import Budget, Quota


def quota(remaining: float, reset: float, limit: float = 240.0) -> Quota:
    return Quota(requests=Budget(limit, remaining, reset))


def test_the_keys_rate_caps_the_pace_from_the_first_answer():
    clock = Clock()
    lim = make(clock, rng=Fraction(0.5))  # jitter factor exactly 1
    t = start(lim)
    assert lim.pace() is None
    lim.answered(t, quota(remaining=200, reset=10.0))
    assert lim.pace() == pytest.approx(4.0)  # 240 / 60
    clock.t += 100.0  # however long after, never faster than the key allows
    assert lim.pace() == pytest.approx(4.0)


def test_what_remains_is_spread_over_the_reset():
    clock = Clock()
    lim = make(clock, rng=Fraction(0.5))
    t = start(lim)
    lim.answered(t, quota(remaining=1, reset=0.8))
    ticket, wait = lim.try_start()
    assert ticket is None and wait == pytest.approx(0.8 / 2)  # reset / (remaining + 1)


def test_a_low_answer_cuts_the_pace_once_per_round_trip_and_gates_nothing():
    clock = Clock()
    lim = make(clock, rng=Fraction(0.0))
    tickets = [start(lim) for _ in range(4)]
    clock.t += 0.2
    lim.answered(tickets[0], quota(remaining=0, reset=1.0))
    assert lim.low_marks == 1 and lim.events == 1
    assert lim.pace() < 4.0 and lim.window is None and lim.open_at < clock.t  # no gate, no window cut
    lim.answered(tickets[1], quota(remaining=0, reset=1.0))  # the same round trip: one event
    assert lim.events == 1 and lim.rate_limited_replies == 0


def test_a_refusal_that_shows_capacity_left_is_random():
    clock = Clock()
    lim = make(clock)
    t = start(lim)
    lim.answered(t, quota(remaining=90, reset=0.1, limit=6000))
    for _ in range(5):
        clock.t += 1.0
        t = start(lim)
        assert lim.rate_limited(t, 1.0, quota=quota(remaining=95, reset=0.05, limit=6000)) is False
    assert lim.random_refusals == 5 and lim.events == 0 and lim.rate_limited_replies == 0
    assert lim.open_at < clock.t and lim.in_flight == 0  # no gate: only the refused request waits its own ask


def test_a_refusal_at_the_keys_limit_still_gates_and_cuts():
    clock = Clock()
    lim = make(clock)
    tickets = [start(lim) for _ in range(3)]
    clock.t += 0.01
    for t in tickets:
        lim.rate_limited(t, 0.5, quota=quota(remaining=0, reset=1.0))
    assert lim.random_refusals == 0 and lim.rate_limited_replies == 3 and lim.events == 1
    assert lim.open_at > clock.t


def test_without_headers_nothing_changes():
    """The same script with and without `quota=None` gives the same state: endpoints that send
    no headers get today's limiter."""
    states = []
    for with_none in (False, True):
        clock = Clock()
        lim = make(clock)
        for i in range(6):
            clock.t += 30.0  # past any gate and pace
            t = start(lim)
            clock.t += 0.3
            if i % 2:
                lim.rate_limited(t, 1.0, **({"quota": None} if with_none else {}))
            else:
                lim.answered(t, **({"quota": None} if with_none else {}))
        states.append(lim.snapshot())
    assert states[0] == states[1]


def test_a_header_never_holds_the_run_longer_than_a_refusal_could():
    clock = Clock()
    lim = make(clock, backoff_max=5.0, rng=Fraction(0.5))
    t = start(lim)
    lim.answered(t, Quota(tokens=Budget(150000.0, 10.0, 360.0)), tokens=1000)  # "6m0s" until the tokens are whole
    ticket, wait = lim.try_start()
    assert ticket is None and wait == pytest.approx(5.0)


def test_a_lone_refusal_whose_headers_show_the_key_spent_cuts_at_once():
    """Without headers a lone first 429 cuts no pace (its share is 1/5); with headers that
    show the key spent it needs no share: the endpoint said it is the key's limit."""
    for said, cuts in ((None, 0), (quota(remaining=0, reset=1.0), 1)):
        clock = Clock()
        lim = make(clock)
        t = start(lim)
        clock.t += 0.1
        lim.rate_limited(t, 0.25, **({"quota": said} if said else {}))
        assert lim.events == cuts and lim.open_at == pytest.approx(clock.t + 0.25)


def test_tokens_count_without_headers_too():
    """An answer without rate-limit headers still brings its tokens to the limiter: the mean
    tokens per request is what JUDGE_FLEET_TPM paces by (a user trial: with no headers the
    mean stayed unknown and JUDGE_FLEET_TPM did nothing)."""
    from types import SimpleNamespace

    from cowork_judge.transport.attempts import Held

    lim = make(Clock())
    ticket = start(lim)
    Held(lim, ticket).answered(SimpleNamespace(quota=None, prompt_tokens=1200, completion_tokens=185))
    assert lim.key.tokens_per_request == 1385
