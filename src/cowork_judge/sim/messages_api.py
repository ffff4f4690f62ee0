"""``POST /v1/messages``: the Anthropic Messages API, as far as judges and the claude CLI use it.

Request: ``system`` (string or text blocks), ``messages`` (roles ``user``/``assistant``,
and ``system`` mid-conversation messages as claude 2.x sends them; content a string or
blocks: ``text``, ``image``, ``tool_use``, ``tool_result``; thinking blocks are ignored),
``tools`` (custom tools with ``input_schema``; server tools are ignored), ``tool_choice``
(``auto``/``any``/``tool``/``none``), ``output_format`` / ``output_config.format``
(``json_schema``), ``stream``. Keys: ``x-api-key`` or ``Authorization: Bearer``.

What the claude CLI (2.1.x, ``claude -p``) does against ``ANTHROPIC_BASE_URL``: one
``HEAD /`` connectivity probe, then ``POST /v1/messages?beta=true`` with ``stream: true``
and its full tool list; with ``--json-schema`` it adds a tool ``StructuredOutput`` whose
``input_schema`` is that schema, and the final answer must be a ``tool_use`` of it (the
CLI then prints it as ``structured_output`` of its JSON result and does not call back).
So ``StructuredOutput`` is the answer tool here; a read-only tool turn (``Bash``
``ls -la output``) may come first. Unless ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1``,
a longer prompt also brings a concurrent session-title request (no tools,
``output_config.format`` json_schema ``{"title": string}``; answered in that shape). When a
stream fails the CLI repeats the turn WITHOUT streaming (unless
``CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK=1``), and it retries 429/5xx itself unless
``CLAUDE_CODE_MAX_RETRIES=0``. No ``count_tokens`` or model listing was seen; both are
answered anyway (``POST /v1/messages/count_tokens``: ``{"input_tokens": n}``).

Streaming answer (``event: <type>`` lines, which Anthropic SDKs require): ``message_start``
(usage), ``ping``, ``content_block_start`` / ``content_block_delta`` (``text_delta`` or
``input_json_delta``) / ``content_block_stop``, ``message_delta`` (``stop_reason``
``end_turn``/``tool_use``/``max_tokens``, ``usage.output_tokens``), ``message_stop``.
Usage follows Anthropic: ``input_tokens`` excludes ``cache_read_input_tokens``.

Errors are ``{"type": "error", "error": {"type", "message"}}`` with a ``request-id``
header. Fault shapes: ``http_429`` -> 429 ``rate_limit_error`` + ``retry-after``;
``http_5xx`` -> 500 ``api_error`` / 529 ``overloaded_error`` alternating;
``insufficient_quota`` -> 400 "Your credit balance is too low ..."; ``quota_exceeded_text``
and ``rate_text`` -> their messages with 400/500; ``stream_rate_limit`` -> an ``event:
error`` with ``rate_limit_error`` after the first text delta of a 200 stream.
"""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING, Any

from .faults import MSG_5XX, MSG_RATE_LIMIT, MSG_STREAM_RATE, Fault, error_body
from .protocol import split_text
from .turn import DEFAULT_MODEL, UNREADABLE, PromptText, Reply, RequestError, SimRequest, estimate_tokens

if TYPE_CHECKING:
    from .handler import SimHandler

__all__ = ["STRUCTURED_OUTPUT_TOOL", "MessagesAPI", "parse_messages_request"]

STRUCTURED_OUTPUT_TOOL = "StructuredOutput"
"""The tool the claude CLI adds for ``--json-schema``; its call is the final answer."""
MSG_CREDIT = ("Your credit balance is too low to access the Anthropic API. "
              "Please go to Plans & Billing to upgrade or purchase credits.")
_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
                429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
_5XX = {502: 500, 503: 529}
_ids = itertools.count(1)


def _blocks(content: Any, prompt: PromptText, role: str, req: SimRequest) -> bool:
    """Add a message's text; returns whether it holds a ``tool_use`` block."""
    if isinstance(content, str):
        prompt.add(role, content)
        return False
    if not isinstance(content, list):
        raise RequestError("message content must be a string or a list of content blocks", "messages")
    called = False
    for block in content:
        if not isinstance(block, dict):
            raise RequestError("content blocks must be objects", "messages")
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            prompt.add(role, block["text"])
        elif btype == "image":
            prompt.add_image(_image_url(block), anthropic=True)
        elif btype == "tool_use":
            called = True
            prompt.add(role, json.dumps(block.get("input", {})), in_context=False)
        elif btype == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                prompt.add(role, inner, tool_output=True)
            elif isinstance(inner, list):
                for part in inner:
                    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                        prompt.add(role, part["text"], tool_output=True)
                    elif isinstance(part, dict) and part.get("type") == "image":
                        prompt.add_image(_image_url(part), anthropic=True)
    return called


def _image_url(block: dict[str, Any]) -> str:
    """A Messages ``image`` block's source as one URL (base64 sources as a data URL)."""
    source = block.get("source")
    if not isinstance(source, dict):
        return ""
    if source.get("type") == "base64":
        return f"data:{source.get('media_type') or 'image/png'};base64,{source.get('data') or ''}"
    return str(source.get("url") or "")


def parse_messages_request(body: object) -> SimRequest:
    """Decode a Messages API request body.

    Raises:
        RequestError: the body is not an object, ``messages`` is missing or malformed, or
            the ``<rubric_rows>`` block is bad.
    """
    if not isinstance(body, dict):
        raise RequestError("request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages: at least one message is required", "messages")
    req = SimRequest(endpoint="messages", model=str(body.get("model") or DEFAULT_MODEL), stream=bool(body.get("stream")))
    prompt = PromptText()
    system = body.get("system")
    if isinstance(system, (str, list)):
        _blocks(system, prompt, "system", req)
    for msg in messages:
        if not isinstance(msg, dict):
            raise RequestError("every message must be an object", "messages")
        role = str(msg.get("role") or "")
        if _blocks(msg.get("content"), prompt, role, req) and role == "assistant":
            req.tool_rounds_done += 1
    tools: dict[str, Any] = {}
    offered = body.get("tools")
    for tool in offered if isinstance(offered, list) else []:
        if isinstance(tool, dict) and tool.get("name") and tool.get("type") in (None, "custom"):
            tools[str(tool["name"])] = tool.get("input_schema")
    req.tool_names = list(tools)
    choice = raw_choice if isinstance(raw_choice := body.get("tool_choice"), dict) else {}
    req.tool_choice_none = choice.get("type") == "none"
    if choice.get("type") == "tool" and choice.get("name"):
        req.answer_tool, req.answer_tool_forced = str(choice["name"]), True
    elif choice.get("type") == "any" and len(tools) == 1:
        req.answer_tool, req.answer_tool_forced = req.tool_names[0], True
    elif STRUCTURED_OUTPUT_TOOL in tools:
        req.answer_tool = STRUCTURED_OUTPUT_TOOL
    config = raw_config if isinstance(raw_config := body.get("output_config"), dict) else {}
    fmt = body.get("output_format") or config.get("format")
    if isinstance(fmt, dict):
        req.response_format = str(fmt.get("type"))
        if isinstance(fmt.get("schema"), dict):
            req.answer_schema = fmt["schema"]
    if req.answer_schema is None and req.answer_tool is not None and isinstance(tools.get(req.answer_tool), dict):
        req.answer_schema = tools[req.answer_tool]
    return prompt.finish(req)


def _error_doc(status: int, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}


class MessagesAPI:
    """Renders ``Reply`` values, faults and errors as Anthropic Messages API answers."""

    endpoint = "messages"

    def parse(self, body: object) -> SimRequest:
        """Decode a request body (see ``parse_messages_request``). Raises RequestError."""
        return parse_messages_request(body)

    def error(
        self, h: SimHandler, status: int, message: str, err_type: str, *,
        param: str | None = None, code: str | None = None, headers: dict[str, str] | None = None,
    ) -> None:
        """Send an Anthropic error document; its ``type`` follows ``status`` (``err_type`` unused)."""
        h.send_json(status, _error_doc(status, message), {"request-id": f"req_sim{next(_ids):08d}", **(headers or {})})

    def count_tokens(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """``POST /v1/messages/count_tokens``: (200, ``{"input_tokens": n}``) or (400, error)."""
        try:
            req = parse_messages_request(json.loads(body or b"null"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return 400, _error_doc(400, "request body is not valid JSON")
        except RequestError as exc:
            return 400, _error_doc(400, str(exc))
        except UNREADABLE as exc:
            return 400, _error_doc(400, f"request cannot be read: {type(exc).__name__}")
        return 200, {"input_tokens": estimate_tokens(req.prompt_chars)}

    @staticmethod
    def _usage(reply: Reply) -> dict[str, Any]:
        return {"input_tokens": reply.prompt_tokens - reply.cached_tokens, "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": reply.cached_tokens, "output_tokens": reply.completion_tokens}

    def answer(self, h: SimHandler, req: SimRequest, reply: Reply) -> None:
        """Send ``reply`` as one ``message`` or as an event stream."""
        mid = f"msg_sim{next(_ids):08d}"
        usage = self._usage(reply)
        stop = _STOP.get(reply.finish, "end_turn")
        call = reply.call
        tool_input: Any = json.loads(call.arguments) if call is not None else None
        if call is not None and isinstance(tool_input, dict):
            block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{call.call_id}", "name": call.name, "input": tool_input}
        else:  # a text answer, or a call whose arguments are not an object: sent as text
            block = {"type": "text", "text": reply.text if call is None else call.arguments}
            stop = "end_turn" if stop == "tool_use" else stop
        if not req.stream:
            h.send_json(200, {"id": mid, "type": "message", "role": "assistant", "model": req.model,
                              "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage},
                        {"request-id": f"req_{mid}"})
            return
        h.start_sse()
        self._start(h, mid, req.model, usage)
        if block["type"] == "tool_use":
            h.sse({"type": "content_block_start", "index": 0, "content_block": {**block, "input": {}}}, "content_block_start")
            for piece in split_text(json.dumps(tool_input), 16):
                delta = {"type": "input_json_delta", "partial_json": piece}
                h.sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        else:
            h.sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                  "content_block_start")
            for piece in split_text(block["text"] or ""):
                delta = {"type": "text_delta", "text": piece}
                h.sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        h.sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        h.sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
               "usage": {"output_tokens": reply.completion_tokens}}, "message_delta")
        h.sse({"type": "message_stop"}, "message_stop")
        h.end_sse()

    @staticmethod
    def _start(h: SimHandler, mid: str, model: str, usage: dict[str, Any]) -> None:
        message: dict[str, Any] = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
                   "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}
        h.sse({"type": "message_start", "message": message}, "message_start")
        h.sse({"type": "ping"}, "ping")

    def status_of(self, fault: Fault) -> int | None:
        """HTTP status this API sends for ``fault`` (None: no status line)."""
        if fault.kind == "http_5xx":
            return _5XX.get(fault.status or 502, 500)
        if fault.kind == "insufficient_quota":
            return 400
        return fault.status

    def fault(self, h: SimHandler, req: SimRequest, fault: Fault) -> None:
        """Carry out a status fault or a stream fault (``stream_*``)."""
        status = self.status_of(fault) or 500
        if fault.kind == "http_429":
            self.error(h, 429, MSG_RATE_LIMIT, "rate_limit_error", headers={"retry-after": "1"})
        elif fault.kind == "http_5xx":
            self.error(h, status, "Overloaded" if status == 529 else MSG_5XX.get(fault.status or 502, "Internal server error"),
                       "api_error")
        elif fault.kind == "insufficient_quota":
            self.error(h, status, MSG_CREDIT, "invalid_request_error")
        elif fault.kind == "echo_key":
            key = h.headers.get("x-api-key") or h.headers.get("Authorization")
            self.error(h, status, error_body(fault, key)["error"]["message"], "api_error")
        elif fault.kind in ("quota_exceeded_text", "rate_text"):
            self.error(h, status, error_body(fault)["error"]["message"], "invalid_request_error")
        elif not req.stream:
            if fault.kind == "stream_rate_limit":
                h.send_json(200, {"type": "error", "error": {"type": "rate_limit_error", "message": MSG_STREAM_RATE}})
            else:
                h.send_partial_json({"id": "msg_sim_cut", "type": "message", "role": "assistant", "model": req.model,
                                     "content": [{"type": "text", "text": '{"verdicts": ['}], "stop_reason": "end_turn"})
        else:
            h.start_sse()
            self._start(h, f"msg_sim{next(_ids):08d}", req.model, {"input_tokens": 0, "cache_creation_input_tokens": 0,
                                                                  "cache_read_input_tokens": 0})
            h.sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                  "content_block_start")
            h.sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": '{"verdicts": ['}},
                  "content_block_delta")
            if fault.kind == "stream_rate_limit":
                h.sse({"type": "error", "error": {"type": "rate_limit_error", "message": MSG_STREAM_RATE}}, "error")
                h.end_sse()
            elif fault.kind == "stream_disconnect":
                h.end_sse()
            else:  # stream_abort
                h.close_connection = True

    def rate_limited(self, h: SimHandler, message: str, headers: dict[str, str]) -> None:
        """Send the token bucket's 429 ``rate_limit_error`` with the retry headers."""
        self.error(h, 429, message, "rate_limit_error", headers=headers)
