"""The transport against the simulator: what each injected fault becomes after the real SDK.

One streamed call per fault kind through `Transport.chat` (the real ``openai`` client
over HTTP on loopback, library retries off), then `classify`: this pins the path from the
wire to the `ErrorKind` that decides retry and backoff.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from cowork_judge.core.classify import classify
from cowork_judge.sim import FAULT_KINDS, FaultPlan, OraclePolicy, SimServer
from cowork_judge.transport.chat import ChatReply, Transport
from cowork_judge.transport.stats import CallStats

ROWS = [{"id": "A1", "description": "states the growth", "type": "binary", "polarity": "positive"},
        {"id": "A2", "description": "names the source", "type": "binary", "polarity": "positive"}]
MESSAGES = [{"role": "system", "content": "judge"},
            {"role": "user", "content": "<rubric_rows>\n" + json.dumps(ROWS) + "\n</rubric_rows>"}]
ORACLE = OraclePolicy.from_dict({"A1": {"hit": True}, "A2": {"hit": False}})

EXPECTED_KIND = {
    "http_429": "rate_limit",
    "http_5xx": "api_error",
    "insufficient_quota": "insufficient_quota",
    "quota_exceeded_text": "rate_limit",
    "rate_text": "rate_limit",
    "stream_rate_limit": "rate_limit",
    "stream_disconnect": "rate_limit",
    "stream_abort": "api_error",
    "hang": "timeout",
    "reset": "api_error",
    "echo_key": "api_error",
}
"""Transport faults → kind. Content faults (malformed/truncated/empty/unknown ids) are a
200 with a finish_reason: the transport returns them and the parser judges them."""
CONTENT = {"malformed_json", "truncated_json", "empty", "unknown_ids"}


def call_once(plan: FaultPlan, *, timeout_sec: float = 5.0) -> tuple[object, SimServer, CallStats]:
    """One `Transport.chat` call against a simulator with `plan`; returns (reply or exception, sim, stats)."""
    stats = CallStats()

    async def go(url: str) -> object:
        transport = Transport(api_key="sk-transport-test-0000", base_url=url, model="m", stats=stats)
        try:
            return await transport.chat(MESSAGES, timeout_sec=timeout_sec)
        except Exception as exc:  # noqa: BLE001 - the exception is the result under test
            return exc
        finally:
            await transport.close()

    sim = SimServer(ORACLE, faults=plan).start()
    try:
        result = asyncio.run(go(sim.url))
        deadline = time.monotonic() + 3
        while len(sim.log) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        sim.stop()
    return result, sim, stats


def test_every_fault_kind_has_an_expectation():
    assert set(FAULT_KINDS) == set(EXPECTED_KIND) | CONTENT


@pytest.mark.parametrize("kind", sorted(EXPECTED_KIND))
def test_transport_fault_is_classified(kind):
    result, sim, stats = call_once(FaultPlan(script=[kind], hang_seconds=30), timeout_sec=0.5 if kind == "hang" else 5.0)
    assert isinstance(result, Exception), result
    assert classify(result) == EXPECTED_KIND[kind]
    assert stats.calls == 1 and len(sim.log) == 1  # one HTTP request: the SDK's own retries are off
    assert sim.log[0].fault == kind and sim.errors == []


def test_hang_is_cancelled_on_the_wire():
    t0 = time.monotonic()
    result, sim, _ = call_once(FaultPlan(script=["hang"], hang_seconds=60), timeout_sec=0.4)
    assert classify(result) == "timeout"
    assert time.monotonic() - t0 < 3
    assert sim.log[0].duration_s < 2  # the server saw the client close the connection


@pytest.mark.parametrize("kind", sorted(CONTENT))
def test_content_faults_reach_the_parser(kind):
    result, sim, stats = call_once(FaultPlan(script=[kind]))
    assert isinstance(result, ChatReply) and result.finish_reason in ("stop", "length")
    assert stats.calls == 1 and stats.tokens > 0


def test_fault_free_call_counts_tokens():
    result, sim, stats = call_once(FaultPlan())
    assert isinstance(result, ChatReply)
    assert json.loads(result.content)["verdicts"][0]["id"] == "A1"
    assert stats.calls == 1 and stats.tokens == sim.log[0].prompt_tokens + sim.log[0].completion_tokens


def test_deadline_cancels_the_in_flight_streams(tmp_path):
    """In process (no exit to close sockets for us): when the agentic segment returns at the
    deadline, the hanging requests it had in flight are already closed on the wire."""
    from testkit import make_ctx, judge_agentic_alone

    from cowork_judge.core.rubric import normalize_rubric

    rows = normalize_rubric([{"id": f"R{i}", "description": f"row {i}", "weight": 1} for i in range(1, 5)]).criteria
    with SimServer(ORACLE, faults=FaultPlan({"hang": 1.0}, hang_seconds=60)) as sim:
        ctx = make_ctx(tmp_path, env={"JUDGE_API_KEY": "sk-transport-test-0000", "JUDGE_BASE_URL": sim.url,
                                      "JUDGE_DEADLINE": "1.5", "JUDGE_BATCH": "2", "JUDGE_START_JITTER": "0"})
        t0 = time.monotonic()
        verdicts = judge_agentic_alone(rows, ctx)
        returned = time.monotonic() - t0
        settle = time.monotonic() + 1
        while sim.in_flight and time.monotonic() < settle:
            time.sleep(0.02)
        assert sim.in_flight == 0 and len(sim.log) == 2  # both first-wave streams were closed by the client
        assert all(e.duration_s < 2.5 for e in sim.log)
    assert returned < 2.5
    assert {v.error_kind for v in verdicts.values()} == {"deadline"} and ctx.stats.calls == 2


# --------------------------------------------------------------------------- a plain completion for a stream


def _call_json_streams(plan: FaultPlan | None = None) -> tuple[object, SimServer, CallStats]:
    """One `Transport.chat` call against a simulator that answers streams with plain JSON."""
    stats = CallStats()

    async def go(url: str) -> object:
        transport = Transport(api_key="sk-transport-test-0000", base_url=url, model="m", stats=stats)
        try:
            return await transport.chat(MESSAGES, timeout_sec=5.0)
        except Exception as exc:  # noqa: BLE001 - the exception is the result under test
            return exc
        finally:
            await transport.close()

    with SimServer(ORACLE, faults=plan, json_streams=True) as sim:
        result = asyncio.run(go(sim.url))
    return result, sim, stats


def test_a_plain_json_completion_for_a_streamed_request_is_read_not_taken_for_a_rate_limit():
    """Issue 39, item 4c: an endpoint (or gateway) that answers the streamed request with one
    plain ``chat.completion`` (``Content-Type: application/json``) was recorded as
    ``rate_limit`` ("stream disconnected before completion": the iterator found no event), so
    the row backed off for a minute and was lost. The completion is the reply."""
    result, sim, stats = _call_json_streams()
    assert isinstance(result, ChatReply), result
    assert json.loads(result.content)["verdicts"] == [{"id": "A1", "hit": True, "reason": "oracle"},
                                                      {"id": "A2", "hit": False, "reason": "oracle"}]
    assert result.finish_reason == "stop" and result.tool_calls == []
    entry = sim.log[0]
    assert entry.stream is True and entry.status == 200 and len(sim.log) == 1  # asked to stream, answered with JSON
    assert stats.calls == 1 and stats.tokens == entry.prompt_tokens + entry.completion_tokens > 0


def test_an_error_document_for_a_streamed_request_is_classified_by_its_words():
    """A 200 ``{"error": …}`` document for a stream is raised as the client raises an error
    inside a stream: its words decide (a rate-limit message is still ``rate_limit``)."""
    result, _, _ = _call_json_streams(FaultPlan(script=["stream_rate_limit"]))
    assert isinstance(result, Exception) and classify(result) == "rate_limit"
    assert "Request rate increased too quickly" in str(result)


def test_a_json_document_that_is_no_completion_names_the_mismatch():
    from cowork_judge.transport.chat import StreamMismatch, plain_completion

    assert plain_completion({"object": "list", "data": []}) is None and plain_completion([1]) is None
    got = plain_completion({"choices": [{"message": {"content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": {"path": "a"}}}]},
        "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 7, "completion_tokens": 3,
                                                   "prompt_tokens_details": {"cached_tokens": 2}}})
    assert got is not None and got.tool_calls == [{"id": "c1", "name": "read_file", "arguments": '{"path": "a"}'}]
    assert (got.content, got.finish_reason, got.prompt_tokens, got.completion_tokens, got.cached_tokens) == (
        "", "tool_calls", 7, 3, 2)
    assert classify(StreamMismatch("x")) == "api_error"


def test_an_agentic_run_against_an_endpoint_that_never_streams_judges_every_row_at_once(tmp_path):
    """The built-in backend's whole conversation (tool turn, verdict) against an endpoint that
    answers every streamed request with plain JSON: every row judged in one attempt, no
    refusal, no backoff (before: every turn failed as rate_limit and the rows were lost)."""
    from testkit import SIM_KEY, make_ctx, judge_agentic_alone

    from cowork_judge.core.rubric import normalize_rubric

    rows = normalize_rubric([{"id": "A1", "description": "states the growth", "weight": 1},
                             {"id": "A2", "description": "names the source", "weight": 1}]).criteria
    with SimServer(ORACLE, api_key=SIM_KEY, json_streams=True) as sim:
        ctx = make_ctx(tmp_path, {"report.md": "growth 12 %"},
                       env={"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": sim.url, "JUDGE_START_JITTER": "0",
                            "JUDGE_MAX_TRIES": "2"})
        t0 = time.monotonic()
        verdicts = judge_agentic_alone(rows, ctx)
        took = time.monotonic() - t0
        kinds = [(e.kind, e.stream) for e in sim.log.entries()]
    assert {k: (v.judged, v.hit, v.attempts) for k, v in verdicts.items()} == {"A1": (True, True, 1),
                                                                               "A2": (True, False, 1)}
    assert kinds == [("tool", True), ("final", True)] and ctx.stats.by_kind == {}
    assert took < 30  # no rate-limit backoff (a refusal waits at least 2 s per try)
