"""Row checks: ids, weights, levels, hurdles, and whether the rubric can score at all.

Each check reads the raw row (to name the field as written) and, where it helps, the
engine's normalized row. Pure functions of a `RubricDoc`; no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping

from cowork_judge.core import scales
from cowork_judge.core.rubric import MAX_ABS_WEIGHT, WEIGHT_KEYS
from cowork_judge.core.scales import DECIMAL_RE
from cowork_judge.core.scoring import effective_weights, unscorable_reason
from cowork_judge.lint import polarity
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import Row, RubricDoc
from cowork_judge.lint.reading import is_nonfinite
from cowork_judge.workflow._contract import GRID_21

MAX_WEIGHT_SPAN = 1e4
"""R007 threshold: largest / smallest nonzero |weight|. The fixtures span at most 47×
(a PaperBench tree flattened), HealthBench 10×; beyond 1e4 a row moves the score by less
than 0.01 %, almost always a unit slip (points vs. fractions)."""
"""A numeric string the engine reads as a weight (with a warning): the engine's own pattern."""
GRID_TOLERANCE = 1e-9
"""A level this close to a `GRID_21` step is on the grid (levels are decimals; binary floats)."""


def check_rows(doc: RubricDoc) -> list[Finding]:
    """Every row-level check (ids, engine refusals, weights, levels, hurdles), in row order."""
    out: list[Finding] = []
    out += _ids(doc)
    for row in doc.rows:
        if not isinstance(row.raw, Mapping):
            continue
        out += _weight(doc, row)
        out += _levels(doc, row)
        out += _pass_level(doc, row)
        out += _hurdle(doc, row)
    return out


def check_document(doc: RubricDoc, earlier: list[Finding]) -> list[Finding]:
    """Document-level checks: engine refusals no finer check explained (R003), weight span
    (R007) and scorability (R008).

    `earlier` are the findings already made: a row refusal is not repeated as R003 when an
    ERROR on that row already names the field the engine complains about, and a whole-
    document refusal is not repeated when any rubric ERROR was reported.
    """
    out: list[Finding] = []
    for row in doc.rows:
        message = doc.row_errors.get(row.position)
        if message is None:
            continue
        fields = {f.field for f in earlier if f.row == row.label and f.level == "ERROR" and f.field}
        if not any(f"'{name}'" in message for name in fields):
            out.append(Finding("R003", doc.file, f"the engine refuses this row: {_null_said(message, row)}", row=row.label))
    if doc.engine_error is not None and not doc.row_errors and not any(f.level == "ERROR" for f in earlier):
        out.append(Finding("R003", doc.file, f"the engine refuses the rubric: {doc.engine_error}"))
    if doc.normalized is not None:
        out += _span(doc)
        reason = unscorable_reason(doc.normalized.criteria)
        if reason is not None:  # the engine's own reason (`check_scorable` refuses the run with it)
            out.append(Finding("R008", doc.file, f"no row has a positive weight and {reason}: every run ends "
                                                 "judge:scorer_error (give the rows that earn credit a positive weight)"))
        else:
            out += _fallback(doc)
    return out


def _fallback(doc: RubricDoc) -> list[Finding]:
    """R016: no positive weight, so the engine weighs every 0-weight row 1 (SPEC §4, GDPval-style):
    the score is the mean of those rows, although weight 0 elsewhere means "no contribution"."""
    assert doc.normalized is not None
    _, fallback = effective_weights(doc.normalized.criteria)
    if not fallback:
        return []
    equal = [c.id for c in doc.normalized.criteria if c.weight == 0]
    return [Finding("R016", doc.file, f"no row has a positive weight: the equal-weight fallback weighs each of the "
                                      f"{len(equal)} row(s) of weight 0 as 1, so the score is their mean (and deductions "
                                      "count against that total); give the rows positive weights if weight 0 was meant "
                                      "as 'no contribution' (the result records it: details.weight_fallback)")]


_MISSING = re.compile(r"field '(\w+)' is missing or empty(?: \(aliases: ([^)]*)\))?")


def _null_said(message: str, row: Row) -> str:
    """The engine's "missing or empty" said as "null" when the row writes the field (or an alias) as null."""
    match = _MISSING.search(message)
    if match is None or not isinstance(row.raw, Mapping):
        return message
    names = [match.group(1), *(a.strip() for a in (match.group(2) or "").split(",") if a.strip())]
    null = next((n for n in names if n in row.raw and row.raw[n] is None), None)
    if null is None:
        return message
    return message.replace(match.group(0), f"field {null!r} is null (write the criterion's text there)")


def _ids(doc: RubricDoc) -> Iterator[Finding]:
    first: dict[str, int] = {}
    for row in doc.rows:
        if not isinstance(row.raw, Mapping):
            continue
        if row.id is None:
            said = "'id' is null" if "id" in row.raw and row.raw["id"] is None else "no 'id'"
            yield Finding("R005", doc.file, f"{said}: the engine generates one from the position (R01…), which "
                                            "changes when rows move; give every row a stable id", row=row.label)
        elif row.id in first:
            yield Finding("R004", doc.file, f"duplicate id (row #{row.position} repeats row #{first[row.id]})",
                          row=row.id, field="id")
        else:
            first[row.id] = row.position


def _weight(doc: RubricDoc, row: Row) -> Iterator[Finding]:
    """R006 on the first weight field the engine reads (``weight``, ``points``, numeric ``score``)."""
    for key in WEIGHT_KEYS:
        if key not in row.raw:
            continue
        value = row.raw[key]
        if is_nonfinite(value):
            yield Finding("R006", doc.file, f"{_constant(value)} is not a finite weight", row=row.label, field=key)
            return
        if isinstance(value, str):
            try:
                number = float(value) if DECIMAL_RE.match(value) else None
            except ValueError:  # pragma: no cover - the pattern only admits decimals
                number = None
            if number is None:
                if key == "score":
                    continue  # a label such as "high", not a weight
                yield Finding("R006", doc.file, f"must be a number, got {value!r:.60}", row=row.label, field=key)
                return
            value = number
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            if key == "score":
                continue
            yield Finding("R006", doc.file, f"must be a number, got {value!r:.60}", row=row.label, field=key)
            return
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or abs(number) > MAX_ABS_WEIGHT:
            shown = f"{number:g}" if math.isfinite(number) else f"{str(value)[:40]}"
            yield Finding("R006", doc.file, f"{shown} is out of range (|weight| ≤ {MAX_ABS_WEIGHT:g}, the "
                                            "engine's limit)", row=row.label, field=key)
        return


def _constant(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _span(doc: RubricDoc) -> Iterator[Finding]:
    weights = [(abs(c.weight), c.id) for c in doc.criteria if c.weight != 0]
    if len(weights) < 2:
        return
    largest, smallest = max(weights), min(weights)
    if largest[0] / smallest[0] > MAX_WEIGHT_SPAN:
        yield Finding("R007", doc.file, f"|weight| {smallest[0]:g} is {largest[0] / smallest[0]:.3g}× smaller than the "
                                        f"largest, {largest[0]:g} (row {largest[1]!r}; limit {MAX_WEIGHT_SPAN:g}×): this "
                                        "row cannot move the score; check the units", row=smallest[1], field="weight")


def _is_hurdle(row: Row) -> bool:
    if row.crit is not None:
        return row.crit.hurdle
    value = row.get("hurdle")
    return value is True or value == 1 or (isinstance(value, str) and value.strip().lower() == "true")


def _weight_value(row: Row) -> float:
    return row.crit.weight if row.crit is not None else 0.0


def _levels(doc: RubricDoc, row: Row) -> Iterator[Finding]:
    table, field = row.get("levels"), "levels"
    if table is None and isinstance(row.get("scores"), Mapping):
        table, field = row.get("scores"), "scores"
    workflow = row.method == "workflow"
    gradient = row.get("type") == "gradient" or (row.get("type") is None and table is not None)
    if table is None:
        if row.get("type") == "gradient":
            yield Finding("R011", doc.file, "a gradient row needs a 'levels' table (≥ 2 levels)", row=row.label, field="levels")
        return
    if not isinstance(table, Mapping):
        yield Finding("R011", doc.file, f"must be an object mapping level → text, got {type(table).__name__}",
                      row=row.label, field=field)
        return
    values: dict[float, str] = {}
    broken = len(table) < 2
    for key in table:
        try:
            value = scales.parse_level_key(key)
        except ValueError as exc:
            yield Finding("R010", doc.file, f"{exc} (keys are the fraction of the weight earned, e.g. \"0.5\")",
                          row=row.label, field=field)
            broken = True
            continue
        same = next((v for v in values if abs(v - value) <= 2 * scales.TIE_TOLERANCE), None)
        if same is not None:
            yield Finding("R011", doc.file, f"keys {values[same]!r} and {key!r} are the same level", row=row.label, field=field)
            continue
        values[value] = str(key)
        if workflow and not any(abs(value - g) <= GRID_TOLERANCE for g in GRID_21):
            nearest = scales.snap_level(value, GRID_21)
            yield Finding("R012", doc.file, f"level {key!r} is off the 21-step grid of workflows (0, 0.05 … 1); the "
                                            f"workflow can only answer {scales.format_level(nearest)} near it",
                          row=row.label, field=field)
    if len(table) < 2:
        yield Finding("R011", doc.file, f"needs at least 2 levels, has {len(table)}", row=row.label, field=field)
    hurdle, weight = _is_hurdle(row), _weight_value(row)
    if (hurdle or weight < 0) and not workflow and gradient:
        kind = "hurdle" if hurdle else "deduction"
        yield Finding("R014", doc.file, f"a {kind} row is scored by hit alone: its levels are ignored",
                      row=row.label, field=field)
    elif gradient and not broken and not hurdle:
        top, bottom = max(values), min(values)
        if top < 1:
            yield Finding("R013", doc.file, f"the top level is {values[top]}: a perfect deliverable earns only "
                                            f"{scales.format_level(top)} of the weight", row=row.label, field=field)
        if bottom > 0:
            yield Finding("R013", doc.file, f"the lowest level is {values[bottom]}: a judge's 0 snaps up to it, so "
                                            "a judged row never scores 0", row=row.label, field=field)


def _pass_level(doc: RubricDoc, row: Row) -> Iterator[Finding]:
    """R017: a ``pass_level`` the engine refuses — not a number, outside [0, 1] (the scale of the
    ``levels`` keys: "6 on a 1–10 scale" is 0.6), above the row's top level (nothing passes) or
    at/below its lowest (everything passes). On a row scored by hit the engine ignores it with a
    warning (R009)."""
    value = row.get("pass_level")
    if value is None:
        return
    if is_nonfinite(value):
        yield Finding("R017", doc.file, f"{_constant(value)} is not a level", row=row.label, field="pass_level")
        return
    try:
        bar = scales.parse_level_key(value)
    except ValueError:
        number = _number(value)
        if number is None:
            yield Finding("R017", doc.file, f"must be a number on the row's level scale, got {value!r:.60}",
                          row=row.label, field="pass_level")
        else:
            hint = f"; {scales.format_level(number)} of 10 is {scales.format_level(number / 10)}" if 1 < number <= 10 else ""
            yield Finding("R017", doc.file, f"{scales.format_level(number)} is outside [0, 1]: pass_level is a level on the "
                                            f"row's own scale, the fraction of the weight its `levels` keys give{hint}",
                          row=row.label, field="pass_level")
        return
    table = row.get("levels")
    if table is None and isinstance(row.get("scores"), Mapping):
        table = row.get("scores")
    values = []
    for key in table if isinstance(table, Mapping) else ():
        try:
            values.append(scales.parse_level_key(key))
        except ValueError:
            continue  # R010 says so
    if row.crit is not None:
        graded = row.crit.graded
    else:  # the engine refused the row (perhaps for this very field): read the raw row as it would
        weight = _number(row.get("weight"))
        graded = (row.get("type") in (None, "gradient") and not _is_hurdle(row) and not (weight is not None and weight < 0))
    if not graded or len(values) < 2:
        return  # scored by hit (the engine's warning, R009) or no usable levels (R010/R011)
    top, bottom = max(values), min(values)
    if bar > top + scales.TIE_TOLERANCE:
        yield Finding("R017", doc.file, f"{scales.format_level(bar)} is above the row's highest level "
                                        f"{scales.format_level(top)}: no level could pass", row=row.label, field="pass_level")
    elif bar <= bottom + scales.TIE_TOLERANCE:
        yield Finding("R017", doc.file, f"{scales.format_level(bar)} is at or below the row's lowest level "
                                        f"{scales.format_level(bottom)}: every level would pass", row=row.label,
                      field="pass_level")


def _number(value: object) -> float | None:
    """A finite number or decimal string as a float (huge integers: ±inf); None otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, str) and not DECIMAL_RE.match(value):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if not isinstance(value, str) and value > 0 else -math.inf


def _hurdle(doc: RubricDoc, row: Row) -> Iterator[Finding]:
    if not _is_hurdle(row):
        return
    workflow = row.method == "workflow"
    if workflow and (row.get("type") == "gradient" or row.get("levels") is not None):
        yield Finding("R023", doc.file, "a workflow row cannot be both hurdle and gradient (a hurdle is a yes/no "
                                        "fault; the workflow would grade it)", row=row.label, field="hurdle")
    weight = _weight_value(row)
    if weight > 0:
        yield Finding("R022", doc.file, f"weight {weight:g} on a hurdle enters W but never E: the best possible score "
                                        "drops below 1; hurdles take weight 0", row=row.label, field="weight")
    elif weight < 0:
        yield Finding("R022", doc.file, f"weight {weight:g} on a hurdle is never used (a hit is fatal, a miss adds "
                                        "nothing); hurdles take weight 0", row=row.label, field="weight")
    yield from _hurdle_wording(doc, row)


def _hurdle_wording(doc: RubricDoc, row: Row) -> Iterator[Finding]:
    """R020/R021 on a hurdle's description (`lint.polarity`); a negated fault ("does not refuse", "no
    factual errors") is named in the message: it describes a good deliverable, not the fault. A code row is
    skipped (trial 19 P-5): its method never reads the description, so no judge can read it backwards."""
    if row.method == "code":
        return
    text = row.description
    kind = polarity.classify(text)
    negated = polarity.negated_faults(text)
    absent = (f"; {', '.join(repr(n) for n in negated[:3])} negates a fault (describes its absence, so a good "
              "deliverable matches it)") if negated else ""
    if kind == "requirement":
        cues = ", ".join(repr(c) for c in polarity.requirement_cues(text)[:3])
        yield Finding("R020", doc.file, f"worded as a requirement ({cues}){absent} with no violation wording: hit=true "
                                        "on a hurdle means the FAULT is present and zeroes the task, so judges that "
                                        "read it as a requirement zero good work; describe the fault (\"the deck is "
                                        "missing\", \"交付物缺失\")", row=row.label, field="description")
    elif kind == "neutral":
        why = absent[2:] if negated else ("no violation wording found (not, missing, fails, claims, tells the "
                                          "reader to …, 缺失, 没有…)")
        yield Finding("R021", doc.file, f"{why}: make sure it describes the fatal fault, not the requirement (\"the "
                                        "answer refuses\", not \"the answer does not refuse\"; for bad advice name "
                                        "the action: \"the answer tells the reader to …\", \"the answer recommends taking …\")",
                      row=row.label, field="description")


def waived(row: Row) -> set[str]:
    """Codes a row waives with ``"lint_ignore": ["R021", …]`` (kept as data by the engine)."""
    value = row.get("lint_ignore")
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {v for v in value if isinstance(v, str)}
    return set()


__all__ = ["GRID_TOLERANCE", "MAX_WEIGHT_SPAN", "check_document", "check_rows", "waived"]
