"""The block scheduler with a scripted backend: tries, budgets, backoff counter, resplit,
run-wide give-up, deadline and start jitter (SPEC §10, §11).

Real `RunContext`, real clock: backoff sleeps are only shortened through the real knobs
(``JUDGE_RETRY_BACKOFF_MAX=1`` makes every rate-limit wait exactly 1 s).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from reliability.sdk_errors import status_error, stream_error
from testkit import make_ctx

from cowork_judge.agentic import scheduler
from cowork_judge.agentic.base import Attempted
from cowork_judge.agentic.scheduler import first_wave_delays, judge_blocks, split_blocks
from cowork_judge.core.consequences import CONSEQUENCES
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.verdicts import parse_reply
from cowork_judge.transport.chat import StreamIncomplete

HANG = "hang"
OK = "ok"


def rate_limited() -> Exception:
    return StreamIncomplete("stream disconnected before completion")


def no_credit() -> Exception:
    return stream_error("You exceeded your current quota", code="insufficient_quota")


def rejected() -> Exception:
    return status_error(401, "Incorrect API key provided", code="invalid_api_key")


@dataclass
class ScriptedBackend:
    """A backend whose attempts follow ``script(block_name, attempt_no)``: an exception
    factory, ``"hang"`` or ``"ok"`` (every row hit)."""

    script: Callable[[str, int], Any]
    name: str = "scripted"
    calls: list[tuple[str, int, float]] = field(default_factory=list)
    t0: float = field(default_factory=time.monotonic)

    async def attempt(self, block_name, rows, workspace, *, attempt_no, timeout_at):
        self.calls.append((block_name, attempt_no, time.monotonic() - self.t0))
        action = self.script(block_name, attempt_no)
        if action == HANG:
            await asyncio.sleep(3600)
        if action == OK:
            await asyncio.sleep(0.01)
            return Attempted(parse_reply(json.dumps({"verdicts": [{"id": r.id, "hit": True, "reason": "ok"} for r in rows]}), rows))
        raise action()


def criteria(n: int):
    return normalize_rubric([{"id": f"R{i}", "description": f"row {i}", "weight": 1} for i in range(1, n + 1)]).criteria


def run(tmp_path, n_rows: int, script, table=None, **env: Any):
    knobs = {"JUDGE_START_JITTER": "0", "JUDGE_RETRY_BACKOFF_MAX": "1", "JUDGE_CONCURRENCY": "1", **{k: str(v) for k, v in env.items()}}
    ctx = make_ctx(tmp_path, env=knobs)
    if table is not None:  # the failure table in a modified copy: nothing else changes
        ctx.retry = dataclasses.replace(ctx.retry, table=table)
    backend = ScriptedBackend(script)
    t0 = time.monotonic()
    verdicts = asyncio.run(judge_blocks(criteria(n_rows), ctx.segment(), backend))
    return verdicts, backend, time.monotonic() - t0, ctx


def kinds(verdicts) -> dict[str, str | None]:
    return {k: v.error_kind for k, v in verdicts.items()}


# --------------------------------------------------------------------------- tries and the block budget


def test_rate_limited_block_gets_every_try_even_past_its_budget(tmp_path):
    # budget 2 × 0.3 s of attempt time; the three 1 s backoff waits do not count against it
    verdicts, backend, seconds, ctx = run(tmp_path, 2, lambda b, n: rate_limited,
                                          JUDGE_PER_TIMEOUT=0.3, JUDGE_MAX_TRIES=4, JUDGE_RESPLIT=0)
    assert [c[1] for c in backend.calls] == [1, 2, 3, 4]
    assert kinds(verdicts) == {"R1": "rate_limit", "R2": "rate_limit"}
    assert all(v.attempts == 4 for v in verdicts.values())
    gaps = [b[2] - a[2] for a, b in zip(backend.calls, backend.calls[1:], strict=False)]
    assert all(0.95 <= g < 2.0 for g in gaps)  # uniform(1, min(1, 2·3^(n−1))) = 1 s each
    assert ctx.stats.by_kind == {"rate_limit": 4}


def test_timeouts_burn_the_block_budget_in_two_tries(tmp_path):
    verdicts, backend, seconds, _ = run(tmp_path, 2, lambda b, n: HANG,
                                        JUDGE_PER_TIMEOUT=0.4, JUDGE_MAX_TRIES=6, JUDGE_RESPLIT=0)
    assert [c[1] for c in backend.calls] == [1, 2]  # 2 × 0.4 s = the block budget of 2 × JUDGE_PER_TIMEOUT
    assert kinds(verdicts) == {"R1": "timeout", "R2": "timeout"}
    assert "block budget of 0.8 s" in verdicts["R1"].reason
    assert 0.4 + 1 + 0.4 <= seconds < 3.5


def test_backoff_counter_counts_the_blocks_rate_limit_failures(tmp_path, monkeypatch):
    seen: list[tuple[str, int]] = []
    real = RetryPolicy.wait_sec

    def spy(self, kind, backoffs, rng, asked_sec=None):
        seen.append((kind, backoffs))
        return real(self, kind, backoffs, rng, asked_sec)

    monkeypatch.setattr(RetryPolicy, "wait_sec", spy)
    plan = {1: rate_limited, 2: ConnectionResetError, 3: rate_limited, 4: OK}
    verdicts, backend, _, _ = run(tmp_path, 2, lambda b, n: plan[n], JUDGE_MAX_TRIES=6)
    assert seen == [("rate_limit", 1), ("api_error", 1), ("rate_limit", 2)]  # n counts rate limits only
    assert all(v.judged and v.attempts == 4 for v in verdicts.values())


def test_behaviour_follows_the_failure_table(tmp_path, monkeypatch):
    """Only the table changes (in a copy): retry, backoff, resplit and run-stopping columns
    are what the block loop reads."""
    waits: list[str] = []
    real = RetryPolicy.wait_sec

    def spy(self, kind, backoffs, rng, asked_sec=None):
        waits.append(kind)
        return real(self, kind, backoffs, rng, asked_sec)

    monkeypatch.setattr(RetryPolicy, "wait_sec", spy)
    reset = lambda b, n: ConnectionResetError  # noqa: E731 - an api_error every time
    _, backend, _, _ = run(tmp_path / "a", 1, reset, JUDGE_MAX_TRIES=3)
    assert len(backend.calls) == 3  # api_error is retried by the shipped table
    no_retry = {**CONSEQUENCES, "api_error": dataclasses.replace(CONSEQUENCES["api_error"], retry=False)}
    verdicts, backend, _, _ = run(tmp_path / "b", 1, reset, table=no_retry, JUDGE_MAX_TRIES=3)
    assert len(backend.calls) == 1 and verdicts["R1"].error_kind == "api_error"

    stops = {**CONSEQUENCES, "api_error": dataclasses.replace(CONSEQUENCES["api_error"], retry=False, stops_run=True)}
    verdicts, backend, _, _ = run(tmp_path / "c", 3, reset, table=stops, JUDGE_BATCH=1, JUDGE_RESPLIT=0)
    assert len(backend.calls) == 1  # the first failure stopped every block of the run
    assert {v.error_kind for v in verdicts.values()} == {"api_error"}

    waits.clear()
    backing = {**CONSEQUENCES, "api_error": dataclasses.replace(CONSEQUENCES["api_error"], backoff=True)}
    plan = {1: ConnectionResetError, 2: OK}
    t0 = time.monotonic()
    run(tmp_path / "d", 1, lambda b, n: plan[n], table=backing, JUDGE_RETRY_BACKOFF_MAX=1)
    assert waits == ["api_error"] and time.monotonic() - t0 >= 1.0  # backed off: uniform(1, min(1, 2)) = 1 s

    no_resplit = {**CONSEQUENCES, "api_error": dataclasses.replace(CONSEQUENCES["api_error"], resplit=False)}
    _, backend, _, _ = run(tmp_path / "e", 2, reset, JUDGE_MAX_TRIES=1, JUDGE_BATCH=2)
    assert [c[0] for c in backend.calls] == ["block-01", "block-01-r1", "block-01-r2"]  # resplit row by row
    _, backend, _, _ = run(tmp_path / "f", 2, reset, table=no_resplit, JUDGE_MAX_TRIES=1, JUDGE_BATCH=2)
    assert [c[0] for c in backend.calls] == ["block-01"]


def test_max_tries_is_the_limit(tmp_path):
    verdicts, backend, _, _ = run(tmp_path, 1, lambda b, n: ConnectionResetError, JUDGE_MAX_TRIES=3)
    assert len(backend.calls) == 3 and kinds(verdicts) == {"R1": "api_error"}
    assert verdicts["R1"].reason.startswith("api_error after 3 attempt(s): ConnectionResetError")


# --------------------------------------------------------------------------- permanent failures


def test_insufficient_quota_gives_up_at_once_for_the_whole_run(tmp_path):
    verdicts, backend, seconds, _ = run(tmp_path, 6, lambda b, n: no_credit, JUDGE_BATCH=2)
    assert [c[:2] for c in backend.calls] == [("block-01", 1)]  # one call: no retry, no resplit, no other block
    assert set(kinds(verdicts).values()) == {"insufficient_quota"}
    assert [verdicts[f"R{i}"].attempts for i in range(1, 7)] == [1, 1, 0, 0, 0, 0]
    assert "no further calls in this run" in verdicts["R3"].reason
    assert seconds < 1


def test_request_rejected_is_neither_retried_nor_resplit(tmp_path):
    verdicts, backend, _, _ = run(tmp_path, 4, lambda b, n: rejected, JUDGE_BATCH=2)
    assert [c[:2] for c in backend.calls] == [("block-01", 1), ("block-02", 1)]
    assert set(kinds(verdicts).values()) == {"request_rejected"}


# --------------------------------------------------------------------------- resplit


def test_failed_block_is_rejudged_row_by_row(tmp_path):
    script = lambda b, n: HANG if b == "block-01" else OK  # noqa: E731 - the big block times out, single rows pass
    verdicts, backend, _, _ = run(tmp_path, 3, script, JUDGE_PER_TIMEOUT=0.3, JUDGE_MAX_TRIES=6, JUDGE_BATCH=3)
    assert [c[:2] for c in backend.calls] == [("block-01", 1), ("block-01", 2), ("block-01-r1", 1), ("block-01-r2", 1),
                                              ("block-01-r3", 1)]
    assert all(v.judged for v in verdicts.values())
    assert [v.attempts for v in verdicts.values()] == [3, 3, 3]  # two block tries + one single-row try


def test_resplit_off(tmp_path):
    verdicts, backend, _, _ = run(tmp_path, 3, lambda b, n: HANG if b == "block-01" else OK,
                                  JUDGE_PER_TIMEOUT=0.3, JUDGE_BATCH=3, JUDGE_RESPLIT=0)
    assert [c[0] for c in backend.calls] == ["block-01", "block-01"]
    assert set(kinds(verdicts).values()) == {"timeout"}


def test_resplit_stops_at_a_row_that_is_still_rate_limited(tmp_path):
    verdicts, backend, _, _ = run(tmp_path, 3, lambda b, n: rate_limited, JUDGE_MAX_TRIES=1, JUDGE_BATCH=3)
    assert [c[0] for c in backend.calls] == ["block-01", "block-01-r1"]
    assert set(kinds(verdicts).values()) == {"rate_limit"}
    assert [v.attempts for v in verdicts.values()] == [2, 1, 1]


def test_resplit_takes_the_latest_failure(tmp_path):
    script = lambda b, n: ConnectionResetError if b == "block-01" else HANG  # noqa: E731
    verdicts, _, _, _ = run(tmp_path, 2, script, JUDGE_MAX_TRIES=1, JUDGE_PER_TIMEOUT=0.3)
    assert kinds(verdicts) == {"R1": "timeout", "R2": "timeout"}


def test_resplit_never_starts_after_the_deadline(tmp_path):
    # block-01 fails fast and is resplit; its first single row hangs into the deadline;
    # nothing starts after it, and block-02 never starts at all
    script = lambda b, n: ConnectionResetError if b == "block-01" else HANG  # noqa: E731
    verdicts, backend, seconds, ctx = run(tmp_path, 4, script, JUDGE_MAX_TRIES=1, JUDGE_BATCH=2, JUDGE_DEADLINE=1.5)
    assert [c[0] for c in backend.calls] == ["block-01", "block-01-r1"]
    assert kinds(verdicts) == {"R1": "deadline", "R2": "api_error", "R3": "deadline", "R4": "deadline"}
    assert seconds < 2.5
    assert [verdicts[r].attempts for r in ("R1", "R2", "R3", "R4")] == [2, 1, 0, 0]


# --------------------------------------------------------------------------- deadline


def test_deadline_keeps_what_was_judged(tmp_path):
    script = lambda b, n: OK if b == "block-01" else HANG  # noqa: E731
    verdicts, backend, seconds, _ = run(tmp_path, 4, script, JUDGE_BATCH=2, JUDGE_DEADLINE=1.0)
    assert {k: v.judged for k, v in verdicts.items()} == {"R1": True, "R2": True, "R3": False, "R4": False}
    assert kinds(verdicts) == {"R1": None, "R2": None, "R3": "deadline", "R4": "deadline"}
    assert verdicts["R3"].attempts == 1
    assert seconds < 2.5


def test_no_retry_wait_is_started_that_ends_after_the_deadline(tmp_path):
    verdicts, backend, seconds, _ = run(tmp_path, 1, lambda b, n: rate_limited, JUDGE_DEADLINE=1.5, JUDGE_MAX_TRIES=6)
    assert len(backend.calls) == 2 and seconds < 1.5  # tries at 0 s and 1 s; no wait into the deadline
    assert verdicts["R1"].error_kind == "rate_limit" and "JUDGE_DEADLINE" in verdicts["R1"].reason


# --------------------------------------------------------------------------- start jitter


def test_first_wave_delays_spread_over_the_window():
    delays = [first_wave_delays(5, 2, 10.0, random.Random(seed)) for seed in range(400)]
    assert all(d[2:] == [0.0, 0.0, 0.0] for d in delays)  # later blocks start when a slot frees
    first = [x for d in delays for x in d[:2]]
    assert min(first) >= 0 and max(first) <= 10
    assert min(first) < 0.5 and max(first) > 9.5
    assert 4.3 < statistics.mean(first) < 5.7
    deciles = [sum(1 for x in first if k <= x < k + 1) for k in range(10)]
    assert min(deciles) > 40  # ~80 expected per 1 s bin: no bunching
    assert first_wave_delays(3, 2, 0.0, random.Random(1)) == [0.0, 0.0, 0.0]


def test_first_wave_waits_its_jitter_holding_its_slot(tmp_path):
    ctx = make_ctx(tmp_path, env={"JUDGE_START_JITTER": "2.0", "JUDGE_CONCURRENCY": "2", "JUDGE_BATCH": "1"})
    ctx.rng = random.Random(3)
    expected = first_wave_delays(3, 2, 2.0, random.Random(3))  # 0.48 s and 1.09 s
    backend = ScriptedBackend(lambda b, n: OK)
    asyncio.run(judge_blocks(criteria(3), ctx.segment(), backend))
    start = {name: t for name, _, t in backend.calls}
    assert start["block-01"] == pytest.approx(expected[0], abs=0.3)
    assert start["block-02"] == pytest.approx(expected[1], abs=0.3)
    # block-03 is not in the first wave: it waits for a slot, not for a jitter of its own
    assert start["block-03"] >= min(expected[:2]) and start["block-03"] == pytest.approx(min(expected[:2]), abs=0.35)


def test_split_blocks_names_and_sizes():
    blocks = split_blocks(criteria(10), 4)
    assert [(name, [c.id for c in rows]) for name, rows in blocks] == [
        ("block-01", ["R1", "R2", "R3", "R4"]), ("block-02", ["R5", "R6", "R7", "R8"]), ("block-03", ["R9", "R10"])]


def test_a_crashing_block_loses_only_its_own_rows(tmp_path, monkeypatch):
    real = scheduler.build_workspace

    def broken(name, rows, ctx):
        if name == "block-02":
            raise OSError("No space left on device")
        return real(name, rows, ctx)

    monkeypatch.setattr(scheduler, "build_workspace", broken)
    verdicts, backend, _, _ = run(tmp_path, 4, lambda b, n: OK, JUDGE_BATCH=2)
    assert kinds(verdicts) == {"R1": None, "R2": None, "R3": "backend_error", "R4": "backend_error"}
    assert "No space left on device" in verdicts["R3"].reason


def test_rows_a_usable_reply_leaves_unjudged_keep_the_parsers_reason(tmp_path):
    """R2 is given twice with different hits: parse_error with the parser's own reason,
    not the generic "the reply held no verdict for this row"."""

    class Conflicting(ScriptedBackend):
        async def attempt(self, block_name, rows, workspace, *, attempt_no, timeout_at):
            reply = {"verdicts": [{"id": "R1", "hit": True, "reason": "ok"}, {"id": "R2", "hit": True, "reason": "a"},
                                  {"id": "R2", "hit": False, "reason": "b"}]}
            return Attempted(parse_reply(json.dumps(reply), rows))

    ctx = make_ctx(tmp_path, env={"JUDGE_START_JITTER": "0", "JUDGE_RESPLIT": "0"})
    verdicts = asyncio.run(judge_blocks(criteria(2), ctx.segment(), Conflicting(lambda b, n: OK)))
    assert verdicts["R1"].judged and verdicts["R2"].error_kind == "parse_error"
    assert "conflicting verdicts" in verdicts["R2"].reason
