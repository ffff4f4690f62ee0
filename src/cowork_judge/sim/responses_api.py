"""``POST /v1/responses``: the OpenAI Responses API, as far as judges and the codex CLI use it.

Request: ``input`` (a string, or items: ``message`` with ``input_text``/``output_text``/
``input_image`` parts, ``function_call``, ``function_call_output``, ``custom_tool_call``
(+ ``_output``), ``reasoning``; other item types are ignored), ``instructions``,
``tools`` (``type: function`` tools can be called; namespaces, ``web_search``, custom tools
are ignored), ``tool_choice``, ``text.format`` (``json_schema`` gives the answer's schema,
as ``codex exec --output-schema`` sends it), ``stream``. The client resends the whole
history each turn; earlier tool-calling turns are counted as runs of consecutive call items.

Streaming answer (``event: <type>`` + ``data: {...,"sequence_number": n}``):
``response.created``, ``response.in_progress``, ``response.output_item.added``, then for a
message ``response.content_part.added``, ``response.output_text.delta`` x n,
``response.output_text.done``, ``response.content_part.done``, or for a function call
``response.function_call_arguments.delta`` x n and ``.done``; ``response.output_item.done``
and last ``response.completed`` with ``usage`` (``input_tokens_details.cached_tokens``).
A cut answer (``truncated_json``) ends with ``response.incomplete`` (status ``incomplete``,
``incomplete_details.reason = max_output_tokens``) instead. codex (0.171) treats a stream
without ``response.completed`` as an error ("stream closed before response.completed"),
reports ``response.incomplete`` as "Incomplete response returned, reason: ...", reads
``response.failed`` (``rate_limit_exceeded`` is retryable, ``insufficient_quota`` is not)
and ignores ``error`` events.

What ``codex exec`` sends: ``POST /v1/responses`` only (no model listing), ``stream: true``,
``store: false``, no ``instructions`` (its system prompt comes as ``developer`` messages),
its tools (``exec_command``, ``write_stdin``, ``view_image``, goal tools, a
``multi_agent_v1`` namespace, ``web_search``), ``text.format`` from ``--output-schema``
(name ``codex_output_schema``, strict), ``prompt_cache_key``, ``Authorization: Bearer
$JUDGE_API_KEY``; each turn resends the whole history with ``function_call`` and
``function_call_output`` items.

Faults: status faults are HTTP errors with OpenAI error documents (as on chat
completions). ``stream_rate_limit`` starts the answer, then sends an ``error`` event
(``code: rate_limit_exceeded``) and ``response.failed`` whose ``response.error`` carries
the same code and message; ``stream_disconnect`` ends the body after the first delta,
``stream_abort`` drops the connection there.
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING, Any

from .faults import STATUS_FAULTS, Fault, error_body
from .protocol import add_content, error_doc, split_text
from .turn import DEFAULT_MODEL, PromptText, Reply, RequestError, SimRequest, ToolCall

if TYPE_CHECKING:
    from .handler import SimHandler

__all__ = ["ResponsesAPI", "parse_responses_request"]

_ids = itertools.count(1)
_CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
_PARTIAL = '{"verdicts": ['


def parse_responses_request(body: object) -> SimRequest:
    """Decode a Responses API request body.

    Raises:
        RequestError: the body is not an object, ``input`` is missing or malformed, or the
            ``<rubric_rows>`` block is bad.
    """
    if not isinstance(body, dict):
        raise RequestError("request body must be a JSON object")
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    if not isinstance(items, list) or not items:
        raise RequestError("'input' must be a string or a non-empty list of items", "input")
    req = SimRequest(endpoint="responses", model=str(body.get("model") or DEFAULT_MODEL), stream=bool(body.get("stream")))
    prompt = PromptText()
    if isinstance(body.get("instructions"), str):
        prompt.add("system", body["instructions"])
    in_call_run = False
    for item in items:
        if not isinstance(item, dict):
            raise RequestError("every input item must be an object", "input")
        itype = item.get("type") or ("message" if "role" in item else "")
        if itype == "message":
            add_content(prompt, str(item.get("role") or ""), item.get("content"), param="input")
        elif itype in _CALL_ITEMS:
            if not in_call_run:
                req.tool_rounds_done += 1
            args = item.get("arguments", item.get("input", item.get("action")))
            prompt.add("assistant", args if isinstance(args, str) else ("" if args is None else str(args)),
                       in_context=False)
        elif itype in _OUTPUT_ITEMS:
            add_content(prompt, "tool", item.get("output"), tool_output=True, param="input")
        elif itype == "reasoning":
            summary = item.get("summary")
            for part in summary if isinstance(summary, list) else []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    prompt.add("assistant", part["text"], in_context=False)
        if itype != "reasoning":
            in_call_run = itype in _CALL_ITEMS
    tools: dict[str, Any] = {}
    offered = body.get("tools")
    for tool in offered if isinstance(offered, list) else []:
        if isinstance(tool, dict) and tool.get("type") == "function" and tool.get("name"):
            tools[str(tool["name"])] = tool.get("parameters")
    req.tool_names = list(tools)
    choice = body.get("tool_choice")
    req.tool_choice_none = choice == "none"
    if isinstance(choice, dict) and choice.get("type") == "function" and choice.get("name"):
        req.answer_tool, req.answer_tool_forced = str(choice["name"]), True
    elif choice == "required" and len(tools) == 1:
        req.answer_tool, req.answer_tool_forced = req.tool_names[0], True
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict):
        req.response_format = str(fmt.get("type"))
        if isinstance(fmt.get("schema"), dict):
            req.answer_schema = fmt["schema"]
    if req.answer_schema is None and req.answer_tool is not None and isinstance(tools.get(req.answer_tool), dict):
        req.answer_schema = tools[req.answer_tool]
    return prompt.finish(req)


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.prompt_tokens,
        "input_tokens_details": {"cached_tokens": reply.cached_tokens},
        "output_tokens": reply.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def response_doc(rid: str, model: str, status: str, output: list[dict[str, Any]], *,
                 usage: dict[str, Any] | None = None, error: dict[str, Any] | None = None,
                 incomplete: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``response`` object (``status``: ``in_progress``/``completed``/``incomplete``/``failed``)."""
    return {
        "id": rid, "object": "response", "created_at": int(time.time()), "status": status,
        "background": False, "error": error, "incomplete_details": incomplete, "instructions": None,
        "max_output_tokens": None, "model": model, "output": output, "parallel_tool_calls": True,
        "previous_response_id": None, "reasoning": {"effort": None, "summary": None}, "store": False,
        "temperature": 1.0, "text": {"format": {"type": "text"}}, "tool_choice": "auto", "tools": [],
        "top_p": 1.0, "truncation": "disabled", "usage": usage, "user": None, "metadata": {},
    }


def _message_item(text: str, status: str = "completed") -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}] if status == "completed" else []
    return {"id": f"msg_sim{next(_ids):08d}", "type": "message", "status": status, "role": "assistant", "content": content}


def _call_item(call: ToolCall) -> dict[str, Any]:
    return {"id": f"fc_sim{next(_ids):08d}", "type": "function_call", "status": "completed",
            "call_id": call.call_id, "name": call.name, "arguments": call.arguments}


class _Events:
    """Writes Responses API SSE events with increasing ``sequence_number``."""

    def __init__(self, h: SimHandler) -> None:
        self.h = h
        self.seq = 0

    def send(self, etype: str, **fields: Any) -> None:
        self.h.sse({"type": etype, "sequence_number": self.seq, **fields}, event=etype)
        self.seq += 1


class ResponsesAPI:
    """Renders ``Reply`` values, faults and errors as Responses API answers."""

    endpoint = "responses"

    def parse(self, body: object) -> SimRequest:
        """Decode a request body (see ``parse_responses_request``). Raises RequestError."""
        return parse_responses_request(body)

    def error(
        self, h: SimHandler, status: int, message: str, err_type: str, *,
        param: str | None = None, code: str | None = None, headers: dict[str, str] | None = None,
    ) -> None:
        """Send an OpenAI error document with ``status``."""
        h.send_json(status, error_doc(message, err_type, param=param, code=code), headers)

    def answer(self, h: SimHandler, req: SimRequest, reply: Reply) -> None:
        """Send ``reply`` as one ``response`` object or as an event stream."""
        rid = f"resp_sim{next(_ids):08d}"
        item = _call_item(reply.call) if reply.call is not None else _message_item(reply.text or "")
        cut = reply.finish == "length"
        status = "incomplete" if cut else "completed"
        incomplete = {"reason": "max_output_tokens"} if cut else None
        final = response_doc(rid, req.model, status, [item], usage=_usage(reply), incomplete=incomplete)
        if not req.stream:
            h.send_json(200, final)
            return
        ev = _Events(h)
        h.start_sse()
        self._start(ev, rid, req.model)
        ev.send("response.output_item.added", output_index=0, item={**item, "status": "in_progress", **(
            {"arguments": ""} if reply.call is not None else {"content": []})})
        if reply.call is not None:
            for piece in split_text(reply.call.arguments, 16):
                ev.send("response.function_call_arguments.delta", item_id=item["id"], output_index=0, delta=piece)
            ev.send("response.function_call_arguments.done", item_id=item["id"], output_index=0,
                    name=reply.call.name, arguments=reply.call.arguments)
        else:
            text = reply.text or ""
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            ev.send("response.content_part.added", item_id=item["id"], output_index=0, content_index=0, part=part)
            for piece in split_text(text):
                ev.send("response.output_text.delta", item_id=item["id"], output_index=0, content_index=0,
                        delta=piece, logprobs=[])
            ev.send("response.output_text.done", item_id=item["id"], output_index=0, content_index=0,
                    text=text, logprobs=[])
            ev.send("response.content_part.done", item_id=item["id"], output_index=0, content_index=0,
                    part={**part, "text": text})
        ev.send("response.output_item.done", output_index=0, item=item)
        ev.send("response.incomplete" if cut else "response.completed", response=final)
        h.end_sse()

    @staticmethod
    def _start(ev: _Events, rid: str, model: str) -> None:
        doc = response_doc(rid, model, "in_progress", [])
        ev.send("response.created", response=doc)
        ev.send("response.in_progress", response=doc)

    def fault(self, h: SimHandler, req: SimRequest, fault: Fault) -> None:
        """Carry out a status fault or a stream fault (``stream_*``)."""
        if fault.kind in STATUS_FAULTS:
            headers = {"retry-after": "1"} if fault.kind == "http_429" else {}
            h.send_json(fault.status or 500, error_body(fault, h.headers.get("Authorization")), headers)
            return
        rid = f"resp_sim{next(_ids):08d}"
        err = error_body(fault)["error"] if fault.kind == "stream_rate_limit" else None
        failed_error = {"code": err["code"], "message": err["message"]} if err else None
        if not req.stream:
            if err is not None:
                h.send_json(200, response_doc(rid, req.model, "failed", [], error=failed_error))
            else:
                h.send_partial_json(response_doc(rid, req.model, "completed", [_message_item(_PARTIAL)]))
            return
        ev = _Events(h)
        h.start_sse()
        self._start(ev, rid, req.model)
        item = _message_item("", "in_progress")
        ev.send("response.output_item.added", output_index=0, item=item)
        ev.send("response.content_part.added", item_id=item["id"], output_index=0, content_index=0,
                part={"type": "output_text", "text": "", "annotations": [], "logprobs": []})
        ev.send("response.output_text.delta", item_id=item["id"], output_index=0, content_index=0,
                delta=_PARTIAL, logprobs=[])
        if err is not None:
            ev.send("error", code=err["code"], message=err["message"], param=None)
            ev.send("response.failed", response=response_doc(rid, req.model, "failed", [], error=failed_error))
            h.end_sse()
        elif fault.kind == "stream_disconnect":
            h.end_sse()  # clean end of body without response.completed
        else:  # stream_abort
            h.close_connection = True

    def status_of(self, fault: Fault) -> int | None:
        """HTTP status this API sends for ``fault`` (None: no status line)."""
        return fault.status

    def rate_limited(self, h: SimHandler, message: str, headers: dict[str, str]) -> None:
        """Send the token bucket's 429 (``type: requests``, ``code: rate_limit_exceeded``)."""
        h.send_json(429, error_doc(message, "requests", code="rate_limit_exceeded"), headers)
