"""Model transport: one Chat Completions call over the official `openai` client, and the
classification of its failures.

The client library's own retries are disabled (``max_retries=0``): retrying is the
scheduler's job, with the policy of SPEC §11. Calls stream (errors that endpoints deliver
inside a 200 SSE stream surface as exceptions) and are counted (calls, tokens).
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

import openai

from cowork_judge.core.failures import ErrorKind

RATE_LIMIT_PHRASES = (
    "rate limit",
    "rate_limit",
    "ratelimit",
    "too many requests",
    "request rate increased too quickly",
    "quota exceeded",
    "exceeded your rate",
    "throttl",
    "stream disconnected before completion",
)
"""Lower-case phrases that mean "rate limited" even without an HTTP 429 (SPEC §11)."""
INSUFFICIENT_QUOTA_PHRASES = (
    "insufficient_quota",
    "insufficient quota",
    "insufficient balance",
    "insufficient_balance",
    "exceeded your current quota",
    "billing_hard_limit",
    "billing hard limit",
)
"""Lower-case phrases that mean "the account has no credit": give up at once. (OpenAI's
``insufficient_quota`` says "You exceeded your current quota"; a per-minute window that
is full says "quota exceeded" and is rate limiting.)"""
RESPONSE_FORMAT_PHRASES = ("response_format", "json_schema", "structured output", "json mode")
"""A 400 mentioning one of these means the endpoint rejects structured output."""


class StreamIncomplete(Exception):
    """The SSE stream ended before a finish_reason (clients report
    "stream disconnected before completion"; classified as rate limiting)."""


class ResponseFormatRejected(Exception):
    """The endpoint rejected ``response_format``; retry the call without it."""


@dataclass
class ChatReply:
    """One assistant turn: text content, tool calls ``[{id, name, arguments}]``, usage."""

    content: str
    tool_calls: list[dict[str, str]]
    finish_reason: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class CallStats:
    """Counters shared by every call of a run (single event loop: no lock needed)."""

    calls: int = 0
    tokens: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)

    def failed(self, kind: str) -> None:
        """Count one failed call of `kind`."""
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1


def classify(exc: BaseException) -> ErrorKind:
    """Map a transport exception to an `ErrorKind` (SPEC §11).

    In order: ``insufficient_quota`` (by code, type or message: the account has no credit)
    wins over everything, also over HTTP 429; timeouts (the client's or ours); rate
    limiting: HTTP 429, an error raised INSIDE a 200 SSE stream (a base ``openai.APIError``
    without a status code), a stream that ended without a finish_reason
    (`StreamIncomplete`), or any status or error whose message, code or type says so
    (``Request rate increased too quickly``, ``quota exceeded``, ``rate limit``…, whatever
    the status: a 400 that says "quota exceeded" is a full window, not a bad request);
    other 4xx except 408/409 are ``request_rejected`` (permanent); everything else
    (5xx, connection errors, unexpected exceptions) is a transient ``api_error``.
    """
    text = _error_text(exc).lower()
    if any(p in text for p in INSUFFICIENT_QUOTA_PHRASES):
        return "insufficient_quota"
    if isinstance(exc, (openai.APITimeoutError, asyncio.TimeoutError, TimeoutError)):
        return "timeout"
    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.RateLimitError) or status == 429:
        return "rate_limit"
    if isinstance(exc, StreamIncomplete) or _in_stream_error(exc):
        return "rate_limit"
    if any(p in text for p in RATE_LIMIT_PHRASES):
        return "rate_limit"
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409):
        return "request_rejected"
    return "api_error"


def _in_stream_error(exc: BaseException) -> bool:
    """An error event inside a 200 SSE stream: the SDK raises a base ``APIError``
    (no status code, not a connection error)."""
    return isinstance(exc, openai.APIError) and not isinstance(
        exc, (openai.APIStatusError, openai.APIConnectionError, openai.APIResponseValidationError)
    )


ERROR_TEXT_CHARS = 2000
"""Characters of an error's text that classification reads (an echoed prompt further on
must not decide the kind)."""


def _error_text(exc: BaseException) -> str:
    """The words that classify an error: its type name, and the message, code and type of
    its error body (an ``openai.APIError``), else its string, cut at `ERROR_TEXT_CHARS`."""
    parts = [type(exc).__name__]
    body = getattr(exc, "body", None) if isinstance(exc, openai.APIError) else None
    if isinstance(body, dict):
        for key in ("message", "code", "type"):
            value = body.get(key)
            if value is not None:
                parts.append(value if isinstance(value, str) else json.dumps(value, default=str))
        if body.get("message") is None:
            parts.append(getattr(exc, "message", "") or "")
    elif isinstance(body, str):
        parts.append(body)
    else:
        parts.append(str(exc))
    for attr in ("code", "type"):
        value = getattr(exc, attr, None)
        if isinstance(value, str):
            parts.append(value)
    return " ".join(parts)[:ERROR_TEXT_CHARS]


def backoff_seconds(kind: str, failures: int, backoff_max_sec: float, rng: random.Random) -> float:
    """Seconds to wait before retrying after a failure of `kind`.

    Args:
        kind: the failure's `ErrorKind`.
        failures: n, the number of rate-limit failures of this block so far (≥ 1).
        backoff_max_sec: ``JUDGE_RETRY_BACKOFF_MAX`` (≥ 1).
        rng: the run's random source (seeded in tests).

    Returns:
        Rate limiting: ``uniform(1, min(backoff_max, 2·3^(n−1)))`` — upper bounds 2, 6,
        18, then `backoff_max` (20 s by default; SPEC §11). Anything else: 1.0.
    """
    if kind != "rate_limit":
        return 1.0
    upper = min(backoff_max_sec, 2.0 * 3.0 ** (max(failures, 1) - 1))
    return rng.uniform(1.0, max(1.0, upper))


def is_response_format_rejection(exc: BaseException) -> bool:
    """True for a 400 that complains about ``response_format`` / structured output."""
    if not isinstance(exc, openai.BadRequestError):
        return False
    text = _error_text(exc).lower()
    return any(p in text for p in RESPONSE_FORMAT_PHRASES)


class Transport:
    """An OpenAI-compatible Chat Completions endpoint.

    Args:
        api_key: the key (never logged).
        base_url: e.g. ``http://127.0.0.1:8000/v1``.
        model: model name sent with every call.
        stats: shared call/token counters.
    """

    def __init__(self, *, api_key: str, base_url: str, model: str, stats: CallStats) -> None:
        self.model = model
        self.stats = stats
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0)

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        timeout_sec: float,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatReply:
        """One streamed call, bounded by `timeout_sec` seconds in total.

        Raises:
            ResponseFormatRejected: the endpoint rejected `response_format`.
            asyncio.TimeoutError: the call took longer than `timeout_sec`.
            openai.APIError, StreamIncomplete: transport failures (see `classify`).
        """
        self.stats.calls += 1
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": timeout_sec,
        }
        if tools:
            kwargs["tools"] = tools
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
        if response_format is not None:
            kwargs["response_format"] = response_format
        try:
            return await asyncio.wait_for(self._stream(kwargs), timeout=timeout_sec)
        except openai.BadRequestError as exc:
            if response_format is not None and is_response_format_rejection(exc):
                raise ResponseFormatRejected(str(exc)) from exc
            raise

    async def _stream(self, kwargs: dict[str, Any]) -> ChatReply:
        stream = await self._client.chat.completions.create(**kwargs)
        content: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        finish: str | None = None
        prompt_tokens = completion_tokens = 0
        try:
            async for chunk in stream:
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
                    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
                for choice in chunk.choices or []:
                    delta = choice.delta
                    if delta is not None and delta.content:
                        content.append(delta.content)
                    for tc in (delta.tool_calls or []) if delta is not None else []:
                        slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                        if tc.id:
                            slot["id"] = tc.id
                        if tc.function is not None:
                            slot["name"] += tc.function.name or ""
                            slot["arguments"] += tc.function.arguments or ""
                    if choice.finish_reason:
                        finish = choice.finish_reason
        finally:
            await stream.close()
        self.stats.tokens += prompt_tokens + completion_tokens
        if finish is None:
            raise StreamIncomplete("stream disconnected before completion")
        return ChatReply(
            content="".join(content),
            tool_calls=[calls[i] for i in sorted(calls)],
            finish_reason=finish,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
