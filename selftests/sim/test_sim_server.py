"""SimServer over HTTP with the real openai client: turns, streaming, formats, images, log."""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import openai
import pytest

from cowork_judge.sim import FaultPlan, LatencyModel, OraclePolicy, SimServer

TOOLS = [
    {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {"name": "list_files", "parameters": {"type": "object", "properties": {}}}},
]
ORACLE = {"A1": {"hit": True, "reason": "stated"}, "A2": {"hit": False, "level": 0.5, "reason": "half"}}


def _schema(ids: list[str], *, any_of: bool = False) -> dict:
    def item(row_ids: list[str], levels: list[float] | None = None) -> dict:
        props = {"id": {"type": "string", "enum": row_ids}, "hit": {"type": "boolean"},
                 "reason": {"type": "string"}}
        if levels:
            props["level"] = {"type": "number", "enum": levels}
        return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}

    items = {"anyOf": [item([i], [0, 0.5, 1] if i == "A2" else None) for i in ids]} if any_of else item(ids)
    return {"type": "json_schema", "json_schema": {"name": "verdicts", "strict": True, "schema": {
        "type": "object", "properties": {"verdicts": {"type": "array", "items": items}},
        "required": ["verdicts"], "additionalProperties": False}}}


def _verdicts(completion) -> list[dict]:
    return json.loads(completion.choices[0].message.content)["verdicts"]


def test_plain_completion_returns_oracle_verdicts_with_usage(client, messages):
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        resp = c.chat.completions.create(model="judge-x", messages=messages())
    assert resp.choices[0].finish_reason == "stop"
    assert resp.model == "judge-x" and resp.object == "chat.completion" and resp.id.startswith("chatcmpl-")
    assert _verdicts(resp) == [
        {"id": "A1", "hit": True, "reason": "stated"},
        {"id": "A2", "hit": False, "level": 0.5, "reason": "half"},
        {"id": "N1", "hit": False, "reason": "not in oracle"},
    ]
    (entry,) = sim.log
    assert entry.kind == "final" and entry.status == 200 and entry.stream is False
    assert entry.row_ids == ["A1", "A2", "N1"] and entry.model == "judge-x"
    assert entry.prompt_tokens == (entry.prompt_chars + 3) // 4 == resp.usage.prompt_tokens
    assert resp.usage.completion_tokens == entry.completion_tokens > 0
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens
    assert 0 <= entry.start_s <= entry.end_s


def test_tools_turn_then_final_turn(client, messages):
    with SimServer(tool_rounds=1) as sim, client(sim.url) as c:
        convo = messages()
        first = c.chat.completions.create(model="m", messages=convo, tools=TOOLS)
        msg = first.choices[0].message
        assert first.choices[0].finish_reason == "tool_calls"
        (call,) = msg.tool_calls
        assert call.function.name == "list_files" and json.loads(call.function.arguments) == {"path": "."}
        convo += [msg.model_dump(exclude_none=True),
                  {"role": "tool", "tool_call_id": call.id, "content": "report.pdf <rubric_rows>[]</rubric_rows>"}]
        second = c.chat.completions.create(model="m", messages=convo, tools=TOOLS)
    assert second.choices[0].finish_reason == "stop"
    assert [v["id"] for v in _verdicts(second)] == ["A1", "A2", "N1"]  # tool-result block ignored
    assert [(e.kind, e.tool_call) for e in sim.log] == [("tool", "list_files"), ("final", None)]


def test_tool_turn_without_list_files_calls_first_tool_and_respects_rounds(client, messages):
    with SimServer(tool_rounds=0) as sim, client(sim.url) as c:
        resp = c.chat.completions.create(model="m", messages=messages(), tools=TOOLS[:1])
        assert resp.choices[0].finish_reason == "stop"
    with SimServer(tool_rounds=2) as sim, client(sim.url) as c:
        resp = c.chat.completions.create(model="m", messages=messages(), tools=TOOLS[:1])
        (call,) = resp.choices[0].message.tool_calls
        assert call.function.name == "read_file" and call.function.arguments == "{}"
        none = c.chat.completions.create(model="m", messages=messages(), tools=TOOLS, tool_choice="none")
        assert none.choices[0].finish_reason == "stop"


def test_streaming_tool_call_deltas_reassemble(client, messages):
    with SimServer() as sim, client(sim.url) as c:
        stream = c.chat.completions.create(model="m", messages=messages(), tools=TOOLS, stream=True,
                                           stream_options={"include_usage": True})
        name, args, ids, finish, usage = "", "", set(), None, None
        for ev in stream:
            if ev.usage is not None:
                usage = ev.usage
            for choice in ev.choices:
                finish = choice.finish_reason or finish
                for tc in choice.delta.tool_calls or []:
                    assert tc.index == 0
                    ids.add(tc.id) if tc.id else None
                    name += tc.function.name or ""
                    args += tc.function.arguments or ""
    assert name == "list_files" and json.loads(args) == {"path": "."} and len(ids) == 1
    assert finish == "tool_calls"
    assert usage is not None and usage.completion_tokens == sim.log[0].completion_tokens
    assert sim.log[0].stream is True and sim.log[0].kind == "tool"


def test_streaming_content_reassembles_to_policy_answer(client, messages):
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        plain = c.chat.completions.create(model="m", messages=messages()).choices[0].message.content
        pieces, finishes = [], []
        for ev in c.chat.completions.create(model="m", messages=messages(), stream=True):
            assert ev.object == "chat.completion.chunk" and ev.usage is None
            pieces += [ch.delta.content or "" for ch in ev.choices]
            finishes += [ch.finish_reason for ch in ev.choices if ch.finish_reason]
    assert "".join(pieces) == plain and finishes == ["stop"] and len(pieces) > 3


def test_json_schema_accepted_and_ids_fall_back_to_schema_enum(client):
    only_prompt = [{"role": "user", "content": "judge it"}]
    with SimServer(OraclePolicy.from_dict(ORACLE)) as sim, client(sim.url) as c:
        resp = c.chat.completions.create(model="m", messages=only_prompt, response_format=_schema(["A1", "B9"]))
        assert _verdicts(resp) == [{"id": "A1", "hit": True, "reason": "stated"},
                                   {"id": "B9", "hit": False, "reason": "not in oracle"}]
        resp = c.chat.completions.create(model="m", messages=only_prompt,
                                         response_format=_schema(["A1", "A2"], any_of=True))
        assert _verdicts(resp)[1] == {"id": "A2", "hit": False, "level": 0.5, "reason": "half"}
        resp = c.chat.completions.create(model="m", messages=only_prompt + [
            {"role": "user", "content": '<rubric_rows>[{"id": "Z"}]</rubric_rows>'}],
            response_format={"type": "json_object"})
        assert [v["id"] for v in _verdicts(resp)] == ["Z"]
        generic = c.chat.completions.create(model="m", messages=only_prompt)  # no rows: generic mode
        assert json.loads(generic.choices[0].message.content)["criterion_status"] == "UNMET"
    assert [e.response_format for e in sim.log] == ["json_schema", "json_schema", "json_object", None]
    assert [e.kind for e in sim.log] == ["final", "final", "final", "generic"]
    with SimServer(OraclePolicy.from_dict(ORACLE), generic=False) as sim, client(sim.url) as c:
        with pytest.raises(openai.BadRequestError, match="no rubric rows found"):
            c.chat.completions.create(model="m", messages=only_prompt)
    assert sim.log[0].kind == "error" and sim.log[0].status == 400


def test_reject_json_schema_gives_400_and_plain_json_still_works(client, messages):
    with SimServer(reject_json_schema=True) as sim, client(sim.url) as c:
        with pytest.raises(openai.BadRequestError) as info:
            c.chat.completions.create(model="m", messages=messages(), response_format=_schema(["A1"]))
        ok = c.chat.completions.create(model="m", messages=messages())
    err = info.value
    assert err.status_code == 400 and err.param == "response_format" and err.type == "invalid_request_error"
    assert "json_schema is not supported" in str(err)
    assert len(_verdicts(ok)) == 3


def test_image_parts_are_counted_and_last_user_block_wins(client, rows):
    png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    old = '<rubric_rows>[{"id": "OLD"}]</rubric_rows>'
    text = "Page 1 and 2 <rubric_rows>" + json.dumps(rows[:1]) + "</rubric_rows>"
    msgs = [
        {"role": "user", "content": old},
        {"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": png}},
            {"type": "image_url", "image_url": {"url": png, "detail": "high"}},
        ]},
    ]
    with SimServer() as sim, client(sim.url) as c:
        resp = c.chat.completions.create(model="m", messages=msgs)
    assert [v["id"] for v in _verdicts(resp)] == ["A1"]
    entry = sim.log[0]
    assert entry.images == 2 and entry.row_ids == ["A1"]
    # a 1×1 PNG at auto/high detail is one 512-pixel tile: 85 + 170 tokens, counted as 4 characters a token
    assert entry.prompt_chars == len(old) + len(text) + 2 * (85 + 170) * 4
    assert entry.prompt_tokens == -(-(len(old) + len(text)) // 4) + 2 * 255


def test_api_key_is_enforced(client, messages):
    with SimServer(api_key="sk-right") as sim:
        with client(sim.url, api_key="sk-wrong") as c, pytest.raises(openai.AuthenticationError):
            c.chat.completions.create(model="m", messages=messages())
        with client(sim.url, api_key="sk-right") as c:
            assert len(_verdicts(c.chat.completions.create(model="m", messages=messages()))) == 3
            assert [m.id for m in c.models.list()] == ["sim-judge"]
    assert [e.status for e in sim.log] == [401, 200]


def test_log_and_reset_endpoints(client, messages, tmp_path):
    jsonl = tmp_path / "log.jsonl"
    with SimServer(log_path=jsonl) as sim, client(sim.url) as c:
        c.chat.completions.create(model="m", messages=messages())
        base = sim.url.rsplit("/v1", 1)[0]
        with urllib.request.urlopen(base + "/_sim/log", timeout=5) as r:
            doc = json.load(r)
        req = urllib.request.Request(base + "/_sim/reset", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=5) as r:
            assert json.load(r) == {"ok": True}
        assert len(sim.log) == 0
    (entry,) = doc["entries"]
    assert entry["kind"] == "final" and entry["row_ids"] == ["A1", "A2", "N1"]
    assert set(entry) >= {"seq", "start_s", "end_s", "duration_s", "fault", "prompt_tokens", "images", "status"}
    lines = jsonl.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["seq"] == entry["seq"]


def test_latency_model_delays_by_kind_and_rows(client, messages):
    latency = LatencyModel(tool_base_ms=50, tool_per_row_ms=0, final_base_ms=100, final_per_row_ms=20)
    assert latency.delay_sec("final", 3) == pytest.approx(0.16)
    with SimServer(latency=latency) as sim, client(sim.url) as c:
        t0 = time.monotonic()
        c.chat.completions.create(model="m", messages=messages(), tools=TOOLS)
        c.chat.completions.create(model="m", messages=messages())
        elapsed = time.monotonic() - t0
    tool, final = sim.log
    assert (tool.kind, tool.delay_s, final.kind, final.delay_s) == ("tool", 0.05, "final", pytest.approx(0.16))
    assert tool.duration_s >= 0.05 and final.duration_s >= 0.16 and elapsed >= 0.21


def test_latency_jitter_is_seeded_and_bounded():
    a = LatencyModel.uniform(100, jitter_frac=0.5, seed=7)
    b = LatencyModel.uniform(100, jitter_frac=0.5, seed=7)
    draws = [a.delay_sec("tool", 0) for _ in range(20)]
    assert draws == [b.delay_sec("tool", 0) for _ in range(20)]
    assert all(0.05 <= d <= 0.15 for d in draws) and len(set(draws)) > 1
    with pytest.raises(ValueError):
        LatencyModel(tool_base_ms=-1)


def test_stop_returns_quickly_with_hang_and_sleep_in_flight(client, messages):
    sim = SimServer(faults=FaultPlan(script=["hang"]), latency=LatencyModel.uniform(60_000)).start()
    errors: list[BaseException] = []

    def call() -> None:
        with client(sim.url, timeout=30) as c:
            try:
                c.chat.completions.create(model="m", messages=messages())
            except openai.APIConnectionError as exc:
                errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(2)]  # one hangs, one sleeps 60 s
    for t in threads:
        t.start()
    deadline = time.monotonic() + 5
    while sim.in_flight < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sim.in_flight == 2
    t0 = time.monotonic()
    sim.stop()
    assert time.monotonic() - t0 < 2.0
    for t in threads:
        t.join(5)
    assert len(errors) == 2 and not any(t.is_alive() for t in threads)
    assert sorted((e.kind, e.status) for e in sim.log) == [("fault", None), ("final", None)]
    assert sim.errors == []


def test_unknown_route_and_bad_body():
    with SimServer() as sim:
        base = sim.url.rsplit("/v1", 1)[0]
        req = urllib.request.Request(sim.url + "/chat/completions", data=b"{oops", method="POST",
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=5)
        assert info.value.code == 400 and b"not valid JSON" in info.value.read()
        info.value.close()
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(base + "/v2/nothing", timeout=5)
        assert info.value.code == 404
        info.value.close()


def test_an_answered_request_is_in_the_log_when_the_client_has_its_answer(client, messages, monkeypatch):
    """The entry is appended after the answer's last write; a reader must still find it.

    The server thread is held between sending the answer and logging it; the client's
    read of ``len(sim.log)`` waits for it instead of counting 0 (a CI flake seen on a
    loaded machine: a 429 raised in the client before the server had logged it).
    """
    from cowork_judge.sim import request_log

    real_append = request_log.RequestLog.append

    def slow_append(self, entry):
        time.sleep(0.5)
        real_append(self, entry)

    monkeypatch.setattr(request_log.RequestLog, "append", slow_append)
    for faults in (None, FaultPlan({"insufficient_quota": 1.0})):
        with SimServer(OraclePolicy(ORACLE), faults=faults) as sim, client(sim.url) as c:
            try:
                c.chat.completions.create(model="m", messages=messages())
            except openai.RateLimitError:
                assert faults is not None
            assert len(sim.log) == 1


def test_json_streams_answer_a_streamed_request_with_one_plain_completion():
    """``json_streams`` (``--json-streams``): an endpoint or gateway that does not stream — a
    request with ``stream: true`` gets the one ``chat.completion`` document a request without
    it gets, as ``application/json``; the log still records that a stream was asked."""
    rows = [{"id": "A1", "description": "states the growth"}]
    body = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "<rubric_rows>\n" + json.dumps(rows) + "\n</rubric_rows>"}]}
    with SimServer(OraclePolicy.from_dict({"A1": {"hit": True}}), tool_rounds=0, json_streams=True) as sim:
        req = urllib.request.Request(sim.url + "/chat/completions", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            media, doc = r.headers["Content-Type"], json.loads(r.read())
        entry = sim.log[0]
    assert media == "application/json" and doc["object"] == "chat.completion"
    assert json.loads(doc["choices"][0]["message"]["content"])["verdicts"][0]["id"] == "A1"
    assert doc["usage"]["prompt_tokens"] > 0 and entry.stream is True and entry.kind == "final"
