"""Generic code methods over deliverables and the final chat message.

Globs are relative to the output dir and match deliverables only (never files outside
the scored set); their rules are in `code_methods.globs`. ``source="response"`` makes a
text method read the agent's final chat message instead of files. Reads are bounded: a
text method reads at most `MAX_TEXT_BYTES` per file and `MAX_TOTAL_TEXT_BYTES` in all,
and skips binary files (NUL bytes in the first 8 KiB). When what was not read could change
an answer, the method raises `ReadLimit` (row unjudged ``over_limit``), never a silent miss.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cowork_judge import saferegex
from cowork_judge.code_methods import globs
from cowork_judge.core.failures import JudgeFailure
from cowork_judge.run.context import RunContext

_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
REGEX_TIMEOUT_SEC = 30.0
"""Longest a regex_match search may run (seconds), within JUDGE_CODE_TIMEOUT."""
MAX_TOTAL_TEXT_BYTES = 64 * 1024 * 1024
"""Bytes a text method reads over all matching files."""
MAX_JSON_BYTES = 64 * 1024 * 1024
"""Largest file json_valid parses; a larger one is a miss with the reason."""
MAX_TEXT_BYTES = 8 * 1024 * 1024
"""Largest file a text method reads (bytes); bigger files are read up to this size."""


class ReadLimit(JudgeFailure):
    """What the method did not read (a deliverables listing cut at `delivery.MAX_FILES`,
    a file past `MAX_TEXT_BYTES`, files past `MAX_TOTAL_TEXT_BYTES`) could change its
    answer: the row becomes unjudged ``over_limit`` instead of a silent miss. Methods
    raise it only when the answer is not already certain from what they read."""

    kind = "over_limit"


def check_range(what: str, low: int, high: int | None) -> None:
    """Reject a range no value can satisfy (a rubric mistake, not a miss).

    Raises:
        ValueError: `low` < 0, or `high` below `low`.
    """
    if low < 0 or (high is not None and high < low):
        raise ValueError(f"min_{what}={low}, max_{what}={high} is an empty range")



def listing_cut(ctx: RunContext) -> bool:
    """True when the deliverables listing was cut at `delivery.MAX_FILES`."""
    return any(s.reason == "over_limit" for s in ctx.delivery.ignored)


def _uncertain(what: str) -> ReadLimit:
    return ReadLimit(f"{what}; more deliverables exist than the judge lists (see delivery 'over_limit')")


def matching(ctx: RunContext, glob: str) -> list[Path]:
    """Deliverables whose output-relative path matches `glob` (rules: `globs`).

    Raises:
        TypeError: `glob` is not a string.
        ValueError: an empty glob or one with ``..``.
    """
    if not isinstance(glob, str):
        raise TypeError(f"glob must be a string, got {type(glob).__name__}")
    return [Path(item.path) for item in ctx.delivery.files if globs.matches(glob, item.rel)]


def _texts(ctx: RunContext, glob: str | None, source: str) -> tuple[list[tuple[str, str]], str | None]:
    """``(name, text)`` pairs to search, and what was left unread (None: everything was read)."""
    if source == "response":
        return [("final message", ctx.delivery.final_message or "")], None
    if source != "files":
        raise ValueError(f"source must be 'files' or 'response', got {source!r}")
    out = []
    budget = MAX_TOTAL_TEXT_BYTES
    unread = "the deliverables listing was cut" if listing_cut(ctx) else None
    for path in matching(ctx, glob or "*"):
        if budget <= 0:
            unread = f"text past {MAX_TOTAL_TEXT_BYTES} bytes in all was not read"
            break
        size = path.stat().st_size
        with path.open("rb") as fh:
            data = fh.read(min(MAX_TEXT_BYTES, budget))
        if b"\x00" in data[:8192]:
            continue  # binary: not text
        if len(data) < size:
            unread = f"{path.name} was read only up to {len(data)} of its {size} bytes"
        budget -= len(data)
        out.append((path.name, data.decode("utf-8", errors="replace")))
    return out, unread


def file_exists(ctx: RunContext, glob: str) -> tuple[bool, str, dict[str, Any]]:
    """Hit when at least one deliverable matches `glob`."""
    hits = matching(ctx, glob)
    if not hits and listing_cut(ctx):
        raise _uncertain(f"no listed deliverable matches {glob!r}")
    return bool(hits), (f"{len(hits)} deliverable(s) match {glob!r}" if hits else f"no deliverable matches {glob!r}"), {}


def file_nonempty(ctx: RunContext, glob: str, min_bytes: int = 1) -> tuple[bool, str, dict[str, Any]]:
    """Hit when a deliverable matching `glob` has at least `min_bytes` bytes."""
    sizes = {p: p.stat().st_size for p in matching(ctx, glob)}  # by path: two dirs may hold the same name
    big = [p for p, s in sizes.items() if s >= min_bytes]
    if big:
        return True, f"{big[0].name} has {sizes[big[0]]} bytes (≥ {min_bytes})", {}
    if listing_cut(ctx):
        raise _uncertain(f"no listed deliverable matching {glob!r} has ≥ {min_bytes} bytes")
    return False, (f"no deliverable matching {glob!r} has ≥ {min_bytes} bytes" if sizes else f"no deliverable matches {glob!r}"), {}


def file_matches_glob(ctx: RunContext, glob: str, min_count: int = 1, max_count: int | None = None) -> tuple[bool, str, dict[str, Any]]:
    """Hit when the number of deliverables matching `glob` is within [min_count, max_count]."""
    check_range("count", min_count, max_count)
    n = len(matching(ctx, glob))
    ok = n >= min_count and (max_count is None or n <= max_count)
    bounds = f"[{min_count}, {'∞' if max_count is None else max_count}]"
    certain = (max_count is not None and n > max_count) or (max_count is None and n >= min_count)  # n only grows
    if listing_cut(ctx) and not certain:
        raise _uncertain(f"{n} listed deliverable(s) match {glob!r}; required {bounds}")
    return ok, f"{n} deliverable(s) match {glob!r}; required {bounds}", {}


def json_valid(ctx: RunContext, glob: str = "*.json") -> tuple[bool, str, dict[str, Any]]:
    """Hit when every deliverable matching `glob` parses as JSON (and there is one)."""
    paths = matching(ctx, glob)
    if not paths:
        if listing_cut(ctx):
            raise _uncertain(f"no listed deliverable matches {glob!r}")
        return False, f"no deliverable matches {glob!r}", {}
    for p in paths:
        size = p.stat().st_size
        if size > MAX_JSON_BYTES:
            return False, f"{p.name} is {size} bytes, larger than the {MAX_JSON_BYTES} bytes json_valid parses", {}
        try:
            json.loads(p.read_bytes())
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return False, f"{p.name} is not valid JSON: {str(exc)[:200] or type(exc).__name__}", {}
    if listing_cut(ctx):
        raise _uncertain(f"{len(paths)} listed JSON file(s) parse")
    return True, f"{len(paths)} JSON file(s) parse", {}


def text_contains(ctx: RunContext, text: str, glob: str | None = None, source: str = "files", case_sensitive: bool = False) -> tuple[bool, str, dict[str, Any]]:
    """Hit when `text` occurs in a matching deliverable (or the final message)."""
    if not text:
        raise ValueError("text must not be empty (an empty text is found everywhere)")
    needle = text if case_sensitive else text.lower()
    texts, unread = _texts(ctx, glob, source)
    for name, body in texts:
        if needle in (body if case_sensitive else body.lower()):
            return True, f"{text!r} found in {name}", {}
    if unread:
        raise ReadLimit(f"{text!r} not found in what was read, but {unread}")
    return False, f"{text!r} not found", {}


def regex_match(ctx: RunContext, pattern: str, glob: str | None = None, source: str = "files", flags: str = "") -> tuple[bool, str, dict[str, Any]]:
    """Hit when regular expression `pattern` matches a deliverable (or the final message).

    `flags` is a string of ``i`` (ignore case), ``m`` (multiline), ``s`` (dot matches newline).
    The search runs in a killable child process (`saferegex`): a catastrophically
    backtracking pattern raises `saferegex.RegexTimeout` instead of hanging the judge.
    """
    value = 0
    for ch in flags:
        if ch not in _FLAGS:
            raise ValueError(f"unknown regex flag {ch!r}; use i, m, s")
        value |= _FLAGS[ch]
    timeout = max(0.1, min(REGEX_TIMEOUT_SEC, ctx.config.code_timeout_sec, ctx.deadline.remaining()))
    texts, unread = _texts(ctx, glob, source)
    found = saferegex.search(pattern, texts, flags=value, timeout_sec=timeout)
    if found:
        name, _, text = found[0]
        return True, f"/{pattern}/ matches {text[:80]!r} in {name}", {}
    if unread:
        raise ReadLimit(f"/{pattern}/ does not match what was read, but {unread}")
    return False, f"/{pattern}/ does not match", {}


def word_count_between(ctx: RunContext, min_words: int = 0, max_words: int | None = None, glob: str | None = None, source: str = "files") -> tuple[bool, str, dict[str, Any]]:
    """Hit when the total word count (whitespace-separated) is within [min_words, max_words]."""
    check_range("words", min_words, max_words)
    texts, unread = _texts(ctx, glob, source)
    n = sum(len(body.split()) for _, body in texts)
    bounds = f"[{min_words}, {'∞' if max_words is None else max_words}]"
    certain = (max_words is not None and n > max_words) or (max_words is None and n >= min_words)  # n only grows
    if unread and not certain:
        raise ReadLimit(f"{n} words in what was read; required {bounds}; but {unread}")
    if not texts:
        return False, "nothing to count", {}
    ok = n >= min_words and (max_words is None or n <= max_words)
    return ok, f"{n} words; required {bounds}", {}
