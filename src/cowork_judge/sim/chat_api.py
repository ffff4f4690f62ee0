"""``POST /v1/chat/completions``: how the simulated judge answers OpenAI Chat Completions.

Plain JSON or SSE (``data: <chunk>`` lines, ``data: [DONE]`` at the end, a usage-only chunk
when ``stream_options.include_usage``). Errors are OpenAI error documents
``{"error": {"message", "type", "param", "code"}}``. A rate-limit error inside a 200
stream is a ``data: {"error": ...}`` line after the first content chunks (what the
openai SDK raises as ``APIError``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .faults import STATUS_FAULTS, Fault, error_body
from .protocol import chunk, completion, error_doc, new_completion_id, parse_request, split_text, tool_call_doc
from .turn import Reply, SimRequest

if TYPE_CHECKING:
    from .handler import SimHandler

__all__ = ["ChatAPI"]


class ChatAPI:
    """Renders ``Reply`` values, faults and errors as Chat Completions answers."""

    endpoint = "chat"

    def parse(self, body: object) -> SimRequest:
        """Decode a request body (see ``protocol.parse_request``). Raises RequestError."""
        return parse_request(body)

    def error(
        self, h: SimHandler, status: int, message: str, err_type: str, *,
        param: str | None = None, code: str | None = None, headers: dict[str, str] | None = None,
    ) -> None:
        """Send an OpenAI error document with ``status``."""
        h.send_json(status, error_doc(message, err_type, param=param, code=code), headers)

    def answer(self, h: SimHandler, req: SimRequest, reply: Reply) -> None:
        """Send ``reply`` as one ``chat.completion`` or as a chunk stream."""
        if not req.stream:
            h.send_json(200, completion(req.model, reply))
            return
        cid = new_completion_id()
        h.start_sse()
        call = reply.call
        if call is not None:
            head = tool_call_doc(call)
            head["function"]["arguments"] = ""
            h.sse(chunk(cid, req.model, {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **head}]}))
            for piece in split_text(call.arguments, 8):
                h.sse(chunk(cid, req.model, {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        else:
            h.sse(chunk(cid, req.model, {"role": "assistant", "content": ""}))
            for piece in split_text(reply.text or ""):
                h.sse(chunk(cid, req.model, {"content": piece}))
        h.sse(chunk(cid, req.model, {}, finish_reason=reply.finish))
        if req.include_usage:
            h.sse(chunk(cid, req.model, None, usage=reply))
        h.sse("[DONE]")
        h.end_sse()

    def fault(self, h: SimHandler, req: SimRequest, fault: Fault) -> None:
        """Carry out a status fault or a stream fault (``stream_*``)."""
        if fault.kind in STATUS_FAULTS:
            headers = {"retry-after": "1"} if fault.kind == "http_429" else {}
            h.send_json(fault.status or 500, error_body(fault, h.headers.get("Authorization")), headers)
        elif not req.stream:
            if fault.kind == "stream_rate_limit":
                h.send_json(200, error_body(fault))
            else:  # stream_disconnect / stream_abort on a plain request: cut the body
                h.send_partial_json(completion(req.model, Reply('{"verdicts": [', None, "stop")))
        else:
            cid = new_completion_id()
            h.start_sse()
            h.sse(chunk(cid, req.model, {"role": "assistant", "content": ""}))
            h.sse(chunk(cid, req.model, {"content": '{"verdicts": ['}))
            if fault.kind == "stream_rate_limit":
                h.sse(error_body(fault))
                h.end_sse()
            elif fault.kind == "stream_disconnect":
                h.end_sse()  # clean end of body: no finish_reason, no [DONE]
            else:  # stream_abort: drop the connection inside the chunked body
                h.close_connection = True

    def status_of(self, fault: Fault) -> int | None:
        """HTTP status this API sends for ``fault`` (None: no status line)."""
        return fault.status

    def rate_limited(self, h: SimHandler, message: str, headers: dict[str, str]) -> None:
        """Send the token bucket's 429 (``type: requests``, ``code: rate_limit_exceeded``)."""
        doc: dict[str, Any] = error_doc(message, "requests", code="rate_limit_exceeded")
        h.send_json(429, doc, headers)
