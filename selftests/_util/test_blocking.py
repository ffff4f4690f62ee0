"""One concurrency model (issue 38): each waiting loop of a model call is written once as a
coroutine, and a workflow's thread runs that same coroutine with blocking steps
(`cowork_judge._util.blocking`). These tests drive the real loops — the limiter's admission and
the retry loop — both ways and check they decide alike, that a cancel event cuts a thread's
wait, that threads and an event loop share one limiter, and that a coroutine left with an
asyncio step is refused in words rather than hung."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import threading

import pytest

from cowork_judge._util.blocking import NotBlocking, blocking, cancellable_sleep, run_blocking
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.retrying import Answered, Tries, Unusable, retry_async, retry_blocking
from cowork_judge.transport.stats import CallStats


class _Log:
    def warning(self, *args):
        pass


class Refused(Exception):
    status_code = 500  # a server error: retried by the failure table


def _tries() -> Tries:
    return Tries("workflow w call c", policy=RetryPolicy(max_tries=4, backoff_max_sec=2.0), rng=random.Random(3),
                 stats=CallStats(), redact=str, log=_Log())


OUTCOMES = [Refused("boom"), "unusable", Refused("boom"), "answer"]


def _attempt(made: list[int]):
    def attempt(no: int):
        made.append(no)
        outcome = OUTCOMES[no - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return Unusable("no verdict") if outcome == "unusable" else Answered(outcome)

    return attempt


def test_run_blocking_returns_the_value_and_raises_what_the_coroutine_raised():
    async def steps(x: int) -> int:
        doubled = await blocking(lambda v: v * 2)(x)
        return doubled + 1

    async def fails() -> None:
        await blocking(lambda: None)()
        raise KeyError("inner")

    assert run_blocking(steps(20)) == 41
    with pytest.raises(KeyError, match="inner"):
        run_blocking(fails())


def test_a_coroutine_left_with_an_asyncio_step_is_refused_and_closed():
    closed = []

    async def suspends() -> None:
        try:
            await asyncio.sleep(0)
        finally:
            closed.append(True)

    with pytest.raises(NotBlocking, match="blocking steps"):
        run_blocking(suspends())
    assert closed == [True]


def test_the_blocking_retry_loop_decides_as_the_async_one():
    slept_async: list[float] = []
    made_async: list[int] = []

    async def sleep(sec: float) -> None:
        slept_async.append(sec)

    tries_async = _tries()
    ended_async = asyncio.run(retry_async(tries_async, blocking(_attempt(made_async)), ready=lambda: True,
                                          time_left=lambda: 1e9, deadline_passed=lambda: False, sleep=sleep))
    made: list[int] = []
    tries = _tries()
    cancel = threading.Event()
    ended = retry_blocking(tries, _attempt(made), ready=lambda: True, time_left=lambda: 1e9,
                           deadline_passed=lambda: False, cancel=cancel)
    assert (ended.why, ended.value, ended.attempts) == (ended_async.why, ended_async.value, ended_async.attempts) \
        == ("answered", "answer", 4)
    assert made == made_async == [1, 2, 3, 4]
    assert tries.stats.by_kind == tries_async.stats.by_kind and sum(tries.stats.by_kind.values()) == 3


def test_a_sleep_that_says_it_was_cancelled_ends_the_async_loop_cancelled():
    """The async loop reads its sleep's answer: the thread's cancel event reaches it through
    `cancellable_sleep` (on d8de314 the async loop ignored it and only the twin honoured it)."""
    made: list[int] = []

    async def cancelled(sec: float) -> bool:
        return True

    ended = asyncio.run(retry_async(_tries(), blocking(_attempt(made)), ready=lambda: True, time_left=lambda: 1e9,
                                    deadline_passed=lambda: False, sleep=cancelled))
    assert (ended.why, made) == ("cancelled", [1])


def test_a_set_cancel_event_cuts_a_threads_retry_wait_and_admission():
    cancel = threading.Event()
    cancel.set()
    made: list[int] = []
    ended = retry_blocking(_tries(), _attempt(made), ready=lambda: True, time_left=lambda: 1e9,
                           deadline_passed=lambda: False, cancel=cancel)
    assert (ended.why, made) == ("cancelled", [1])
    assert run_blocking(cancellable_sleep(cancel)(3600.0)) is True


def test_threads_and_an_event_loop_share_one_limiter():
    """Workflow threads (blocking admission) and agentic blocks (async admission) on one
    limiter: every ticket is counted in the same `in_flight`, under its lock."""
    lim = Limiter(backoff_max_sec=20.0, rng=random.Random(1))
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(lim.acquire_blocking(threading.Event(), 1e12)))
               for _ in range(8)]
    for t in threads:
        t.start()

    async def blocks() -> list[object]:
        return list(await asyncio.gather(*(lim.acquire(1e12) for _ in range(8))))

    got += asyncio.run(blocks())
    for t in threads:
        t.join(10)
    assert len(got) == 16 and all(t is not None for t in got)
    assert lim.in_flight == 16


def test_the_blocking_paths_load_no_asyncio():
    """A workflow thread's admission and retry loop import no asyncio (a code-only run's
    start-up stays small): the coroutine gets blocking steps, never asyncio's."""
    code = (
        "import sys, threading, random\n"
        "from cowork_judge.transport.limiter import Limiter\n"
        "from cowork_judge.transport.retrying import Tries, Answered, retry_blocking\n"
        "from cowork_judge.transport.stats import CallStats\n"
        "from cowork_judge.core.retry import RetryPolicy\n"
        "lim = Limiter()\n"
        "assert lim.acquire_blocking(threading.Event()) is not None\n"
        "class L:\n    def warning(self, *a): pass\n"
        "t = Tries('w', policy=RetryPolicy(), rng=random.Random(1), stats=CallStats(), redact=str, log=L())\n"
        "e = retry_blocking(t, lambda n: Answered(n), ready=lambda: True, time_left=lambda: 9.0,\n"
        "                   deadline_passed=lambda: False, cancel=threading.Event())\n"
        "assert e.why == 'answered'\n"
        "print('asyncio' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"
