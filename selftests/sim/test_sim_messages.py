"""POST /v1/messages (Anthropic) over raw HTTP: events, tool_use turns, StructuredOutput, faults, extras."""

from __future__ import annotations

import json
import urllib.request

import pytest
from conftest import ROWS, post_raw, rows_block, sse_events

from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

ORACLE = {"A1": {"hit": True, "reason": "stated"}, "A2": {"hit": False, "level": 0.5, "reason": "half"}}
EXPECTED = [
    {"id": "A1", "hit": True, "reason": "stated"},
    {"id": "A2", "hit": False, "level": 0.5, "reason": "half"},
    {"id": "N1", "hit": False, "reason": "not in oracle"},
]
SCHEMA = {"type": "object", "properties": {"verdicts": {"type": "array"}}, "required": ["verdicts"]}
CLAUDE_TOOLS = [
    {"name": "Bash", "description": "run", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}},
    {"name": "Read", "description": "read", "input_schema": {"type": "object", "properties": {}}},
    {"name": "StructuredOutput", "description": "final answer", "input_schema": SCHEMA},
]
KEY = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"}


def _body(**extra) -> dict:
    return {"model": "claude-sim", "max_tokens": 1024, "system": [{"type": "text", "text": "You judge rubrics."}],
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "<system-reminder>context</system-reminder>"},
                {"type": "text", "text": f"Deliverable: quarterly revenue growth 5%.\n{rows_block(ROWS)}"}]}],
            **extra}


def _sim(**kwargs) -> SimServer:
    return SimServer(OraclePolicy.from_dict(ORACLE), **kwargs)


def _stream(sim: SimServer, body: dict, headers: dict | None = None) -> tuple[int, dict, list]:
    status, head, raw = post_raw(sim.root_url, "/v1/messages?beta=true", {**body, "stream": True}, headers or KEY)
    return status, head, sse_events(raw) if status == 200 else json.loads(raw)


def _text(events: list) -> str:
    return "".join(d["delta"].get("text", "") for _, d in events if d["type"] == "content_block_delta")


def test_plain_message_holds_verdicts_and_anthropic_usage():
    with _sim() as sim:
        status, head, raw = post_raw(sim.root_url, "/v1/messages", _body(), KEY)
    doc = json.loads(raw)
    assert status == 200 and head["request-id"].startswith("req_")
    assert doc["type"] == "message" and doc["role"] == "assistant" and doc["stop_reason"] == "end_turn"
    (block,) = doc["content"]
    assert block["type"] == "text" and json.loads(block["text"])["verdicts"] == EXPECTED
    (entry,) = sim.log
    assert (entry.endpoint, entry.kind, entry.row_ids) == ("messages", "final", ["A1", "A2", "N1"])
    assert doc["usage"] == {"input_tokens": entry.prompt_tokens, "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 0, "output_tokens": entry.completion_tokens}


def test_stream_event_sequence_with_event_names():
    with _sim() as sim:
        status, _, events = _stream(sim, _body())
    names = [name for name, _ in events]
    assert status == 200 and names[:3] == ["message_start", "ping", "content_block_start"]
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert all(name == data["type"] for name, data in events)  # event: line == data.type
    assert json.loads(_text(events))["verdicts"] == EXPECTED
    start, delta = events[0][1]["message"], events[-2][1]
    assert start["usage"]["input_tokens"] == sim.log[0].prompt_tokens
    assert delta["delta"]["stop_reason"] == "end_turn" and delta["usage"]["output_tokens"] == sim.log[0].completion_tokens


def test_claude_turns_bash_then_structured_output_tool_use():
    """Like `claude -p --json-schema`: a read-only Bash turn, then the StructuredOutput tool call."""
    with _sim() as sim:
        body = _body(tools=CLAUDE_TOOLS)
        _, _, first = _stream(sim, body)
        start = next(d for _, d in first if d["type"] == "content_block_start")["content_block"]
        args = "".join(d["delta"]["partial_json"] for _, d in first if d["type"] == "content_block_delta")
        assert start["type"] == "tool_use" and start["name"] == "Bash" and start["id"].startswith("toolu_")
        assert json.loads(args)["command"] == "ls -la output"
        assert next(d for _, d in first if d["type"] == "message_delta")["delta"]["stop_reason"] == "tool_use"
        body["messages"] += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": start["id"], "name": "Bash",
                                               "input": json.loads(args)}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": start["id"],
                                          "content": "report.md <rubric_rows>[]</rubric_rows>"}]},
        ]
        _, _, second = _stream(sim, body)
        status, _, raw = post_raw(sim.root_url, "/v1/messages", body, KEY)  # the non-streaming fallback
    assert status == 200
    start = next(d for _, d in second if d["type"] == "content_block_start")["content_block"]
    args = "".join(d["delta"]["partial_json"] for _, d in second if d["type"] == "content_block_delta")
    assert start["name"] == "StructuredOutput" and json.loads(args)["verdicts"] == EXPECTED
    (block,) = json.loads(raw)["content"]
    assert block["type"] == "tool_use" and block["input"]["verdicts"] == EXPECTED
    assert [(e.kind, e.tool_call) for e in sim.log] == [("tool", "Bash"), ("final", None), ("final", None)]


def test_forced_tool_choice_answers_through_that_tool_at_once():
    tool = {"name": "grade", "input_schema": SCHEMA}
    with _sim() as sim:
        _, _, raw = post_raw(sim.root_url, "/v1/messages", _body(tools=[tool, CLAUDE_TOOLS[0]],
                                                                 tool_choice={"type": "tool", "name": "grade"}), KEY)
    (block,) = json.loads(raw)["content"]
    assert block["name"] == "grade" and block["input"]["verdicts"] == EXPECTED
    assert json.loads(raw)["stop_reason"] == "tool_use" and sim.log[0].kind == "final"


@pytest.mark.parametrize(
    ("kind", "status", "err_type", "message"),
    [
        ("http_429", 429, "rate_limit_error", "Rate limit reached"),
        ("http_5xx", 500, "api_error", "Bad gateway"),
        ("insufficient_quota", 400, "invalid_request_error", "credit balance is too low"),
        ("rate_text", 400, "invalid_request_error", "Request rate increased too quickly"),
    ],
)
def test_status_faults_are_anthropic_error_documents(kind, status, err_type, message):
    with _sim(faults=FaultPlan(script=[kind])) as sim:
        got, head, doc = _stream(sim, _body())
    assert got == status and doc["type"] == "error" and doc["error"]["type"] == err_type
    assert message in doc["error"]["message"] and "request-id" in head
    assert (head.get("retry-after") == "1") == (kind == "http_429")
    assert (sim.log[0].fault, sim.log[0].status, sim.log[0].endpoint) == (kind, status, "messages")


def test_http_5xx_alternates_500_and_529_overloaded():
    with _sim(faults=FaultPlan(script=["http_5xx", "http_5xx"])) as sim:
        first, second = _stream(sim, _body()), _stream(sim, _body())
    assert (first[0], second[0]) == (500, 529) and second[2]["error"]["type"] == "overloaded_error"
    assert [e.status for e in sim.log] == [500, 529]


def test_stream_faults_inside_the_200_stream():
    with _sim(faults=FaultPlan(script=["stream_rate_limit", "stream_disconnect", "truncated_json"])) as sim:
        _, _, limited = _stream(sim, _body())
        _, _, cut = _stream(sim, _body())
        _, _, truncated = _stream(sim, _body())
    name, data = limited[-1]
    assert name == "error" and data["error"]["type"] == "rate_limit_error"
    assert "message_stop" not in [n for n, _ in limited + cut] and cut[-1][1]["type"] == "content_block_delta"
    assert next(d for _, d in truncated if d["type"] == "message_delta")["delta"]["stop_reason"] == "max_tokens"
    with pytest.raises(json.JSONDecodeError):
        json.loads(_text(truncated))


def test_api_key_header_head_probe_count_tokens_and_models():
    with _sim(api_key="sk-ant-test") as sim:
        status, _, doc = _stream(sim, _body(), {"x-api-key": "wrong"})
        assert status == 401 and doc["error"]["type"] == "authentication_error"
        assert _stream(sim, _body(), {"Authorization": "Bearer sk-ant-test"})[0] == 200
        assert _stream(sim, _body())[0] == 200
        req = urllib.request.Request(sim.root_url + "/", method="HEAD")
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 200 and resp.read() == b""
        status, _, raw = post_raw(sim.root_url, "/v1/messages/count_tokens", _body(), KEY)
        assert status == 200 and json.loads(raw) == {"input_tokens": sim.log[2].prompt_tokens}
        status, _, raw = post_raw(sim.root_url, "/v1/messages/count_tokens", {"messages": []}, KEY)
        assert status == 400 and json.loads(raw)["type"] == "error"
        req = urllib.request.Request(sim.root_url + "/v1/models", headers=KEY)
        with urllib.request.urlopen(req, timeout=5) as resp:
            model = json.load(resp)["data"][0]
        assert model["type"] == "model" and model["id"] == "sim-judge" and model["display_name"]
    assert [e.status for e in sim.log] == [401, 200, 200]
    assert [(m, p.split("?")[0], s) for m, p, s in sim.other_requests] == [
        ("HEAD", "/", 200), ("POST", "/v1/messages/count_tokens", 200),
        ("POST", "/v1/messages/count_tokens", 400), ("GET", "/v1/models", 200)]


def test_bad_message_bodies_get_400_not_tracebacks():
    with _sim() as sim:
        for body in ({"model": "m"}, {"messages": [{"role": "user", "content": 5}]},
                     {"messages": ["hi"]}, [1, 2]):
            status, _, raw = post_raw(sim.root_url, "/v1/messages", body, KEY)
            assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
    assert sim.errors == [] and [e.kind for e in sim.log] == ["error"] * 4
