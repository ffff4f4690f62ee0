"""Fault injection: what the real openai client raises or returns for every fault kind."""

from __future__ import annotations

import json
import time

import openai
import pytest

from cowork_judge.sim import FAULT_KINDS, FaultPlan, OraclePolicy, SimServer
from cowork_judge.sim.faults import parse_fault_rate, parse_fault_script

ORACLE = OraclePolicy.from_dict({"A1": {"hit": True, "reason": "ok"}, "A2": {"hit": True, "level": 1.0}})


def _one(client, messages, kind: str, *, stream: bool = False, timeout: float = 5.0):
    """Send one request that gets ``kind``; return (result or exception, log entry)."""
    with SimServer(ORACLE, faults=FaultPlan(script=[kind], hang_seconds=30)) as sim, \
            client(sim.url, timeout=timeout) as c:
        try:
            if stream:
                result: object = list(c.chat.completions.create(model="m", messages=messages(), stream=True))
            else:
                result = c.chat.completions.create(model="m", messages=messages())
        except openai.OpenAIError as exc:
            result = exc
        deadline = time.monotonic() + 3
        while not len(sim.log) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sim.errors == []
        return result, sim.log[0]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("kind", "exc_type", "status", "message"),
    [
        ("http_429", openai.RateLimitError, 429, "Error code: 429 - Rate limit reached for requests"),
        ("http_5xx", openai.InternalServerError, 502, "Error code: 502 - Bad gateway"),
        ("insufficient_quota", openai.RateLimitError, 429, "You exceeded your current quota"),
        ("quota_exceeded_text", openai.BadRequestError, 400, "quota exceeded"),
        ("rate_text", openai.BadRequestError, 400, "Request rate increased too quickly"),
    ],
)
def test_status_faults_raise_status_errors(client, messages, kind, exc_type, status, message, stream):
    exc, entry = _one(client, messages, kind, stream=stream)
    assert type(exc) is exc_type and exc.status_code == status and message in str(exc)
    assert (entry.kind, entry.fault, entry.status, entry.stream) == ("fault", kind, status, stream)
    if kind == "insufficient_quota":
        assert exc.code == "insufficient_quota" and exc.type == "insufficient_quota"
    if kind == "http_429":
        assert exc.code == "rate_limit_exceeded" and exc.response.headers["retry-after"] == "1"


def test_status_faults_alternate_their_status(client, messages):
    plan = FaultPlan(script=["http_5xx", "http_5xx", "quota_exceeded_text", "quota_exceeded_text"])
    with SimServer(faults=plan) as sim, client(sim.url) as c:
        raised = []
        for _ in range(4):
            with pytest.raises(openai.APIStatusError) as info:
                c.chat.completions.create(model="m", messages=messages())
            raised.append((type(info.value), info.value.status_code))
    assert raised == [(openai.InternalServerError, 502), (openai.InternalServerError, 503),
                      (openai.BadRequestError, 400), (openai.InternalServerError, 500)]
    assert "quota exceeded" in str(info.value)


def test_stream_rate_limit_raises_api_error_inside_the_200_stream(client, messages):
    exc, entry = _one(client, messages, "stream_rate_limit", stream=True)
    assert type(exc) is openai.APIError and not isinstance(exc, openai.APIStatusError)
    assert str(exc).startswith("Request rate increased too quickly")
    assert exc.type == "rate_limit_error" and exc.code == "rate_limit_exceeded"
    assert (entry.status, entry.stream) == (200, True)


def test_stream_rate_limit_on_plain_request_is_a_200_error_body(client, messages):
    resp, _ = _one(client, messages, "stream_rate_limit")
    assert resp.choices is None  # the SDK does NOT raise: the judge must check
    assert resp.error["type"] == "rate_limit_error"


def test_stream_disconnect_ends_silently_without_finish_reason(client, messages):
    chunks, entry = _one(client, messages, "stream_disconnect", stream=True)
    assert isinstance(chunks, list) and chunks  # no exception from the SDK
    assert all(ch.finish_reason is None for ev in chunks for ch in ev.choices)
    assert "".join(ch.delta.content or "" for ev in chunks for ch in ev.choices) == '{"verdicts": ['


@pytest.mark.parametrize(
    ("kind", "stream"),
    [("stream_abort", True), ("stream_abort", False), ("stream_disconnect", False),
     ("reset", True), ("reset", False)],
)
def test_dropped_connections_raise_api_connection_error(client, messages, kind, stream):
    exc, entry = _one(client, messages, kind, stream=stream)
    assert type(exc) is openai.APIConnectionError and str(exc) == "Connection error."
    assert entry.fault == kind and entry.status == (None if kind == "reset" else 200)


@pytest.mark.parametrize("stream", [False, True])
def test_hang_times_out_on_the_client(client, messages, stream):
    t0 = time.monotonic()
    exc, entry = _one(client, messages, "hang", stream=stream, timeout=0.3)
    assert type(exc) is openai.APITimeoutError and str(exc) == "Request timed out."
    assert time.monotonic() - t0 < 3
    assert entry.status is None and entry.duration_s < 2  # server noticed the client leave


def test_hang_gives_up_after_hang_seconds(client, messages):
    with SimServer(faults=FaultPlan(script=["hang"], hang_seconds=0.2)) as sim, client(sim.url, timeout=5) as c:
        with pytest.raises(openai.APIConnectionError):
            c.chat.completions.create(model="m", messages=messages())
    assert 0.2 <= sim.log[0].duration_s < 1.5


@pytest.mark.parametrize("stream", [False, True])
def test_content_faults_are_200_with_bad_content(client, messages, stream):
    kinds = ["malformed_json", "truncated_json", "empty", "unknown_ids"]
    got = {}
    with SimServer(ORACLE, faults=FaultPlan(script=kinds)) as sim, client(sim.url) as c:
        for kind in kinds:
            if stream:
                events = list(c.chat.completions.create(model="m", messages=messages(), stream=True))
                text = "".join(ch.delta.content or "" for ev in events for ch in ev.choices)
                finish = [ch.finish_reason for ev in events for ch in ev.choices if ch.finish_reason]
            else:
                resp = c.chat.completions.create(model="m", messages=messages())
                text, finish = resp.choices[0].message.content, [resp.choices[0].finish_reason]
            got[kind] = (text, finish)
    with pytest.raises(json.JSONDecodeError):
        json.loads(got["malformed_json"][0])
    truncated, finish = got["truncated_json"]
    assert finish == ["length"] and truncated.startswith('{"verdicts": [{"id": "A1"')
    assert '"id": "A2"' in truncated and "N1" not in truncated  # cut inside the 2nd row
    with pytest.raises(json.JSONDecodeError):
        json.loads(truncated)
    assert got["empty"] == ("", ["stop"])
    unknown = json.loads(got["unknown_ids"][0])["verdicts"]
    assert len(unknown) == 3 and not {v["id"] for v in unknown} & {"A1", "A2", "N1"}
    assert [(e.kind, e.fault, e.status) for e in sim.log] == [("fault", k, 200) for k in kinds]


def test_script_is_consumed_in_order_then_falls_back_to_rates(client, messages):
    plan = FaultPlan({"http_429": 1.0}, script=["ok", "http_5xx", "ok", "empty"])
    with SimServer(faults=plan) as sim, client(sim.url) as c:
        for _ in range(6):
            try:
                c.chat.completions.create(model="m", messages=messages())
            except openai.APIStatusError:
                pass
    assert [e.fault for e in sim.log] == [None, "http_5xx", None, "empty", "http_429", "http_429"]


def test_rate_draws_are_reproducible_with_a_seed():
    def run(seed: int) -> list[str | None]:
        plan = FaultPlan({"http_429": 0.3, "reset": 0.2}, seed=seed)
        return [f.kind if (f := plan.next_fault()) else None for _ in range(200)]

    first = run(11)
    assert first == run(11) and first != run(12)
    share = first.count("http_429") / 200, first.count("reset") / 200
    assert 0.2 < share[0] < 0.4 and 0.1 < share[1] < 0.3


def test_rates_apply_per_request_through_the_server(client, messages):
    with SimServer(faults=FaultPlan({"http_429": 0.5}, seed=3)) as sim, client(sim.url) as c:
        outcomes = []
        for _ in range(20):
            try:
                c.chat.completions.create(model="m", messages=messages())
                outcomes.append("ok")
            except openai.RateLimitError:
                outcomes.append("429")
    expected = FaultPlan({"http_429": 0.5}, seed=3)
    assert outcomes == ["429" if expected.next_fault() else "ok" for _ in range(20)]
    assert 0 < outcomes.count("429") < 20


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"rates": {"http_418": 0.1}}, "unknown fault kind 'http_418'"),
        ({"rates": {"http_429": 1.5}}, "must be a number in [0, 1]"),
        ({"rates": {"http_429": 0.7, "reset": 0.6}}, "sum to 1.3"),
        ({"script": ["ok", "boom"]}, "unknown fault kind 'boom'"),
        ({"hang_seconds": 0}, "hang_seconds"),
    ],
)
def test_fault_plan_validation(kwargs, fragment):
    with pytest.raises(ValueError) as info:
        FaultPlan(**kwargs)
    assert fragment in str(info.value)


def test_command_line_fault_parsers():
    assert parse_fault_rate("http_429=0.25") == ("http_429", 0.25)
    assert parse_fault_script("reset, ok,empty") == ["reset", "ok", "empty"]
    for bad in ("http_429", "http_429=x", "http_429=2", "nope=0.1"):
        with pytest.raises(ValueError):
            parse_fault_rate(bad)
    assert set(FAULT_KINDS) >= {"http_429", "http_5xx", "stream_rate_limit", "insufficient_quota",
                                "quota_exceeded_text", "rate_text", "hang", "reset", "malformed_json",
                                "truncated_json", "empty", "unknown_ids"}
