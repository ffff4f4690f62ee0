"""Wire format of the simulated judge: read a chat-completions request, build its answers.

Pure functions over decoded JSON; no sockets, no clock except the ``created`` stamp.
The judge's protocol: the rows a request judges are the JSON list inside the LAST
``<rubric_rows> ... </rubric_rows>`` block of the user messages; failing that, the ``id``
enum of ``response_format.json_schema.schema.properties.verdicts.items``.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

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
    "tool_call_for",
]

DEFAULT_MODEL = "sim-judge"
_ROWS_RE = re.compile(r"<rubric_rows>((?:(?!<rubric_rows>).)*?)</rubric_rows>", re.DOTALL)  # innermost block
_ids = itertools.count(1)


class RequestError(ValueError):
    """The request cannot be answered; the server replies HTTP 400 with this message.

    Attributes:
        param: the offending request field, or None.
    """

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass
class SimRequest:
    """What the simulator needs to know about one chat-completions request.

    Attributes:
        model: requested model name (``DEFAULT_MODEL`` when absent).
        stream: ``stream: true`` was asked.
        include_usage: ``stream_options.include_usage`` was asked.
        rows: rubric rows judged (dicts as in the ``<rubric_rows>`` block); empty when
            none were found (the server then answers 400 unless a fault applies first).
        rows_error: why no rows were found, for that 400.
        context_text: text of all messages with ``<rubric_rows>`` blocks removed.
        prompt_chars: characters of all message text and tool-call arguments (images not
            counted).
        images: number of image parts.
        tool_names: names of the offered function tools, in order.
        tool_rounds_done: assistant messages so far that carry tool calls.
        tool_choice_none: ``tool_choice == "none"``.
        response_format: ``json_schema``, ``json_object``, ``text`` or None.
    """

    model: str = DEFAULT_MODEL
    stream: bool = False
    include_usage: bool = False
    rows: list[dict[str, Any]] = field(default_factory=list)
    rows_error: str = ""
    context_text: str = ""
    prompt_chars: int = 0
    images: int = 0
    tool_names: list[str] = field(default_factory=list)
    tool_rounds_done: int = 0
    tool_choice_none: bool = False
    response_format: str | None = None

    @property
    def row_ids(self) -> list[str]:
        """Ids of ``rows``, in order."""
        return [str(r.get("id")) for r in self.rows]


def estimate_tokens(chars: int) -> int:
    """Token estimate from a character count: ``ceil(chars / 4)``."""
    return (chars + 3) // 4


def _content_text(content: Any) -> tuple[list[str], int]:
    """Text pieces and image count of a message ``content`` (string, parts list or None)."""
    if content is None:
        return [], 0
    if isinstance(content, str):
        return [content], 0
    if not isinstance(content, list):
        raise RequestError("message content must be a string or a list of parts", "messages")
    texts, images = [], 0
    for part in content:
        if not isinstance(part, dict):
            raise RequestError("message content parts must be objects", "messages")
        ptype = part.get("type")
        if ptype in ("image_url", "input_image", "image"):
            images += 1
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return texts, images


def parse_request(body: object) -> SimRequest:
    """Decode a chat-completions request body.

    Raises:
        RequestError: the body is not an object, ``messages`` is missing or malformed.
    """
    if not isinstance(body, dict):
        raise RequestError("request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list", "messages")
    req = SimRequest(model=str(body.get("model") or DEFAULT_MODEL), stream=bool(body.get("stream")))
    options = body.get("stream_options")
    req.include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
    context: list[str] = []
    last_block: str | None = None
    for msg in messages:
        if not isinstance(msg, dict):
            raise RequestError("every message must be an object", "messages")
        texts, images = _content_text(msg.get("content"))
        req.images += images
        req.prompt_chars += sum(len(t) for t in texts)
        context.extend(texts)
        calls = msg.get("tool_calls")
        if msg.get("role") == "assistant" and calls:
            req.tool_rounds_done += 1
            for call in calls if isinstance(calls, list) else []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    req.prompt_chars += len(str(fn.get("arguments") or ""))
        if msg.get("role") == "user":
            for text in texts:
                blocks = _ROWS_RE.findall(text)
                if blocks:
                    last_block = blocks[-1]
    req.context_text = _ROWS_RE.sub(" ", "\n".join(context))
    tools = body.get("tools") or []
    for tool in tools if isinstance(tools, list) else []:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            req.tool_names.append(str(fn["name"]))
    req.tool_choice_none = body.get("tool_choice") == "none"
    fmt = body.get("response_format")
    if isinstance(fmt, dict):
        req.response_format = str(fmt.get("type"))
    if last_block is not None:
        req.rows = _rows_from_block(last_block)
    else:
        req.rows = _rows_from_schema(fmt)
        if not req.rows:
            req.rows_error = (
                "no rubric rows found: expected a <rubric_rows>[...]</rubric_rows> block in a "
                "user message or an id enum in response_format.json_schema"
            )
    return req


def _rows_from_block(block: str) -> list[dict[str, Any]]:
    try:
        rows = json.loads(block)
    except json.JSONDecodeError as exc:
        raise RequestError(f"<rubric_rows> block is not valid JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "id" in r for r in rows):
        raise RequestError("<rubric_rows> block must be a JSON list of objects with an 'id'")
    if not rows:
        raise RequestError("<rubric_rows> block is empty")
    return rows


def _enum_of(schema: Any) -> list[Any]:
    """Values of ``enum``/``const``, also inside ``anyOf``/``oneOf`` (null excluded)."""
    if not isinstance(schema, dict):
        return []
    if isinstance(schema.get("enum"), list):
        return [v for v in schema["enum"] if v is not None]
    if "const" in schema:
        return [schema["const"]]
    out: list[Any] = []
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or []:
            out.extend(_enum_of(sub))
    return out


def _rows_from_schema(fmt: Any) -> list[dict[str, Any]]:
    try:
        items = fmt["json_schema"]["schema"]["properties"]["verdicts"]["items"]
    except (KeyError, TypeError):
        return []
    variants = (items.get("anyOf") or items.get("oneOf") or [items]) if isinstance(items, dict) else []
    rows: list[dict[str, Any]] = []
    for variant in variants:
        props = variant.get("properties") if isinstance(variant, dict) else None
        if not isinstance(props, dict):
            continue
        levels = sorted(float(v) for v in _enum_of(props.get("level")) if isinstance(v, (int, float)))
        for row_id in _enum_of(props.get("id")):
            row: dict[str, Any] = {"id": str(row_id), "description": "", "polarity": "positive"}
            row["type"] = "gradient" if levels else "binary"
            if levels:
                row["level_choices"] = levels
            rows.append(row)
    return rows


def error_doc(message: str, err_type: str, *, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error document ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": err_type, "param": param, "code": code}}


def tool_call_for(tool_names: list[str]) -> dict[str, Any]:
    """The one tool call of a tool turn: ``list_files {"path": "."}`` if offered, else first tool ``{}``."""
    if "list_files" in tool_names:
        name, args = "list_files", {"path": "."}
    else:
        name, args = tool_names[0], {}
    return {
        "id": f"call_sim_{next(_ids)}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def new_completion_id() -> str:
    """A fresh ``chatcmpl-sim…`` id."""
    return f"chatcmpl-sim{next(_ids):08d}"


def completion(
    model: str,
    *,
    content: str | None,
    tool_call: dict[str, Any] | None,
    finish_reason: str,
    prompt_tokens: int,
    completion_tokens: int,
) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` document with usage."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_call is not None:
        message["tool_calls"] = [tool_call]
    return {
        "id": new_completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": _usage(prompt_tokens, completion_tokens),
        "system_fingerprint": "sim",
    }


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def chunk(
    cid: str,
    model: str,
    delta: dict[str, Any] | None,
    finish_reason: str | None = None,
    usage: tuple[int, int] | None = None,
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
        doc["usage"] = _usage(*usage)
    return doc


def split_text(text: str, size: int = 24) -> Iterator[str]:
    """Consecutive pieces of ``text`` of at most ``size`` characters (nothing for "")."""
    for start in range(0, len(text), size):
        yield text[start : start + size]
