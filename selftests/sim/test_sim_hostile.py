"""Hostile bodies on every model endpoint: a 4xx document or an answer, never a traceback."""

from __future__ import annotations

import gzip
import json
import random

from conftest import post_raw, rows_block

from cowork_judge.sim import OraclePolicy, SimServer

ROUTES = [("url", "/chat/completions"), ("url", "/responses"), ("root_url", "/v1/messages")]
ATOMS = [None, True, 0, -1, 1.5, "", "x", "json_schema", "user", "function", "message", "tool_use", "tool_result",
         "function_call", "function_call_output", "object", "array", "#/$defs/A", [], {}]
KEYS = ["type", "role", "content", "text", "name", "arguments", "output", "input", "tools", "tool_choice",
        "parameters", "input_schema", "schema", "properties", "items", "enum", "anyOf", "$ref", "$defs",
        "minimum", "maximum", "format", "json_schema", "response_format", "messages", "system", "stream",
        "output_config", "instructions", "function", "summary", "call_id"]


def _value(rng: random.Random, depth: int) -> object:
    roll = rng.random()
    if depth > 4 or roll < 0.4:
        return rng.choice(ATOMS)
    if roll < 0.65:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randint(1, 4))}


def _body(rng: random.Random) -> dict:
    user = {"role": "user", "content": rng.choice(["judge", rows_block([{"id": "A1"}]), _value(rng, 2)])}
    body = {"model": "m", "max_tokens": 5, "messages": [user, _value(rng, 1)][: rng.randint(1, 2)],
            "input": rng.choice([[user], "judge it", _value(rng, 1)])}
    for key in rng.sample(KEYS, 4):
        body[key] = _value(rng, 1)
    body["stream"] = rng.random() < 0.5
    return body


def test_random_bodies_never_break_the_server():
    rng = random.Random(20240601)
    seen: set[int] = set()
    with SimServer(OraclePolicy.from_dict({"A1": {"hit": True}})) as sim:
        for _ in range(400):
            attr, path = rng.choice(ROUTES)
            status, _, raw = post_raw(getattr(sim, attr), path, _body(rng))
            seen.add(status)
            assert status in (200, 400), raw[:300]
            if status == 400:
                doc = json.loads(raw)
                assert doc["error"]["message"] and doc["error"]["type"] == "invalid_request_error"
        assert sim.errors == []
    assert seen == {200, 400}


NAMES = ["criterion_status", "met", "score", "explanation", "criterion_id", "index", "clarity", "results",
         "judgments", "summary", "title", "selected_option", "percent", "x"]
TYPES = ["object", "array", "string", "integer", "number", "boolean", "null", ["string", "null"], 7]


def _schema(rng: random.Random, depth: int = 0) -> object:
    if depth > 4 or rng.random() < 0.1:
        return rng.choice(ATOMS)
    doc: dict = {"type": rng.choice(TYPES)}
    if doc["type"] == "object" or rng.random() < 0.2:
        doc["properties"] = {rng.choice(NAMES): _schema(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if doc["type"] == "array" or rng.random() < 0.1:
        doc["items"] = _schema(rng, depth + 1)
    roll = rng.random()
    if roll < 0.2:
        doc["enum"] = rng.choice([["MET", "UNMET", "CANNOT_ASSESS"], [1, 2, 3, 4, 5], ["a", None], "bad", []])
    elif roll < 0.3:
        doc["anyOf"] = [_schema(rng, depth + 1), {"type": "null"}]
    elif roll < 0.4:
        doc["$ref"] = rng.choice(["#/$defs/A", "#/nowhere", "#", 5])
    if rng.random() < 0.2:
        doc["minimum"], doc["maximum"] = rng.choice([(0, 5), (1, 10), ("a", None), (3, 3)])
    return doc


def test_random_schemas_get_an_answer_in_some_shape():
    rng = random.Random(7)
    shapes: set[str | None] = set()
    with SimServer(OraclePolicy.from_dict({"1": {"hit": True, "level": 0.5}})) as sim:
        for n in range(300):
            schema = _schema(rng)
            if isinstance(schema, dict) and rng.random() < 0.5:
                schema["$defs"] = {"A": _schema(rng, 2)}
            prompt = "Criteria:\n1. Is clear\n2. Is correct\n\nAnswer: 42"
            route = n % 3
            if route == 0:
                body = {"messages": [{"role": "user", "content": prompt}],
                        "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}}
                status, _, raw = post_raw(sim.url, "/chat/completions", body)
            elif route == 1:
                body = {"input": prompt, "text": {"format": {"type": "json_schema", "name": "s", "schema": schema}}}
                status, _, raw = post_raw(sim.url, "/responses", body)
            else:
                body = {"max_tokens": 9, "messages": [{"role": "user", "content": prompt}],
                        "tools": [{"name": "StructuredOutput", "input_schema": schema}]}
                status, _, raw = post_raw(sim.root_url, "/v1/messages", body)
            assert status == 200, raw[:300]
        assert sim.errors == []
        shapes = {e.generic_shape for e in sim.log}
    assert {"single", "list", "keyed", "unknown", "text"} <= shapes


def test_gzip_bodies_are_read_and_unknown_encodings_refused():
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": rows_block([{"id": "A1"}])}]}).encode()
    with SimServer() as sim:
        status, _, raw = post_raw(sim.url, "/chat/completions", gzip.compress(body), {"Content-Encoding": "gzip"})
        assert status == 200 and json.loads(json.loads(raw)["choices"][0]["message"]["content"])["verdicts"]
        status, _, raw = post_raw(sim.url, "/chat/completions", body, {"Content-Encoding": "br"})
        assert status == 415 and "Content-Encoding 'br'" in json.loads(raw)["error"]["message"]
    assert len(sim.log) == 1 and sim.other_requests[-1][2] == 415
