"""The run's one limiter against the simulator: the server's Retry-After is honoured by
every request of the run, agentic and workflow alike — measured at the simulator (request
arrival times), never by timing the test."""

from __future__ import annotations

import dataclasses
import shutil
import threading

import pytest
from testkit import SIM_KEY, held_workflow_call, make_ctx, judge_agentic_alone

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer
from cowork_judge.workflow._contract import ModelCallFailed
from cowork_judge.workflow.runner import workflow_calls

ROWS = normalize_rubric([{"id": f"R{i}", "description": f"the report states fact {i}", "weight": 1}
                         for i in range(1, 5)]).criteria
ORACLE = OraclePolicy.from_dict({f"R{i}": {"hit": i % 2 == 0} for i in range(1, 5)})
EPS = 0.02
"""Seconds of slack between the simulator's clock reads (its 429 is logged just before the
answer is written; the client reads it a moment later)."""


def ctx_for(tmp_path, sim: SimServer, **env: str):
    knobs = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": sim.url, "JUDGE_START_JITTER": "0", "JUDGE_BATCH": "1",
             "JUDGE_CONCURRENCY": "4", **env}
    return make_ctx(tmp_path, {"report.md": "fact 1, fact 2, fact 3, fact 4"}, env=knobs)


def test_bucket_retry_after_is_honoured_by_every_block(tmp_path):
    """Four blocks start at once against a bucket holding one request. A refused request
    never comes back before the wait the bucket asked for; and once refusals are the
    rule (the second one: a share of at least 2/5), every request of the run waits."""
    with SimServer(ORACLE, api_key=SIM_KEY, rpm=120, burst=1, tool_rounds=0) as sim:
        ctx = ctx_for(tmp_path, sim)
        verdicts = judge_agentic_alone(ROWS, ctx)
        entries = sorted(sim.log.entries(), key=lambda e: e.start_s)
    assert all(v.judged for v in verdicts.values())
    refused = sorted((e for e in entries if e.fault == "rpm_limit"), key=lambda e: e.end_s)
    assert len(refused) >= 2, "the bucket refused fewer than two: the test proves nothing"
    for r in refused:  # the refused request itself: its next try waits at least the ask
        again = [e for e in entries if e.row_ids == r.row_ids and e.start_s > r.end_s]
        assert again and again[0].start_s >= r.end_s + r.retry_after_ms / 1000 - EPS, (r, again[:1])
    retries = entries[len(ROWS):]  # the first wave (one request per block) left before any reply came back
    for r in refused[1:]:  # the gate: nobody starts before the ask
        later = [e for e in retries if e.start_s > r.end_s]
        assert all(e.start_s >= r.end_s + r.retry_after_ms / 1000 - EPS for e in later), (r, later[:1])
    assert ctx.limiter.events >= 1 and ctx.limiter.rate_limited_replies == len(refused)
    assert len([e for e in entries if e.status == 200]) == len(ROWS)


def test_an_error_inside_a_200_stream_does_not_drive_the_limiter(tmp_path):
    """The request was admitted: it is retried with backoff (a rate limit, SPEC §11), but
    neither gates nor paces the run; a 429 at admission does."""
    script = ["stream_rate_limit", "ok", "ok", "ok", "http_429"]
    with SimServer(ORACLE, api_key=SIM_KEY, faults=FaultPlan(script=script), tool_rounds=0) as sim:
        ctx = ctx_for(tmp_path, sim, JUDGE_CONCURRENCY="1", JUDGE_RETRY_BACKOFF_MAX="1")
        verdicts = judge_agentic_alone(ROWS, ctx)
    assert all(v.judged for v in verdicts.values())
    assert ctx.stats.by_kind == {"rate_limit": 2}
    assert ctx.limiter.rate_limited_replies == 1 and ctx.limiter.in_flight == 0


def test_a_workflow_calls_rate_limit_gates_the_agentic_calls(tmp_path):
    """One limiter per run: the workflow transport meets a 429 with Retry-After: 1, gives up
    (JUDGE_MAX_TRIES=1), and the agentic blocks judged right after wait out the same gate."""
    with SimServer(ORACLE, api_key=SIM_KEY, faults=FaultPlan(script=["http_429"]), tool_rounds=0) as sim:
        ctx = ctx_for(tmp_path, sim, JUDGE_MAX_TRIES="1")
        calls = workflow_calls(ctx.segment())
        assert calls.limiter is ctx.limiter
        caller = calls.caller("stub", ctx.audit.scoped("workflow-stub"), cancel=threading.Event(), budget_end=ctx.deadline.at)
        try:
            with pytest.raises(ModelCallFailed) as failed:
                caller.complete([{"role": "user", "content": "Criteria:\n1. the report states fact 1"}], label="probe")
        finally:
            calls.close()
        assert failed.value.kind == "rate_limit"
        verdicts = judge_agentic_alone(ROWS, ctx)
        entries = sorted(sim.log.entries(), key=lambda e: e.start_s)
    assert all(v.judged for v in verdicts.values())
    first, rest = entries[0], entries[1:]
    assert first.fault == "http_429" and len(rest) == len(ROWS)
    assert min(e.start_s for e in rest) >= first.end_s + 1.0 - EPS  # Retry-After: 1, honoured across segments


def test_the_backend_and_the_workflows_share_the_run_limiter(tmp_path):
    from cowork_judge.agentic.openai_agent import OpenAIAgentBackend

    with SimServer(ORACLE, api_key=SIM_KEY) as sim:
        ctx = ctx_for(tmp_path, sim)
        backend = OpenAIAgentBackend.open(ctx.segment())
        assert backend.transport.limiter is ctx.limiter is workflow_calls(ctx.segment()).limiter


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.skipif(shutil.which(n) is None, reason=f"{n} CLI not on PATH"))
                                  for n in ("codex", "claude")])
def test_agent_cli_attempts_obey_and_feed_the_run_limiter(tmp_path, name):
    """A CLI makes its own HTTP calls; the limiter sees each attempt as one request. A
    workflow call's 429 (Retry-After: 1) gates the CLI's launch; the CLI's own 429 at
    admission is reported to the same limiter (counted, the window cut); coverage 1.0."""
    with SimServer(ORACLE, api_key=SIM_KEY, faults=FaultPlan(script=["http_429", "http_429"]), tool_rounds=0) as sim:
        ctx = ctx_for(tmp_path, sim, JUDGE_BACKEND=name, JUDGE_BATCH="4", JUDGE_CONCURRENCY="1", JUDGE_MAX_TRIES="1",
                      JUDGE_RETRY_BACKOFF_MAX="2")
        calls = workflow_calls(ctx.segment())  # one try: the workflow call gives up on its 429
        caller = calls.caller("stub", ctx.audit.scoped("workflow-stub"), cancel=threading.Event(), budget_end=ctx.deadline.at)
        try:
            with pytest.raises(ModelCallFailed):
                caller.complete([{"role": "user", "content": "Criteria:\n1. the report states fact 1"}], label="probe")
        finally:
            calls.close()
        ctx.retry = dataclasses.replace(ctx.retry, max_tries=3)  # the block retries its own 429
        verdicts = judge_agentic_alone(ROWS, ctx)
        entries = sorted(sim.log.entries(), key=lambda e: e.start_s)
    assert all(v.judged for v in verdicts.values())
    first, cli_first = entries[0], entries[1]
    assert first.fault == "http_429" and cli_first.fault == "http_429"
    assert cli_first.start_s >= first.end_s + 1.0 - EPS  # the CLI launched after the gate opened
    assert ctx.limiter.rate_limited_replies == 2 and ctx.limiter.events >= 1 and ctx.limiter.in_flight == 0
    assert ctx.stats.by_kind == {"rate_limit": 2}  # the workflow call's and the block's first attempt


def test_an_ask_past_the_calls_time_limit_fails_fast_as_rate_limit(tmp_path):
    """A bucket that refills once an hour: its ask (3600 s, the clamp) is past every call's
    time limit and the run's deadline. A refused block gives up at once; once refusals are
    the rule the gate closes, and the blocks after it send nothing and say ``rate_limit``
    ("asked the run to wait past…"), not ``timeout`` after idling through their budget."""
    rows = normalize_rubric([{"id": f"R{i}", "description": f"the report states fact {i}", "weight": 1}
                             for i in range(1, 9)]).criteria
    with SimServer(ORACLE, api_key=SIM_KEY, rpm=0.01, burst=1, tool_rounds=0) as sim:
        ctx = ctx_for(tmp_path, sim, JUDGE_CONCURRENCY="2", JUDGE_RETRY_BACKOFF_MAX="1", JUDGE_PER_TIMEOUT="60",
                      JUDGE_DEADLINE="1800")
        verdicts = judge_agentic_alone(rows, ctx)
        entries = sorted(sim.log.entries(), key=lambda e: e.start_s)
    assert [e.status for e in entries].count(200) == 1 and len(entries) <= 4  # the gate stopped the rest
    lost = [v for v in verdicts.values() if not v.judged]
    assert len(lost) == 7 and all(v.error_kind == "rate_limit" for v in lost), [(v.error_kind, v.reason) for v in lost]
    met_gate = [v for v in lost if "asked the run to wait past" in v.reason]
    assert len(met_gate) >= 4  # 8 blocks, at most 4 requests: the others never left
    assert ctx.deadline.remaining() > 1700  # ended long before JUDGE_DEADLINE


def test_a_workflow_call_held_past_its_budget_says_rate_limit(tmp_path):
    """The gate is closed for an hour (a 429 that asked for 3600 s): a workflow call whose
    budget ends first sends nothing and fails as ``rate_limit`` right away."""
    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        ctx = ctx_for(tmp_path, sim)
        ticket, _ = ctx.limiter.try_start()
        ctx.limiter.rate_limited(ticket, 3600.0)  # the run's first reply: a share of 1/3 closes the gate
        failed = held_workflow_call(ctx, 30.0)
        assert len(sim.log) == 0
    assert failed.kind == "rate_limit" and "asked the run to wait past" in str(failed)
