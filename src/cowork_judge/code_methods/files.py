"""Generic code methods over deliverables and the final chat message.

Globs are relative to the output dir and match deliverables only (never files outside
the scored set); their rules are in `code_methods.globs`. ``source="response"`` makes a
text method read the agent's final chat message instead of files. Reads are bounded: a
text method reads at most `MAX_TEXT_BYTES` per file and `MAX_TOTAL_TEXT_BYTES` in all,
and skips binary files (`agent_text.looks_binary`: NUL bytes in the first 8 KiB and no
UTF-16/32 byte-order mark; text with a mark is decoded by it, `agent_text.decode`), naming
them in a miss's reason; deliverables past the listing
limit (`Delivery.listing_limit`, `run.collect.MAX_FILES`) are known by name and size only. Name and size methods
(`file_exists`, `file_nonempty`, `file_matches_glob`) see every deliverable the scan saw,
listed or not. When what was not read could change an answer, the method raises
`ReadLimit` naming the limit, and the runner judges the row against the deliverable. When every
deliverable a text method over the files matched was binary (nothing searched: a deck), it raises
`NoText`, and the runner warns and judges a positive row a miss, a hurdle or deduction unjudged
``no_text`` (trial 17 P-1).
"""

from __future__ import annotations

from collections.abc import Callable
import json
import re
from pathlib import Path
from typing import Any

from cowork_judge.safety import saferegex
from cowork_judge.safety.agent_text import BINARY_NOTE, comparable_text, decode, looks_binary, spaced_text
from cowork_judge.code_methods import globs, is_written
from cowork_judge.code_methods.control_chars import control_char_errors
from cowork_judge.core.error_kinds import JudgeFailure
from cowork_judge.segment.code_context import CodeContext
from cowork_judge.segment.delivery import DeliveredFile, Delivery, SkippedFile

_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
REGEX_TIMEOUT_SEC = 30.0
"""Longest a regex_match search may run (seconds), within JUDGE_CODE_TIMEOUT."""
MAX_TOTAL_TEXT_BYTES = 64 * 1024 * 1024
"""Bytes a text method reads over all matching files (our choice: 8 × `MAX_TEXT_BYTES`)."""
MAX_JSON_BYTES = 64 * 1024 * 1024
"""Largest file json_valid parses; a larger one is a miss with the reason."""
MAX_TEXT_BYTES = 8 * 1024 * 1024
"""Largest file a text method reads (bytes); bigger files are read up to this size (our
choice: a few million words, far past any report a rubric counts or searches)."""


class ReadLimit(Exception):
    """The judge's read limits hid the answer: what the method did not read (deliverables
    past the listing limit, text past `MAX_TEXT_BYTES` in a file or `MAX_TOTAL_TEXT_BYTES`
    in all, files past the scan limit) could change it. Raised only when the answer is
    not already certain from what was read.

    Not a judge failure: the limits are the deliverable's doing (a flood of files, a
    giant text), so `code_methods.code_rows` turns it into a JUDGED verdict against the
    deliverable (a miss for a positive row, a hit — the deduction applies — for a
    negative row or hurdle) whose reason names the limit. Never ``over_limit``.

    Attributes:
        limit: the limit that hid the answer, in words with its size.
    """

    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class MessageUnreadable(JudgeFailure):
    """A row needs the agent's final message, and it exists but could not be read
    (`Delivery.message_unread`: an unreadable ``trajectory.json``, an answer file that cannot be read): the
    row is unjudged ``delivery_unreadable`` with the message (``"the final message could not be read:
    trajectory.json is not valid ATIF: …"``) as its reason — never a miss for "no final message was given",
    a 0 charged to the agent for the judge's failure to read."""

    kind = "delivery_unreadable"


def listing_limit(delivery: Delivery) -> str:
    """The listing limit `delivery` was collected under, in words."""
    return f"only the first {delivery.listing_limit} deliverables are listed"


def scan_limit(delivery: Delivery) -> str:
    """The scan limit `delivery` was collected under, in words."""
    return f"only {delivery.scan_limit} directory entries are scanned"


def refuse(errors: list[str]) -> None:
    """Raise what a method's parameter check (`code_methods.VALUE_CHECKS`) refused, for a direct call of the
    method; the runner and `lint-rubric` call the same check first (``code_params``, M002), so a run never gets here.

    Raises:
        ValueError: `errors` is not empty (its lines joined by ``"; "``).
    """
    if errors:
        raise ValueError("; ".join(errors))


def range_errors(what: str, params: dict[str, Any], *, floor: int = 0) -> list[str]:
    """A ``[min_<what>, max_<what>]`` range of `params` (over the method's defaults) no value can satisfy, or a
    ``min_<what>`` below `floor` (a rubric mistake, the same on every rollout: trial 6 F24, trial 25 P-6). A
    ``min_<what>`` the row did not write is named "(the default)" (`code_methods.is_written`). Values that are not
    ints (a type the signature check reports) are left alone."""
    low, high = params.get(f"min_{what}"), params.get(f"max_{what}")
    if not isinstance(low, int) or isinstance(low, bool):
        return []
    if low < floor:
        return [f"parameter 'min_{what}' must be at least {floor}, got {low}"]
    if isinstance(high, int) and not isinstance(high, bool) and high < low:
        default = "" if is_written(params, f"min_{what}") else " (the default)"
        return [f"min_{what} {low}{default} is above max_{what} {high}: no rollout can meet this row "
                f"(write a max_{what} of at least {low}, or a lower min_{what})"]
    return []


def _check_glob(glob: Any) -> str:
    """`glob` as the output-relative pattern it names (`globs.output_relative`).

    Raises:
        TypeError: `glob` is not a string.
        ValueError: a glob that can name no deliverable (see `globs.output_relative`).
    """
    if not isinstance(glob, str):
        raise TypeError(f"glob must be a string, got {type(glob).__name__}")
    return globs.output_relative(glob)


def glob_param_errors(params: dict[str, Any]) -> list[str]:
    """What a method taking a deliverable `glob` refuses in it at run time (the type being
    right): a glob that can name no deliverable — empty, ``..``, ``output/…``, ``/app/…``
    outside ``/app/output`` (`globs.output_relative`). For `lint-rubric` (M002) and the runner,
    so a package is told before it ships what would make every run of the row ``code_error``."""
    glob = params.get("glob")
    if not isinstance(glob, str):
        return []
    try:
        globs.output_relative(glob)
    except ValueError as exc:
        return [f"parameter 'glob': {exc}"]
    return []


def count_param_errors(params: dict[str, Any]) -> list[str]:
    """What `file_matches_glob` refuses (the types being right; `params` over its defaults): a glob that can
    name no deliverable (`glob_param_errors`), a ``min_count`` below 0 or above ``max_count`` (`range_errors`)."""
    return glob_param_errors(params) + range_errors("count", params)


def word_param_errors(params: dict[str, Any]) -> list[str]:
    """What `word_count_between` refuses (the types being right; `params` over its defaults): a glob that can
    name no deliverable, a ``source`` other than ``files`` or ``response`` (trial 25 P-6: ``"final_message"``
    was a ``code_error`` on every rollout, lint silent), a ``min_words`` below 0 or above ``max_words``, and a row
    that writes neither bound (the range [0, ∞) every text meets: the row hits whenever there is text, trial 25)."""
    errors = glob_param_errors(params) + _source_errors(params) + range_errors("words", params)
    if not is_written(params, "min_words") and not is_written(params, "max_words"):
        errors.append("neither 'min_words' nor 'max_words' is given: the range is [0, ∞), which every text meets, so the row "
                      "hits whenever there is text to count (write the range the task asks for, e.g. \"min_words\": 150, "
                      "\"max_words\": 300)")
    return errors


def nonempty_param_errors(params: dict[str, Any]) -> list[str]:
    """What `file_nonempty` refuses (the types being right; `params` over its defaults): a glob that can name no
    deliverable (`glob_param_errors`), a ``min_bytes`` below 1 (an empty file has 0 bytes: ``min_bytes: 0`` accepts
    it, which contradicts "nonempty", and the row hits whenever a file matches; use `file_exists` for that)."""
    least = params.get("min_bytes")
    if isinstance(least, int) and not isinstance(least, bool) and least < 1:
        return glob_param_errors(params) + [f"parameter 'min_bytes' must be at least 1, got {least} (an empty file has 0 bytes; "
                                            "to check only that a file exists, use file_exists)"]
    return glob_param_errors(params)


def matching(ctx: CodeContext, glob: str) -> list[DeliveredFile]:
    """Listed deliverables whose output-relative path matches `glob` (rules: `globs`).

    Raises:
        TypeError: `glob` is not a string.
        ValueError: a glob that can name no deliverable (`globs.output_relative`).
    """
    body = _check_glob(glob)
    return [item for item in ctx.delivery.files if globs.matches(body, item.rel)]


def unlisted_matching(ctx: CodeContext, glob: str) -> list[SkippedFile]:
    """Deliverables past the listing limit (name and size only) whose path matches `glob`."""
    body = _check_glob(glob)
    return [item for item in ctx.delivery.unlisted if globs.matches(body, item.rel)]


def set_aside_note(ctx: CodeContext, matches: Callable[[str], bool]) -> str:
    """Why files whose path `matches` are not among the deliverables, for a row's reason, else ``""``.

    ``"; X is there but empty (0 bytes)"`` for the empty files the delivery set aside
    (``delivery.ignored``, reason ``empty``: a row's reason never calls an empty file absent, trial 3
    L1), and ``"; X is a symbolic link leaving output/ (not scored)"`` for the links it set aside
    (``delivery.stray``, reason ``symlink_escape``: trial 5 F4, where the reason said only "no deck"),
    ``"; X is a symbolic link to nothing that exists (not scored)"`` (``delivery.ignored``, reason
    ``dangling_link``: trial 7 F1), and
    ``"; X is outside output/ (not scored)"`` for the files the agent left beside output/ (``delivery.stray``,
    reason ``outside_scored_set``: trial 6 F21) or hid (``delivery.ignored``, reason ``hidden``: trial 6 F23).
    """
    notes = []
    for items, reason, says in ((ctx.delivery.ignored, "empty", ("is there but empty (0 bytes)",
                                                                  "are there but empty (0 bytes)")),
                                (ctx.delivery.stray, "symlink_escape", ("is a symbolic link leaving output/ (not scored)",
                                                                         "are symbolic links leaving output/ (not scored)")),
                                (ctx.delivery.ignored, "dangling_link", ("is a symbolic link to nothing that exists "
                                                                         "(not scored)", "are symbolic links to nothing "
                                                                         "that exists (not scored)")),
                                (ctx.delivery.stray, "outside_scored_set", ("is outside output/ (not scored)",
                                                                             "are outside output/ (not scored)")),
                                (ctx.delivery.ignored, "hidden", ("is hidden (a name starting with '.': not scored)",
                                                                   "are hidden (names starting with '.': not scored)"))):
        found = [item.rel for item in items if item.reason == reason and matches(item.rel)]
        if found:
            shown = ", ".join(found[:3]) + (f" … ({len(found)} in all)" if len(found) > 3 else "")
            notes.append(f"; {shown} {says[0] if len(found) == 1 else says[1]}")
    return "".join(notes)


def _empty(ctx: CodeContext, glob: str) -> str:
    body = _check_glob(glob)
    return set_aside_note(ctx, lambda rel: globs.matches(body, rel))


def _scan_cut(ctx: CodeContext, what: str) -> ReadLimit | None:
    """A `ReadLimit` when the scan stopped early (files may exist that were never seen)."""
    if ctx.delivery.scan_cut:
        return ReadLimit(f"{what}, but the scan of the deliverables stopped early", limit=scan_limit(ctx.delivery))
    return None


def _texts(ctx: CodeContext, glob: str | None, source: str) -> tuple[list[tuple[str, str]], tuple[str, str] | None]:
    """``(name, text)`` pairs to search, and what was left unread as ``(what, limit)``
    (None: everything was read). Files read as binary (`agent_text.looks_binary`) are left
    out; `_binary_note` names them for a miss's reason. Each text is `comparable_text` (NFC,
    invisible format characters dropped: trial 9 F12), the one place the text methods normalize.

    Raises:
        MessageUnreadable: `source` is ``"response"`` and the final message exists but could not be read."""
    if source == "response":  # a final message over the read limit was read in part (trial 6 F1)
        not_read = ctx.delivery.message_unread()
        if not_read:  # a message that exists but was not read is not "no final message"
            raise MessageUnreadable(not_read)
        cut = ctx.delivery.final_message_cut
        return [("final message", comparable_text(ctx.delivery.final_message or ""))], (cut, READ_LIMIT_NOTE) if cut else None
    if source != "files":
        raise ValueError(f"source must be 'files' or 'response', got {source!r}")
    out = []
    budget = MAX_TOTAL_TEXT_BYTES
    unread: tuple[str, str] | None = None
    hidden = unlisted_matching(ctx, glob or "*")
    if hidden:
        unread = (f"{len(hidden)} matching deliverable(s) past the listing limit were not read ({hidden[0].rel}…)",
                  listing_limit(ctx.delivery))
    elif ctx.delivery.scan_cut:
        unread = ("the scan of the deliverables stopped early", scan_limit(ctx.delivery))
    for item in matching(ctx, glob or "*"):
        if budget <= 0:
            unread = unread or (f"text past {MAX_TOTAL_TEXT_BYTES} bytes in all was not read",
                                f"{MAX_TOTAL_TEXT_BYTES} bytes are read over all files")
            break
        path = Path(item.path)
        size = path.stat().st_size
        with path.open("rb") as fh:
            data = fh.read(min(MAX_TEXT_BYTES, budget))
        if looks_binary(data):
            continue  # binary: not text (named in a miss's reason by `_binary_note`)
        if len(data) < size and unread is None:
            unread = (f"{item.rel} was read only up to {len(data)} of its {size} bytes",
                      f"{MAX_TEXT_BYTES} bytes are read per file" if len(data) >= MAX_TEXT_BYTES
                      else f"{MAX_TOTAL_TEXT_BYTES} bytes are read over all files")
        budget -= len(data)
        out.append((item.rel, comparable_text(decode(data))))
    return out, unread


READ_LIMIT_NOTE = "16 MiB are read of a final message"
"""The limit a text row over a final message cut at `cowork_judge.run.answer.MAX_MESSAGE_BYTES` names."""

TEXT_METHODS = ("text_contains", "regex_match", "word_count_between")
"""The code methods that read text from the deliverable files or, with ``"source":
"response"``, from the final message (default ``files``)."""


class NoText(Exception):
    """A text method over the deliverable files (``source: files``) searched nothing: every file its
    ``glob`` matched was read as binary (`agent_text.looks_binary`: a deck, a .docx, an image), and no read
    limit hid anything (trial 17 P-1: a placeholder hurdle over a .pptx never fired, reward 1.0, silently).

    Not a verdict by itself: `code_methods.code_rows` judges a positive row a miss with this reason (as
    before) and makes a hurdle or deduction unjudged ``no_text`` (a row that could not look cannot certify
    "no fault"); either way a delivery note names the row.

    Attributes:
        reason: the miss's reason (what was not found, where, and the files read as binary).
        binary: the matching deliverables read as binary, output-relative.
    """

    def __init__(self, reason: str, *, binary: list[str]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.binary = binary


def _nothing_searched(ctx: CodeContext, texts: list[tuple[str, str]], glob: str | None, source: str,
                      reason: str) -> NoText | None:
    """A `NoText` with `reason` when `texts` is empty over the files (``source: files``) although some
    deliverable matches `glob` (so every one was read as binary); None otherwise."""
    if source != "files" or texts:
        return None
    found = [item.rel for item in matching(ctx, glob or "*")]
    return NoText(reason, binary=found) if found else None

FINAL_MESSAGE_UNSEARCHED = "source: files, the default; the final message was not searched"


def _where(ctx: CodeContext, glob: str | None, source: str) -> str:
    """Where a text method looked, for a miss's reason (trial 6 F15): `` in the deliverable
    files[ matching GLOB]``, saying the final message was not searched when there is one, or
    `` in the final message``."""
    if source == "response":
        absent = message_absent(ctx)
        return f": {absent}" if absent else " in the final message"
    where = " in the deliverable files" + (f" matching {glob!r}" if glob else "")
    return f"{where} ({FINAL_MESSAGE_UNSEARCHED})" if ctx.delivery.final_message else where


def message_absent(ctx: CodeContext) -> str:
    """Why a text row over the final message (``source: response``) read no text, in words: ``"no final
    message was given"`` (the rollout left none: trial 18 P-12, "0 words" said nothing of why), ``"the
    final message is empty"`` or, when one exists but could not be read, `Delivery.message_unread`; ``""`` when there is a message, or when its files were passed over as binary
    (`_binary_note` says so)."""
    if ctx.delivery.final_message or ctx.delivery.final_message_binary:
        return ""
    unread = ctx.delivery.message_unread()
    if unread:
        return unread
    return "the final message is empty" if ctx.delivery.final_message_source else "no final message was given"


def _no_message(ctx: CodeContext) -> bool:
    """True when the rollout left no final message at all (no source was read: none given, or its files
    passed over as binary), as opposed to an existing but empty one (`final_message_source` set), whose
    0 words are counted. A message that exists but was not read raises in `_texts` before this is asked."""
    return not ctx.delivery.final_message and ctx.delivery.final_message_source is None


def response_rows_note(rows: list[tuple[str, str, dict[str, Any]]], ctx: CodeContext) -> str | None:
    """One warning naming the text rows (`TEXT_METHODS`) that read the final message (``source:
    response``) in a rollout that left none (trial 18 P-12: a chat answer saved where the judge does not
    read a final message, and two rows failed a good answer without a word); None when there is a message
    or no such row, or when one exists but could not be read (`Delivery.message_unread`: those rows are unjudged
    ``delivery_unreadable`` and the run already warns of the file). `rows`: ``(row id, method name, params)`` of
    the code rows."""
    if ctx.delivery.final_message or ctx.delivery.final_message_source or ctx.delivery.final_message_binary:
        return None
    if ctx.delivery.message_unread():  # not "none was given": the rows are unjudged, the run warns of the file
        return None
    ids = [rid for rid, name, params in rows if name in TEXT_METHODS and params.get("source") == "response"]
    if not ids:
        return None
    one = len(ids) == 1
    return (f"code row{'' if one else 's'} {', '.join(ids)} read{'s' if one else ''} the final message (source: "
            "response), but no final message was given (none of /logs/agent/trajectory.json, final_answer.txt, "
            f"response.txt): {'it' if one else 'they'} searched nothing")


def files_only_rows_note(rows: list[tuple[str, str, dict[str, Any]]], ctx: CodeContext, *, chat: bool = True) -> str | None:
    """One warning naming the text rows (`TEXT_METHODS`) that search the deliverable files in a
    rollout that delivered no files but a final message — they cannot match it (trial 6
    F15: the chat author's first rubric); None when there are none. `rows`: ``(row id,
    method name, params)`` of the code rows. `chat`: the task looks like a chat task
    (`task_kind.looks_like_chat_task`); only then does the warning advise ``"source": "response"``
    — in a deck or file task it says the rollout delivered no files (trial 17 P-6: the advice
    would move a deck's placeholder hurdle onto the chat message)."""
    if ctx.delivery.files or not ctx.delivery.final_message:
        return None
    ids = [rid for rid, name, params in rows if name in TEXT_METHODS and params.get("source", "files") == "files"]
    if not ids:
        return None
    one = len(ids) == 1
    said = (f"code row{'' if one else 's'} {', '.join(ids)} search{'es' if one else ''} the deliverable files (source: "
            f"files, the default), but this rollout delivered no files, only a final message: {'it' if one else 'they'} "
            "cannot match it")
    if not chat:  # a deck or file task: the files are what the rows are for
        return (f"{said}: the task asks for files (a row locates one, or its prompt names one), and the rollout "
                "delivered none for the row to search")
    return (f"{said}; give {'it' if one else 'them'} \"source\": \"response\" inside code_method_params (not on the "
            "row) to search the final message")


def _binary_note(ctx: CodeContext, glob: str | None, source: str) -> str:
    """``"; X read as binary, not text (…)"`` for the matching deliverables `_texts` skipped as
    binary, for a text method's miss (trial 8 F2: a UTF-16 report was "not found" without a
    word of why); over the final message (``source: response``), the message files passed over
    as binary when no message was read (trial 12 F4); else ``""``."""
    if source != "files":
        passed = ctx.delivery.final_message_binary if not ctx.delivery.final_message else []
        return f"; {', '.join(passed)} read as binary, not text ({BINARY_NOTE}): no final message" if passed else ""
    binary = []
    for item in matching(ctx, glob or "*"):
        try:
            with Path(item.path).open("rb") as fh:
                head = fh.read(8192)
        except OSError:
            continue
        if looks_binary(head):
            binary.append(item.rel)
    if not binary:
        return ""
    names = ", ".join(binary[:3]) + (f" and {len(binary) - 3} more" if len(binary) > 3 else "")
    return f"; {names} read as binary, not text ({BINARY_NOTE})"


def _why_no_text(ctx: CodeContext, glob: str | None, source: str) -> str:
    """Why `_texts` found no text to read, in words: no deliverable matches `glob`, or
    the ones that match were read as binary (`agent_text.looks_binary`)."""
    if source == "response":
        return "the final message is empty"
    found = matching(ctx, glob or "*")
    if not found:
        unsearched = f" ({FINAL_MESSAGE_UNSEARCHED})" if ctx.delivery.final_message else ""
        return f"no deliverable matches {glob or '*'!r}{unsearched}"
    names = ", ".join(item.rel for item in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    return f"{names} read as binary, not text ({BINARY_NOTE})"


def file_exists(ctx: CodeContext, glob: str) -> tuple[bool, str, dict[str, Any]]:
    """Hit when at least one deliverable matches `glob` (a deliverable past the listing
    limit counts: its name was seen).

    Raises:
        ReadLimit: no match, and the scan stopped before it saw every file.
    """
    hits = matching(ctx, glob)
    if hits:
        return True, f"{len(hits)} deliverable(s) match {glob!r}", {}
    hidden = unlisted_matching(ctx, glob)
    if hidden:
        return True, f"{hidden[0].rel} matches {glob!r} (a deliverable past the listing limit: seen, not listed)", {}
    cut = _scan_cut(ctx, f"no deliverable seen matches {glob!r}")
    if cut:
        raise cut
    return False, f"no deliverable matches {glob!r}{_empty(ctx, glob)}", {}


def file_nonempty(ctx: CodeContext, glob: str, min_bytes: int = 1) -> tuple[bool, str, dict[str, Any]]:
    """Hit when a deliverable matching `glob` has at least `min_bytes` bytes (sizes of
    deliverables past the listing limit count: they were seen).

    Raises:
        ReadLimit: none is big enough, and the scan stopped before it saw every file.
    """
    refuse(nonempty_param_errors({"glob": glob, "min_bytes": min_bytes}))
    # by name and path: two dirs may hold the same name
    sizes = ([(item.rel, item.size_bytes) for item in matching(ctx, glob)]
             + [(item.rel, item.size_bytes) for item in unlisted_matching(ctx, glob)])
    big = [(rel, size) for rel, size in sizes if size >= min_bytes]
    if big:
        return True, f"{big[0][0]} has {big[0][1]} bytes (≥ {min_bytes})", {}
    cut = _scan_cut(ctx, f"no deliverable seen matching {glob!r} has ≥ {min_bytes} bytes")
    if cut:
        raise cut
    return False, (f"no deliverable matching {glob!r} has ≥ {min_bytes} bytes" if sizes
                   else f"no deliverable matches {glob!r}") + _empty(ctx, glob), {}


def file_matches_glob(ctx: CodeContext, glob: str, min_count: int = 1, max_count: int | None = None) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the number of deliverables matching `glob` (listed or past the listing
    limit) is within [min_count, max_count].

    Raises:
        ReadLimit: the scan stopped early and the count seen does not settle it.
    """
    refuse(count_param_errors({"glob": glob, "min_count": min_count, "max_count": max_count}))
    n = len(matching(ctx, glob)) + len(unlisted_matching(ctx, glob))
    ok = n >= min_count and (max_count is None or n <= max_count)
    bounds = f"[{min_count}, {'∞' if max_count is None else max_count}]"
    certain = (max_count is not None and n > max_count) or (max_count is None and n >= min_count)  # n only grows
    cut = None if certain else _scan_cut(ctx, f"{n} deliverable(s) seen match {glob!r}; required {bounds}")
    if cut:
        raise cut
    return ok, f"{n} deliverable(s) match {glob!r}; required {bounds}", {}


def json_valid(ctx: CodeContext, glob: str = "*.json") -> tuple[bool, str, dict[str, Any]]:
    """Hit when every deliverable matching `glob` parses as JSON (and there is one).

    Raises:
        ReadLimit: every file read parses, but matching files past the listing limit
            (or the scan limit) were not read.
    """
    items = matching(ctx, glob)
    hidden = unlisted_matching(ctx, glob)
    for item in items:
        path = Path(item.path)
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            return False, f"{item.rel} is {size} bytes, larger than the {MAX_JSON_BYTES} bytes json_valid parses", {}
        try:
            json.loads(path.read_bytes())
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return False, f"{item.rel} is not valid JSON: {str(exc)[:200] or type(exc).__name__}", {}
    what = f"{len(items)} JSON file(s) parse" if items else f"no listed deliverable matches {glob!r}"
    if hidden:
        raise ReadLimit(f"{what}, but {len(hidden)} matching deliverable(s) past the listing limit were not read "
                        f"({hidden[0].rel}…)", limit=listing_limit(ctx.delivery))
    cut = _scan_cut(ctx, what)
    if cut:
        raise cut
    if not items:
        return False, f"no deliverable matches {glob!r}{_empty(ctx, glob)}", {}
    return True, f"{len(items)} JSON file(s) parse", {}


def text_param_errors(params: dict[str, Any]) -> list[str]:
    """Values `text_contains` would refuse at run time (the types are already right): an
    empty `text`, a control character in it (`control_char_errors`, trial 31 P-5), an unknown `source`.
    For `lint-rubric` (M002) and the runner, so a package
    is told before it ships what would make every run of the row ``code_error``."""
    errors = control_char_errors("text", params.get("text"), regex=False)
    if "text" in params and isinstance(params["text"], str) and not comparable_text(params["text"]):
        errors.append("parameter 'text' must not be empty or only invisible format characters "
                      "(an empty text is found everywhere)")
    errors += _source_errors(params) + glob_param_errors(params)
    return errors


def regex_param_errors(params: dict[str, Any]) -> list[str]:
    """Values `regex_match` would refuse at run time (the types are already right): a
    `pattern` that does not compile (Python's `re` syntax, with its `flags`), an unknown flag,
    an unknown `source`, a control character in `pattern` (a JSON ``"\\b"`` is a backspace, not a word boundary:
    `control_char_errors`, trial 31 P-5). Compiling is bounded work whatever the pattern (only a search can
    backtrack), so it runs here, in the caller's process."""
    errors = []
    value = 0
    for ch in params.get("flags") or "":
        if ch not in _FLAGS:
            errors.append(f"unknown regex flag {ch!r} in 'flags' (use i, m, s)")
        else:
            value |= _FLAGS[ch]
    pattern = params.get("pattern")
    errors += control_char_errors("pattern", pattern, regex=True)
    if isinstance(pattern, str):
        try:
            re.compile(pattern, value)
        except (re.error, RecursionError, OverflowError) as exc:
            errors.append(f"parameter 'pattern' {pattern!r:.60} is not a valid regular expression: {exc}")
    errors += _source_errors(params) + glob_param_errors(params)
    return errors


def _source_errors(params: dict[str, Any]) -> list[str]:
    source = params.get("source", "files")
    return [] if source in ("files", "response") else [f"parameter 'source' must be 'files' or 'response', got {source!r:.40}"]


def text_contains(ctx: CodeContext, text: str, glob: str | None = None, source: str = "files", case_sensitive: bool = False) -> tuple[bool, str, dict[str, Any]]:
    """Hit when `text` occurs in a matching deliverable (or the final message).

    Both sides are compared as `comparable_text`: Unicode NFC, so a composed and a decomposed "é"
    match (trial 5 F15), and with invisible format characters (U+200B, U+00AD, U+FEFF, …) dropped,
    so "oce\u200ban" is "ocean" (trial 9 F12); and with every run of Unicode whitespace (a line wrap,
    CRLF, a tab, two spaces, a no-break space) as one space (`spaced_text`, trial 14 F18), so "net zero
    by\n2050" holds "net zero by 2050" and a placeholder joined by U+00A0 still fires a hurdle.

    Raises:
        ReadLimit: not found in what was read, and some text was not read.
        NoText: not found, and every matching deliverable was read as binary (nothing searched).
    """
    refuse(text_param_errors({"text": text, "glob": glob, "source": source}))
    needle = spaced_text(comparable_text(text))
    needle = needle if case_sensitive else needle.lower()
    texts, unread = _texts(ctx, glob, source)
    for name, body in texts:
        body = spaced_text(body)
        if needle in (body if case_sensitive else body.lower()):
            return True, f"{text!r} found in {name}", {}
    if unread:
        raise ReadLimit(f"{text!r} not found in what was read, but {unread[0]}", limit=unread[1])
    return _miss(ctx, texts, glob, source, f"{text!r} not found{_where(ctx, glob, source)}{_binary_note(ctx, glob, source)}")


def _miss(ctx: CodeContext, texts: list[tuple[str, str]], glob: str | None, source: str,
          reason: str) -> tuple[bool, str, dict[str, Any]]:
    """A text method's miss with `reason`, unless nothing was searched (`_nothing_searched`).

    Raises:
        NoText: every deliverable `glob` matched was read as binary.
    """
    nothing = _nothing_searched(ctx, texts, glob, source, reason)
    if nothing is not None:
        raise nothing
    return False, reason, {}


def regex_match(ctx: CodeContext, pattern: str, glob: str | None = None, source: str = "files", flags: str = "") -> tuple[bool, str, dict[str, Any]]:
    """Hit when regular expression `pattern` matches a deliverable (or the final message).

    `flags` is a string of ``i`` (ignore case), ``m`` (multiline), ``s`` (dot matches newline).
    The search runs in a killable child process (`saferegex`): a catastrophically
    backtracking pattern raises `saferegex.RegexTimeout` instead of hanging the judge.

    Raises:
        ReadLimit: no match in what was read, and some text was not read.
        NoText: no match, and every matching deliverable was read as binary (nothing searched).
    """
    refuse(regex_param_errors({"pattern": pattern, "glob": glob, "source": source, "flags": flags}))
    value = 0
    for ch in flags:
        value |= _FLAGS[ch]
    timeout = max(0.1, min(REGEX_TIMEOUT_SEC, ctx.settings.code_timeout_sec, ctx.deadline.remaining()))
    texts, unread = _texts(ctx, glob, source)
    found = saferegex.search(pattern, texts, flags=value, timeout_sec=timeout)
    if found:
        name, _, text = found[0]
        return True, f"/{pattern}/ matches {text[:80]!r} in {name}", {}
    if unread:
        raise ReadLimit(f"/{pattern}/ does not match what was read, but {unread[0]}", limit=unread[1])
    return _miss(ctx, texts, glob, source, f"/{pattern}/ does not match{_where(ctx, glob, source)}{_binary_note(ctx, glob, source)}")


_CJK = ("\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
        "\U00020000-\U0002ebef\U00030000-\U0003134f")
_CJK_PUNCT = "\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_WORD = re.compile(f"[{_CJK}]|[^\\s{_CJK}{_CJK_PUNCT}]+")
"""A word: one CJK ideograph or kana, or a run of other characters that are
neither space nor CJK or full-width punctuation (``、``, ``。``, ``，`` separate like spaces)."""


def count_words(text: str) -> int:
    """Words in `text`: whitespace-separated tokens, except that each Chinese or Japanese
    character (CJK ideographs, kana) counts as one word and CJK punctuation separates — the
    usual convention of word limits in those languages, whose prose has no spaces (trial 5,
    F16: 210 characters of Chinese counted as "1 words"). Korean, written with spaces, counts
    by its spaces. ``"Hello 世界"`` → 3."""
    return sum(1 for _ in _WORD.finditer(text))


def word_count_between(ctx: CodeContext, min_words: int = 0, max_words: int | None = None, glob: str | None = None, source: str = "files") -> tuple[bool, str, dict[str, Any]]:
    """Hit when the total word count (`count_words`: whitespace-separated, one per CJK character)
    is within [min_words, max_words].

    Raises:
        ReadLimit: the count of what was read does not settle it, and some text was not read.
        NoText: every matching deliverable was read as binary (nothing to count).

    With ``source="response"`` and no final message at all (`_no_message`) it is a miss, ``"nothing to
    count: no final message was given"``, as over files that match nothing; an existing but empty
    message counts as 0 words (a hit when `min_words` is 0).
    """
    refuse(word_param_errors({"min_words": min_words, "max_words": max_words, "glob": glob, "source": source}))
    texts, unread = _texts(ctx, glob, source)
    if source == "response" and _no_message(ctx):  # trial 35 P-1: no message is nothing to count, not 0 words
        absent = message_absent(ctx)
        return False, f"nothing to count: {absent}" if absent else f"nothing to count in the final message{_binary_note(ctx, glob, source)}", {}
    n = sum(count_words(body) for _, body in texts)
    bounds = f"[{min_words}, {'∞' if max_words is None else max_words}]"
    certain = (max_words is not None and n > max_words) or (max_words is None and n >= min_words)  # n only grows
    if unread and not certain:
        raise ReadLimit(f"{n} word{'' if n == 1 else 's'} in what was read; required {bounds}; but {unread[0]}",
                        limit=unread[1])
    if not texts:
        return _miss(ctx, texts, glob, source, f"nothing to count: {_why_no_text(ctx, glob, source)}")
    ok = n >= min_words and (max_words is None or n <= max_words)
    absent = message_absent(ctx) if source == "response" else ""
    said = f"{n} word{'' if n == 1 else 's'}" if not absent else f"{absent} ({n} words)"
    return ok, f"{said}; required {bounds}{_binary_note(ctx, glob, source) if not ok and source == 'response' else ''}", {}
