"""POST /v1/responses with the real openai client: events, function-call round trips, schema rows, faults."""

from __future__ import annotations

import json

import openai
import pytest
from conftest import ROWS, post_raw, rows_block, sse_events

from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

ORACLE = {"A1": {"hit": True, "reason": "stated"}, "A2": {"hit": False, "level": 0.5, "reason": "half"}}
EXPECTED = [
    {"id": "A1", "hit": True, "reason": "stated"},
    {"id": "A2", "hit": False, "level": 0.5, "reason": "half"},
    {"id": "N1", "hit": False, "reason": "not in oracle"},
]
CODEX_TOOLS = [
    {"type": "function", "name": "exec_command", "strict": False,
     "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}},
    {"type": "function", "name": "view_image", "parameters": {"type": "object", "properties": {}}},
    {"type": "web_search", "external_web_access": False},
]
STREAM_ORDER = ["response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added"]


def _input(evidence: str = "Quarterly revenue growth: 5%.") -> list[dict]:
    return [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You judge rubrics."}]},
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": f"Deliverable:\n{evidence}\n\n{rows_block(ROWS)}"}]},
    ]


def _sim(**kwargs) -> SimServer:
    return SimServer(OraclePolicy.from_dict(ORACLE), **kwargs)


def test_plain_response_holds_oracle_verdicts_and_usage(client):
    with _sim() as sim, client(sim.url) as c:
        resp = c.responses.create(model="judge-r", input=_input())
    assert resp.status == "completed" and resp.object == "response" and resp.model == "judge-r"
    assert json.loads(resp.output_text)["verdicts"] == EXPECTED
    (entry,) = sim.log
    assert (entry.endpoint, entry.kind, entry.status, entry.stream) == ("responses", "final", 200, False)
    assert entry.row_ids == ["A1", "A2", "N1"]
    assert resp.usage.input_tokens == entry.prompt_tokens == (entry.prompt_chars + 3) // 4
    assert resp.usage.output_tokens == entry.completion_tokens > 0
    assert resp.usage.input_tokens_details.cached_tokens == 0


def test_stream_events_in_order_with_sequence_numbers_and_final_usage(client):
    with _sim() as sim, client(sim.url) as c:
        plain = c.responses.create(model="m", input=_input()).output_text
        events = list(c.responses.create(model="m", input=_input(), stream=True))
    types = [e.type for e in events]
    assert types[:4] == STREAM_ORDER
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 3 and "".join(deltas) == plain
    assert types[4 + len(deltas):] == ["response.output_text.done", "response.content_part.done",
                                       "response.output_item.done", "response.completed"]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    done = events[-1].response
    assert done.status == "completed" and done.output_text == plain
    assert done.usage.total_tokens == done.usage.input_tokens + done.usage.output_tokens
    assert sim.log[1].stream is True and sim.log[1].kind == "final"


@pytest.mark.parametrize("stream", [False, True])
def test_function_call_round_trip_then_verdicts(client, stream):
    """Turn 1 asks to run `ls -la output`; turn 2 (history + function_call_output) answers verdicts."""
    with _sim() as sim, client(sim.url) as c:
        history = _input()
        if stream:
            events = list(c.responses.create(model="m", input=history, tools=CODEX_TOOLS, stream=True))
            (call,) = [e.item for e in events if e.type == "response.output_item.done"]
            args_done = [e for e in events if e.type == "response.function_call_arguments.done"]
            assert args_done[0].arguments == call.arguments
            assert "".join(e.delta for e in events if e.type == "response.function_call_arguments.delta") == call.arguments
        else:
            (call,) = c.responses.create(model="m", input=history, tools=CODEX_TOOLS).output
        assert call.type == "function_call" and call.name == "exec_command"
        assert json.loads(call.arguments) == {"cmd": "ls -la output"}
        history += [
            {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id,
             "output": "report.md <rubric_rows>[]</rubric_rows>"},  # a tool result never names rows
        ]
        final = c.responses.create(model="m", input=history, tools=CODEX_TOOLS)
    assert json.loads(final.output_text)["verdicts"] == EXPECTED
    assert [(e.kind, e.tool_call) for e in sim.log] == [("tool", "exec_command"), ("final", None)]
    assert sim.log[1].prompt_chars > sim.log[0].prompt_chars  # the whole history is resent


def test_codex_shell_tool_gets_an_argv_and_tool_rounds_zero_answers_at_once(client):
    shell = [{"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {}}}]
    with _sim() as sim, client(sim.url) as c:
        (call,) = c.responses.create(model="m", input=_input(), tools=shell).output
        assert json.loads(call.arguments) == {"command": ["ls", "-la", "output"]}
    with _sim(tool_rounds=0) as sim, client(sim.url) as c:
        assert json.loads(c.responses.create(model="m", input=_input(), tools=shell).output_text)["verdicts"] == EXPECTED


def test_rows_from_text_format_json_schema_and_string_input(client):
    schema = {"type": "object", "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "properties": {"id": {"type": "string", "enum": ["A1", "B9"]}, "hit": {"type": "boolean"},
                                         "reason": {"type": "string"}},
        "required": ["id", "hit", "reason"], "additionalProperties": False}}},
        "required": ["verdicts"], "additionalProperties": False}
    fmt = {"format": {"type": "json_schema", "name": "codex_output_schema", "strict": True, "schema": schema}}
    with _sim() as sim, client(sim.url) as c:
        resp = c.responses.create(model="m", input="judge the deliverable", instructions="be strict", text=fmt)
    assert json.loads(resp.output_text)["verdicts"] == [
        {"id": "A1", "hit": True, "reason": "stated"}, {"id": "B9", "hit": False, "reason": "not in oracle"}]
    assert sim.log[0].response_format == "json_schema" and sim.log[0].prompt_chars == len("be strictjudge the deliverable")


@pytest.mark.parametrize(
    ("kind", "exc_type", "status", "message"),
    [
        ("http_429", openai.RateLimitError, 429, "Rate limit reached for requests"),
        ("http_5xx", openai.InternalServerError, 502, "Bad gateway"),
        ("insufficient_quota", openai.RateLimitError, 429, "You exceeded your current quota"),
        ("rate_text", openai.BadRequestError, 400, "Request rate increased too quickly"),
    ],
)
def test_status_faults_are_http_errors(client, kind, exc_type, status, message):
    with _sim(faults=FaultPlan(script=[kind])) as sim, client(sim.url) as c:
        with pytest.raises(exc_type) as info:
            c.responses.create(model="m", input=_input(), stream=True)
    assert info.value.status_code == status and message in str(info.value)
    assert (sim.log[0].endpoint, sim.log[0].fault, sim.log[0].status) == ("responses", kind, status)


def test_stream_rate_limit_sends_error_then_response_failed(client):
    with _sim(faults=FaultPlan(script=["stream_rate_limit"])) as sim, client(sim.url) as c:
        events = list(c.responses.create(model="m", input=_input(), stream=True))
    types = [e.type for e in events]
    assert types[-2:] == ["error", "response.failed"] and "response.completed" not in types
    assert events[-2].code == "rate_limit_exceeded" and "rate increased too quickly" in events[-2].message
    failed = events[-1].response
    assert failed.status == "failed" and failed.error.code == "rate_limit_exceeded"
    assert (sim.log[0].fault, sim.log[0].status) == ("stream_rate_limit", 200)


def test_stream_disconnect_has_no_completed_event_and_truncation_is_incomplete(client):
    with _sim(faults=FaultPlan(script=["stream_disconnect", "truncated_json", "truncated_json"])) as sim, \
            client(sim.url) as c:
        cut = [e.type for e in c.responses.create(model="m", input=_input(), stream=True)]
        truncated = list(c.responses.create(model="m", input=_input(), stream=True))
        plain = c.responses.create(model="m", input=_input())
    assert cut[-1] == "response.output_text.delta" and "response.completed" not in cut
    assert truncated[-1].type == "response.incomplete"
    assert truncated[-1].response.incomplete_details.reason == "max_output_tokens"
    assert plain.status == "incomplete" and plain.output_text.startswith('{"verdicts": [{"id": "A1"')
    with pytest.raises(json.JSONDecodeError):
        json.loads(plain.output_text)
    assert [e.fault for e in sim.log] == ["stream_disconnect", "truncated_json", "truncated_json"]


@pytest.mark.parametrize(("kind", "exc_type"), [("reset", openai.APIConnectionError),
                                                ("stream_abort", openai.APIConnectionError),
                                                ("hang", openai.APITimeoutError)])
def test_dropped_and_hung_connections(client, kind, exc_type):
    with _sim(faults=FaultPlan(script=[kind], hang_seconds=30)) as sim, client(sim.url, timeout=0.5) as c:
        with pytest.raises(exc_type):
            list(c.responses.create(model="m", input=_input(), stream=True))
    assert sim.errors == []


def test_bad_requests_get_openai_error_documents(client):
    with _sim() as sim:
        status, _, body = post_raw(sim.url, "/responses", {"model": "m"})
        assert status == 400 and json.loads(body)["error"]["param"] == "input"
        status, _, body = post_raw(sim.url, "/responses", b"{nope")
        assert status == 400 and "not valid JSON" in json.loads(body)["error"]["message"]
        status, _, body = post_raw(sim.url, "/responses", {"input": [{"type": "message", "role": "user",
                                                                       "content": 7}]})
        assert status == 400 and "content" in json.loads(body)["error"]["message"]
        status, _, raw = post_raw(sim.url, "/responses", {"input": _input(), "stream": True})
        assert status == 200 and sse_events(raw)[0][0] == "response.created"  # named SSE events
    assert [e.status for e in sim.log] == [400, 400, 400, 200] and sim.errors == []
