"""Verdict rows: the model, the structured-output schema, and the five-step reply parser.

A verdict is what one judge said about one row. ``judged=false`` (``hit`` null) means
"not judged": scored as a miss (negative rows: see `scoring`) but counted in coverage.
A deterministic short-circuit is ``judged=true, hit=false`` with a ``[gate]`` reason
(SPEC §5). Parsing never invents a verdict for a row the reply did not cover, and never
silently picks one of two answers the reply gave: finding the JSON is `reply_scan`'s,
choosing among what was found is `parse_reply`'s.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from cowork_judge.core import reply_scan, scales
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.page_detail import PageAggregate
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampling import Sample, omit_defaults
from cowork_judge.core.scales import DECIMAL_RE

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
    pages_below: dict[str, float] | None = Field(
        None, description="Per-page rows (ppt_judge visual): page number → level of every judged page below 1.")
    aggregate: PageAggregate | None = Field(None, description="Per-page rows: how the pages were folded into the level.")
    cached: bool = Field(False, description="Taken from the verdict cache (JUDGE_VERDICT_CACHE): no model call this run.")
    samples: tuple[Sample, ...] | None = Field(
        None,
        description="Every answer the verdict was reduced from (JUDGE_SAMPLES > 1 or JUDGE_PANEL; core.sampling); None "
                    "when the row was asked once by one judge.")
    agreement: float | None = Field(
        None,
        description="How much the samples agree with the verdict, in [0, 1] (core.sampling.agreement); None with fewer "
                    "than two answered samples.")
    quote: str | None = Field(None, description="The judge's verbatim quote from the evidence text, as given.")
    grounded: bool | None = Field(
        None, description="A credited verdict's quote was found in the evidence text sent (True) or not, after one re-ask "
                          "(False); None when the row needs none (no credit claimed, or exempt: see grounding).")
    grounding: str | None = Field(None, description="Why `grounded` is what it is (an exemption says so).")

    @model_serializer(mode="wrap")
    def _sampled_only(self, handler: SerializerFunctionWrapHandler) -> Any:
        return omit_defaults(handler(self), {"samples": None, "agreement": None, "quote": None, "grounded": None,
                                             "grounding": None})

    @classmethod
    def unjudged(cls, row_id: str, error_kind: ErrorKind, reason: str, *, method: Method = "agentic", **kw: Any) -> Verdict:
        """A not-judged verdict with a specific error kind."""
        return cls(id=row_id, hit=None, judged=False, error_kind=error_kind, reason=reason, method=method, **kw)


# --------------------------------------------------------------------------- schema


def verdict_schema(criteria: Sequence[Criterion], *, quote: bool = False) -> dict[str, Any]:
    """The JSON Schema of a reply judging `criteria` (OpenAI strict-mode compatible).

    Shape: ``{"verdicts": [{"id", "reason", "hit", "level"}, ...]}``: the reason comes
    before the verdict it decides (in ``properties`` and in ``required``); with `quote` a
    ``quote`` (string or null) follows the reason (`core.grounding`). Ids are enumerated
    (an unknown id is a schema violation); rows scored by hit have ``level: null``; graded
    rows have ``level`` required from their own level choices (one ``anyOf`` branch per
    distinct level table).
    """
    groups: dict[tuple[float, ...] | None, list[str]] = {}
    for c in criteria:
        groups.setdefault(c.level_choices, []).append(c.id)
    branches = [scales.verdict_item_schema(ids, choices, quote=quote) for choices, ids in groups.items()]
    items = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return {
        "type": "object",
        "properties": {"verdicts": {"type": "array", "items": items}},
        "required": ["verdicts"],
        "additionalProperties": False,
    }


# --------------------------------------------------------------------------- levels

LEVEL_TOLERANCE = 1e-6
"""How far outside [0, 1] a level may stray and still be read (float noise such as
``1.0000001`` or ``-1e-9``). A level further out is on some other scale (7 of 10? 75 %?
a level's index?), so it is not read: the row falls back to its hit, flagged."""

_PERCENT = re.compile(r"\s*([-+]?(\d+(\.\d*)?|\.\d+))\s*%\s*\Z")


def read_level(value: Any) -> float | None:
    """Read a judge's level as the fraction of the weight earned, or None when unreadable.

    Read: a number or a plain decimal string in [0, 1] (within `LEVEL_TOLERANCE`, then
    clamped), and a percent string (``"50%"`` → 0.5, same range rule). Not read (None):
    null, booleans, NaN, ±inf, any other string, and numbers outside [0, 1] beyond the
    tolerance (``7``, ``75``, ``1.5``, ``-0.2``). A read level still has to be snapped
    to the row's legal levels (`scales.snap_level`); an unread one means the row is
    scored by its hit (SPEC §4) with ``level_fallback`` recorded.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        if m := _PERCENT.match(value):
            value = float(m.group(1)) / 100.0
        elif DECIMAL_RE.match(value):
            value = float(value)
        else:
            return None
    if not isinstance(value, (int, float)):
        return None
    out = float(value)
    if not math.isfinite(out) or out < -LEVEL_TOLERANCE or out > 1.0 + LEVEL_TOLERANCE:
        return None
    return min(1.0, max(0.0, out))


def graded_hit(row: Criterion, hit: bool | None, level: Any) -> bool | None:
    """A verdict's hit as the row's pass bar reads it.

    For a graded row with a ``pass_level`` and a readable `level` (`read_level`, snapped to
    the row's levels): ``level ≥ pass_level``. Otherwise `hit` unchanged (rows without a
    pass bar already carry ``hit = level > 0`` from every segment; an unreadable level
    leaves the row to its hit, SPEC §4).
    """
    if row.pass_level is None or row.level_choices is None:
        return hit
    read = read_level(level)
    if read is None:
        return hit
    return row.hit_at(scales.snap_level(read, row.level_choices))


def settle_hit(row: Criterion, verdict: Verdict) -> Verdict:
    """`verdict` with its hit read by the row's pass bar (`graded_hit`) when judged.

    Every judged verdict passes here before gates read it (`gates.mark_open`), so a graded
    row with a ``pass_level`` gates its dependants, and is recorded, by the bar whatever
    segment judged it (agentic, a workflow, samples, the verdict cache)."""
    if not verdict.judged or verdict.hit is None:
        return verdict
    hit = graded_hit(row, verdict.hit, verdict.level)
    return verdict if hit == verdict.hit else verdict.model_copy(update={"hit": hit})


# --------------------------------------------------------------------------- parsing

PARSE_STEPS = ("json", "fenced", "brace_scan", "row_salvage", "none")
"""Names of the five recovery steps, in order (SPEC §5)."""


def label_verdict(row: Criterion, hit: bool, level: float | None, *, method: Method) -> tuple[Verdict, str | None]:
    """A human label ``{hit, level?}`` as a verdict, read by the one rule the judge's answers are read by
    (`parse_reply`, docs/scoring.md; trial 9 F3: calibrate read ``{hit: false, level: 1}`` as a miss in
    agreement and as full credit in the human reward).

    A graded row's label with a level: the level decides, except that ``hit: false`` with a level at or
    above the row's bar (above 0 without a ``pass_level``) is a miss with no credit (level dropped), and
    ``hit: true`` below the bar is a miss earning ``weight × level``. A level on a row scored by hit
    (binary, hurdle, deduction) is ignored: the row is read by its hit. A graded row without a level
    is read by its hit (full or no credit).

    Returns:
        (the verdict, judged; None or one line saying what the label said and how it is read).
    """
    if level is None:
        return Verdict(id=row.id, hit=hit, judged=True, method=method), None
    if not row.graded:
        return (Verdict(id=row.id, hit=hit, judged=True, method=method),
                f"level {level:g} on a row scored by hit (not graded): the level is ignored, the row read as "
                f"{'hit' if hit else 'a miss'}")
    problems: list[str] = []
    verdict = _row_verdict({"hit": hit, "level": level}, row, problems, method=method)
    if not problems:
        return verdict, None
    return verdict, problems[0].split(": ", 1)[1].replace("scored as a miss (level_fallback)", "read as a miss, no credit")


def block_verdicts(rows: Sequence[Criterion], read: Mapping[str, Verdict], *, kind: ErrorKind, reason: str,
                   attempts: int, extra_attempts: Mapping[str, int], seconds: float) -> dict[str, Verdict]:
    """One verdict per row of an agentic block at the end of its attempts: the verdict read for
    it (`read`: judged, or left unjudged by the parser with its reason), else unjudged with the
    block's latest failure (`kind`, `reason`); each carries the block's `attempts` (plus the
    row's `extra_attempts`: an agent CLI's grounding re-ask runs) and the block's `seconds`."""
    out: dict[str, Verdict] = {}
    for row in rows:
        verdict = read.get(row.id) or Verdict.unjudged(row.id, kind, reason)
        out[row.id] = verdict.model_copy(update={"attempts": attempts + extra_attempts.get(row.id, 0), "seconds": seconds})
    return out


class ParseOutcome(BaseModel):
    """Result of parsing one reply for one block.

    `verdicts` has exactly one entry per block row: parsed rows are judged, rows the reply
    did not (usably, or consistently) cover are unjudged with ``error_kind='parse_error'``.
    `problems` says, in words, everything the parser had to decide (for the audit).
    """

    step: Literal["json", "fenced", "brace_scan", "row_salvage", "none"]
    verdicts: dict[str, Verdict]
    problems: list[str] = Field(default_factory=list)

    @property
    def usable(self) -> bool:
        """True when at least one row got a verdict."""
        return any(v.judged for v in self.verdicts.values())


_TRUE = {"true", "yes", "1", "hit", "met", "pass"}
_FALSE = {"false", "no", "0", "miss", "not met", "fail"}
_MISSING_REASON = "the reply held no verdict for this row"


def parse_reply(text: str | None, criteria: Sequence[Criterion], *, method: Method = "agentic") -> ParseOutcome:
    """Parse a judge reply into one verdict per row of the block, in five steps.

    1. the whole text is JSON; 2./3. every complete verdict object in the text (inside
    markdown fences = ``fenced``, else ``brace_scan``), plus the row fragments of an
    object cut off after the last complete one; 4. per-row salvage of ``{"id":…,"hit":…}``
    fragments from truncated text; 5. nothing usable ⇒ every row unjudged ``parse_error``.
    Ids not in the block are ignored; missing ids are unjudged.

    Several objects: the last one decides when it is clearly final
    (`reply_scan.final_is_clear`); otherwise a row on which the objects disagree (hit or
    level differ) is unjudged ``parse_error``, never silently the first object's answer.
    A row the last object leaves out keeps the earlier objects' answer when they agree.
    One id given twice with different answers (in one object) is unjudged ``parse_error``;
    identical repeats are harmless.

    Never raises for any `text`.
    """
    block = {c.id: c for c in criteria}
    text = text or ""
    problems: list[str] = []
    tried: list[dict[str, Verdict]] = []
    whole = reply_scan.loads(text.strip())
    rows = reply_scan.rows_of(whole) if whole is not None else None
    if rows is not None:
        got = _object_verdicts(rows, block, problems, method=method)
        if _any_judged(got):
            return _outcome("json", got, block, problems, method)
        tried.append(got)
    found = reply_scan.complete_objects(text)
    if found and (tail := reply_scan.trailing_fragments(text, found[-1].end)) is not None:
        found.append(tail)
        _note_skipped(tail.skipped, problems)
    if found:
        got, step = _resolve(text, found, block, problems, method=method)
        if _any_judged(got):
            return _outcome(step, got, block, problems, method)
        tried.append(got)
    salvaged, skipped = reply_scan.salvage_rows(text)
    _note_skipped(skipped, problems)
    if salvaged:
        got = _object_verdicts(salvaged, block, problems, method=method)
        if _any_judged(got):
            return _outcome("row_salvage", got, block, problems, method)
        tried.append(got)
    reason = "reply held no usable verdict" if text.strip() else "reply was empty"
    verdicts = {}
    for cid in block:
        specific = next((t[cid] for t in tried if cid in t), None)  # e.g. "conflicting verdicts"
        verdicts[cid] = specific or Verdict.unjudged(cid, "parse_error", reason, method=method)
    return ParseOutcome(step="none", verdicts=verdicts, problems=problems or [reason])


def _note_skipped(skipped: int, problems: list[str]) -> None:
    if skipped:
        problems.append(f"salvage read the first {reply_scan.MAX_FRAGMENTS} row fragments and skipped {skipped} more")


def _any_judged(verdicts: dict[str, Verdict]) -> bool:
    return any(v.judged for v in verdicts.values())


def _outcome(step: Any, got: dict[str, Verdict], block: dict[str, Criterion], problems: list[str], method: Method) -> ParseOutcome:
    verdicts = {cid: got.get(cid) or Verdict.unjudged(cid, "parse_error", _MISSING_REASON, method=method) for cid in block}
    return ParseOutcome(step=step, verdicts=verdicts, problems=problems)


def _answer(v: Verdict) -> tuple[bool, bool | None, float | None]:
    """What a verdict says, for comparing repeats: (readable?, hit, level). Reasons do not count."""
    return (v.judged, v.hit, v.level)


def _describe(v: Verdict) -> str:
    if not v.judged:
        return "unreadable"
    return f"hit={str(v.hit).lower()}" + (f" level={v.level:g}" if v.level is not None else "")


def _listing(items: Iterable[str], limit: int = 5) -> str:
    items = list(items)
    return ", ".join(items[:limit]) + (f", … ({len(items) - limit} more)" if len(items) > limit else "")


def _resolve(
    text: str, found: list[reply_scan.Found], block: dict[str, Criterion], problems: list[str], *, method: Method
) -> tuple[dict[str, Verdict], Any]:
    """Choose each row's verdict among several objects found in one reply (see `parse_reply`).

    Returns:
        (row id → verdict for every row some object mentions, the step name of the
        objects the judged verdicts came from).
    """
    objects = [_object_verdicts(f.rows, block, problems, method=method) for f in found]
    chosen: dict[str, Verdict] = {}
    source: dict[str, int] = {}
    clear = True
    if len(found) > 1:
        clear, why = reply_scan.final_is_clear(text, found)
        problems.append(f"the reply holds {len(found)} verdict objects; " + (
            f"the last one decides ({why})" if clear else f"none is clearly final ({why})"))
    last = len(objects) - 1
    for cid in block:
        said = [(k, obj[cid]) for k, obj in enumerate(objects) if cid in obj]
        if not said:
            continue
        answers = {_answer(v) for _, v in said}
        if clear and cid in objects[last]:
            k, verdict = last, objects[last][cid]
            if len(answers) > 1:
                earlier = _listing(f"object {n + 1}: {_describe(v)}" for n, v in said[:-1])
                problems.append(f"row {cid!r}: the final object says {_describe(verdict)} ({earlier}); the final one decides")
        elif len(answers) == 1:
            k, verdict = said[-1]
            if k != last:
                problems.append(f"row {cid!r}: the last object has no verdict for it; taken from object {k + 1}")
        else:
            listed = _listing(f"object {n + 1}: {_describe(v)}" for n, v in said)
            problems.append(f"row {cid!r}: the reply's objects disagree ({listed}) and none is clearly final; not judged")
            verdict = Verdict.unjudged(cid, "parse_error",
                                       f"conflicting verdicts in one reply ({listed}) and none is clearly the final answer",
                                       method=method)
            k = -1
        chosen[cid] = verdict
        source[cid] = k
    used = [found[k] for cid, k in source.items() if k >= 0 and chosen[cid].judged]
    if any(f.truncated for f in used):
        step = "row_salvage"
    elif used and all(f.fenced for f in used):
        step = "fenced"
    else:
        step = "brace_scan"
    return chosen, step


def _object_verdicts(rows: list[Any], block: dict[str, Criterion], problems: list[str], *, method: Method) -> dict[str, Verdict]:
    """Verdicts of one object's rows: only ids of the block, one per id (conflicting repeats
    of an id ⇒ unjudged ``parse_error``; identical repeats keep the first)."""
    said: dict[str, list[Verdict]] = {}
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
            problems.append(f"ignored a verdict for id {row_id!r:.80}, which is not in this block")
            continue
        said.setdefault(row_id, []).append(_row_verdict(row, block[row_id], problems, method=method))
    out: dict[str, Verdict] = {}
    for cid, verdicts in said.items():
        if len({_answer(v) for v in verdicts}) == 1:
            if len(verdicts) > 1:
                problems.append(f"row {cid!r}: given {len(verdicts)} times with the same answer; the first is kept")
            out[cid] = verdicts[0]
            continue
        listed = _listing(dict.fromkeys(_describe(v) for v in verdicts))
        problems.append(f"row {cid!r}: given {len(verdicts)} times with different answers ({listed}); not judged")
        out[cid] = Verdict.unjudged(cid, "parse_error", f"the reply gave this row conflicting verdicts ({listed})", method=method)
    return out


def _row_verdict(row: dict[str, Any], crit: Criterion, problems: list[str], *, method: Method) -> Verdict:
    reason = row.get("reason", row.get("rationale", row.get("explanation", "")))
    reason = reason if isinstance(reason, str) else json.dumps(reason, ensure_ascii=False)
    truncated = bool(row.get("_truncated"))
    if truncated:
        reason = (reason + " [salvaged from a truncated reply]").strip()
    hit = _coerce_hit(row.get("hit"))
    level_raw = row.get("level")
    level: float | None = None
    if crit.graded:
        if truncated and "level" not in row:
            problems.append(f"row {crit.id!r}: truncated before its level; not judged")
            return Verdict.unjudged(crit.id, "parse_error", "reply was cut off before this row's level", method=method)
        read = read_level(level_raw)
        if read is None:
            said = "no level" if level_raw is None else f"level {level_raw!r:.40} is not a fraction in [0, 1]"
            problems.append(f"row {crit.id!r}: {said}; scored by hit (level_fallback)")
        else:
            level = scales.snap_level(read, crit.level_choices or (0.0, 1.0))
            bar = f"the row's pass bar {scales.format_level(crit.pass_level)}" if crit.pass_level is not None else None
            if hit is False and crit.hit_at(level):
                # "not met" with a passing level: the answer cannot be read, like any other unreadable level; the row
                # falls back to its hit (a miss, no credit), flagged level_fallback, and never earns what neither side gave
                where = f"at or above {bar}" if bar else "above 0"
                problems.append(f"row {crit.id!r}: hit=false contradicts level {level:g} ({where}); scored as a miss "
                                "(level_fallback)")
                level = None
            else:
                if hit is True and not crit.hit_at(level):
                    said = f"level {level:g} (below {bar})" if bar else "level 0"
                    credit = "no credit" if level == 0 else f"{level:g} of the weight, a miss"
                    problems.append(f"row {crit.id!r}: hit=true contradicts {said}; the level decides ({credit})")
                hit = crit.hit_at(level)  # the level is a graded row's answer; its hit must agree for gates
    if hit is None:
        problems.append(f"row {crit.id!r}: hit {row.get('hit')!r:.40} is not a boolean")
        return Verdict.unjudged(crit.id, "parse_error", f"unreadable hit value {row.get('hit')!r:.80}", method=method)
    quote = row.get("quote")
    return Verdict(id=crit.id, hit=hit, level=level, level_raw=level_raw, reason=reason, method=method, judged=True,
                   quote=quote if isinstance(quote, str) and quote.strip() else None)


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
