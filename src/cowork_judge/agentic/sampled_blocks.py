"""Agentic rows asked several times, by one judge or a panel (JUDGE_SAMPLES, JUDGE_PANEL; issue 28).

The single-ask unit is the scheduler's "judge this block of rows once"
(`scheduler.run_blocks`: a block's attempts, retries and resplit, called as a whole);
this layer only decides which rows go into which block in which round, and folds what came
back (`core.sampled.fold_row`, the rules of `core.sampling`):

- round one asks every row `SamplingPlan.first_round` times (2 when adaptive, k when
  fixed), in the run's usual blocks (``block-01-s1``, ``block-01-s2``…; a panel's judge
  prefixes its slug), every judge at once on its own call path;
- each later round (adaptive, up to k) asks again only the rows whose answer could still
  change (`core.sampling.settled`), REGROUPED across the first blocks into full blocks of
  ``JUDGE_BATCH`` rows (``resample3-01``…): with a per-request flip rate p a row is
  unsettled after two asks with probability 2p(1−p), so re-asking a row's whole original
  block would cost a third call for most blocks (a 4-row block at p = 0.2:
  1 − 0.68⁴ ≈ 0.79), while regrouped blocks cost one call per ``JUDGE_BATCH`` unsettled rows;
- a round starts only before ``JUDGE_DEADLINE``; a sample the deadline, a budget or a
  failure kept from coming back is recorded with its error kind and the row keeps what its
  other samples said (unjudged only when none answered).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import Any

from cowork_judge.agentic.base import AgentBackend
from cowork_judge.agentic.scheduler import RunState, first_wave_delays, run_blocks, split_blocks
from cowork_judge.core.classify import summary
from cowork_judge.core.error_kinds import JudgeFailure
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampled import fold_row, sample_of
from cowork_judge.core.sampling import Sample, Scale, settled
from cowork_judge.core.verdicts import Verdict
from cowork_judge.segment.segment_context import SegmentContext
from cowork_judge.segment.judges import Judge, SamplingPlan


class _Seat:
    """One judge at work: its segment context, backend, shared state and samples so far."""

    def __init__(self, judge: Judge, ctx: SegmentContext, backend: AgentBackend | None, lost: Verdict | None = None) -> None:
        self.judge, self.ctx, self.backend, self.lost = judge, ctx, backend, lost
        self.state = RunState()
        self.asked: dict[str, int] = {}

    def prefix(self, plan: SamplingPlan) -> str:
        return f"{self.judge.slug}-" if plan.panel else ""


def judge_context(ctx: SegmentContext, judge: Judge) -> SegmentContext:
    """`ctx` as `judge` sees it: its call path, its model and endpoint (the CLI backends read
    them from the settings). Everything else is the run's."""
    if judge.calls is ctx.calls and judge.model == ctx.settings.model:
        return ctx
    settings = dataclasses.replace(ctx.settings, model=judge.model, base_url=judge.base_url)
    return dataclasses.replace(ctx, calls=judge.calls, settings=settings)


async def judge_sampled(rows: Sequence[Criterion], ctx: SegmentContext, backend_class: Any) -> dict[str, Verdict]:
    """Judge `rows` under ``ctx.sampling``; exactly one verdict per row (module docstring)."""
    plan = ctx.sampling
    assert plan is not None
    seats = [_open(judge, ctx, backend_class) for judge in plan.judges]
    asked: dict[str, list[tuple[Sample, Verdict]]] = {r.id: [] for r in rows}
    try:
        first = [(seat, [(f"{seat.prefix(plan)}{name}-s{s}", block) for s in range(1, plan.first_round + 1)
                         for name, block in split_blocks(rows, ctx.settings.batch)]) for seat in seats]
        await _round(first, ctx, asked, jitter=True)
        for r in range(plan.first_round + 1, plan.k + 1):
            if ctx.deadline.passed():
                break
            work = []
            for seat in seats:
                if seat.backend is None or seat.state.stopped is not None:
                    continue
                todo = [row for row in rows if not _settled(seat, row, asked[row.id], plan.k)]
                blocks = [(f"{seat.prefix(plan)}resample{r}-{name.split('-', 1)[1]}", block)
                          for name, block in split_blocks(todo, ctx.settings.batch)]
                if blocks:
                    work.append((seat, blocks))
            if not work:
                break
            ctx.log.info("sampling round %d: %s", r, "; ".join(
                f"{seat.judge.name}: {sum(len(b) for _, b in blocks)} row(s) in {len(blocks)} block(s)" for seat, blocks in work))
            await _round(work, ctx, asked, jitter=False)
    finally:
        for seat in seats:
            if seat.backend is not None:
                try:
                    await asyncio.wait_for(seat.backend.close(), timeout=2.0)
                except Exception:  # noqa: BLE001 - closing must never cost the run its verdicts
                    pass
    return {row.id: fold_row(row, asked[row.id], weights=plan.weights, how=plan.vote) for row in rows}


def _open(judge: Judge, ctx: SegmentContext, backend_class: Any) -> _Seat:
    """The judge's seat; a judge whose backend cannot open (no key, no CLI) loses its samples, the others go on."""
    jctx = judge_context(ctx, judge)
    try:
        return _Seat(judge, jctx, backend_class.open(jctx))
    except Exception as exc:  # noqa: BLE001 - one judge's failure never costs the others' verdicts
        kind = exc.kind if isinstance(exc, JudgeFailure) else ("no_credential" if isinstance(exc, ValueError) else "backend_error")
        unset = kind == "no_credential" and judge.missing_key_env
        why = (f"no key: {judge.missing_key_env} (its api_key_env) {judge.missing_key_why}" if unset  # trial 6 F5, F22
               else judge.cannot_start if kind == "no_credential" and judge.cannot_start else summary(exc))
        reason = ctx.redactor.redact(f"judge {judge.name!r} could not start: {why}")
        ctx.log.error("sampling: %s", reason)
        return _Seat(judge, jctx, None, Verdict.unjudged("", kind, reason))


def _settled(seat: _Seat, row: Criterion, samples: Sequence[tuple[Sample, Verdict]], k: int) -> bool:
    mine = [s for s, _ in samples if s.judge == seat.judge.name]
    return settled(mine, seat.asked.get(row.id, 0), k, Scale.of(row))


async def _round(work: Sequence[tuple[_Seat, list[tuple[str, list[Criterion]]]]], ctx: SegmentContext,
                 asked: dict[str, list[tuple[Sample, Verdict]]], *, jitter: bool) -> None:
    """Run every seat's blocks at once (each judge on its own path, at its own concurrency)
    and record one sample per row per block."""
    async def one(seat: _Seat, blocks: list[tuple[str, list[Criterion]]]) -> dict[str, dict[str, Verdict]]:
        if seat.backend is None:
            return {}
        cfg = ctx.settings
        delays = (first_wave_delays(len(blocks), cfg.concurrency, cfg.start_jitter_sec, ctx.rng) if jitter
                  else [0.0] * len(blocks))
        return await run_blocks(blocks, seat.ctx, seat.backend, delays=delays, state=seat.state)

    results = await asyncio.gather(*(one(seat, blocks) for seat, blocks in work))
    for (seat, blocks), by_block in zip(work, results):
        for name, block in blocks:
            got = by_block.get(name, {})
            for row in block:
                if seat.backend is None:  # one lost sample says why; never asked again
                    if row.id not in seat.asked:
                        asked[row.id].append((sample_of(_lost(seat, row), seat.judge.name), _lost(seat, row)))
                    seat.asked[row.id] = NEVER_AGAIN
                    continue
                verdict = got.get(row.id) or _lost(seat, row)
                seat.asked[row.id] = seat.asked.get(row.id, 0) + 1
                asked[row.id].append((sample_of(verdict, seat.judge.name), verdict))


NEVER_AGAIN = 10**6
"""Asks recorded for a judge that could not start: more than any k, so it is settled."""


def _lost(seat: _Seat, row: Criterion) -> Verdict:
    if seat.lost is not None:
        return seat.lost.model_copy(update={"id": row.id})
    return Verdict.unjudged(row.id, "deadline", "JUDGE_DEADLINE reached before this sample came back",
                            attempts=seat.state.attempts.get(row.id, 0))


__all__ = ["judge_context", "judge_sampled"]
