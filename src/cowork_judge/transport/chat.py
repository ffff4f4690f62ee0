"""Model transport: one Chat Completions call over the official `openai` client — the
only module that constructs an ``openai.AsyncOpenAI`` (a test greps the package for it).

One `Transport` per run, made and owned by the run's call path (`transport.attempts.ModelCalls`),
which also holds the limiter ticket of every call, classifies what this module raises (the
failure table, `core.consequences`) and retries. The client library's own retries are disabled
(``max_retries=0``). Calls stream (errors that endpoints deliver inside a 200 SSE stream
surface as exceptions) and are counted (calls, tokens) in the run's `CallStats`.

An endpoint or a gateway that answers the streamed request with one plain JSON document
(``Content-Type: application/json``) instead of an event stream is read as what it is: a
chat completion becomes the reply (said once in the log), an error document is raised as the
openai client raises an error inside a stream (then classified by its words), anything else
is `StreamMismatch` naming what came. Before, the stream iterator found no event in it and
the call failed as `StreamIncomplete` — ``rate_limit``: a whole backoff, then the row lost.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import openai

from cowork_judge.transport import calls
from cowork_judge._util.aio import wait_for_quietly
from cowork_judge.core.classify import error_text
from cowork_judge.core.error_kinds import JudgeFailure
from cowork_judge.transport.quota import Quota, read_quota
from cowork_judge.transport.stats import CallStats
from cowork_judge.transport.tls import client_tls

log = logging.getLogger("cowork_judge")

RESPONSE_FORMAT_PHRASES = ("response_format", "json_schema", "structured output", "json mode")
"""A 400 mentioning one of these means the endpoint rejects structured output."""


class StreamIncomplete(JudgeFailure):
    """The SSE stream ended before a finish_reason (clients report
    "stream disconnected before completion"; classified as rate limiting, SPEC §11)."""

    kind = "rate_limit"


class StreamMismatch(JudgeFailure):
    """The endpoint answered a streamed request with something that is neither an event
    stream nor a JSON chat completion or error (a JSON document of another shape, an HTML
    page with status 200): ``api_error``, retried after 1 s, never taken for a rate limit."""

    kind = "api_error"


class ResponseFormatRejected(Exception):
    """The endpoint rejected ``response_format``; retry the call without it."""


@dataclass
class ChatReply:
    """One assistant turn: text content, tool calls ``[{id, name, arguments}]``, usage.

    ``cached_tokens`` is the part of ``prompt_tokens`` the endpoint reported as served
    from its prompt cache (``usage.prompt_tokens_details.cached_tokens``; 0 when it says
    nothing): it is INSIDE ``prompt_tokens``, as OpenAI-compatible endpoints report it.
    ``quota`` is what the reply's rate-limit headers said of the key (`transport.quota`;
    None when it sent none), read from the raw HTTP response of the stream.
    """

    content: str
    tool_calls: list[dict[str, str]]
    finish_reason: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    quota: Quota | None = None


def is_response_format_rejection(exc: BaseException) -> bool:
    """True for a 400 that complains about ``response_format`` / structured output."""
    if not isinstance(exc, openai.BadRequestError):
        return False
    text = error_text(exc).lower()
    return any(p in text for p in RESPONSE_FORMAT_PHRASES)


class Transport:
    """An OpenAI-compatible Chat Completions endpoint: one HTTP client.

    Args:
        api_key: the key (never logged).
        base_url: e.g. ``http://127.0.0.1:8000/v1``.
        model: model name sent with every call.
        stats: shared call/token counters.
        headers: extra HTTP headers of every call (`config.judge_config.JudgeConfig.request_headers`).
        temperature: sent with every call when set (JUDGE_SAMPLE_TEMPERATURE, only when
            JUDGE_SAMPLES > 1); None: the endpoint's default, nothing sent.
    """

    def __init__(self, *, api_key: str, base_url: str, model: str, stats: CallStats,
                 headers: Mapping[str, str] | None = None, temperature: float | None = None) -> None:
        self.model = model
        self.stats = stats
        self.temperature = temperature
        options: dict[str, Any] = {}
        tls = client_tls()  # built once per process (transport.tls): a batch worker makes a client per run
        if tls is not None:
            options["verify"] = tls
        if api_key == calls.GATEWAY_NO_AUTH_KEY:  # JUDGE_GATEWAY_AUTH=none: the gateway injects it; send no Authorization
            async def _no_authorization(request: Any) -> None:
                request.headers.pop("Authorization", None)

            options["event_hooks"] = {"request": [_no_authorization]}
        http_client = openai.DefaultAsyncHttpxClient(**options) if options else None
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, http_client=http_client,
                                          default_headers=dict(headers) if headers else None)
        self.plain_replies = 0
        """Streamed requests the endpoint answered with one plain JSON completion (read as the reply)."""

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The ``openai`` client itself (the Batch API's files and batches: `transport.batch_jobs`)."""
        return self._client

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        timeout_sec: float,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> ChatReply:
        """One streamed call, bounded by `timeout_sec` seconds in total (the caller holds
        the limiter's ticket: `transport.attempts`); `model` overrides the transport's (a
        panel's judges that share an endpoint share its client).

        Raises:
            ResponseFormatRejected: the endpoint rejected `response_format`.
            asyncio.TimeoutError: the call took longer than `timeout_sec`.
            openai.APIError, StreamIncomplete, StreamMismatch: transport failures (see
                `core.classify.classify`); a plain JSON completion answering the stream is
                the reply, not a failure (the module docstring).
        """
        kwargs: dict[str, Any] = {
            "model": model or self.model,
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
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        self.stats.count(calls=1)  # counted once the request really goes out
        try:
            reply = await wait_for_quietly(self._stream(kwargs), timeout_sec)
        except Exception as exc:
            if isinstance(exc, openai.BadRequestError) and response_format is not None and is_response_format_rejection(exc):
                raise ResponseFormatRejected(str(exc)) from exc
            raise
        return reply

    async def _stream(self, kwargs: dict[str, Any]) -> ChatReply:
        stream = await self._client.chat.completions.create(**kwargs)
        response = getattr(stream, "response", None)
        quota = read_quota(getattr(response, "headers", None))
        media = _media_type(response)
        if response is not None and (media == "application/json" or media.endswith("+json")):
            try:
                body = await response.aread()
            finally:
                await stream.close()
            return self._plain_reply(body, kwargs, quota, response)
        content: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        finish: str | None = None
        prompt_tokens = completion_tokens = cached_tokens = 0
        chunks = 0
        try:
            async for chunk in stream:
                chunks += 1
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
                    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
                    details = getattr(usage, "prompt_tokens_details", None)
                    cached_tokens = int(getattr(details, "cached_tokens", 0) or 0) if details is not None else 0
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
        self.stats.count(tokens=prompt_tokens + completion_tokens, cached=cached_tokens)  # cached prompt tokens included
        self.stats.used(str(kwargs["model"]), prompt=prompt_tokens, cached=cached_tokens, completion=completion_tokens)
        if finish is None and chunks == 0 and media not in ("text/event-stream", ""):
            raise StreamMismatch(f"the endpoint answered a streamed request with {media[:60]}, not an event stream "
                                 "(no event in it); it is not a rate limit")
        if finish is None:
            raise StreamIncomplete("stream disconnected before completion")
        return ChatReply(
            content="".join(content),
            tool_calls=[calls[i] for i in sorted(calls)],
            finish_reason=finish,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cached_tokens=cached_tokens,
            quota=quota,
        )

    def _plain_reply(self, body: bytes, kwargs: dict[str, Any], quota: Quota | None, response: Any) -> ChatReply:
        """The reply of a streamed request answered with one JSON document (`body`).

        Raises:
            openai.APIError: the document is an error (``{"error": …}``), as in a stream.
            StreamMismatch: it is no chat completion.
        """
        try:
            doc = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise StreamMismatch("the endpoint answered a streamed request with application/json that is not JSON "
                                 f"({len(body)} bytes); it is not a rate limit") from None
        if isinstance(doc, dict) and isinstance(doc.get("error"), (dict, str)):
            error = doc["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise openai.APIError(message=str(message or "the endpoint answered with an error document"),
                                  request=response.request, body=error)
        reply = plain_completion(doc)
        if reply is None:
            shape = ", ".join(sorted(doc)[:6]) if isinstance(doc, dict) else type(doc).__name__
            raise StreamMismatch("the endpoint answered a streamed request with a JSON document that is not a chat "
                                 f"completion (it holds: {shape}); it is not a rate limit")
        if self.plain_replies == 0:
            log.info("the endpoint answers streamed requests with a plain JSON completion (no event stream): read as "
                     "the reply")
        self.plain_replies += 1
        self.stats.count(tokens=reply.prompt_tokens + reply.completion_tokens, cached=reply.cached_tokens)
        self.stats.used(str(kwargs["model"]), prompt=reply.prompt_tokens, cached=reply.cached_tokens,
                        completion=reply.completion_tokens)
        reply.quota = quota
        return reply


def _media_type(response: Any) -> str:
    """The media type of `response` (``application/json``), lower case without parameters; "" when none."""
    headers = getattr(response, "headers", None)
    value = headers.get("content-type", "") if headers is not None else ""
    return str(value).split(";", 1)[0].strip().lower()


def plain_completion(doc: Any) -> ChatReply | None:
    """A ``chat.completion`` document (the answer of a request without ``stream``) as a
    `ChatReply` — its first choice's message content and tool calls, finish reason (``stop``
    when a complete document leaves it out) and usage; None when `doc` has no choice with
    a message."""
    if not isinstance(doc, dict):
        return None
    choices = doc.get("choices")
    first: dict[str, Any] = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = first.get("message")
    if not isinstance(message, dict):
        return None
    calls = []
    for tc in message.get("tool_calls") or []:
        function = tc.get("function") if isinstance(tc, dict) else None
        if isinstance(function, dict):
            arguments = function.get("arguments")
            calls.append({"id": str(tc.get("id") or ""), "name": str(function.get("name") or ""),
                          "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments)})
    usage: dict[str, Any] = doc["usage"] if isinstance(doc.get("usage"), dict) else {}
    details: dict[str, Any] = usage["prompt_tokens_details"] if isinstance(usage.get("prompt_tokens_details"), dict) else {}
    content = message.get("content")
    return ChatReply(content=content if isinstance(content, str) else "", tool_calls=calls,
                     finish_reason=str(first.get("finish_reason") or "stop"),
                     prompt_tokens=_count(usage.get("prompt_tokens")), completion_tokens=_count(usage.get("completion_tokens")),
                     cached_tokens=_count(details.get("cached_tokens")))


def _count(value: Any) -> int:
    """A token count from a document (0 for anything that is not a non-negative number)."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0


def load_client_modules() -> None:
    """Import what the ``openai`` client imports on its first request (the event loop, the
    async backend, the chat request and answer types: ~700 modules, ~0.7 CPU s per process)
    without sending one: a `Transport` — the one place the client is constructed — is built
    for an unused address and its ``chat.completions`` resource touched. No thread is started
    and no connection opened. A batch calls it once before it forks its workers
    (`commands.batch_worker.preload`)."""
    import importlib

    for name in ("sniffio", "anyio", "anyio._backends._asyncio"):
        try:
            importlib.import_module(name)
        except ImportError:  # another release of the client library: it imports what it needs itself
            pass
    transport = Transport(api_key="unused", base_url="http://127.0.0.1:9/v1", model="unused", stats=CallStats())
    transport.client.chat.completions  # noqa: B018 - the attribute access imports the resource and its types
