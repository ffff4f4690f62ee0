"""Fixtures for the simulator tests: rubric rows, judge-style messages, a real openai client."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import openai
import pytest

ROWS: list[dict[str, Any]] = [
    {"id": "A1", "description": "The report states quarterly revenue growth", "type": "binary",
     "polarity": "positive", "hit_means": "the growth figure is stated", "weight": 2.0},
    {"id": "A2", "description": "Charts use readable colours and labelled axes", "type": "gradient",
     "polarity": "positive", "hit_means": "charts are readable", "level_choices": [0, 0.5, 1], "weight": 1.0},
    {"id": "N1", "description": "The deliverable contains placeholder text", "type": "binary",
     "polarity": "negative", "hit_means": "placeholder text was found", "weight": -1.0},
]


def rows_block(rows: list[dict[str, Any]]) -> str:
    return "<rubric_rows>\n" + json.dumps(rows) + "\n</rubric_rows>"


@pytest.fixture
def rows() -> list[dict[str, Any]]:
    return [dict(r) for r in ROWS]


@pytest.fixture
def messages() -> Callable[..., list[dict[str, Any]]]:
    """``messages(rows=ROWS, evidence=...)`` -> one system + one user message in the judge's protocol."""

    def build(rows: list[dict[str, Any]] | None = None, evidence: str = "Quarterly revenue growth: 5%.") -> list[dict[str, Any]]:
        return [
            {"role": "system", "content": "You are a rubric judge."},
            {"role": "user", "content": f"Deliverable:\n{evidence}\n\n{rows_block(rows or ROWS)}"},
        ]

    return build


@contextmanager
def _client(url: str, timeout: float = 5.0, api_key: str = "sk-test") -> Iterator[openai.OpenAI]:
    client = openai.OpenAI(base_url=url, api_key=api_key, max_retries=0, timeout=timeout)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def client() -> Callable[..., Any]:
    """``with client(server.url, timeout=...) as c:`` -> a real ``openai.OpenAI`` with retries off."""
    return _client


def post_raw(url: str, path: str, body: object, headers: dict[str, str] | None = None,
             timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """POST JSON to ``url`` + ``path`` with http.client; (status, lowercased headers, body bytes)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request("POST", parts.path.rstrip("/") + path, body=data,
                     headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def sse_events(raw: bytes) -> list[tuple[str | None, Any]]:
    """``(event name or None, decoded data)`` of every SSE event in a body (``[DONE]`` kept as text)."""
    out: list[tuple[str | None, Any]] = []
    for block in raw.decode().split("\n\n"):
        event, data = None, []
        for line in block.splitlines():
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
        if data:
            text = "\n".join(data)
            out.append((event, text if text == "[DONE]" else json.loads(text)))
    return out
