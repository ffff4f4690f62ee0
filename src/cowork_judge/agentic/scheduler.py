"""Scheduling agentic blocks: batches, concurrency, start jitter, retries, resplit, deadline.

A block's attempts are retried by the run's one retry loop (`transport.retrying`: the
failure classified once, counted, audited, redacted, one jittered wait per failure, the
give-up decisions); this module decides only what is the block's own: its attempt-time
budget, the run-wide stop, resplit, the deadline and its in-flight lane (`agentic.lanes`).

A model turn the endpoint refuses AT ADMISSION (HTTP 429, `transport.attempts.Failure`)
does not fail the attempt of a backend that sends its turns through the run's call path
(the built-in one): it is re-sent in place — same attempt, same conversation — by the same
loop (`transport.retrying.resend_async`, up to ``JUDGE_MAX_TRIES`` sends of that turn),
after the server's ask; the wait pauses the attempt's clock (`agentic.attempt_clock`: it
is neither the attempt's ``JUDGE_PER_TIMEOUT`` nor the block budget), and after a random
refusal the block lends its lane to another block meanwhile. When the turn's sends run out,
the block ends (``rate_limit``) — unless random refusals alone used them up (bad luck at
30 % random refusals, not the key's limit): then the attempt fails and the block's next
attempt resumes the conversation at that turn, after the ask, its lane lent meanwhile —
once a block (`transport.retrying.Ended.random_luck`, `LUCK_PER_LOOP`; before, such a
block was re-judged row by row, one row after the other, and that tail made single runs
of ``bench/faults.py --rows 40`` take 5× the fault-free window). Everything else (timeouts, 5xx, errors inside a 200 stream,
unusable replies) fails the attempt, as below.

Time limits nest (SPEC §11): one attempt ≤ ``JUDGE_PER_TIMEOUT`` ⊂ one block ≤
``2 × JUDGE_PER_TIMEOUT`` of attempt time ⊂ the run ≤ ``JUDGE_DEADLINE``. The block
budget counts the time spent inside attempts, not the pauses between them: waiting out a
rate-limit window is not judging, so a block that is only rate limited (seconds-fast
failures) always gets all ``JUDGE_MAX_TRIES`` attempts, while a block whose calls time out
burns its budget in about two attempts. Which failures are retried, which back off, which
are worth a resplit and which stop the run is read from the failure table through the
run's retry policy (`ctx.retry`, `cowork_judge.core.retry`, `cowork_judge.core.consequences`): only rate limiting backs
off — at least what the server asked (``Retry-After``/``retry-after-ms``, jittered upward,
bounded by ``JUDGE_RETRY_BACKOFF_MAX`` unless it asked for more), else ``uniform(1,
min(JUDGE_RETRY_BACKOFF_MAX, 2·3^(n−1)))``, n = the block's backing-off failures so far;
other transient failures retry after 1 s. Every model call of the run also passes the
run's one limiter (`ctx.limiter`, `transport.limiter`: gate, pace and window learned
from rate-limit replies, shared with the workflow calls);
``insufficient_quota`` gives up at once, and for the whole run (the account has no credit:
no further call can succeed). A block whose attempts all failed is re-judged row by row (``JUDGE_RESPLIT``),
each row with one per-call timeout of attempt time and the same retry policy, within the
deadline and never for a permanent failure. Resplit exists for blocks that are too slow
or too big to answer; against a full rate-limit window it only multiplies calls, so a
block's resplit stops at the first row that is still rate limited after its tries (the
remaining rows keep the block's ``rate_limit`` verdict). At the deadline everything still
running is cancelled (the HTTP streams with it): rows judged so far keep their verdicts,
the rest are unjudged ``deadline``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cowork_judge.agentic.attempt_clock import AttemptClock
from cowork_judge.agentic.base import MIN_ATTEMPT_FRACTION, AgentBackend, BackendFailure
from cowork_judge.agentic.lanes import Lane, Lanes
from cowork_judge.agentic.workspace import build_workspace
from cowork_judge.core.classify import summary
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict, block_verdicts
from cowork_judge.segment.segment_context import SegmentContext
from cowork_judge.transport.attempts import failure_of
from cowork_judge.transport.retrying import Answered, Failed, Result, Tries, Unusable, resend_async, retry_async

T = TypeVar("T")

@dataclass
class RunState:
    """What the blocks of one run share: attempts per row, and a stop signal.

    Attributes:
        attempts: row id → attempts made on it so far (block and resplit attempts).
        stopped: ``(kind, reason)`` once a failure stopped the whole run, else None.
    """

    attempts: dict[str, int] = field(default_factory=dict)
    stopped: tuple[ErrorKind, str] | None = None

    def count_attempt(self, rows: Sequence[Criterion]) -> None:
        """Record one attempt on each of `rows`."""
        for row in rows:
            self.attempts[row.id] = self.attempts.get(row.id, 0) + 1


def split_blocks(rows: Sequence[Criterion], batch: int) -> list[tuple[str, list[Criterion]]]:
    """Cut rows into blocks of `batch` rows, named ``block-01``, ``block-02``…"""
    blocks = [list(rows[i : i + batch]) for i in range(0, len(rows), batch)]
    width = max(2, len(str(len(blocks))))
    return [(f"block-{n:0{width}d}", b) for n, b in enumerate(blocks, start=1)]


def first_wave_delays(n_blocks: int, concurrency: int, jitter_sec: float, rng: random.Random) -> list[float]:
    """Start delays in seconds: each first-wave block waits ``uniform(0, jitter)``.

    The first wave is the first `concurrency` blocks; later blocks start when a slot
    frees (the delay is slept while holding the slot), so they wait 0 here.
    """
    return [rng.uniform(0.0, jitter_sec) if (i < concurrency and jitter_sec > 0) else 0.0 for i in range(n_blocks)]


async def judge_blocks(rows: Sequence[Criterion], ctx: SegmentContext, backend: AgentBackend) -> dict[str, Verdict]:
    """Judge all agentic `rows`; returns exactly one verdict per row.

    Never runs past ``ctx.deadline``: what is still running then is cancelled.
    """
    cfg = ctx.settings
    blocks = split_blocks(rows, cfg.batch)
    delays = first_wave_delays(len(blocks), cfg.concurrency, cfg.start_jitter_sec, ctx.rng)
    state = RunState()
    by_block = await run_blocks(blocks, ctx, backend, delays=delays, state=state)
    results = {cid: verdict for verdicts in by_block.values() for cid, verdict in verdicts.items()}
    for row in rows:
        if row.id not in results:
            results[row.id] = Verdict.unjudged(
                row.id, "deadline", "JUDGE_DEADLINE reached before this row was judged",
                attempts=state.attempts.get(row.id, 0),
            )
    return {row.id: results[row.id] for row in rows}


async def run_blocks(blocks: Sequence[tuple[str, list[Criterion]]], ctx: SegmentContext, backend: AgentBackend, *,
                     delays: Sequence[float], state: RunState) -> dict[str, dict[str, Verdict]]:
    """Judge each named block once — its attempts, its resplit — at most ``JUDGE_CONCURRENCY``
    blocks at a time, until done or ``ctx.deadline``.

    Args:
        blocks: ``(name, rows)`` pairs; a row may stand in several blocks (samples of it).
        delays: each block's start delay, seconds (`first_wave_delays`), slept holding its slot.
        state: what the blocks share (attempts per row, the run-wide stop).

    Returns:
        Block name → row id → verdict, for the rows each block settled; a block the deadline
        cut off misses the rows it had not judged (the caller decides what they become).
    """
    cfg = ctx.settings
    resplit_kinds = ctx.retry.kinds_where("resplit")  # never a permanent kind, never `deadline`
    results: dict[str, dict[str, Verdict]] = {name: {} for name, _ in blocks}
    waiting = [d for d in delays if d > 0]
    if waiting:  # a silent first minute looks like a hang: say why the run waits
        ctx.log.info("start jitter: the first %d block(s) wait %s s before their first request (JUDGE_START_JITTER=%g "
                     "spreads a fleet's first wave; a single run can set JUDGE_START_JITTER=0)",
                     len(waiting), ", ".join(f"{d:.1f}" for d in waiting), cfg.start_jitter_sec)
    lanes = Lanes(cfg.concurrency)

    async def run(index: int, name: str, block: list[Criterion]) -> None:
        try:
            await run_block(index, name, block)
        except Exception as exc:  # not a model failure (those are classified): this block only
            reason = ctx.redactor.redact(f"the block could not be judged: {summary(exc)}")
            ctx.log.error("%s: %s", name, reason)
            mine = results[name]
            for c in block:
                if c.id not in mine or not mine[c.id].judged:
                    mine[c.id] = Verdict.unjudged(c.id, "backend_error", reason, attempts=state.attempts.get(c.id, 0))

    async def run_block(index: int, name: str, block: list[Criterion]) -> None:
        """The block, then (resplit) each of its rows a resplit kind left unjudged, one by one:
        every part of it judged by the one `judge_block` call, holding the block's lane."""
        mine = results[name]
        parts: list[tuple[str, list[Criterion]]] = [(name, block)]
        async with lanes.lane() as lane:
            if delays[index] > 0:  # slept holding the lane: the first wave's requests stay spread
                await asyncio.sleep(min(delays[index], max(0.0, ctx.deadline.remaining())))
            for n, (part, rows) in enumerate(parts):
                if n and (ctx.deadline.passed() or state.stopped is not None):
                    break
                before = mine.pop(rows[0].id) if n else None  # cut off by the deadline, the row is unjudged `deadline`
                verdicts = await judge_block(part, rows, ctx, backend, budget_sec=cfg.per_timeout_sec if n else cfg.block_budget_sec,
                                             state=state, lane=lane)
                if before is not None:  # a resplit row: both tries added up
                    mine[rows[0].id] = _after_resplit(before, verdicts[rows[0].id])
                    if verdicts[rows[0].id].error_kind == "rate_limit":
                        ctx.log.warning("%s: still rate limited after a row's tries; the other rows keep their block verdict", name)
                        break
                    continue
                mine.update(verdicts)
                retry_rows = [c for c in block if not verdicts[c.id].judged and verdicts[c.id].error_kind in resplit_kinds]
                if cfg.resplit and len(block) > 1 and retry_rows:
                    ctx.log.info("%s: re-judging %d row(s) one by one", name, len(retry_rows))
                    parts.extend((f"{name}-r{i}", [row]) for i, row in enumerate(retry_rows, start=1))

    tasks = [asyncio.ensure_future(run(i, name, block)) for i, (name, block) in enumerate(blocks)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=max(0.0, ctx.deadline.remaining()))
    except asyncio.TimeoutError:
        ctx.log.warning("JUDGE_DEADLINE reached during agentic judging; unfinished rows are unjudged (deadline)")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return results


def _count_cli(ctx: SegmentContext, calls: int, tokens: int) -> None:
    """Count the requests and tokens an agent CLI attempt reported (the call path counts its
    own); a CLI reports one token total, priced as unknown (`core.cost`)."""
    ctx.stats.count(calls=calls, tokens=tokens)
    if calls or tokens:
        ctx.stats.used(ctx.settings.model, unsplit=tokens, calls=calls)


def _after_resplit(before: Verdict, single: Verdict) -> Verdict:
    """The row's verdict after its resplit: the single-row outcome (judged, or its latest
    failure), with the attempts and seconds of both tries added up."""
    return single.model_copy(update={"attempts": before.attempts + single.attempts,
                                     "seconds": round(before.seconds + single.seconds, 3)})


async def judge_block(
    name: str,
    rows: list[Criterion],
    ctx: SegmentContext,
    backend: AgentBackend,
    *,
    budget_sec: float,
    state: RunState | None = None,
    lane: Lane | None = None,
) -> dict[str, Verdict]:
    """Judge one block with retries inside `budget_sec` seconds of attempt time and the
    run deadline.

    A backend with ``resends_in_place`` gets a `Resender` with each attempt: a request the
    endpoint refuses at admission is re-sent in place (same attempt, same conversation,
    its own JUDGE_MAX_TRIES sends) after the server's ask, and the wait is not attempt time.
    `lane`: the block's in-flight lane, given to another block while a turn waits out a
    RANDOM refusal in place (`agentic.lanes`); every other wait keeps it (a refusal that may
    be the key's limit, and the waits between attempts after a timeout, a 5xx or an error
    inside a 200 stream, which the limiter does not see: the lane is then what slows the
    run down). None: a block judged alone.

    Returns one verdict per row: parsed verdicts from the first usable reply, the rest
    unjudged with the kind of the last failure (``deadline`` when the deadline cut an
    attempt off or came before the first one).
    """
    block = _BlockRun(name, rows, ctx, backend, budget_sec=budget_sec,
                      state=state if state is not None else RunState(), lane=lane)
    return await block.judge()


class _BlockRun:
    """One block's judging, as named steps around the run's one retry loop
    (`transport.retrying.retry_async`): `ready` before each attempt, `attempt`, `on_failure`
    after a failed one, `between_attempts` for the wait, the verdicts at the end (`core.verdicts.block_verdicts`).

    What the steps share: the verdicts read so far (`judged`, and `unread`: rows a usable
    reply left unjudged, with the parser's reason), the kind and reason of the latest
    failure (what every row still unjudged at the end gets), the seconds `spent` inside
    attempts (waits in place excluded: what the block budget counts), and the `latest`
    failure (a list of at most one: how the next wait treats the lane).
    """

    def __init__(self, name: str, rows: list[Criterion], ctx: SegmentContext, backend: AgentBackend, *,
                 budget_sec: float, state: RunState, lane: Lane | None) -> None:
        self.ctx = ctx
        self.name, self.rows, self.backend = name, rows, backend
        self.budget_sec, self.state = budget_sec, state
        self.stopping_kinds = ctx.retry.kinds_where("stops_run")
        self.start = time.monotonic()
        self.judged: dict[str, Verdict] = {}
        self.unread: dict[str, Verdict] = {}
        self.reasked: dict[str, int] = {}  # row id → extra runs that asked it again (an agent CLI's grounding re-ask)
        self.last_kind: ErrorKind = "deadline"
        self.last_reason = "JUDGE_DEADLINE reached before the first attempt"
        self.spent = 0.0
        self.latest: list[Failed] = []
        self.tries: Tries | None = None  # the retry loop's state, made when the loop starts (`judge`)
        self.workspace = build_workspace(name, rows, ctx)
        self.lane_wait: Callable[[float], Awaitable[None]] = lane.wait if lane is not None else asyncio.sleep
        self.in_place = bool(getattr(backend, "resends_in_place", False))

    async def judge(self) -> dict[str, Verdict]:
        """Attempt the block until a usable reply, a give-up, the budget or the deadline;
        returns one verdict per row (`core.verdicts.block_verdicts`)."""
        ctx, name = self.ctx, self.name
        self.tries = Tries(name, policy=ctx.retry, rng=ctx.rng, stats=ctx.stats, redact=ctx.redactor.redact, log=ctx.log,
                           audit=lambda n, entry: ctx.audit.append(f"{name}/attempt-{n}", entry))
        ended = await retry_async(self.tries, self.attempt, ready=self.ready, time_left=self.ctx.deadline.remaining,
                                  deadline_passed=lambda: self.ctx.deadline.remaining() <= 0.05,
                                  on_failure=self.on_failure, sleep=self.between_attempts)
        if ended.why == "no_time":
            self.last_reason += " (no time left before JUDGE_DEADLINE for another attempt)"
        # one verdict per row (read, else unjudged with the latest failure), with the block's attempts
        # (plus the row's grounding re-ask runs) and seconds; written to the audit as ``<name>/verdicts``
        out = block_verdicts(self.rows, {**self.unread, **self.judged}, kind=self.last_kind, reason=self.last_reason,
                             attempts=self.attempts, extra_attempts=self.reasked, seconds=round(time.monotonic() - self.start, 3))
        ctx.audit.write_json(f"{name}/verdicts", {k: v.model_dump(mode="json") for k, v in out.items()})
        return out

    @property
    def attempts(self) -> int:
        """The block's attempts so far (0 before its retry loop starts)."""
        return self.tries.attempts if self.tries is not None else 0

    def going_on(self) -> bool:
        """The run-wide stop and the deadline (checked before every attempt and re-send)."""
        if self.state.stopped is not None:
            self.last_kind, self.last_reason = self.state.stopped
            return False
        if self.ctx.deadline.remaining() <= 0:
            if self.attempts == 0:
                self.last_kind, self.last_reason = "deadline", "JUDGE_DEADLINE reached before the first attempt"
            return False
        return True

    def ready(self) -> bool:
        """The block's own stops before an attempt: the run-wide stop, the deadline, the budget."""
        if not self.going_on():
            return False
        if self.attempts > 0 and self.budget_sec - self.spent < MIN_ATTEMPT_FRACTION * self.ctx.settings.per_timeout_sec:
            self.last_reason += f" (block budget of {self.budget_sec:g} s of attempt time used up)"
            return False
        return True

    def failed_as(self, failed: Failed, reason: str) -> None:
        """Record `failed` as the block's latest failure; a kind that stops the run stops it."""
        self.last_kind, self.last_reason = failed.kind, reason
        if self.last_kind in self.stopping_kinds and self.state.stopped is None:
            self.state.stopped = (self.last_kind, f"{self.last_reason} (seen on {self.name}; no further calls in this run)")
            self.ctx.log.error("%s: %s: giving up on every block of this run", self.name, self.last_kind)

    async def attempt(self, no: int) -> Result[None]:
        """Attempt `no`: one backend attempt under its clock, its verdicts kept; a reply
        with no usable verdict is `Unusable` (the loop tries again)."""
        ctx, rows = self.ctx, self.rows
        self.state.count_attempt(rows)
        limit = min(ctx.settings.per_timeout_sec, self.budget_sec - self.spent, ctx.deadline.remaining())
        clock = AttemptClock(max(0.01, limit))
        extra: dict[str, Any] = ({"resend": _InPlace(self.name, no, ctx, clock, self.lane_wait, self.going_on,
                                                     self.failed_as)} if self.in_place else {})
        try:
            attempted = await clock.run(self.backend.attempt(self.name, rows, self.workspace, attempt_no=no,
                                                             timeout_at=clock.ends_at, **extra))
        except BackendFailure as exc:  # an agent CLI's requests, returned with its failure
            _count_cli(ctx, exc.calls, exc.tokens)
            raise
        finally:
            self.spent += clock.spent()
        _count_cli(ctx, attempted.calls, attempted.tokens)  # an agent CLI's requests (the call path counts its own)
        if attempted.reasked:  # one more CLI run asked these rows again: one more attempt on each
            self.state.count_attempt([c for c in rows if c.id in attempted.reasked])
            for cid in attempted.reasked:
                self.reasked[cid] = self.reasked.get(cid, 0) + 1
        outcome = attempted.parsed
        for cid, verdict in outcome.verdicts.items():
            if verdict.judged:
                self.judged[cid] = verdict
        if not outcome.usable:
            return Unusable("; ".join(dict.fromkeys(outcome.problems))[:300] or "unusable reply")  # each problem once
        # rows the parser left unjudged keep its specific reason (conflicting verdicts, cut
        # off before the level, an unreadable hit)
        self.unread.update({cid: v for cid, v in outcome.verdicts.items() if not v.judged})
        if len(self.judged) < len(rows):
            self.last_kind, self.last_reason = "parse_error", "the reply held no verdict for this row"
        return Answered(None)

    def on_failure(self, failed: Failed) -> None:
        """After a failed attempt: remember it (for the next wait) and as the rows' reason."""
        self.latest[:] = [failed]
        self.failed_as(failed, f"{failed.kind} after {self.attempts} attempt(s): {failed.said}")

    async def between_attempts(self, sec: float) -> None:
        """The wait before the next attempt: after a random refusal without the lane (as in
        place), after any other failure holding it."""
        await _waiting(self.latest, self.lane_wait)(sec)

def _waiting(latest: Sequence[Failed], lane_wait: Callable[[float], Awaitable[None]]) -> Callable[[float], Awaitable[None]]:
    """How a block waits after its `latest` failure (a list of at most one): after a RANDOM
    refusal without its lane (`lane_wait`: another block works meanwhile), after any other
    failure holding it (``asyncio.sleep``: the lane slows a run whose key may be spent)."""
    return lane_wait if latest and latest[0].random else asyncio.sleep


def refused_at_admission(exc: BaseException) -> bool:
    """The failures a turn re-sends in place: the endpoint refused the request before serving
    it (HTTP 429, or another status whose error says rate limit: `transport.attempts.Failure`).
    Everything else — timeouts, 5xx, errors inside a 200 stream, the limiter holding the
    request past its timeout — fails the attempt, for the block's loop and the failure table."""
    return isinstance(exc, Exception) and failure_of(exc).at_admission


class _InPlace:
    """The `agentic.base.Resender` of one attempt (attempt `no` of block `name`): each
    request re-sent in place through the one retry loop (`transport.retrying.resend_async`)
    with a `Tries` of its own, its failures audited in the attempt's record. A wait pauses
    the attempt's `clock`; after a RANDOM refusal (its own headers showed capacity left) it
    is waited with `lane_wait` (the lane given to another block), after any other refusal
    (possibly the key's limit) holding the lane, as between attempts: `bench/limiter_model.py`
    (no headers, 1 job × 100 rows at 240/min) measured 1.02× → 1.13× the bound in the median
    when every refusal gave its lane away (the freed lane's block meets the same spent key)."""

    def __init__(self, name: str, no: int, ctx: SegmentContext, clock: AttemptClock,
                 lane_wait: Callable[[float], Awaitable[None]], going_on: Callable[[], bool],
                 failed_as: Callable[[Failed, str], None]) -> None:
        self.name, self.no, self.ctx, self.clock = name, no, ctx, clock
        self._lane_wait, self._going_on, self._failed_as = lane_wait, going_on, failed_as

    @property
    def timeout_at(self) -> float:
        return self.clock.ends_at

    async def send(self, request: Callable[[], Awaitable[T]], *, turn: int) -> T:
        ctx, name, no = self.ctx, self.name, self.no
        tries = Tries(f"{name} attempt {no} turn {turn}", policy=ctx.retry, rng=ctx.rng, stats=ctx.stats,
                      redact=ctx.redactor.redact, log=ctx.log, unit="send",
                      audit=lambda _n, entry: ctx.audit.append(f"{name}/attempt-{no}", entry))
        last: list[Failed] = []

        def on_failure(failed: Failed) -> None:
            last[:] = [failed]
            self._failed_as(failed, f"{failed.kind} after {tries.attempts} send(s) of turn {turn} in attempt {no}: "
                                    f"{failed.said}")

        async def wait_in_place(sec: float) -> None:
            self.clock.pause()  # not the model's time: neither the attempt's limit nor the block budget
            try:
                await _waiting(last, self._lane_wait)(sec)
            finally:
                self.clock.resume()

        return await resend_async(tries, lambda _n: request(), retried=refused_at_admission, ready=self._going_on,
                                  time_left=ctx.deadline.remaining,
                                  deadline_passed=lambda: ctx.deadline.remaining() <= 0.05,
                                  entry=lambda n: {"turn": turn, "send": n}, on_failure=on_failure,
                                  sleep=wait_in_place)
