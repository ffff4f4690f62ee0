"""Chat-completions wire format of the simulated judge: read a request, build its answers.

Pure functions over decoded JSON; no sockets, no clock except the ``created`` stamp. Where
the rows come from is said in ``turn.py``. A request's final answer goes through a tool
call (``answer_tool``) when ``tool_choice`` forces one function, or is ``"required"`` with a
single function offered; its JSON schema is ``response_format.json_schema.schema``, else
that tool's ``parameters``.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

from .turn import DEFAULT_MODEL, PromptText, Reply, RequestError, SimRequest, ToolCall, estimate_tokens

__all__ = [
    "DEFAULT_MODEL",
    "RequestError",
    "SimRequest",
    "chunk",
    "completion",
    "error_doc",
    "estimate_tokens",
    "new_completion_id",
    "parse_request",
    "split_text",
    "tool_call_doc",
    "usage_doc",
]

_ids = itertools.count(1)


def add_content(prompt: PromptText, role: str, content: Any, *, tool_output: bool = False,
                param: str = "messages") -> None:
    """Add a message ``content`` (string, parts list or None) to `prompt`, parts in order:
    text parts as text, image parts (chat ``image_url``, Responses ``input_image``) as images.

    Raises:
        RequestError: `content` is neither a string, a list of objects, nor None.
    """
    if content is None:
        return
    if isinstance(content, str):
        prompt.add(role, content, tool_output=tool_output)
        return
    if not isinstance(content, list):
        raise RequestError("message content must be a string or a list of parts", param)
    for part in content:
        if not isinstance(part, dict):
            raise RequestError("message content parts must be objects" if param == "messages" else "content parts must be objects", param)
        ptype = part.get("type")
        if ptype in ("image_url", "input_image", "image"):
            ref = part.get("image_url")
            detail = part.get("detail")
            if isinstance(ref, dict):  # chat: {"url": ..., "detail": ...}
                detail, ref = ref.get("detail"), ref.get("url")
            prompt.add_image(ref if isinstance(ref, str) else "", detail if isinstance(detail, str) else None, param=param)
        elif isinstance(part.get("text"), str):
            prompt.add(role, part["text"], tool_output=tool_output)


def parse_request(body: object) -> SimRequest:
    """Decode a chat-completions request body.

    Raises:
        RequestError: the body is not an object, ``messages`` is missing or malformed, or
            the ``<rubric_rows>`` block is bad.
    """
    if not isinstance(body, dict):
        raise RequestError("request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list", "messages")
    req = SimRequest(endpoint="chat", model=str(body.get("model") or DEFAULT_MODEL), stream=bool(body.get("stream")))
    temperature = body.get("temperature")
    if isinstance(temperature, (int, float)) and not isinstance(temperature, bool):
        req.temperature = float(temperature)
    options = body.get("stream_options")
    req.include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
    prompt = PromptText()
    for msg in messages:
        if not isinstance(msg, dict):
            raise RequestError("every message must be an object", "messages")
        role = str(msg.get("role") or "")
        add_content(prompt, role, msg.get("content"), tool_output=role in ("tool", "function"))
        calls = msg.get("tool_calls")
        if role == "assistant" and calls:
            req.tool_rounds_done += 1
            for call in calls if isinstance(calls, list) else []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    prompt.add(role, str(fn.get("arguments") or ""), in_context=False)
    tools: dict[str, Any] = {}
    offered = body.get("tools") or []
    for tool in offered if isinstance(offered, list) else []:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            tools[str(fn["name"])] = fn.get("parameters")
    req.tool_names = list(tools)
    choice = body.get("tool_choice")
    req.tool_choice_none = choice == "none"
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        req.answer_tool = str(choice["function"].get("name") or "") or None
        req.answer_tool_forced = req.answer_tool is not None
    elif choice == "required" and len(tools) == 1:
        req.answer_tool, req.answer_tool_forced = req.tool_names[0], True
    fmt = body.get("response_format")
    if isinstance(fmt, dict):
        req.response_format = str(fmt.get("type"))
        inner = fmt.get("json_schema")
        if isinstance(inner, dict) and isinstance(inner.get("schema"), dict):
            req.answer_schema = inner["schema"]
    if req.answer_schema is None and req.answer_tool is not None and isinstance(tools.get(req.answer_tool), dict):
        req.answer_schema = tools[req.answer_tool]
    return prompt.finish(req)


def error_doc(message: str, err_type: str, *, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error document ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": err_type, "param": param, "code": code}}


def new_completion_id() -> str:
    """A fresh ``chatcmpl-sim…`` id."""
    return f"chatcmpl-sim{next(_ids):08d}"


def tool_call_doc(call: ToolCall) -> dict[str, Any]:
    """A chat ``tool_calls`` entry ``{"id", "type": "function", "function": {"name", "arguments"}}``."""
    return {"id": call.call_id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def completion(model: str, reply: Reply) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` document with usage."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.call is not None:
        message["tool_calls"] = [tool_call_doc(reply.call)]
    return {
        "id": new_completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish, "logprobs": None}],
        "usage": usage_doc(reply),
        "system_fingerprint": "sim",
    }


def usage_doc(reply: Reply) -> dict[str, Any]:
    """Chat ``usage`` with ``prompt_tokens_details.cached_tokens`` (OpenAI's shape)."""
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    }


def chunk(
    cid: str,
    model: str,
    delta: dict[str, Any] | None,
    finish_reason: str | None = None,
    usage: Reply | None = None,
) -> dict[str, Any]:
    """One ``chat.completion.chunk``; ``delta=None`` gives the usage-only chunk (no choices)."""
    doc: dict[str, Any] = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "sim",
        "choices": [] if delta is None else [
            {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        ],
    }
    if usage is not None:
        doc["usage"] = usage_doc(usage)
    return doc


def split_text(text: str, size: int = 24) -> Iterator[str]:
    """Consecutive pieces of ``text`` of at most ``size`` characters (nothing for "")."""
    for start in range(0, len(text), size):
        yield text[start : start + size]
