"""Hostile request bodies get an HTTP answer (400 or 413) and a log entry, never a dropped
connection or a handler traceback (found by a fresh-user trial of 0.2.0)."""

from __future__ import annotations

import gzip
import http.client
import json

import pytest

from cowork_judge.sim import SimServer
from cowork_judge.sim import handler as sim_handler


def post(sim: SimServer, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    host, port = sim.url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw else {})
    finally:
        conn.close()


def chat(rows_block: str = '[{"id": "R1"}]', **extra) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": f"<rubric_rows>{rows_block}</rubric_rows>"}], **extra}


def schema_with(level: object) -> dict:
    item = {"type": "object", "properties": {"id": {"type": "string", "enum": ["R1"]}, "hit": {"type": "boolean"},
                                             "level": level}}
    return {"type": "json_schema", "json_schema": {"name": "v", "schema": {
        "type": "object", "properties": {"verdicts": {"type": "array", "items": item}}}}}


@pytest.mark.parametrize(("name", "body"), [
    ("nested 100k deep", b'{"model": "m", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ("a 5000-digit integer", b'{"model": "m", "n": ' + b"9" * 5000 + b', "messages": []}'),
    ("nested rows block", json.dumps(chat("[" * 50_000 + "]" * 50_000)).encode()),
    ("anyOf of the wrong type", json.dumps(chat(response_format=schema_with({"anyOf": 5}))).encode()),
])
def test_a_hostile_chat_body_is_a_400_with_a_log_entry(name, body):
    with SimServer() as sim:
        status, doc = post(sim, "/v1/chat/completions", body)
        entries = sim.log.entries()
        errors = list(sim.errors)
    assert status == 400, (name, status, doc)
    assert "error" in doc and not errors, name
    assert len(entries) == 1 and entries[0].status == 400 and entries[0].kind == "error"


@pytest.mark.parametrize("where", ["schema", "rows"])
def test_a_400_digit_level_gets_an_answer_not_a_dropped_connection(where):
    huge = int("9" * 400)
    if where == "schema":
        body = chat(response_format=schema_with({"type": "number", "enum": [huge]}))
    else:
        body = chat(json.dumps([{"id": "R1", "type": "gradient", "level_choices": [0, huge]}]))
    with SimServer() as sim:
        status, doc = post(sim, "/v1/chat/completions", json.dumps(body).encode())
        entries = sim.log.entries()
        errors = list(sim.errors)
    assert status in (200, 400) and not errors, (status, doc, errors[-1:])
    assert len(entries) == 1 and entries[0].status == status


def test_count_tokens_answers_a_hostile_body_with_400():
    with SimServer() as sim:
        status, doc = post(sim, "/v1/messages/count_tokens", b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
        assert status == 400 and not sim.errors


def test_a_declared_length_over_the_cap_is_a_413_without_reading_it():
    with SimServer() as sim:
        host, port = sim.url.split("//")[1].split("/")[0].split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            conn.putrequest("POST", "/v1/chat/completions")
            conn.putheader("Content-Length", str(sim_handler.MAX_BODY_BYTES + 1))
            conn.endheaders()
            resp = conn.getresponse()
            assert resp.status == 413 and b"too large" in resp.read()
        finally:
            conn.close()
        assert not sim.errors


def test_a_body_that_inflates_past_the_cap_is_a_413(monkeypatch):
    monkeypatch.setattr(sim_handler, "MAX_BODY_BYTES", 1 << 20)
    bomb = gzip.compress(b'{"model": "m", "pad": "' + b"0" * (3 << 20) + b'"}')
    assert len(bomb) < 10_000
    with SimServer() as sim:
        status, doc = post(sim, "/v1/chat/completions", bomb, {"Content-Encoding": "gzip"})
        assert status == 413 and "inflates to more than" in doc["error"]["message"] and not sim.errors


def test_a_client_that_stalls_mid_body_loses_its_connection(monkeypatch):
    """A declared body that never arrives holds its thread only until ``SimHandler.timeout``."""
    import socket

    monkeypatch.setattr(sim_handler.SimHandler, "timeout", 0.5)
    with SimServer() as sim:
        host, port = sim.url.split("//")[1].split("/")[0].split(":")
        sock = socket.create_connection((host, int(port)), timeout=10)
        try:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\"")
            # blocks until the server gives up on the body; were it never to, recv raises after 10 s
            assert sock.recv(1024) == b""
        finally:
            sock.close()
        assert not sim.errors
