"""Answer shapes of the generic mode: recognise a judge's JSON schema and fill it with verdicts.

A field's ROLE is read from its name (split on ``_`` and camelCase) and type:

- ``bool``: a boolean (``met``, ``passed``, ``is_satisfied`` ...) = hit; names with
  ``unmet``/``fail``/``violat``/``missing`` = not hit; ``not_applicable``/``cannot``/``na`` = N/A.
- ``status``: a string enum named status/verdict/result/decision/judgment/grade/label, or
  holding a known verdict value (MET/UNMET/CANNOT_ASSESS, PASS/FAIL, YES/NO, N/A ...), or
  a plain string with such a name; the value is the enum's hit / miss / N/A word.
- ``score``: a number named score/rating/points/level/mark/value/grade/percent, or one with
  both bounds or a numeric enum; the verdict's level in [0, 1] scaled to
  ``minimum``..``maximum`` (default 0..1, 0..100 for percent; a numeric enum picks the
  nearest value; integers are rounded).
- ``reason``: a string named explanation/reason(ing)/rationale/justification/comment/
  feedback/analysis/evidence/notes/critique/summary.
- ``criterion``: a string named criterion/criterion_id/id/name/title/question/requirement
  (gets the criterion's id or text), or an integer named index/number/position (1-based;
  0-based when ``minimum`` is 0).

A VERDICT OBJECT is an object with at least one bool/status/score field.
Shapes, tried in this order (the first that fits):

- ``list``: an array of verdict objects (top level, or the first such property) -> one
  item per criterion, in order; sibling fields get a summary (mean score, all met, "k of n").
- ``keyed``: an object with verdict objects as properties -> one property per criterion.
- ``single``: the schema itself is a verdict object with one verdict field, or with one
  named by a role word (``criterion_status``, ``met``, ``score`` ...) -> one criterion.
- ``keyed`` again: two or more verdict fields, none named by a role word
  (``{"clarity": {"type": "boolean"}, "accuracy": {...}}``) -> one field per criterion.
- ``unknown``: any other schema: filled by role where fields have one, else ``const``,
  first ``enum`` value, null when nullable, or the type's empty value.

``$ref`` (local ``#/...``), ``anyOf``/``oneOf`` with ``null`` and ``type`` lists are resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["SHAPES", "Criterion", "Verdict", "detect_shape", "fill"]

SHAPES = ("single", "list", "keyed", "text", "unknown")
"""Generic answer shapes; ``text`` = no schema was given (see ``generic.py``)."""

_EXPLAIN = {"explanation", "explain", "reason", "reasoning", "rationale", "justification", "comment",
            "comments", "feedback", "analysis", "evidence", "notes", "note", "critique", "thoughts", "summary"}
_STATUS = {"status", "verdict", "result", "decision", "judgment", "judgement", "outcome", "label", "grade",
           "answer", "assessment", "rating"}
_BOOL_WORDS = {"met", "hit", "pass", "passed", "passes", "satisfied", "satisfies", "correct", "present",
               "fulfilled", "meets", "achieved", "compliant", "success", "ok", "valid"}
_SCORE = {"score", "rating", "points", "point", "level", "mark", "marks", "value", "grade", "percent", "percentage"}
_ID = {"criterion", "criteria", "id", "name", "title", "question", "requirement", "item", "key", "rubric"}
_INDEX = {"index", "idx", "number", "num", "position", "no"}
_OPTION = {"option", "choice", "selected"}
_NEG = {"unmet", "fail", "failed", "failing", "violated", "violation", "violates", "missing", "absent"}
_NA = {"na", "inapplicable", "cannot", "unassessable"}
_ROLE_WORDS = _STATUS | _BOOL_WORDS | _SCORE | {"is"}

_POS_VALUES = {"met", "pass", "passed", "yes", "true", "satisfied", "correct", "present", "fulfilled", "achieved",
               "compliant", "y", "1", "meets", "good", "success", "complete", "accepted", "approved", "ok"}
_NEG_VALUES = {"unmet", "notmet", "fail", "failed", "no", "false", "unsatisfied", "notsatisfied", "incorrect",
               "absent", "notpresent", "unfulfilled", "n", "0", "missing", "doesnotmeet", "poor", "failure",
               "incomplete", "rejected", "partial", "partiallymet"}
_NA_VALUES = {"na", "notapplicable", "cannotassess", "cannotdetermine", "unknown", "inapplicable", "unclear",
              "insufficientinformation", "notassessable", "unabletodetermine", "skip", "skipped", "none"}


@dataclass(frozen=True)
class Criterion:
    """One criterion of a generic request: 1-based ``index``, ``text``, explicit ``cid`` or None."""

    index: int
    text: str
    cid: str | None = None


@dataclass(frozen=True)
class Verdict:
    """A criterion's verdict: ``hit``, ``level`` in [0, 1], ``na``, ``reason``."""

    hit: bool
    level: float
    na: bool
    reason: str


def _words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return set(re.findall(r"[a-z]+|\d+", spaced.lower()))


def _resolve(schema: Any, root: Any, depth: int = 0) -> Any:
    """Follow local ``$ref`` and single-element ``allOf`` (at most 32 hops)."""
    while isinstance(schema, dict) and depth < 32:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            target: Any = root
            for part in ref[1:].split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, dict) else None
            if target is None:
                return {}
            schema, depth = target, depth + 1
        elif isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            schema, depth = schema["allOf"][0], depth + 1
        else:
            return schema
    return schema if isinstance(schema, dict) else {}


def _nonnull(schema: Any, root: Any) -> tuple[dict[str, Any], bool]:
    """The schema without its null alternative, and whether null was allowed."""
    s = _resolve(schema, root)
    variants = s.get("anyOf") or s.get("oneOf")
    nullable = False
    if isinstance(variants, list):
        real = [_resolve(v, root) for v in variants if _resolve(v, root).get("type") != "null"]
        nullable = len(real) < len(variants)
        s = real[0] if real else {}
    t = s.get("type")
    if isinstance(t, list):
        nullable = nullable or "null" in t
        rest = [x for x in t if x != "null"]
        s = {**s, "type": rest[0] if rest else "null"}
    return s, nullable


def _enum(s: dict[str, Any]) -> list[Any]:
    return [v for v in s["enum"] if v is not None] if isinstance(s.get("enum"), list) else []


def _role(name: str, schema: Any, root: Any) -> str | None:
    s, _ = _nonnull(schema, root)
    t, words, enum = s.get("type"), _words(name), _enum(s)
    if t in ("object", "array") or "properties" in s or "items" in s:
        return None
    if t == "boolean":
        if words & _NA or "applicable" in words and words & {"not", "non"}:
            return "bool_na"
        return "bool_neg" if words & _NEG else "bool"
    if t == "string" and not enum and words & _EXPLAIN:
        return "reason"
    if enum and all(isinstance(v, str) for v in enum):
        if words & _ID and not words & _STATUS:
            return "criterion"
        known = _POS_VALUES | _NEG_VALUES | _NA_VALUES
        return "status" if words & _STATUS or any(_norm_value(v) in known for v in enum) else None
    if t in ("number", "integer") or (enum and all(isinstance(v, (int, float)) for v in enum)):
        if words & _OPTION:
            return None
        if words & _INDEX and not words & _SCORE:
            return "index"
        bounded = bool(enum) or ("minimum" in s or "exclusiveMinimum" in s) and ("maximum" in s or "exclusiveMaximum" in s)
        return "score" if words & _SCORE or bounded else None
    if t == "string" or t is None and not enum:
        if words & _STATUS:
            return "status"
        if words & _ID:
            return "criterion"
    return None


def _props(s: dict[str, Any]) -> dict[str, Any]:
    props = s.get("properties")
    return props if isinstance(props, dict) else {}


def _is_verdict_object(schema: Any, root: Any) -> bool:
    s, _ = _nonnull(schema, root)
    return any(str(_role(k, v, root)).startswith(("bool", "status", "score")) for k, v in _props(s).items())


def detect_shape(schema: dict[str, Any] | None) -> tuple[str, str | None]:
    """The shape of ``schema`` (``SHAPES``) and, for ``list``, the array's property (None at top level)."""
    if schema is None:
        return "text", None
    root, _ = _nonnull(schema, schema)
    if root.get("type") == "array" and _is_verdict_object(root.get("items"), schema):
        return "list", None
    props = _props(root)
    for key, value in props.items():
        s, _ = _nonnull(value, schema)
        if s.get("type") == "array" and _is_verdict_object(s.get("items"), schema):
            return "list", key
    verdictish = [k for k, v in props.items() if str(_role(k, v, schema)).startswith(("bool", "status", "score"))]
    nested = [k for k, v in props.items() if _is_verdict_object(v, schema)]
    if nested:
        return "keyed", None
    if len(verdictish) == 1 or any(_words(k) & _ROLE_WORDS for k in verdictish):
        return "single", None
    if verdictish:
        return "keyed", None
    return "unknown", None


def keyed_names(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """``(property name, description or name)`` of a keyed schema's per-criterion properties."""
    root, _ = _nonnull(schema, schema)
    out = []
    for key, value in _props(root).items():
        if _is_verdict_object(value, schema) or str(_role(key, value, schema)).startswith(("bool", "status", "score")):
            desc = _resolve(value, schema).get("description")
            out.append((key, desc if isinstance(desc, str) and desc.strip() else key))
    return out


def list_item_enum(schema: dict[str, Any], key: str | None) -> list[str]:
    """Values of the criterion/id enum of a list shape's items (criteria named by the schema)."""
    root, _ = _nonnull(schema, schema)
    arr = root if key is None else _nonnull(_props(root).get(key), schema)[0]
    item, _ = _nonnull(arr.get("items"), schema)
    for name, value in _props(item).items():
        if _role(name, value, schema) == "criterion":
            return [str(v) for v in _enum(_nonnull(value, schema)[0])]
    return []


def _norm_value(value: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(value).lower())


def _choose(values: list[Any], v: Verdict) -> Any:
    """The enum value saying hit / miss / N/A (first recognised one, in enum order)."""
    groups = [_NA_VALUES, _NEG_VALUES] if v.na else [_POS_VALUES] if v.hit else [_NEG_VALUES]
    for group in groups:
        for value in values:
            if _norm_value(value) in group:
                return value
    if v.hit:
        return values[0]
    rest = [x for x in values if _norm_value(x) not in _POS_VALUES | _NA_VALUES]
    return rest[0] if rest else values[-1]


def _number(value: Any, default: float) -> float:
    """``value`` when it is a finite number (not a bool), else ``default``."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")
    return value if ok else default


def _scale(level: float, s: dict[str, Any], name: str) -> float | int:
    enum = [x for x in _enum(s) if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if enum:
        lo, hi = min(enum), max(enum)
        target = lo + level * (hi - lo)
        return min(enum, key=lambda x: (abs(x - target), x))
    lo = _number(s.get("minimum", s.get("exclusiveMinimum")), 0)
    default_hi = 100 if _words(name) & {"percent", "percentage", "pct"} else 1
    hi = _number(s.get("maximum", s.get("exclusiveMaximum")), max(default_hi, lo + 1))
    value = lo + level * (hi - lo)
    return round(value) if s.get("type") == "integer" else round(value, 4)


def _value(role: str, name: str, s: dict[str, Any], c: Criterion, v: Verdict) -> Any:
    if role == "bool":
        return v.hit and not v.na
    if role == "bool_neg":
        return not v.hit and not v.na
    if role == "bool_na":
        return v.na
    if role == "status":
        enum = _enum(s)
        return _choose(enum, v) if enum else ("CANNOT_ASSESS" if v.na else "MET" if v.hit else "UNMET")
    if role == "score":
        return _scale(v.level, s, name)
    if role == "reason":
        return v.reason
    if role == "index":
        return c.index - 1 if s.get("minimum") == 0 else c.index
    enum = [str(x) for x in _enum(s)]
    wanted = c.cid if c.cid is not None and ("id" in _words(name) or not c.text) else c.text
    if enum:
        for candidate in (wanted, c.cid, c.text):
            if candidate in enum:
                return candidate
        return enum[c.index - 1] if c.index <= len(enum) else enum[0]
    return wanted


def _fill(schema: Any, name: str, c: Criterion, v: Verdict, root: Any, depth: int = 0) -> Any:
    s, nullable = _nonnull(schema, root)
    if "const" in s:
        return s["const"]
    role = _role(name, schema, root)
    if role is not None:
        return _value(role, name, s, c, v)
    t = s.get("type")
    if (t == "object" or "properties" in s) and depth < 16:
        return {k: _fill(sub, k, c, v, root, depth + 1) for k, sub in _props(s).items()}
    if nullable:
        return None
    enum = _enum(s)
    if enum:
        return enum[0]
    low = _number(s.get("minimum"), 0)
    return {"array": [], "string": "", "integer": int(low), "number": low, "boolean": False, "object": {}}.get(str(t))


def _summary(criteria: list[Criterion], verdicts: list[Verdict]) -> Verdict:
    hits = sum(v.hit and not v.na for v in verdicts)
    mean = sum(v.level for v in verdicts) / len(verdicts) if verdicts else 0.0
    return Verdict(bool(verdicts) and hits == len(verdicts), mean, False,
                   f"{hits} of {len(verdicts)} criteria met")


def default_answer(criteria: list[Criterion], verdicts: list[Verdict]) -> Any:
    """The ``text`` shape: one object for one criterion, else ``{"criteria": [...], "score"}``."""
    def one(c: Criterion, v: Verdict) -> dict[str, Any]:
        status = "CANNOT_ASSESS" if v.na else "MET" if v.hit else "UNMET"
        return {"index": c.index, "id": c.cid, "criterion": c.text, "criterion_status": status,
                "met": v.hit and not v.na, "score": v.level, "explanation": v.reason}

    if len(criteria) == 1:
        return one(criteria[0], verdicts[0])
    return {"criteria": [one(c, v) for c, v in zip(criteria, verdicts)], "score": _summary(criteria, verdicts).level}


def fill(schema: dict[str, Any] | None, shape: str, key: str | None,
         criteria: list[Criterion], verdicts: list[Verdict]) -> Any:
    """The answer document for ``shape`` (from ``detect_shape``), one verdict per criterion."""
    if schema is None:
        return default_answer(criteria, verdicts)
    root, _ = _nonnull(schema, schema)
    summary = _summary(criteria, verdicts)
    whole = Criterion(0, "", None)
    if shape == "single":
        return _fill(schema, "", criteria[0], verdicts[0], schema)
    if shape == "list":
        arr = root if key is None else _nonnull(_props(root)[key], schema)[0]
        items = [_fill(arr.get("items"), "", c, v, schema) for c, v in zip(criteria, verdicts)]
        if key is None:
            return items
        doc = {k: _fill(sub, k, whole, summary, schema) for k, sub in _props(root).items() if k != key}
        return {**doc, key: items}
    if shape == "keyed":
        by_name = {c.cid: (c, v) for c, v in zip(criteria, verdicts)}
        doc = {}
        for k, sub in _props(root).items():
            c, v = by_name.get(k, (whole, summary))
            doc[k] = _fill(sub, k, c, v, schema)
        return doc
    return _fill(schema, "", criteria[0] if criteria else whole, verdicts[0] if verdicts else summary, schema)
