"""Verdict rows: the model, the structured-output schema, and the five-step reply parser.

A verdict is what one judge said about one row. ``judged=false`` (``hit`` null) means
"not judged": scored as a miss (negative rows: see `scoring`) but counted in coverage.
A deterministic short-circuit is ``judged=true, hit=false`` with a ``[gate]`` reason
(SPEC §5). Parsing never invents a verdict for a row the reply did not cover.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cowork_judge.core import scales
from cowork_judge.core.failures import ErrorKind
from cowork_judge.core.rubric import Criterion

Method = Literal["agentic", "code", "workflow", "delivery"]
"""Who produced the verdict; ``delivery`` = decided without judging (nothing delivered)."""


class Verdict(BaseModel):
    """One row's verdict (SPEC §5)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Row id.")
    hit: bool | None = Field(description="Raw hit; None when not judged.")
    level: float | None = Field(None, description="Snapped level for graded rows, else None.")
    level_raw: Any = Field(None, description="The level exactly as the judge returned it.")
    reason: str = Field("", description="The judge's reason, or why the row was not judged.")
    method: Method = Field("agentic", description="Segment that produced the verdict.")
    judged: bool = Field(description="False when no verdict could be produced.")
    error_kind: ErrorKind | None = Field(None, description="Why the row is unjudged (None when judged).")
    gate: Literal["open", "closed"] | None = Field(None, description="Gate state when the router checked it.")
    attempts: int = Field(0, ge=0, description="Model attempts spent on the row's block.")
    seconds: float = Field(0.0, ge=0, description="Wall seconds spent on the row's block.")
    evidence: list[str] = Field(default_factory=list, description="Workspace-relative evidence references.")

    @classmethod
    def unjudged(cls, row_id: str, error_kind: ErrorKind, reason: str, *, method: Method = "agentic", **kw: Any) -> Verdict:
        """A not-judged verdict with a specific error kind."""
        return cls(id=row_id, hit=None, judged=False, error_kind=error_kind, reason=reason, method=method, **kw)


# --------------------------------------------------------------------------- schema


def verdict_schema(criteria: Sequence[Criterion]) -> dict[str, Any]:
    """The JSON Schema of a reply judging `criteria` (OpenAI strict-mode compatible).

    Shape: ``{"verdicts": [{"id", "hit", "level", "reason"}, ...]}``. Ids are enumerated
    (an unknown id is a schema violation); rows scored by hit have ``level: null``; graded
    rows have ``level`` required from their own level choices (one ``anyOf`` branch per
    distinct level table).
    """
    groups: dict[tuple[float, ...] | None, list[str]] = {}
    for c in criteria:
        groups.setdefault(c.level_choices, []).append(c.id)
    branches = [scales.verdict_item_schema(ids, choices) for choices, ids in groups.items()]
    items = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return {
        "type": "object",
        "properties": {"verdicts": {"type": "array", "items": items}},
        "required": ["verdicts"],
        "additionalProperties": False,
    }


# --------------------------------------------------------------------------- parsing

PARSE_STEPS = ("json", "fenced", "brace_scan", "row_salvage", "none")
"""Names of the five recovery steps, in order (SPEC §5)."""


class ParseOutcome(BaseModel):
    """Result of parsing one reply for one block.

    `verdicts` has exactly one entry per block row: parsed rows are judged, rows the reply
    did not (usably) cover are unjudged with ``error_kind='parse_error'``.
    """

    step: Literal["json", "fenced", "brace_scan", "row_salvage", "none"]
    verdicts: dict[str, Verdict]
    problems: list[str] = Field(default_factory=list)

    @property
    def usable(self) -> bool:
        """True when at least one row got a verdict."""
        return any(v.judged for v in self.verdicts.values())


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRUE = {"true", "yes", "1", "hit", "met", "pass"}
_FALSE = {"false", "no", "0", "miss", "not met", "fail"}


def parse_reply(text: str | None, criteria: Sequence[Criterion], *, method: Method = "agentic") -> ParseOutcome:
    """Parse a judge reply into one verdict per row of the block, in five steps.

    1. the whole text is JSON; 2. markdown fences stripped; 3. balanced-brace scan for the
    object holding ``verdicts`` (or a list of rows); 4. per-row salvage of
    ``{"id":…,"hit":…}`` fragments from truncated text; 5. nothing usable ⇒ every row
    unjudged ``parse_error``. Ids not in the block are ignored; missing ids are unjudged.

    Never raises for any `text`.
    """
    block = {c.id: c for c in criteria}
    text = text or ""
    problems: list[str] = []
    for step, rows in _candidate_rows(text):
        verdicts = _rows_to_verdicts(rows, block, problems, method=method, salvaged=step == "row_salvage")
        if any(v.judged for v in verdicts.values()):
            return ParseOutcome(step=step, verdicts=verdicts, problems=problems)
    reason = "reply held no usable verdict" if text.strip() else "reply was empty"
    return ParseOutcome(
        step="none",
        verdicts={cid: Verdict.unjudged(cid, "parse_error", reason, method=method) for cid in block},
        problems=problems or [reason],
    )


def _candidate_rows(text: str) -> Iterable[tuple[Any, list[Any]]]:
    stripped = text.strip()
    whole = _loads(stripped)
    if whole is not None and (rows := _rows_of(whole)) is not None:
        yield "json", rows
    for block in _FENCE.findall(text):
        fenced = _loads(block.strip())
        if fenced is not None and (rows := _rows_of(fenced)) is not None:
            yield "fenced", rows
    best: list[Any] | None = None
    for candidate in _balanced_spans(text):
        parsed = _loads(candidate)
        rows = _rows_of(parsed, single=False) if parsed is not None else None
        if rows and (best is None or len(rows) > len(best)):
            best = rows
    if best is not None:
        yield "brace_scan", best
    salvaged = _salvage_rows(text)
    if salvaged:
        yield "row_salvage", salvaged


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _rows_of(doc: Any, *, single: bool = True) -> list[Any] | None:
    if isinstance(doc, dict):
        rows = doc.get("verdicts")
        if isinstance(rows, list):
            return rows
        if single and "id" in doc and "hit" in doc:
            return [doc]
        return None
    if isinstance(doc, list) and doc and all(isinstance(r, dict) and "id" in r for r in doc):
        return doc
    return None


SCAN_BUDGET = 2_000_000
"""Characters the brace scan may inspect per reply (bounds pathological replies)."""


def _balanced_spans(text: str) -> Iterable[str]:
    """Yield substrings that start at ``{``/``[`` and end at the matching bracket.

    String literals are respected. The scan inspects at most `SCAN_BUDGET` characters
    in total, so a pathological reply cannot make parsing quadratic.
    """
    budget = [SCAN_BUDGET]
    for start, ch in enumerate(text):
        if ch not in "{[":
            continue
        if budget[0] <= 0:
            return
        end = _match(text, start, budget)
        if end is not None:
            yield text[start : end + 1]


def _match(text: str, start: int, budget: list[int] | None = None) -> int | None:
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


_FRAGMENT_START = re.compile(r'\{\s*"id"\s*:')
_FIELD = {
    "id": re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)'),
    "hit": re.compile(r'"hit"\s*:\s*(true|false|"(?:true|false|yes|no)")', re.IGNORECASE),
    "level": re.compile(r'"level"\s*:\s*(-?\d+(?:\.\d+)?|null|"-?\d+(?:\.\d+)?")'),
    "reason": re.compile(r'"reason"\s*:\s*"((?:[^"\\]|\\.)*)"?'),
}


def _salvage_rows(text: str) -> list[dict[str, Any]]:
    """Recover row fragments from a truncated reply (step 4).

    A fragment is the text from one ``{"id":`` to the next. Complete fragments parse as
    JSON; an incomplete one is salvaged field by field only when ``id`` and ``hit`` were
    written completely (``level`` too, for graded rows: checked by the caller).
    """
    starts = [m.start() for m in _FRAGMENT_START.finditer(text)]
    rows: list[dict[str, Any]] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        fragment = text[start:end]
        stop = _match(fragment, 0)
        if stop is not None and isinstance(obj := _loads(fragment[: stop + 1]), dict):
            rows.append(obj)
            continue
        fields: dict[str, Any] = {"_truncated": True}
        for name, pattern in _FIELD.items():
            m = pattern.search(fragment)
            if m:
                fields[name] = _loads(m.group(1)) if name != "reason" else m.group(1)
        if "id" in fields and "hit" in fields:
            rows.append(fields)
    return rows


def _rows_to_verdicts(
    rows: list[Any], block: dict[str, Criterion], problems: list[str], *, method: Method, salvaged: bool
) -> dict[str, Verdict]:
    found: dict[str, Verdict] = {}
    for row in rows:
        if not isinstance(row, dict):
            problems.append(f"ignored a non-object verdict row: {row!r:.80}")
            continue
        raw_id = row.get("id")
        row_id = str(raw_id).strip() if raw_id is not None and not isinstance(raw_id, bool) else None
        if row_id is None:
            problems.append("ignored a verdict row without an id")
            continue
        if row_id not in block:
            problems.append(f"ignored a verdict for id {row_id!r}, which is not in this block")
            continue
        if row_id in found:
            problems.append(f"ignored a second verdict for id {row_id!r}")
            continue
        found[row_id] = _row_verdict(row, block[row_id], problems, method=method, salvaged=salvaged)
    out: dict[str, Verdict] = {}
    for cid in block:
        if cid in found:
            out[cid] = found[cid]
        else:
            out[cid] = Verdict.unjudged(cid, "parse_error", "the reply held no verdict for this row", method=method)
    return out


def _row_verdict(row: dict[str, Any], crit: Criterion, problems: list[str], *, method: Method, salvaged: bool) -> Verdict:
    reason = row.get("reason", row.get("rationale", row.get("explanation", "")))
    reason = reason if isinstance(reason, str) else json.dumps(reason, ensure_ascii=False)
    truncated = bool(row.get("_truncated"))
    if truncated:
        reason = (reason + " [salvaged from a truncated reply]").strip()
    hit = _coerce_hit(row.get("hit"))
    level_raw = row.get("level")
    level: float | None = None
    if crit.graded:
        level = _coerce_level(level_raw)
        if level_raw is not None and level is None:
            problems.append(f"row {crit.id!r}: level {level_raw!r} is not a finite number; scored by hit")
        if level is not None:
            level = scales.snap_level(level, crit.level_choices or (0.0, 1.0))
        if truncated and "level" not in row:
            problems.append(f"row {crit.id!r}: truncated before its level; not judged")
            return Verdict.unjudged(crit.id, "parse_error", "reply was cut off before this row's level", method=method)
        if level is not None:
            if hit is not None and hit != (level > 0):
                problems.append(f"row {crit.id!r}: hit={hit} contradicts level {level:g}; the level decides (hit = level > 0)")
            hit = level > 0  # the level is a graded row's answer; its hit must agree for gates
    if hit is None:
        problems.append(f"row {crit.id!r}: hit {row.get('hit')!r} is not a boolean")
        return Verdict.unjudged(crit.id, "parse_error", f"unreadable hit value {row.get('hit')!r}", method=method)
    return Verdict(id=crit.id, hit=hit, level=level, level_raw=level_raw, reason=reason, method=method, judged=True)


def _coerce_hit(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _coerce_level(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, (int, float)):
        return None
    out = float(value)
    if not math.isfinite(out):
        return None
    return out  # any finite level snaps to the nearest legal one (SPEC §4): 1.5 → 1, −0.2 → 0
