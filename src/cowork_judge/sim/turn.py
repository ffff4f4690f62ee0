"""One model call, whatever the wire API: the parsed request (``SimRequest``) and the reply.

Every endpoint module (``protocol`` for chat completions, ``responses_api``,
``messages_api``) decodes its body into a ``SimRequest`` with a ``PromptText``
accumulator; the server decides the reply (``Reply``) from it without knowing the API.

The judge's protocol: the rows a request judges are the JSON list inside the LAST
``<rubric_rows> ... </rubric_rows>`` block of the user messages (tool results excluded);
failing that, the ``id`` enum of ``properties.verdicts.items`` of the answer's JSON schema.
A request with neither is answered by the generic mode (``generic.py``). A per-page
workflow request names its page with a ``<page_number>N</page_number>`` marker
(``pages.py``); the oracle's ``"<row id>@<page>"`` entries apply to it.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import image_tokens
from .pages import page_of
from .prefix_cache import CHARS_PER_TOKEN

__all__ = [
    "DEFAULT_MODEL",
    "PromptText",
    "Reply",
    "RequestError",
    "SimRequest",
    "ToolCall",
    "UNREADABLE",
    "estimate_tokens",
    "new_call_id",
    "read_only_call",
    "rows_from_block",
    "rows_from_schema",
]

DEFAULT_MODEL = "sim-judge"
ROWS_RE = re.compile(r"<rubric_rows>((?:(?!<rubric_rows>).)*?)</rubric_rows>", re.DOTALL)  # innermost block
_ids = itertools.count(1)

READ_ONLY_CALLS: dict[str, dict[str, Any]] = {
    "list_files": {"path": "."},
    "exec_command": {"cmd": "ls -la output"},
    "shell": {"command": ["ls", "-la", "output"]},
    "shell_command": {"command": "ls -la output"},
    "Bash": {"command": "ls -la output", "description": "List the deliverables in output/"},
    "Glob": {"pattern": "output/**"},
}
"""Tool turn arguments per known tool, in order of preference: our agent's ``list_files``,
codex's ``exec_command``/``shell``/``shell_command``, claude's ``Bash``/``Glob``."""


class RequestError(ValueError):
    """The request cannot be answered; the server replies HTTP 400 with this message.

    Attributes:
        param: the offending request field, or None.
    """

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


UNREADABLE = (RecursionError, ValueError, TypeError, OverflowError)
"""Errors a hostile request body can raise while it is decoded or answered (deep nesting, an
integer past Python's digit limit, a schema whose keywords hold the wrong types): a 400."""


def estimate_tokens(chars: int) -> int:
    """Token estimate from a character count: ``ceil(chars / CHARS_PER_TOKEN)`` (4)."""
    return -(-chars // CHARS_PER_TOKEN)


def new_call_id(prefix: str = "call_sim_") -> str:
    """A fresh tool-call id ``<prefix><n>``."""
    return f"{prefix}{next(_ids)}"


@dataclass
class SimRequest:
    """What the simulator needs to know about one model request, whatever its API.

    Attributes:
        endpoint: ``chat`` (``/v1/chat/completions``), ``responses`` or ``messages``.
        model: requested model name (``DEFAULT_MODEL`` when absent).
        stream: ``stream: true`` was asked.
        include_usage: chat only: ``stream_options.include_usage`` was asked.
        rows: rubric rows judged (dicts as in the ``<rubric_rows>`` block, or from the
            schema's id enum); empty in generic mode.
        rows_error: why no rows were found (the generic mode answers instead, unless off).
        context_text: text of all messages, tool results included, ``<rubric_rows>``
            blocks removed.
        user_text: text of the user messages only (tool results excluded).
        prompt_text: the serialized prompt: every counted text piece in order (system /
            instructions, messages, tool-call arguments, tool results), no separators.
        prompt_chars: ``len(prompt_text)``; an image counts as its tokens × 4 characters
            (`image_tokens`: OpenAI's or Anthropic's rule, in the image's place).
        images: number of image parts.
        image_tokens: prompt tokens of the image parts (included in the estimate).
        tool_names: names of the offered function tools, in order.
        tool_rounds_done: earlier assistant turns that called tools.
        tool_choice_none: the request forbids tool calls.
        answer_tool: the tool that must carry the final answer (a forced tool, or claude's
            ``StructuredOutput``), else None.
        answer_tool_forced: ``tool_choice`` forces ``answer_tool`` (no read-only tool turn
            then); False for claude's ``StructuredOutput``, which is merely offered.
        answer_schema: JSON schema the final answer must follow (response format, text
            format, or the answer tool's parameters), else None.
        response_format: ``json_schema``, ``json_object``, ``text`` or None.
        page: the page a per-page workflow request judges (its first
            ``<page_number>N</page_number>`` marker, ``pages.page_of``), else None.
    """

    endpoint: str = "chat"
    model: str = DEFAULT_MODEL
    stream: bool = False
    include_usage: bool = False
    rows: list[dict[str, Any]] = field(default_factory=list)
    rows_error: str = ""
    context_text: str = ""
    user_text: str = ""
    prompt_text: str = ""
    images: int = 0
    image_tokens: int = 0
    tool_names: list[str] = field(default_factory=list)
    tool_rounds_done: int = 0
    tool_choice_none: bool = False
    answer_tool: str | None = None
    answer_tool_forced: bool = False
    answer_schema: dict[str, Any] | None = None
    response_format: str | None = None
    page: int | None = None
    instance: str | None = None
    """The ``X-Cowork-Judge-Instance`` header (`policies.INSTANCE_HEADER`), when the judge sent one."""
    temperature: float | None = None
    """The request's ``temperature`` (chat completions), when it sent one."""

    @property
    def prompt_chars(self) -> int:
        """Characters of the serialized prompt."""
        return len(self.prompt_text)

    @property
    def row_ids(self) -> list[str]:
        """Ids of ``rows``, in order."""
        return [str(r.get("id")) for r in self.rows]


class PromptText:
    """Accumulates a request's text pieces, then fills the text fields of a ``SimRequest``.

    ``add(role, text)`` appends one piece; ``tool_output=True`` marks a tool result (counted
    and shown to the policy as context, but never searched for ``<rubric_rows>`` or
    criteria); ``in_context=False`` counts a piece (tool-call arguments) without showing it
    to the policy. Roles other than ``user`` are never searched. ``add_image`` appends an
    image in its place: counted (its tokens) and part of the cached prefix, never shown to
    the policy.
    """

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._context: list[str] = []
        self._user: list[str] = []
        self.images = 0
        self.image_tokens = 0

    def add_image(self, url: str, detail: str | None = None, *, anthropic: bool = False, param: str = "messages") -> None:
        """Append one image part (a data URL or an http(s) URL; `detail` as the request gave it).

        Raises:
            RequestError: a part a real endpoint refuses (`image_tokens.BadImage`), for `param`.
        """
        try:
            tokens = image_tokens.anthropic_tokens(url) if anthropic else image_tokens.openai_tokens(url, detail)
        except image_tokens.BadImage as exc:
            raise RequestError(str(exc), param) from None
        self.images += 1
        self.image_tokens += tokens
        self._pieces.append(image_tokens.placeholder(url, detail, tokens, CHARS_PER_TOKEN))

    def add(self, role: str, text: str, *, tool_output: bool = False, in_context: bool = True) -> None:
        """Append one text piece said by ``role``."""
        if not text:
            return
        self._pieces.append(text)
        if in_context:
            self._context.append(text)
        if role == "user" and not tool_output:
            self._user.append(text)

    def finish(self, req: SimRequest) -> SimRequest:
        """Set ``prompt_text``, ``context_text``, ``user_text``, ``images``, ``page`` and the rows.

        Raises:
            RequestError: the last ``<rubric_rows>`` block is not a JSON list of objects
                with an ``id``.
        """
        req.prompt_text = "".join(self._pieces)
        req.context_text = ROWS_RE.sub(" ", "\n".join(self._context))
        req.user_text = "\n".join(self._user)
        req.images = self.images
        req.image_tokens = self.image_tokens
        req.page = page_of(self._user)
        last_block = None
        for text in self._user:
            blocks = ROWS_RE.findall(text)
            if blocks:
                last_block = blocks[-1]
        if last_block is not None:
            req.rows = rows_from_block(last_block)
        else:
            req.rows = rows_from_schema(req.answer_schema)
            if not req.rows:
                req.rows_error = (
                    "no rubric rows found: expected a <rubric_rows>[...]</rubric_rows> block in a "
                    "user message or an id enum in the answer's JSON schema (properties.verdicts.items)"
                )
        return req


def rows_from_block(block: str) -> list[dict[str, Any]]:
    """The rows of one ``<rubric_rows>`` block's inner text.

    Raises:
        RequestError: not JSON, not a non-empty list of objects with an ``id``.
    """
    try:
        rows = json.loads(block)
    except json.JSONDecodeError as exc:
        raise RequestError(f"<rubric_rows> block is not valid JSON: {exc.msg} at char {exc.pos}") from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "id" in r for r in rows):
        raise RequestError("<rubric_rows> block must be a JSON list of objects with an 'id'")
    if not rows:
        raise RequestError("<rubric_rows> block is empty")
    return rows


def enum_of(schema: Any) -> list[Any]:
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
            out.extend(enum_of(sub))
    return out


def rows_from_schema(schema: Any) -> list[dict[str, Any]]:
    """Rows named by the ``id`` enum of ``schema.properties.verdicts.items`` (our verdict schema).

    ``items`` may be one object schema or ``anyOf``/``oneOf`` variants (one per row, with a
    ``level`` enum for gradient rows). Returns [] for any other schema.
    """
    try:
        items = schema["properties"]["verdicts"]["items"]
    except (KeyError, TypeError):
        return []
    variants = (items.get("anyOf") or items.get("oneOf") or [items]) if isinstance(items, dict) else []
    rows: list[dict[str, Any]] = []
    for variant in variants:
        props = variant.get("properties") if isinstance(variant, dict) else None
        if not isinstance(props, dict):
            continue
        levels = sorted(float(v) for v in enum_of(props.get("level")) if isinstance(v, (int, float)))
        for row_id in enum_of(props.get("id")):
            row: dict[str, Any] = {"id": str(row_id), "description": "", "polarity": "positive"}
            row["type"] = "gradient" if levels else "binary"
            if levels:
                row["level_choices"] = levels
            rows.append(row)
    return rows


@dataclass(frozen=True)
class ToolCall:
    """A function call the simulated model makes.

    Attributes:
        call_id: id the client echoes with the result.
        name: tool name.
        arguments: JSON text of the arguments.
    """

    call_id: str
    name: str
    arguments: str


def read_only_call(tool_names: list[str], exclude: str | None = None) -> ToolCall | None:
    """The call of a tool turn: the first known tool of ``READ_ONLY_CALLS`` that is offered,
    else the first offered tool with ``{}``; ``exclude`` (the answer tool) is never chosen.

    Returns None when no other tool is offered.
    """
    offered = [n for n in tool_names if n != exclude]
    if not offered:
        return None
    name = next((n for n in READ_ONLY_CALLS if n in offered), offered[0])
    return ToolCall(new_call_id(), name, json.dumps(READ_ONLY_CALLS.get(name, {})))


@dataclass
class Reply:
    """What the simulated model answers, before an API module renders it.

    Attributes:
        text: assistant text, or None for a reply that is only a tool call.
        call: the tool call, or None.
        finish: ``stop``, ``length`` (cut: max tokens) or ``tool_calls``.
        prompt_tokens: estimated prompt tokens (cached ones included).
        completion_tokens: estimated tokens of the text and call arguments.
        cached_tokens: leading prompt tokens served from the prefix cache.
    """

    text: str | None
    call: ToolCall | None
    finish: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
