"""Finding verdict JSON in a judge's free-text reply: whole text, fences, balanced objects,
truncated fragments, and which of several objects is the final answer.

Text only: this module knows brackets, JSON and a few words, not rubric rows
(`core.verdicts` turns what it finds into verdicts). Nothing here raises for any text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SCAN_BUDGET = 2_000_000
"""Characters the brace scan may inspect per reply (bounds pathological replies)."""

MAX_FRAGMENTS = 1000
"""Row fragments salvaged per reply at most (step 4). A block has a handful of rows
(JUDGE_BATCH, 4 by default); a reply with more fragments than this is noise, and each
costs a JSON parse, so the rest are skipped (and the parser says so)."""

LEAD_IN_CHARS = 200
"""How far before an object the scan looks for a final/draft marker (about two lines of
prose: "Final answer after re-checking slide 4:" fits, a paragraph-old word does not)."""

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_OPEN = re.compile(r"[{\[]")
_FRAGMENT_START = re.compile(r'\{\s*"id"\s*:')
_FIELD = {
    "id": re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)'),
    "hit": re.compile(r'"hit"\s*:\s*(true|false|"(?:true|false|yes|no)")', re.IGNORECASE),
    "level": re.compile(r'"level"\s*:\s*(-?\d+(?:\.\d+)?|null|"[^"\n]{0,32}")'),
    "reason": re.compile(r'"reason"\s*:\s*"((?:[^"\\]|\\.)*)"?'),
    "quote": re.compile(r'"quote"\s*:\s*"((?:[^"\\]|\\.)*)"'),
}
FINAL_MARKER = re.compile(r"\b(final|corrected|revised|updated|amended)\b", re.IGNORECASE)
"""Words that, just before an object, say it is the answer that counts."""
DRAFT_MARKER = re.compile(r"\b(draft|preliminary|tentative|initial|before (?:re-?)?checking)\b", re.IGNORECASE)
"""Words that, just before an object, say it is NOT the answer that counts."""
_ONLY_FENCES = re.compile(r"[\s`]*")


@dataclass(frozen=True)
class Found:
    """One verdict-bearing JSON value found in a reply.

    Attributes:
        rows: the verdict rows it holds (dicts, as written).
        start, end: its span in the reply (``end`` exclusive; a truncated value ends the reply).
        fenced: it lies inside a markdown code fence.
        truncated: salvaged row fragments from a reply cut off mid-object (step 4).
        skipped: row fragments past `MAX_FRAGMENTS` that were not read.
    """

    rows: list[Any]
    start: int
    end: int
    fenced: bool = False
    truncated: bool = False
    skipped: int = 0


def loads(text: str) -> Any:
    """`json.loads`, or None when `text` is not JSON (or nests too deeply)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def rows_of(doc: Any, *, single: bool = True) -> list[Any] | None:
    """The verdict rows of a parsed JSON value, or None when it holds none.

    Accepted: ``{"verdicts": [...]}``, a non-empty list of objects with ``id``, and (when
    `single`) one row object ``{"id", "hit"}``. A list counts only when some row carries
    an answer (``hit`` or ``level``), so a quoted rubric is not mistaken for verdicts.
    """
    rows: list[Any] | None = None
    if isinstance(doc, dict):
        if isinstance(doc.get("verdicts"), list):
            rows = doc["verdicts"]
        elif single and "id" in doc and "hit" in doc:
            rows = [doc]
    elif isinstance(doc, list) and doc and all(isinstance(r, dict) and "id" in r for r in doc):
        rows = doc
    if rows is None:
        return None
    if rows and not any(isinstance(r, dict) and ("hit" in r or "level" in r) for r in rows):
        return None
    return rows


def complete_objects(text: str) -> list[Found]:
    """Every outermost complete verdict object of `text`, in reply order (steps 2 and 3).

    A balanced ``{…}``/``[…]`` span (string literals respected) that parses as JSON and
    holds verdict rows is taken whole, and the scan resumes after it (the list inside a
    ``{"verdicts": [...]}`` is not found a second time). A span that is JSON but holds no
    verdicts is searched inside (``{"final": {"verdicts": [...]}}``). A lone row object
    counts only when it is the whole content of a code fence. The scan inspects at most
    `SCAN_BUDGET` characters, so a pathological reply cannot make parsing quadratic.
    """
    fences = [m.span(1) for m in _FENCE.finditer(text)]
    exact = {_strip_span(text, a, b) for a, b in fences}
    found: list[Found] = []
    budget = [SCAN_BUDGET]
    pos = 0
    while budget[0] > 0 and (m := _OPEN.search(text, pos)):
        start = m.start()
        end = _match(text, start, budget)
        if end is not None:
            parsed = loads(text[start : end + 1])
            rows = rows_of(parsed, single=(start, end + 1) in exact) if parsed is not None else None
            if rows:
                fenced = any(a <= start and end < b for a, b in fences)
                found.append(Found(rows=rows, start=start, end=end + 1, fenced=fenced))
                pos = end + 1
                continue
        pos = start + 1
    return found


def trailing_fragments(text: str, after: int) -> Found | None:
    """Row fragments of a reply cut off after its last complete object (step 4 on the tail).

    Returns None unless the tail holds a row fragment that never closes (evidence of a
    truncated answer); complete example rows in closing prose are not an answer.
    """
    tail = text[after:]
    starts = _fragment_starts(tail)
    ends = [*starts[1:], len(tail)]
    if not any(_match(tail[s:e], 0) is None for s, e in zip(starts[:MAX_FRAGMENTS], ends)):  # each within its own span
        return None
    rows, skipped = salvage_rows(tail)
    return Found(rows=rows, start=after + starts[0], end=len(text), truncated=True, skipped=skipped) if rows else None


def salvage_rows(text: str) -> tuple[list[dict[str, Any]], int]:
    """Recover row fragments from a truncated reply (step 4).

    A fragment is the text from one ``{"id":`` to the next. Complete fragments parse as
    JSON; an incomplete one is salvaged field by field only when ``id`` and ``hit`` were
    written completely (``level`` too, for graded rows: checked by the caller), and is
    marked ``"_truncated": True``.

    Returns:
        (rows, number of fragments past `MAX_FRAGMENTS` that were skipped).
    """
    starts = _fragment_starts(text)
    skipped = 0
    if len(starts) > MAX_FRAGMENTS:
        skipped = 1 + sum(1 for _ in _FRAGMENT_START.finditer(text, starts[-1] + 1))
    rows: list[dict[str, Any]] = []
    for n, start in enumerate(starts[:MAX_FRAGMENTS]):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        fragment = text[start:end]
        stop = _match(fragment, 0)
        if stop is not None and isinstance(obj := loads(fragment[: stop + 1]), dict):
            rows.append(obj)
            continue
        fields: dict[str, Any] = {"_truncated": True}
        for name, pattern in _FIELD.items():
            m = pattern.search(fragment)
            if m:
                if name == "quote":  # a complete string only: a quote cut off is no quote
                    fields[name] = loads('"' + m.group(1) + '"')
                else:
                    fields[name] = loads(m.group(1)) if name != "reason" else m.group(1)
        if "id" in fields and "hit" in fields:
            rows.append(fields)
    return rows, skipped


def _fragment_starts(text: str) -> list[int]:
    """Where the first ``MAX_FRAGMENTS + 1`` row fragments start (the extra one bounds the last)."""
    starts = []
    for m in _FRAGMENT_START.finditer(text):
        starts.append(m.start())
        if len(starts) > MAX_FRAGMENTS:
            break
    return starts


def final_is_clear(text: str, found: Sequence[Found]) -> tuple[bool, str]:
    """Whether the LAST of several found objects is clearly the judge's final answer.

    The rule: the last object is clearly final when (1) its lead-in (up to
    `LEAD_IN_CHARS` before it, not reaching back into the previous object) has no
    `DRAFT_MARKER`, (2) no earlier object is announced as final (a `FINAL_MARKER` without
    a draft marker in its lead-in), and (3) either its lead-in has a `FINAL_MARKER` or
    nothing but whitespace and code fences follows it (the reply ends with it; a
    truncated object always ends the reply).

    Returns:
        (clear?, a short explanation for the parse problems).
    """
    if not found:
        return False, "no object"
    leads = []
    prev_end = 0
    for f in found:
        leads.append(text[max(prev_end, f.start - LEAD_IN_CHARS) : f.start])
        prev_end = f.end
    last = leads[-1]
    if DRAFT_MARKER.search(last):
        return False, "the last object is introduced as a draft"
    for n, lead in enumerate(leads[:-1], 1):
        if FINAL_MARKER.search(lead) and not DRAFT_MARKER.search(lead):
            return False, f"object {n} of {len(found)} is introduced as final, but is not the last"
    if FINAL_MARKER.search(last):
        return True, "the last object is introduced as final"
    if _ONLY_FENCES.fullmatch(text, found[-1].end):
        return True, "the reply ends with the last object"
    return False, "text follows the last object and nothing marks it final"


def _strip_span(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _match(text: str, start: int, budget: list[int] | None = None) -> int | None:
    """Index of the bracket closing the one at `start`, or None (unbalanced, or budget spent)."""
    stack: list[str] = []
    in_str = False
    escape = False
    pairs = {"{": "}", "[": "]"}
    stop = len(text) if budget is None else min(len(text), start + max(budget[0], 0))
    for i in range(start, stop):
        if budget is not None:
            budget[0] -= 1
        ch = text[i]
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i
    return None
