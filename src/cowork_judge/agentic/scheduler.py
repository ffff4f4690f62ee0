"""Scheduling agentic blocks: batches, concurrency, start jitter, retries, resplit, deadline.

Time limits nest (SPEC §11): one attempt ≤ ``JUDGE_PER_TIMEOUT`` ⊂ one block ≤
``2 × JUDGE_PER_TIMEOUT`` ⊂ the run ≤ ``JUDGE_DEADLINE``. Only rate limiting backs off;
other transient failures retry after 1 s; ``insufficient_quota`` gives up at once. A
block that exhausted its tries is re-judged row by row (``JUDGE_RESPLIT``), each row with
a full per-attempt timeout, within the deadline. At the deadline everything still
running is cancelled: rows judged so far keep their verdicts, the rest are unjudged
``deadline``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence

from cowork_judge.agentic.base import AgentBackend
from cowork_judge.agentic.workspace import build_workspace
from cowork_judge.context import RunContext
from cowork_judge.failures import ErrorKind, consequence
from cowork_judge.llm import backoff_seconds, classify
from cowork_judge.rubric import Criterion
from cowork_judge.verdicts import Verdict

RESPLIT_KINDS = frozenset({"rate_limit", "timeout", "api_error", "parse_error"})
"""Unjudged kinds worth a row-by-row second chance."""


def split_blocks(rows: Sequence[Criterion], batch: int) -> list[tuple[str, list[Criterion]]]:
    """Cut rows into blocks of `batch` rows, named ``block-01``, ``block-02``…"""
    blocks = [list(rows[i : i + batch]) for i in range(0, len(rows), batch)]
    width = max(2, len(str(len(blocks))))
    return [(f"block-{n:0{width}d}", b) for n, b in enumerate(blocks, start=1)]


def first_wave_delays(n_blocks: int, concurrency: int, jitter_sec: float, rng: random.Random) -> list[float]:
    """Start delays in seconds: each first-wave block waits ``uniform(0, jitter)``.

    Blocks after the first wave start when a slot frees, so they wait 0 here.
    """
    return [rng.uniform(0.0, jitter_sec) if (i < concurrency and jitter_sec > 0) else 0.0 for i in range(n_blocks)]


async def judge_blocks(rows: Sequence[Criterion], ctx: RunContext, backend: AgentBackend) -> dict[str, Verdict]:
    """Judge all agentic `rows`; returns exactly one verdict per row."""
    cfg = ctx.config
    results: dict[str, Verdict] = {}
    blocks = split_blocks(rows, cfg.batch)
    delays = first_wave_delays(len(blocks), cfg.concurrency, cfg.start_jitter_sec, ctx.rng)
    slots = asyncio.Semaphore(cfg.concurrency)

    async def run(index: int, name: str, block: list[Criterion]) -> None:
        if delays[index] > 0:
            await asyncio.sleep(min(delays[index], max(0.0, ctx.deadline.remaining())))
        async with slots:
            verdicts = await judge_block(name, block, ctx, backend, budget_sec=cfg.block_budget_sec)
            results.update(verdicts)
            retry_rows = [c for c in block if not verdicts[c.id].judged and verdicts[c.id].error_kind in RESPLIT_KINDS]
            if cfg.resplit and len(block) > 1 and retry_rows and not ctx.deadline.passed():
                ctx.log.info("%s: re-judging %d row(s) one by one", name, len(retry_rows))
                for n, row in enumerate(retry_rows, start=1):
                    if ctx.deadline.passed():
                        break
                    single = await judge_block(f"{name}-r{n}", [row], ctx, backend, budget_sec=cfg.per_timeout_sec)
                    if single[row.id].judged or single[row.id].error_kind == "deadline":
                        results[row.id] = single[row.id]

    tasks = [asyncio.ensure_future(run(i, name, block)) for i, (name, block) in enumerate(blocks)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=max(0.0, ctx.deadline.remaining()))
    except asyncio.TimeoutError:
        ctx.log.warning("JUDGE_DEADLINE reached during agentic judging; unfinished rows are unjudged (deadline)")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for row in rows:
        if row.id not in results:
            results[row.id] = Verdict.unjudged(row.id, "deadline", "JUDGE_DEADLINE reached before this row was judged")
    return {row.id: results[row.id] for row in rows}


async def judge_block(
    name: str, rows: list[Criterion], ctx: RunContext, backend: AgentBackend, *, budget_sec: float
) -> dict[str, Verdict]:
    """Judge one block with retries inside `budget_sec` and the run deadline.

    Returns one verdict per row: parsed verdicts from the first usable reply, the rest
    unjudged with the kind of the last failure.
    """
    cfg = ctx.config
    start = time.monotonic()
    block_end = min(start + budget_sec, ctx.deadline.at)
    workspace = build_workspace(name, rows, ctx)
    judged: dict[str, Verdict] = {}
    last_kind: ErrorKind = "parse_error"
    last_reason = "no attempt was made"
    rate_limited = 0
    attempts = 0
    while attempts < cfg.max_tries:
        now = time.monotonic()
        if now >= block_end:
            last_kind = "deadline" if ctx.deadline.passed() else "timeout"
            last_reason = "JUDGE_DEADLINE reached" if last_kind == "deadline" else f"block budget of {budget_sec:g} s used up"
            break
        attempts += 1
        attempt_end = min(now + cfg.per_timeout_sec, block_end)
        try:
            outcome = await asyncio.wait_for(
                backend.attempt(name, rows, workspace, attempt_no=attempts, timeout_at=attempt_end),
                timeout=max(0.01, attempt_end - now),
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every transport failure is classified, none escapes
            kind = classify(exc)
            if kind == "timeout" and ctx.deadline.remaining() <= 0.05:
                kind = "deadline"
            last_kind, last_reason = kind, f"{kind}: {ctx.redactor.text(_summary(exc))}"
            ctx.stats.failed(kind)
            ctx.log.warning("%s attempt %d failed (%s): %s", name, attempts, kind, ctx.redactor.text(_summary(exc)))
        else:
            for cid, verdict in outcome.verdicts.items():
                if verdict.judged:
                    judged[cid] = verdict
            if outcome.usable:
                if len(judged) < len(rows):
                    last_kind, last_reason = "parse_error", "the reply held no verdict for this row"
                break
            last_kind, last_reason = "parse_error", "; ".join(outcome.problems)[:300] or "unusable reply"
            ctx.stats.failed("parse_error")
            ctx.log.warning("%s attempt %d: unusable reply (%s)", name, attempts, last_reason)
        if not consequence(last_kind).retry or attempts >= cfg.max_tries:
            break
        if last_kind == "rate_limit":
            rate_limited += 1
        wait = backoff_seconds(last_kind, rate_limited, cfg.retry_backoff_max_sec, ctx.rng)
        if time.monotonic() + wait >= block_end:
            last_kind = "deadline" if block_end >= ctx.deadline.at and last_kind == "timeout" else last_kind
            break
        await asyncio.sleep(wait)
    seconds = round(time.monotonic() - start, 3)
    out: dict[str, Verdict] = {}
    for row in rows:
        verdict = judged.get(row.id) or Verdict.unjudged(row.id, last_kind, last_reason)
        out[row.id] = verdict.model_copy(update={"attempts": attempts, "seconds": seconds})
    ctx.audit.write(f"{name}/verdicts", {k: v.model_dump(mode="json") for k, v in out.items()})
    return out


def _summary(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__
