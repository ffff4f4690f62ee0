"""Re-sending one request in place (`transport.retrying.resend_async`): the one retry loop
with a `Tries` of the request's own — only the failures it is told to take, each read once,
counted and audited; the end of its retries ends the attempt's loop the same way, without
reading the failure again; a random refusal's wait has no herd's spread. No clock: the
sleeps are recorded, not slept."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from cowork_judge.core.retry import RANDOM_REFUSAL_JITTER, RETRY_AFTER_JITTER, RetryPolicy
from cowork_judge.transport.attempts import Held, failure_of
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.quota import read_quota
from cowork_judge.transport.retrying import Answered, Ending, Tries, resend_async, retry_async
from cowork_judge.transport.stats import CallStats


class Reply:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class StatusError(Exception):
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status
        self.response = Reply(headers or {})


class _Log:
    def warning(self, *args):
        pass


def refused(exc: BaseException) -> bool:
    return failure_of(exc).at_admission


def tries_for(max_tries: int = 6, audited: list | None = None) -> Tries:
    return Tries("block-01 attempt 1 turn 2", policy=RetryPolicy(max_tries=max_tries, backoff_max_sec=2.0),
                 rng=random.Random(7), stats=CallStats(), redact=str, log=_Log(), unit="send",
                 audit=(lambda n, e: audited.append((n, e))) if audited is not None else None)


def run(tries: Tries, outcomes: list, *, ready=lambda: True, time_left=lambda: 1e9):
    """`resend_async` over scripted outcomes (an exception instance fails that send); returns
    (result or the exception, sends made, sleeps asked)."""
    sends: list[int] = []
    sleeps: list[float] = []

    async def send(no: int):
        sends.append(no)
        outcome = outcomes[no - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    async def sleep(sec: float) -> None:
        sleeps.append(sec)

    async def go():
        try:
            return await resend_async(tries, send, retried=refused, ready=ready, time_left=time_left,
                                      deadline_passed=lambda: False, entry=lambda n: {"turn": 2, "send": n}, sleep=sleep)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            return exc

    return asyncio.run(go()), sends, sleeps


def test_refusals_are_re_sent_counted_and_audited_once_each():
    audited: list = []
    tries = tries_for(audited=audited)
    got, sends, sleeps = run(tries, [StatusError(429, {"retry-after": "1"}), StatusError(429, {"retry-after": "1"}), "reply"])
    assert got == "reply" and sends == [1, 2, 3] and len(sleeps) == 2 and all(s >= 1.0 for s in sleeps)
    assert tries.stats.by_kind == {"rate_limit": 2}
    assert [(n, e["turn"], e["send"], e["failed"]) for n, e in audited] == [(1, 2, 1, "rate_limit"), (2, 2, 2, "rate_limit")]


def test_other_failures_pass_through_unrecorded():
    tries = tries_for()
    boom = StatusError(502)
    got, sends, sleeps = run(tries, [StatusError(429), boom])
    assert got is boom and sends == [1, 2] and len(sleeps) == 1
    assert tries.stats.by_kind == {"rate_limit": 1}  # the 502 is the attempt's loop's to read
    timeout = asyncio.TimeoutError()
    got, _, _ = run(tries_for(), [timeout])
    assert got is timeout


def test_the_end_of_the_re_sends_ends_the_attempts_loop_without_a_second_reading():
    tries = tries_for(max_tries=2)
    got, sends, _ = run(tries, [StatusError(429), StatusError(429)])
    assert isinstance(got, Ending) and got.ended.why == "gave_up" and got.ended.last.kind == "rate_limit"
    assert sends == [1, 2] and tries.stats.by_kind == {"rate_limit": 2}

    block = tries_for()
    attempts: list[int] = []

    async def attempt(no: int):
        attempts.append(no)
        raise got  # the backend's attempt lets the Ending out

    ended = asyncio.run(retry_async(block, attempt, ready=lambda: True, time_left=lambda: 1e9,
                                    deadline_passed=lambda: False))
    assert (ended.why, ended.attempts, attempts) == ("gave_up", 1, [1])
    assert block.stats.by_kind == {}  # not read, not counted again


def test_sends_used_up_by_random_refusals_fail_the_attempt_and_the_attempts_loop_goes_on():
    """Random refusals alone (headers showed capacity left) used up the request's sends:
    the attempt's loop counts one failed attempt — not read or counted again — waits the
    ask, and makes attempt 2; one non-random refusal among them ends it as before."""
    lim = Limiter(backoff_max_sec=2.0, rng=random.Random(1))

    def refusal(headers: dict[str, str]) -> StatusError:
        exc = StatusError(429, headers)
        try:  # the limiter reads the headers where the ticket is settled (below)
            with Held(lim, lim.try_start()[0]):
                raise exc
        except StatusError:
            pass
        return exc

    endings = []
    for kinds in (["random", "random"], ["random", "limit"]):
        outcomes = [refusal(_quota_headers(5990) if k == "random" else _quota_headers(0)) for k in kinds]
        assert [failure_of(o).random for o in outcomes] == [k == "random" for k in kinds]
        got, _, _ = run(tries_for(max_tries=2), outcomes)
        endings.append(got)
    assert [e.ended.random_luck for e in endings] == [True, False]

    for ending, want in zip(endings, [("answered", 2, [1, 2], 1), ("gave_up", 1, [1], 0)]):
        block = tries_for()
        attempts: list[int] = []
        sleeps: list[float] = []

        async def attempt(no: int, ending=ending):
            attempts.append(no)
            if no == 1:
                raise ending
            return Answered("verdicts")

        async def sleep(sec: float) -> None:
            sleeps.append(sec)

        ended = asyncio.run(retry_async(block, attempt, ready=lambda: True, time_left=lambda: 1e9,
                                        deadline_passed=lambda: False, sleep=sleep))
        assert (ended.why, ended.attempts, attempts, len(sleeps)) == want
        assert all(1.0 <= s <= 1.0 * (1 + RANDOM_REFUSAL_JITTER) for s in sleeps)  # the ask, no herd's spread
        assert block.stats.by_kind == {}  # recorded where it happened


def test_no_re_send_past_the_time_left_or_after_a_stop():
    got, sends, sleeps = run(tries_for(), [StatusError(429, {"retry-after": "5"})], time_left=lambda: 3.0)
    assert isinstance(got, Ending) and got.ended.why == "no_time" and sends == [1] and sleeps == []
    calls: list[int] = []

    def ready() -> bool:  # never asked before the first send: the attempt decided that one
        calls.append(1)
        return False

    got, sends, sleeps = run(tries_for(), [StatusError(429), "reply"], ready=ready)
    assert isinstance(got, Ending) and got.ended.why == "stopped" and sends == [1] and calls == [1]


# --------------------------------------------------------------------------- a random refusal


def _quota_headers(remaining: int) -> dict[str, str]:
    return {"retry-after": "1", "x-ratelimit-limit-requests": "6000", "x-ratelimit-remaining-requests": str(remaining),
            "x-ratelimit-reset-requests": "10ms"}


def test_the_limiter_judges_a_refusal_random_where_the_ticket_is_settled():
    lim = Limiter(backoff_max_sec=2.0, rng=random.Random(1))
    random_429 = StatusError(429, _quota_headers(95))
    with pytest.raises(StatusError), Held(lim, lim.try_start()[0]):
        raise random_429
    assert failure_of(random_429).random and lim.random_refusals == 1
    spent_429 = StatusError(429, _quota_headers(0))
    with pytest.raises(StatusError), Held(lim, lim.try_start()[0]):
        raise spent_429
    assert not failure_of(spent_429).random  # the key's own limit
    bare_429 = StatusError(429, {"retry-after": "1"})
    with pytest.raises(StatusError), Held(lim, lim.try_start()[0]):
        raise bare_429
    assert not failure_of(bare_429).random  # nothing tells it apart
    tries = tries_for()
    tries.begin()
    assert tries.record_failure(random_429, t0=time.monotonic(), deadline_passed=False).random
    assert read_quota(random_429.response.headers) is not None


@pytest.mark.parametrize("asked", [0.05, 1.0, 7.5])
def test_a_random_refusal_waits_the_ask_and_at_most_a_small_jitter_whatever_n(asked):
    policy = RetryPolicy(backoff_max_sec=20.0)
    for n in (1, 2, 5):
        draws = [policy.wait_sec("rate_limit", n, random.Random(seed), asked, herd=False) for seed in range(300)]
        assert min(draws) >= asked and max(draws) <= asked * (1 + RANDOM_REFUSAL_JITTER)
        herd = [policy.wait_sec("rate_limit", n, random.Random(seed), asked) for seed in range(300)]
        assert max(herd) > asked * (1 + RETRY_AFTER_JITTER / 2)  # the herd's spread, for comparison
    assert policy.wait_sec("rate_limit", 1, random.Random(1), None, herd=False) >= 1.0  # no ask: the backoff


def test_a_random_refusal_is_re_sent_after_its_ask_alone():
    random_429 = StatusError(429, _quota_headers(95))
    lim = Limiter(backoff_max_sec=2.0, rng=random.Random(1))
    with pytest.raises(StatusError), Held(lim, lim.try_start()[0]):  # settled: judged random
        raise random_429
    got, _, sleeps = run(tries_for(), [random_429, "x"])
    assert got == "x" and len(sleeps) == 1 and 1.0 <= sleeps[0] <= 1.0 + RANDOM_REFUSAL_JITTER
