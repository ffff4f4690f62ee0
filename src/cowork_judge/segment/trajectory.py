"""The agent's ATIF trajectory, read once (Harbor's Agent Trajectory Interchange Format, v1.0–v1.8).

One parser for the whole judge: the run reads the final message from it
(`run.answer.atif_final_message`), the trajectory code methods
(`code_methods.trajectory_checks`) count its tool calls, commands, exit statuses and
writes, and the `trajectory_judge` workflow shows a model the trimmed text of it
(`trajectory_text`), step numbers kept so a verdict can cite them.

What is read of each step (ATIF field names): ``step_id`` (the step number; its position
from 1 when absent), ``source`` (``system``/``user``/``agent``), ``timestamp``,
``message`` (a string or content parts), ``tool_calls[]`` (``tool_call_id``,
``function_name``, ``arguments``), ``observation.results[]`` (``source_call_id``,
``content``) and ``extra``. ATIF has no field for a command's exit status or a step's
error: `TrajectoryStep.exit_codes` and `TrajectoryStep.errored` read what agents record
(see their docstrings), and say nothing when nothing is recorded.

Reading never raises for a document that is ATIF-shaped: odd values are read as text
(``str(value)``) or skipped. Every string read is passed through the caller's ``clean``
(the run passes `safety.agent_text.repair`, so a lone surrogate never reaches a prompt or a
result; this module imports nothing of the judge, which keeps the import chains short).
Pure: no I/O (the run reads the file).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

TEXT_PART_TYPES = ("text", "output_text")
"""Content-part types that carry text (other parts, images, carry none)."""
COMMAND_KEYS = ("command", "cmd", "keystrokes", "script", "code")
"""Tool-call arguments that hold a command line (bash tools, terminal keystrokes, code cells)."""
PATH_KEYS = ("path", "file_path", "filename", "notebook_path", "target_file")
"""Tool-call arguments that name the file a tool writes."""
WRITE_TOOLS = frozenset({"write", "write_file", "create_file", "edit", "multiedit", "edit_file", "str_replace_editor",
                         "str_replace_based_edit_tool", "notebookedit", "apply_patch", "replace_in_file"})
"""Tool names (case folded) whose call with a path argument writes that file. The editor tools
(``str_replace_editor``…) write only for their ``create``/``str_replace``/``insert``/``write``
commands (``view`` reads)."""
_EDITOR_WRITES = frozenset({"create", "str_replace", "insert", "write", "overwrite", "append"})
_EXIT_TEXT = re.compile(r"(?:\"?exit_?code\"?\s*[:=]\s*|\[exit_code\]\s*|exit code:?\s*|exited with (?:exit )?code\s*|"
                        r"return ?code:?\s*)(-?\d+)", re.IGNORECASE)
"""An exit status written in an observation: codex's ``"exit_code": 0`` metadata, claude-code's
``[exit_code] 1`` (Harbor writes it for a non-zero status only), ``Exit code: 1``,
``Process exited with code 2``, ``returncode=0``."""
EXIT_KEYS = frozenset({"exit_code", "exitCode", "returncode", "return_code"})
"""Keys of an ``extra`` object (at any depth) that hold an exit status: Harbor's codex converter
writes ``extra.tool_metadata.exit_code``, its claude-code converter
``extra.tool_result_metadata.tool_use_result.exitCode``."""
ERROR_FLAGS = frozenset({"is_error", "tool_result_is_error", "tool_use_is_error"})
"""Keys of an ``extra`` object (at any depth) whose ``true`` marks a failed call (claude-code)."""
_ERROR_TEXT = "[error] tool reported failure"
"""What Harbor's claude-code converter writes into an observation for a failed tool call."""
_MAX_DEPTH = 4


def _ints(obj: Any, keys: frozenset[str], depth: int = 0) -> list[int]:
    """Integer values under `keys` in `obj` (dicts and lists, at most `_MAX_DEPTH` deep)."""
    if depth > _MAX_DEPTH:
        return []
    out: list[int] = []
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if k in keys and isinstance(v, int) and not isinstance(v, bool):
                out.append(v)
            elif isinstance(v, (Mapping, list)):
                out += _ints(v, keys, depth + 1)
    elif isinstance(obj, list):
        for v in obj[:50]:
            out += _ints(v, keys, depth + 1)
    return out


def _flagged(obj: Any, depth: int = 0) -> str | None:
    """Why `obj` (an ``extra``) marks a failure: an `ERROR_FLAGS` key set to true, a ``status``
    of ``error``/``failed``/``failure``, or an ``error`` value; None when nothing does."""
    if depth > _MAX_DEPTH or not isinstance(obj, Mapping):
        return None
    for k, v in obj.items():
        if k in ERROR_FLAGS and v is True:
            return f"{k} is true"
        if k == "status" and isinstance(v, str) and v.casefold() in ("error", "failed", "failure"):
            return f"status {v!r}"
        if k == "error" and v:
            return f"error: {str(v)[:120]}"
        if isinstance(v, Mapping):
            found = _flagged(v, depth + 1)
            if found:
                return found
    return None


_REDIRECT_OP = re.compile(r">>?|\btee(?=\s)")
"""A shell operator that writes the file after it: ``> f``, ``>> f``, or ``tee [options] f…``
(every file it names; searched in the command line with its quoted text and here-document
bodies masked: `_mask_quoted`, `_mask_heredocs`)."""
_REDIRECT_TARGET = re.compile(r"[ \t]*(?:\"([^\"]*)\"|'([^']*)'|([^\s;&|<>'\"]+))")
"""The file after a redirect operator: double-quoted, single-quoted or a bare word (on the same line)."""
_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)[ \t]*([\"']?)([A-Za-z0-9_.'\"-]+)\1")
"""A here-document operator (``<<EOF``, ``<<-'EOF'``; not the here-string ``<<<``) and its delimiter word."""


def _mask_heredocs(masked: str, cmd: str) -> str:
    """`masked` with the body of every here-document of `cmd` (the lines after the operator's line
    up to the one holding only its delimiter) replaced by ``_`` (newlines kept): a body is data,
    so a ``>`` in it is no redirect (``cat > notes.md <<EOF … a > b … EOF`` writes only
    ``notes.md``). An unclosed body masks to the end."""
    out = list(masked)
    pos = 0
    while (op := _HEREDOC.search(masked, pos)) is not None:
        word = cmd[op.start(2):op.end(2)].strip("'\"")  # `masked` hides the quotes of <<'EOF' as "_"
        body = masked.find("\n", op.end())
        if body < 0:
            break
        strip_tabs = masked[op.start():op.start(1)].startswith("<<-")
        end, line_start = len(cmd), body + 1
        while line_start <= len(cmd):
            line_end = cmd.find("\n", line_start)
            line_end = len(cmd) if line_end < 0 else line_end
            line = cmd[line_start:line_end]
            if (line.lstrip("\t") if strip_tabs else line) == word:
                end = line_start
                break
            line_start = line_end + 1
        for i in range(body + 1, end):
            if out[i] != "\n":
                out[i] = "_"
        pos = max(end, op.end())
    return "".join(out)


def _mask_quoted(cmd: str) -> str:
    """`cmd` with every quoted or backslash-escaped character (and the quotes) replaced by
    ``_``, the same length: what a shell reads as operators stays (``echo "a > b" > f`` →
    ``echo _______ > f``), so a ``>`` inside quotes is no redirect (trial 9 F10). Double
    quotes honour backslash escapes; an unclosed quote masks to the end. Linear in ``len(cmd)``."""
    out = list(cmd)
    quote = ""
    i = 0
    while i < len(cmd):
        ch = cmd[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\" and i + 1 < len(cmd):
            out[i] = out[i + 1] = "_"
            i += 2
            continue
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        else:
            i += 1
            continue
        out[i] = "_"
        i += 1
    return "".join(out)


def redirect_targets(cmd: str) -> list[str]:
    """Files a shell command line writes by redirect (``>``, ``>>``) or ``tee`` (every file it
    names, its options skipped), read as a shell does: operators inside quotes, escaped
    (``echo "usage: t > f"``, ``echo \\> f``) or in a here-document's body do not count, a quoted
    target is unquoted (``> "my report.md"``); ``&1``-style and ``/dev/null`` targets are left out."""
    masked = _mask_heredocs(_mask_quoted(cmd), cmd)
    out = []
    for op in _REDIRECT_OP.finditer(masked):
        if op.group(0).startswith(">") and op.start() > 0 and masked[op.start() - 1] == ">":
            continue  # the second ">" of ">>"
        pos = op.end()
        while (target := _REDIRECT_TARGET.match(cmd, pos)) is not None and target.end() <= len(masked):
            pos = target.end()
            path = next(g for g in target.groups() if g is not None)
            if op.group(0) == "tee" and path.startswith("-"):
                continue  # an option of tee (-a, --append, -i, -p)
            if path and not path.startswith("&") and path != "/dev/null":
                out.append(path)
            if op.group(0) != "tee":
                break  # a redirect names one file; tee names every file until the next operator
    return out
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.MULTILINE)


class UnreadableMessage(ValueError):
    """The trajectory holds a final answer in a shape no ATIF version allows: unreadable,
    which is not the same as absent."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a step: its id, the function's name and its arguments (a dict; a
    non-object ``arguments`` is kept under ``{"_": value}``; a JSON text is parsed)."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    extra: Mapping[str, Any] = field(default_factory=dict)

    def command(self) -> str | None:
        """The command line this call runs (`COMMAND_KEYS`; a list is joined by spaces), or None."""
        for key in COMMAND_KEYS:
            value = self.arguments.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            if isinstance(value, str) and value.strip():
                return value
        return None

    def written_paths(self) -> list[str]:
        """Files this call writes: the path argument of a `WRITE_TOOLS` call (an editor's
        writing commands only), the files an ``apply_patch`` adds or updates, and the
        redirect targets (``>``, ``>>``, ``tee``) of its command line (`redirect_targets`: a
        ``>`` inside quotes is none)."""
        out: list[str] = []
        name = self.name.casefold()
        if name in WRITE_TOOLS:
            sub = self.arguments.get("command")
            if not (name.startswith("str_replace") and isinstance(sub, str) and sub not in _EDITOR_WRITES):
                out += [str(self.arguments[k]) for k in PATH_KEYS if isinstance(self.arguments.get(k), str)]
        for value in self.arguments.values():
            if isinstance(value, str) and "*** " in value:
                out += [m.strip() for m in _PATCH_FILE.findall(value)]
        cmd = self.command()
        if cmd:
            out += redirect_targets(cmd)
        return out


@dataclass(frozen=True)
class Observation:
    """One observation result: the call it answers (``source_call_id``), its text and its ``extra``."""

    call_id: str | None
    text: str
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TrajectoryStep:
    """One ATIF step as the judge reads it.

    Attributes:
        number: ``step_id`` (its 1-based position when the step has none).
        source: ``system``, ``user`` or ``agent`` (as written).
        timestamp: ISO 8601 text, or None.
        message: the step's text (content parts joined), cleaned; "" when none.
        tool_calls: its tool calls, in order.
        observations: its observation results (`Observation`).
        extra: the step's ``extra`` object (empty when none).
    """

    number: int
    source: str
    timestamp: str | None
    message: str
    tool_calls: tuple[ToolCall, ...] = ()
    observations: tuple[Observation, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def exit_codes(self, call: ToolCall | None = None) -> list[int]:
        """Exit statuses this step records (of `call` alone when given): integers under an
        `EXIT_KEYS` key in the ``extra`` of the observation results answering it, of the call
        and of the step (at any depth), else written in those results' text (`_EXIT_TEXT`).
        Empty when none is recorded (a terminal agent such as terminus records none)."""
        results = [o for o in self.observations if call is None or o.call_id in (call.call_id, None)]
        if call is not None and any(o.call_id == call.call_id for o in self.observations):
            results = [o for o in results if o.call_id == call.call_id]
        extras: list[Any] = [o.extra for o in results]
        extras += [c.extra for c in self.tool_calls if call is None or c is call] + [self.extra]
        found = [v for e in extras for v in _ints(e, EXIT_KEYS)]
        if found:
            return found
        return [int(m) for o in results for m in _EXIT_TEXT.findall(o.text)]

    def exit_status(self, call: ToolCall) -> tuple[int | None, str]:
        """The one exit status of `call`, or ``(None, why)`` when it is not clear (trial 9 F10):
        a status recorded in an ``extra`` (the tool's own, structured) wins over any text; two
        different statuses recorded are unclear; a status read from the output's text is
        unclear when the output shows different ones (``exit_code: 1`` … ``exit_code: 0``) or
        when the call's own command line prints exit-status text (``echo "Process exited with
        code 0"``: the agent's echo, not the tool's). ``(None, "")`` when none is recorded."""
        extras: list[Any] = [o.extra for o in self.observations if o.call_id in (call.call_id, None)]
        structured = {v for e in extras + [call.extra, self.extra] for v in _ints(e, EXIT_KEYS)}
        codes = set(self.exit_codes(call))
        if not codes:
            return None, ""
        if len(codes) > 1:
            where = "recorded" if structured else "in the output"
            return None, f"exit status unclear: different statuses {sorted(codes)} {where}"
        echoed = None if structured else _EXIT_TEXT.search(call.command() or "")
        if echoed:
            return None, (f"exit status unclear: the command line itself prints {echoed.group(0)!r}, so the "
                          "status in the output may be the agent's own echo")
        return codes.pop(), ""

    def errored(self) -> str | None:
        """Why this step counts as errored, or None: a failure flagged in the ``extra`` of the
        step, of a tool call or of an observation result (`ERROR_FLAGS` true — what Harbor's
        claude-code converter records —, a ``status`` of ``error``/``failed``, an ``error``
        value), Harbor's ``[error] tool reported failure`` line in an observation, or a
        recorded non-zero exit status (`exit_codes`)."""
        for where, extra in [("step", self.extra), *(("tool call", c.extra) for c in self.tool_calls),
                             *(("observation", o.extra) for o in self.observations)]:
            found = _flagged(extra)
            if found:
                return f"{where} extra: {found}"
        if any(_ERROR_TEXT in o.text for o in self.observations):
            return "an observation says the tool reported failure"
        bad = [c for c in self.exit_codes() if c != 0]
        return f"exit status {bad[0]}" if bad else None


@dataclass(frozen=True)
class Trajectory:
    """A parsed ATIF trajectory: its steps in order and the agent's name (``agent.name``)."""

    steps: tuple[TrajectoryStep, ...]
    agent: str | None = None
    schema_version: str | None = None

    def final_message_step(self) -> TrajectoryStep | None:
        """The step that holds the agent's final message: the last ``agent`` step with text."""
        return next((s for s in reversed(self.steps) if s.source == "agent" and s.message.strip()), None)

    def tool_calls(self) -> list[tuple[TrajectoryStep, ToolCall]]:
        """Every tool call with its step, in order."""
        return [(s, c) for s in self.steps for c in s.tool_calls]


class _IsTrajectory:
    """Pydantic annotation of `ParsedTrajectory`: the value is checked to be a `Trajectory`
    (``isinstance``), no more, so pydantic builds no schema of the four dataclasses (that was
    ~3–4 ms of every run's start-up, issue 38)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """An ``isinstance(value, Trajectory)`` check."""
        from pydantic_core import core_schema

        return core_schema.is_instance_schema(Trajectory)


ParsedTrajectory = Annotated[Trajectory, _IsTrajectory]
"""A `Trajectory` held by a pydantic model (`segment.delivery.Delivery.trajectory`): only the
run's own parse (`parse_trajectory`) is one; a mapping is refused, never turned into one."""


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (object, array, string, number…)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "number", float: "number"}.get(type(value), type(value).__name__)


def check_shape(doc: Any) -> list[Any]:
    """The ``steps`` list of an ATIF document.

    Raises:
        UnreadableMessage: `doc` is not an object with a ``steps`` list.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
        got = "a JSON object without a 'steps' list" if isinstance(doc, dict) else f"a JSON {json_type(doc)}"
        raise UnreadableMessage(f"is not an ATIF trajectory: {got}")
    steps: list[Any] = doc["steps"]
    return steps


ATIF_SOURCES = ("system", "user", "agent")
"""The step sources ATIF allows (Harbor's ``Step.source``, every version: exact, lower case)."""
ATIF_STEP_FIELDS = frozenset({"step_id", "timestamp", "source", "model_name", "reasoning_effort", "message",
                              "reasoning_content", "tool_calls", "observation", "metrics", "is_copied_context",
                              "llm_call_count", "extra"})
"""The fields of an ATIF step (Harbor's ``Step``, v1.0–v1.8; it forbids any other)."""


def _holds_text(value: Any, depth: int = 0) -> bool:
    """Whether parsed JSON `value` holds non-blank text: a string, or one in a list or object (`_MAX_DEPTH` deep)."""
    if isinstance(value, str):
        return bool(value.strip())
    if depth >= _MAX_DEPTH:
        return False
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_holds_text(v, depth + 1) for v in items)


def _short(text: str, cap: int = 40) -> str:
    """`text` cut to `cap` characters (an ellipsis marks a cut): a name quoted in a warning."""
    return text if len(text) <= cap else text[:cap - 1] + "…"


def _invalid_step(raw: Any, number: int) -> str | None:
    """Why step `raw` (its number `number`) is ATIF the reader cannot take as the agent's or leave out, or None:
    not an object, a ``source`` not in `ATIF_SOURCES`, or an ``agent`` step with no tool calls and no text in
    ``message`` but text under a field ATIF does not have (``content``, ``text``…). An agent step with tool
    calls and no text in ``message`` (Harbor writes ``""``) is a tool-call step: it says nothing, whatever
    else it carries."""
    if not isinstance(raw, dict):
        return f"step {number} is a JSON {json_type(raw)}, not a step object"
    source = raw.get("source")
    allowed = ", ".join(f"'{s}'" for s in ATIF_SOURCES)
    if source is None:
        return f"step {number} has no 'source': ATIF's sources are {allowed}"
    if source not in ATIF_SOURCES:
        case = " (lower case)" if isinstance(source, str) and source.casefold() in ATIF_SOURCES else ""
        shown = repr(_short(source)) if isinstance(source, str) else f"a JSON {json_type(source)}"
        return f"step {number} has source {shown}: ATIF's sources are {allowed}{case}"
    if source != "agent" or raw.get("tool_calls") or message_text(raw.get("message"), number, strict=False):
        return None  # a tool-call step's other fields are its action's (a producer's observations), not an answer
    other = [k for k, v in raw.items() if k not in ATIF_STEP_FIELDS and _holds_text(v)]
    if not other:
        return None
    names = ", ".join(f"'{_short(k)}'" for k in other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
    if raw.get("message") is None:
        return f"step {number} (source 'agent') has no 'message' (it has {names})"
    return f"step {number} (source 'agent') has an empty 'message' (and {names}, which ATIF steps do not have)"


def hidden_answer(steps: list[Any], final: int | None) -> str | None:
    """Why the agent's final message cannot be told from ATIF `steps`, or None: a step after index `final`
    (the step the final message was read from; None: no step gave one) that is not valid ATIF in a way that
    may hide the answer (`_invalid_step`: ``"source": "assistant"``, ``"content"`` in place of ``message``).
    Such a trajectory is unreadable, never "no final message" (trial 21 P-4: a reference answer scored 0).
    Steps before `final` do not hide it and are not looked at. Names the first such step (its ``step_id``,
    else its position from 1) and counts the others."""
    found = []
    for n in range((final if final is not None else -1) + 1, len(steps)):
        raw = steps[n]
        sid = raw.get("step_id") if isinstance(raw, dict) else None
        why = _invalid_step(raw, sid if isinstance(sid, int) and not isinstance(sid, bool) else n + 1)
        if why:
            found.append(why)
    if not found:
        return None
    more = f" ({len(found) - 1} more step{'s' if len(found) > 2 else ''} after it too)" if len(found) > 1 else ""
    return f"is not valid ATIF: {found[0]}{more}; the final message is the 'message' of the last step with source 'agent'"


def _same(text: str) -> str:
    return text


def message_text(message: Any, step_no: int, *, strict: bool = True, clean: Callable[[str], str] = _same) -> str | None:
    """The text of one ATIF message (None when it has none), passed through `clean`.

    Raises:
        UnreadableMessage: (`strict` only) a shape ATIF does not allow: not a string or a
            list of content parts, a part that is not an object, a text part whose text is
            not a string. Not strict, such a message reads as its JSON text.
    """
    if isinstance(message, str):
        return clean(message).strip() or None
    if not isinstance(message, list):
        if strict:
            raise UnreadableMessage(f"step {step_no}: the agent's message is a JSON {json_type(message)}, "
                                    "not a string or a list of content parts")
        return clean(json.dumps(message, ensure_ascii=False, default=str)) if message is not None else None
    parts = []
    for k, part in enumerate(message):
        if not isinstance(part, dict):
            if strict:
                raise UnreadableMessage(f"step {step_no}: content part {k} is a JSON {json_type(part)}, not an object")
            continue
        if part.get("type") in TEXT_PART_TYPES:
            if not isinstance(part.get("text"), str):
                if strict:
                    raise UnreadableMessage(f"step {step_no}: text part {k} holds a JSON {json_type(part.get('text'))}, "
                                            "not a string")
                continue
            parts.append(clean(part["text"]))
    text = "\n".join(x for x in parts if x.strip()).strip()
    return text or None


def _cleaned(value: Any, clean: Callable[[str], str]) -> Any:
    """`value` (parsed JSON) with every string, keys included, passed through `clean`."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(str(k)): _cleaned(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(v, clean) for v in value]
    return value


def parse_trajectory(doc: Any, *, clean: Callable[[str], str] = _same) -> Trajectory:
    """The `Trajectory` of a parsed ATIF document (lenient per step: see the module docstring);
    every string read goes through `clean`.

    Raises:
        UnreadableMessage: `doc` is not ATIF-shaped (`check_shape`).
    """
    steps = check_shape(doc)
    out: list[TrajectoryStep] = []
    for n, raw in enumerate(steps, start=1):
        if not isinstance(raw, dict):
            continue
        sid = raw.get("step_id")
        number = sid if isinstance(sid, int) and not isinstance(sid, bool) else n
        calls = tuple(_tool_call(_cleaned(c, clean), k) for k, c in enumerate(raw.get("tool_calls") or [])
                      if isinstance(c, dict))
        obs = raw.get("observation")
        results = obs.get("results") if isinstance(obs, dict) else None
        observations = tuple(Observation(call_id=r.get("source_call_id") if isinstance(r.get("source_call_id"), str) else None,
                                         text=message_text(r.get("content"), number, strict=False, clean=clean) or "",
                                         extra=_cleaned(r["extra"], clean) if isinstance(r.get("extra"), dict) else {})
                             for r in (results if isinstance(results, list) else []) if isinstance(r, dict))
        extra = raw.get("extra")
        out.append(TrajectoryStep(number=number, source=str(raw.get("source") or ""),
                                  timestamp=clean(raw["timestamp"]) if isinstance(raw.get("timestamp"), str) else None,
                                  message=message_text(raw.get("message"), number, strict=False, clean=clean) or "",
                                  tool_calls=calls, observations=observations,
                                  extra=_cleaned(extra, clean) if isinstance(extra, dict) else {}))
    agent = doc.get("agent")
    name = agent.get("name") if isinstance(agent, dict) else None
    version = doc.get("schema_version")
    return Trajectory(steps=tuple(out), agent=clean(name) if isinstance(name, str) else None,
                      schema_version=version if isinstance(version, str) else None)


def _tool_call(raw: dict[str, Any], k: int) -> ToolCall:
    args = raw.get("arguments")
    if isinstance(args, str):  # some converters keep the model's JSON text
        try:
            args = json.loads(args)
        except ValueError:
            pass
    if not isinstance(args, dict):
        args = {} if args is None else {"_": args}
    name = raw.get("function_name") or raw.get("name") or ""
    cid = raw.get("tool_call_id")
    extra = raw.get("extra")
    return ToolCall(call_id=cid if isinstance(cid, str) else f"#{k}", name=str(name), arguments=args,
                    extra=extra if isinstance(extra, dict) else {})


TRAJECTORY_BUDGET_CHARS = 60_000
"""Default size of the trajectory text shown to a judge (characters): about 15k tokens."""
PART_CAP_CHARS = 2_000
"""Longest message, argument list or observation shown whole; a longer one keeps its head and
tail with the number of characters cut between them."""


def _cut(text: str, cap: int) -> str:
    if len(text) <= cap:
        return text
    head, tail = cap * 2 // 3, cap // 3
    return f"{text[:head]} …[{len(text) - head - tail} characters cut]… {text[-tail:]}"


def step_text(step: TrajectoryStep, cap: int = PART_CAP_CHARS) -> str:
    """One step as the judge reads it: ``[step N] source (timestamp)``, its message, each
    tool call (name and JSON arguments) and each observation, every part capped at `cap`."""
    lines = [f"[step {step.number}] {step.source}" + (f" ({step.timestamp})" if step.timestamp else "")]
    if step.message:
        lines.append(_cut(step.message, cap))
    for call in step.tool_calls:
        args = json.dumps(dict(call.arguments), ensure_ascii=False, default=str)
        lines.append(f"tool call {call.name}: {_cut(args, cap)}")
    for obs in step.observations:
        lines.append(f"observation: {_cut(obs.text, cap)}")
    reason = step.errored()
    if reason:
        lines.append(f"(errored: {reason})")
    return "\n".join(lines)


def trajectory_text(traj: Trajectory, budget: int = TRAJECTORY_BUDGET_CHARS) -> tuple[str, list[int]]:
    """The trajectory as text within `budget` characters, and the step numbers left out.

    Each step is `step_text`. When all of them do not fit, each is first cut to a quarter of
    the budget (head and tail kept), then the first step (the task) and steps from both ends,
    alternately, are kept while they fit, and one line
    ``[steps A–B omitted: K steps]`` stands where the rest were: the judge sees the start,
    the end and how much is missing, and every shown step keeps its number.
    """
    blocks = [step_text(s) for s in traj.steps]
    if sum(len(b) + 2 for b in blocks) > budget:  # no one step (a hundred tool calls) may take the whole budget
        blocks = [_cut(b, max(400, budget // 4)) for b in blocks]
    if sum(len(b) + 2 for b in blocks) <= budget:
        return "\n\n".join(blocks), []
    keep: set[int] = set()
    used = 0
    lo, hi = 0, len(blocks) - 1
    take_low = True
    while lo <= hi:
        i = lo if take_low else hi
        if used + len(blocks[i]) + 2 > budget:
            break
        keep.add(i)
        used += len(blocks[i]) + 2
        if take_low:
            lo += 1
        else:
            hi -= 1
        take_low = not take_low
    omitted = [traj.steps[i].number for i in range(len(blocks)) if i not in keep]
    out: list[str] = []
    gap: list[int] = []
    for i, block in enumerate(blocks):
        if i in keep:
            if gap:
                out.append(f"[steps {gap[0]}–{gap[-1]} omitted: {len(gap)} steps]")
                gap = []
            out.append(block)
        else:
            gap.append(traj.steps[i].number)
    if gap:
        out.append(f"[steps {gap[0]}–{gap[-1]} omitted: {len(gap)} steps]")
    return "\n\n".join(out), omitted


__all__ = ["ATIF_SOURCES", "ATIF_STEP_FIELDS", "ERROR_FLAGS", "EXIT_KEYS", "TRAJECTORY_BUDGET_CHARS", "Observation", "ToolCall", "Trajectory", "TrajectoryStep", "UnreadableMessage", "check_shape",
           "hidden_answer", "json_type", "message_text", "parse_trajectory", "step_text", "trajectory_text"]
