"""The run's one retry loop: how the attempts of one agentic block or one workflow model
call follow each other (SPEC §11).

One decision core, one driver:

- `Tries` — the attempts of one block or call under the run's retry policy
  (`core.retry.RetryPolicy`, the failure table): it counts attempts, reads a failure ONCE
  (`transport.attempts.failure_of`, memoised on the exception, so the limiter ticket's
  settlement and the retry decision read the same kind and the same ``Retry-After``),
  counts it (`CallStats.failed`), logs and audits it with the reason redacted, and decides
  what comes next (`Tries.after`): give up (not retried, or ``JUDGE_MAX_TRIES`` reached),
  give up because the wait would outlast the time left, or wait — ONE jittered wait per
  failure (`RetryPolicy.wait_sec`: at least the server's ask, jittered upward — at most 5 %
  for a random refusal, `Failed.random`; else the SPEC §11 backoff). The run's limiter
  holds the whole run for the server's ask itself, without a draw of its own
  (`transport.limiter`): one ask, one jittered wait.
- `_loop` — the loop itself, as a generator that yields what to do (make attempt n, or
  sleep s seconds) and is sent what happened: every decision (when to stop before an
  attempt, what a failure means, how long to wait, when to give up) is made here, once.
- `retry_async` only performs what `_loop` asks for: on an agentic block's asyncio loop,
  or — `retry_blocking`, a thin adapter — on a workflow call's worker thread, the same
  coroutine driven there with blocking steps (`cowork_judge._util.blocking`; its sleep
  wakes on the workflow's cancel event); `resend_async` runs the same loop for ONE request inside a
  running attempt (an agentic turn refused at admission is re-sent in place, with a
  `Tries` of its own) and, when its retries end without an answer, raises `Ending`, which
  ends the attempt's loop the same way without reading the failure again — except when
  only random refusals used up the request's sends (bad luck, not the key's limit): the
  attempt then counts as failed and the attempt's loop goes on (`Ended.random_luck`, once
  a loop: `LUCK_PER_LOOP`).

The callers keep what is theirs, through hooks: the scheduler its block budget, resplit
and run-wide stop (`agentic.scheduler`), the workflow caller its in-flight slots, start
jitter, admission and cancel event (`workflow.caller`); each formats its own reasons from
the `Ended` it gets back. An attempt returns `Answered` (the loop ends), `Unusable` (a
reply without a usable verdict: ``parse_error``, retried by the table) or `Again` (not a
failure: the same attempt once more, uncounted), or raises (a failure, classified; the
exception types the caller names in `raises` pass through unclassified). What an attempt
asks and returns is the caller's (`T`): asking the same rows k times, or a batch of
re-asks, is an attempt function, not another loop.

Importing this module loads no model client and no asyncio (a code-only run's start-up).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, Union

from cowork_judge._util.blocking import blocking, cancellable_sleep, run_blocking
from cowork_judge.core.classify import summary
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.transport.attempts import failure_of
from cowork_judge.transport.stats import CallStats

T = TypeVar("T")


@dataclass(frozen=True)
class Failed:
    """One failed attempt as `Tries` recorded it.

    Attributes:
        kind: its `ErrorKind` (the deadline applied); said: the redacted summary (for an
            unusable reply, the parser's problems); asked_sec: the server's wait, seconds,
            or None; random: a random refusal (`transport.attempts.Failure.random`: its
            own headers showed capacity left), whose wait has no herd's spread.
    """

    kind: ErrorKind
    said: str
    asked_sec: float | None
    random: bool = False


Why = Literal["answered", "stopped", "gave_up", "no_time", "cancelled"]
"""Why a loop ended: an attempt answered; the caller's `ready` hook stopped it before an
attempt; the policy gave up (not retried, or JUDGE_MAX_TRIES reached); the next wait would
outlast the time left; the caller's cancel event woke a wait."""


@dataclass(frozen=True)
class Decision:
    """What comes after a failure (`Tries.after`): wait `wait_sec` seconds and try again,
    or end (`wait_sec` None) for the reason `why` (``gave_up`` or ``no_time``)."""

    wait_sec: float | None
    why: Why = "gave_up"


class Tries:
    """The attempts of one block or one workflow call under the run's retry policy.

    Args:
        what: how logs name the attempts (``block-01``, ``workflow w call p1``).
        policy: the retry policy (failure table, JUDGE_MAX_TRIES, JUDGE_RETRY_BACKOFF_MAX).
        rng: the run's random source (the one jittered wait per failure).
        stats: the run's counters (failures by kind).
        redact: removes secrets from reasons.
        log: the run's logger.
        audit: ``audit(attempt_no, entry)`` writes one record of a failed attempt.
        unit: how logs name one attempt (``send`` for a request re-sent in place).
    """

    def __init__(self, what: str, *, policy: RetryPolicy, rng: random.Random, stats: CallStats,
                 redact: Callable[[str], str], log: logging.Logger,
                 audit: Callable[[int, dict[str, Any]], None] | None = None, unit: str = "attempt") -> None:
        self.what = what
        self.unit = unit
        self.policy = policy
        self.rng = rng
        self.stats = stats
        self.redact = redact
        self.log = log
        self.audit = audit
        self.attempts = 0
        """Attempts begun so far."""
        self.backoffs = 0
        """Failures of backing-off kinds (rate limiting) so far: the n of the backoff."""

    def begin(self) -> int:
        """Count one more attempt; returns its 1-based number."""
        self.attempts += 1
        return self.attempts

    def record_failure(self, exc: BaseException, *, t0: float, deadline_passed: bool, **entry: Any) -> Failed:
        """Record a failed attempt begun at `t0` (monotonic s): its kind (read once,
        `failure_of`), counted, logged and audited (`entry` first, then ``failed``,
        ``error``, ``seconds``, and ``random_refusal`` for a random refusal) with the reason
        redacted."""
        failure = failure_of(exc)
        kind = failure.kind(deadline_passed=deadline_passed)
        said = self.redact(summary(exc))
        self.stats.count_failure(kind)
        if self.audit is not None:
            record = {**entry, "failed": kind, "error": said, "seconds": round(time.monotonic() - t0, 3)}
            if failure.random:
                record["random_refusal"] = True
            self.audit(self.attempts, record)
        self.log.warning("%s %s %d failed (%s%s): %s", self.what, self.unit, self.attempts, kind,
                         ", a random refusal" if failure.random else "", said)
        return Failed(kind, said, failure.asked_sec, failure.random)

    def unusable(self, problems: str) -> Failed:
        """Record an attempt whose reply held no usable verdict (``parse_error``; `problems`
        is the parser's account, the failure's `Failed.said`)."""
        self.stats.count_failure("parse_error")
        self.log.warning("%s %s %d: unusable reply (%s)", self.what, self.unit, self.attempts, problems)
        return Failed("parse_error", problems, None)

    def next_wait(self, kind: ErrorKind, asked_sec: float | None, *, random_refusal: bool = False) -> float | None:
        """Seconds to wait before the next attempt after a failure of `kind`, or None when
        the policy gives up (not retried, or JUDGE_MAX_TRIES reached). One jittered draw
        (`RetryPolicy.wait_sec`: at least the server's ask `asked_sec`, else the backoff;
        `random_refusal`: the ask plus at most a small jitter, no herd's spread)."""
        if not self.policy.retries(kind) or self.attempts >= self.policy.max_tries:
            return None
        if self.policy.backs_off(kind):
            self.backoffs += 1
        if random_refusal:
            return self.policy.wait_sec(kind, self.backoffs, self.rng, asked_sec, herd=False)
        return self.policy.wait_sec(kind, self.backoffs, self.rng, asked_sec)

    def after(self, failed: Failed, time_left_sec: float) -> Decision:
        """What comes after `failed` with `time_left_sec` seconds left for the block or call:
        the policy's wait (`next_wait`), or the end — the policy gives up (``gave_up``), or
        the wait would reach the end of the time left (``no_time``)."""
        wait = self.next_wait(failed.kind, failed.asked_sec, random_refusal=failed.random)
        if wait is None:
            return Decision(None, "gave_up")
        if wait >= time_left_sec:
            return Decision(None, "no_time")
        return Decision(wait)


# --------------------------------------------------------------------------- what an attempt returns


@dataclass(frozen=True)
class Answered(Generic[T]):
    """An attempt that answered: the loop ends with `value`."""

    value: T


@dataclass(frozen=True)
class Unusable:
    """An attempt that got a reply without a usable verdict (``parse_error``): `problems`
    says why (shown in the row's reason)."""

    problems: str


@dataclass(frozen=True)
class Again:
    """Not a failure: make the same attempt once more, uncounted (a workflow call whose
    endpoint rejected ``response_format`` is re-sent without it)."""


Result = Union[Answered[T], Unusable, Again]
"""What an attempt function returns (it raises on a failure)."""


@dataclass(frozen=True)
class Ended(Generic[T]):
    """How a loop ended.

    Attributes:
        why: see `Why`.
        value: the answer (``why == "answered"``), else None.
        last: the last failure, None when no attempt failed.
        attempts: attempts made (`Tries.attempts`).
        all_random: every failure was a random refusal (`Failed.random`); set when the
            policy ended the loop (given up, no time), else False.
    """

    why: Why
    value: T | None
    last: Failed | None
    attempts: int
    all_random: bool = False

    @property
    def random_luck(self) -> bool:
        """The retries gave up (JUDGE_MAX_TRIES reached) and every failure was a RANDOM
        refusal (`Failed.random`: its own headers showed capacity left): bad luck, not a
        limit or a broken request — the attempt's loop counts the attempt as failed and
        goes on by the table, instead of ending with it (`resend_async`)."""
        return self.why == "gave_up" and self.all_random and self.last is not None


class Ending(Exception):
    """Raised out of an attempt when an in-place retry of one of its requests ended without
    an answer (`resend_async`): the attempt's own loop then ends the same way (`ended.why`),
    without reading the failure again — it was recorded (counted, audited) where it
    happened. Never classified."""

    def __init__(self, ended: Ended[Any]) -> None:
        super().__init__(f"an in-place retry ended: {ended.why}")
        self.ended = ended


LUCK_PER_LOOP = 1
"""How many times one loop of attempts goes on after an in-place retry that random refusals
alone ended (`Ended.random_luck`). Once: at 30 % random refusals a turn's six sends are all
refused for 0.07 % of turns, twice in one block practically never — while refusals that
only LOOK random (headers that keep showing capacity, a gateway's concurrency limit) would
otherwise cost JUDGE_MAX_TRIES² sends a turn; with one, at most 2 × JUDGE_MAX_TRIES."""


@dataclass(frozen=True)
class _Attempt:
    no: int


@dataclass(frozen=True)
class _Sleep:
    sec: float


_Step = Union[_Attempt, _Sleep]
_Sent = Union[tuple[Any, Union[BaseException, None]], bool, None]


def _loop(tries: Tries, *, ready: Callable[[], bool], time_left: Callable[[], float],
          deadline_passed: Callable[[], bool], entry: Callable[[int], dict[str, Any]],
          on_failure: Callable[[Failed], None], raises: tuple[type[BaseException], ...],
          retried: Callable[[BaseException], bool] | None = None) -> Generator[_Step, _Sent, Ended[Any]]:
    """The one retry loop (see the module docstring). Yields `_Attempt` (is sent ``(result,
    None)`` or ``(None, exception)``) and `_Sleep` (is sent True when a cancel woke it).
    An exception of a type in `raises`, or one that `retried` (when given) does not accept,
    ends the loop: it is re-raised, unclassified. An `Ending` raised by an attempt ends
    the loop as the in-place retry inside it ended — unless only random refusals used up
    its sends (`Ended.random_luck`), the first time in this loop (`LUCK_PER_LOOP`): then the
    attempt failed with the last of them, and the loop goes on as after any failure (its
    wait, its JUDGE_MAX_TRIES)."""
    last: Failed | None = None
    all_random = True  # every failure so far a random refusal (`Ended.random_luck`)
    luck_left = LUCK_PER_LOOP
    while tries.attempts < tries.policy.max_tries:
        if not ready():
            return Ended("stopped", None, last, tries.attempts)
        no = tries.begin()
        t0 = time.monotonic()
        sent = yield _Attempt(no)
        assert isinstance(sent, tuple)
        result, exc = sent
        if isinstance(exc, Ending):  # recorded where it happened: not read again
            if not (exc.ended.random_luck and luck_left > 0):
                return Ended(exc.ended.why, None, exc.ended.last or last, tries.attempts)
            luck_left -= 1
            last = exc.ended.last  # only random refusals used up the request's sends: this attempt failed
            assert last is not None  # `random_luck` holds a last failure
        elif isinstance(exc, raises) or (exc is not None and retried is not None and not retried(exc)):
            raise exc
        elif exc is not None:
            last = tries.record_failure(exc, t0=t0, deadline_passed=deadline_passed(), **entry(no))
        elif isinstance(result, Again):
            tries.attempts -= 1
            continue
        elif isinstance(result, Unusable):
            last = tries.unusable(result.problems)
        else:
            return Ended("answered", result.value, last, tries.attempts)
        all_random = all_random and last.random
        on_failure(last)
        decision = tries.after(last, time_left())
        if decision.wait_sec is None:
            return Ended(decision.why, None, last, tries.attempts, all_random)
        if (yield _Sleep(decision.wait_sec)):
            return Ended("cancelled", None, last, tries.attempts)
    return Ended("gave_up", None, last, tries.attempts, all_random and last is not None)


def _nothing(_failed: Failed) -> None:
    return None


def _no_entry(_no: int) -> dict[str, Any]:
    return {}


async def retry_async(tries: Tries, attempt: Callable[[int], Awaitable[Result[T]]], *, ready: Callable[[], bool],
                      time_left: Callable[[], float], deadline_passed: Callable[[], bool],
                      entry: Callable[[int], dict[str, Any]] = _no_entry,
                      on_failure: Callable[[Failed], None] = _nothing,
                      raises: tuple[type[BaseException], ...] = (),
                      retried: Callable[[BaseException], bool] | None = None,
                      sleep: Callable[[float], Awaitable[bool | None]] | None = None) -> Ended[T]:
    """Run the retry loop: on an asyncio loop (an agentic block, or a request re-sent in
    place, `resend_async`), or on a thread with blocking steps (`retry_blocking`).

    Args:
        tries: the block's `Tries`.
        attempt: ``attempt(n)``, attempt number n (1-based): a `Result`, or raises a failure.
        ready: called before each attempt; False ends the loop (``stopped``) — the caller
            records why (its budget, the run-wide stop, the deadline).
        time_left: seconds left for the block; a wait that reaches it ends the loop (``no_time``).
        deadline_passed: the run's deadline has passed (a timeout then reads ``deadline``).
        entry: the audit fields of attempt n's failure record (before ``failed``, ``error``…).
        on_failure: called with each failure, before the decision (the caller's reasons,
            the run-wide stop).
        raises: exception types of `attempt` that end the loop unclassified (re-raised).
        retried: when given, only the failures it accepts are this loop's; any other ends the
            loop unclassified (re-raised).
        sleep: how a wait is waited (default ``asyncio.sleep``): the scheduler's gives the
            block's in-flight lane back meanwhile (`agentic.lanes`); a sleep that returns
            True was cancelled, and the loop ends ``cancelled``.

    Cancelling the task cancels the attempt or the sleep (``asyncio.CancelledError``
    is never a failure).
    """
    if sleep is None:
        import asyncio  # not at import time: a workflow call (`retry_blocking`) never loads it

        sleep = asyncio.sleep
    loop = _loop(tries, ready=ready, time_left=time_left, deadline_passed=deadline_passed, entry=entry,
                 on_failure=on_failure, raises=raises, retried=retried)
    try:
        step = next(loop)
        while True:
            if isinstance(step, _Attempt):
                try:
                    sent: _Sent = (await attempt(step.no), None)
                except Exception as exc:  # a failure: `_loop` classifies it (once)
                    sent = (None, exc)
            else:
                sent = bool(await sleep(step.sec))
            step = loop.send(sent)
    except StopIteration as stop:
        ended: Ended[T] = stop.value
        return ended


async def resend_async(tries: Tries, send: Callable[[int], Awaitable[T]], *, retried: Callable[[BaseException], bool],
                       ready: Callable[[], bool], time_left: Callable[[], float], deadline_passed: Callable[[], bool],
                       entry: Callable[[int], dict[str, Any]] = _no_entry,
                       on_failure: Callable[[Failed], None] = _nothing,
                       sleep: Callable[[float], Awaitable[None]] | None = None) -> T:
    """Make one request of a running attempt and re-send it IN PLACE — the same attempt, the
    same conversation — after each failure that `retried` accepts (an agentic turn refused
    at admission, `agentic.scheduler`): the one loop (`_loop`) with a `Tries` of its own
    for the request, so those failures are read once, counted, audited, redacted and waited
    for exactly as an attempt's are, and the request has its own JUDGE_MAX_TRIES sends.

    Args:
        tries: the request's `Tries` (fresh: the first send is its attempt 1).
        send: ``send(n)``, send n of the request (1-based): its reply, or raises.
        retried: the failures re-sent here; any other propagates from the first failure on,
            unrecorded (the attempt fails with it, and the attempt's loop reads it once).
        ready: called before each RE-send (never before the first: the attempt made that
            decision); False ends the retries (``stopped``).
        time_left, deadline_passed, entry, on_failure, sleep: as `retry_async`.

    Returns:
        The reply.

    Raises:
        Ending: the retries ended without a reply (given up, no time left, stopped); the
            attempt's loop (`retry_async`) ends the same way — or, when random refusals
            alone used up the sends (`Ended.random_luck`), counts the attempt as failed.
        What `send` raised that `retried` does not accept.
    """

    async def attempt(no: int) -> Result[T]:
        return Answered(await send(no))

    ended: Ended[T] = await retry_async(tries, attempt, ready=lambda: tries.attempts == 0 or ready(), time_left=time_left,
                                        deadline_passed=deadline_passed, entry=entry, on_failure=on_failure,
                                        retried=retried, sleep=sleep)
    if ended.why != "answered":
        raise Ending(ended)
    return ended.value  # type: ignore[return-value]  # answered: the reply


def retry_blocking(tries: Tries, attempt: Callable[[int], Result[T]], *, ready: Callable[[], bool],
                   time_left: Callable[[], float], deadline_passed: Callable[[], bool], cancel: threading.Event,
                   entry: Callable[[int], dict[str, Any]] = _no_entry,
                   on_failure: Callable[[Failed], None] = _nothing,
                   raises: tuple[type[BaseException], ...] = ()) -> Ended[T]:
    """`retry_async` on a thread (a workflow call), a thin adapter: the same coroutine, run on
    this thread (`cowork_judge._util.blocking.run_blocking`) with `attempt` as a blocking step
    and a sleep that ends early (``cancelled``) when `cancel` is set."""
    return run_blocking(retry_async(tries, blocking(attempt), ready=ready, time_left=time_left,
                                    deadline_passed=deadline_passed, entry=entry, on_failure=on_failure, raises=raises,
                                    sleep=cancellable_sleep(cancel)))
