"""The rubric as lint sees it: raw rows in file order, each with the engine's normalized row.

Lint reads the raw JSON itself (to name the row and field of every problem, and to find
all of them, not the first) and also runs the engine's own `normalize_rubric`, so that
anything the engine would refuse is an ERROR even when no finer check explains it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cowork_judge.core.rubric import (
    STRAY_ROUTING_MARKER,
    DESCRIPTION_KEYS,
    BINARY_WITH_LEVELS,
    KEY_DIFFERS,
    LIST_KEYS,
    RESERVED_TOP_KEYS,
    WEIGHT_KEYS,
    Criterion,
    NormalizedRubric,
    RubricError,
    explicit_id,
    normalize_rubric,
    not_an_object,
    row_judge_method,
)
from cowork_judge.lint.codes import Finding


@dataclass
class Row:
    """One raw row.

    Attributes:
        position: 1-based position in the file.
        raw: the row as decoded (usually a mapping; anything else is an R003 finding).
        id: the explicit id (``id`` field, else the mapping key), None when absent.
        crit: the engine's normalized row, None when the engine refuses this row.
    """

    position: int
    raw: Any
    id: str | None
    crit: Criterion | None = None
    fields: dict[str, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.fields = self.raw if isinstance(self.raw, dict) else {}

    @property
    def label(self) -> str:
        """The id, or ``#N`` for a row without one."""
        return self.id if self.id is not None else f"#{self.position}"

    @property
    def method(self) -> str:
        """The judge method the engine gives this row (`core.rubric.row_judge_method`: ``"Code"`` is
        ``code``, an unknown one follows the row's ``code_method_name`` / ``workflow_name``)."""
        return row_judge_method(self.fields)

    def get(self, key: str, default: Any = None) -> Any:
        """A raw field, `default` when absent or when the row is not a mapping."""
        return self.fields.get(key, default)

    @property
    def description(self) -> str:
        """The row text (first non-empty alias), "" when there is none."""
        if self.crit is not None:
            return self.crit.description
        return next((self.get(k) for k in DESCRIPTION_KEYS if isinstance(self.get(k), str) and self.get(k).strip()), "")


@dataclass
class RubricDoc:
    """The decoded rubric: raw rows, the engine's view, and the engine's complaints.

    Attributes:
        file: the rubric path as displayed in findings.
        raw: the decoded document.
        rows: raw rows in file order (empty when the shape holds no row list).
        normalized: the engine's result for the whole document, None when it refuses it.
        engine_error: the engine's message when it refuses the whole document.
        row_errors: position → the engine's message for a row it refuses on its own.
        partial_warnings: when the engine refuses the document, its load-time warnings on
            the rows it accepts alone (misspelt fields…), so that they are shown beside the
            refusal (issue 39), not only once it is fixed.
    """

    file: str
    raw: Any
    rows: list[Row] = field(default_factory=list)
    normalized: NormalizedRubric | None = None
    engine_error: str | None = None
    row_errors: dict[int, str] = field(default_factory=dict)
    partial_warnings: list[str] = field(default_factory=list)

    @property
    def criteria(self) -> list[Criterion]:
        """Normalized rows available (all of them when the engine accepts the document)."""
        return [r.crit for r in self.rows if r.crit is not None]

    def by_id(self) -> dict[str, Row]:
        """id → first row with that id (rows without an id are left out)."""
        out: dict[str, Row] = {}
        for r in self.rows:
            if r.id is not None:
                out.setdefault(r.id, r)
        return out


def raw_rows(raw: Any) -> list[tuple[Any, Any]] | None:
    """(mapping key or None, row) pairs in the order the engine takes them; None when the
    document is neither an object nor a list (SPEC §3 shapes: a list key first, then the
    ``id → row`` mapping without the reserved top-level keys)."""
    if isinstance(raw, list):
        return [(None, r) for r in raw]
    if isinstance(raw, Mapping):
        list_key = next((k for k in LIST_KEYS if isinstance(raw.get(k), list)), None)
        if list_key is not None:
            return [(None, r) for r in raw[list_key]]
        return [(k, v) for k, v in raw.items() if k not in RESERVED_TOP_KEYS]
    return None


def build(raw: Any, file: str) -> RubricDoc:
    """Decode `raw` into a `RubricDoc`, running the engine on the whole document and,
    when it refuses it, on each row alone (to find every bad row, not the first).

    Never raises: the engine's refusals are recorded in the result.
    """
    doc = RubricDoc(file=file, raw=raw)
    pairs = raw_rows(raw)
    if pairs is None:
        doc.engine_error = f"rubric must be a JSON object or list, got {type(raw).__name__}"
        return doc
    doc.rows = [Row(position=n, raw=row, id=explicit_id(key, row)) for n, (key, row) in enumerate(pairs, start=1)]
    try:
        doc.normalized = normalize_rubric(raw)
    except RubricError as exc:
        doc.engine_error = str(exc)
    except RecursionError:  # a row nested absurdly deep inside a field the engine copies
        doc.engine_error = "a row is nested too deeply"
    if doc.normalized is not None and len(doc.normalized.criteria) == len(doc.rows):
        for row, crit in zip(doc.rows, doc.normalized.criteria):
            row.crit = crit
        return doc
    accepted, alone_warnings = [], []
    for row, (key, _) in zip(doc.rows, pairs):  # the engine stops at the first problem; look at every row alone
        if not isinstance(row.raw, Mapping):
            doc.row_errors[row.position] = not_an_object(row.raw, key, alone=len(pairs) == 1)  # trial 21 P-2
            continue
        alone = dict(row.raw)
        alone["id"] = row.id if row.id is not None else f"#{row.position}"
        try:
            result = normalize_rubric([alone])
            row.crit = result.criteria[0]
            accepted.append(alone)
            alone_warnings += [w for w in result.warnings if w not in alone_warnings]
        except RubricError as exc:
            doc.row_errors[row.position] = _strip_row_prefix(str(exc))
        except RecursionError:
            doc.row_errors[row.position] = "nested too deeply"
    try:  # the warnings of the rows it accepts, as the engine words them for a document
        doc.partial_warnings = list(normalize_rubric(accepted).warnings) if accepted else []
    except (RubricError, RecursionError):  # rows fine alone that clash together (duplicate ids…: R003/R004 say
        doc.partial_warnings = alone_warnings  # so): each row's own warnings
    return doc


_ROW_PREFIX = re.compile(r"row (?:'[^']*'|\d+): ")


def _strip_row_prefix(message: str) -> str:
    return _ROW_PREFIX.sub("", message, count=1)


_COVERED = (
    "no 'id'; generated",  # R005
    "depends_on names no row",  # D001
    "depends on itself",  # D002
    "depends_on cycle",  # D002
    "unknown judge_method",  # M003
    "without code_method_name",  # M003
    "a hurdle with a positive weight",  # R022 (trial 6: it was said twice, R009 and R022)
    STRAY_ROUTING_MARKER,  # M004 (trial 27 P-4: the run says it too)
)
"""Engine warnings that a finer lint check reports under its own code."""
_WARNING_ROW = re.compile(r"row '([^']*)': (.*)\Z", re.DOTALL)
DECISIVE_KEYS = frozenset({"hurdle", "depends_on", *WEIGHT_KEYS, "scores", "levels", "pass_level", "judge_method",
                           "code_method_name", "code_method_params", "workflow_name"})
"""Row fields that decide the score or the route: a misspelling of one is R029 (ERROR), not R009 (trial 35 P-3: a
``"hurdel": true`` leaves no hurdle, a ``"depend_on"`` no gate). ``polarity`` is derived, ignored when written."""
_TYPO = re.compile(r"unknown field .* did you mean '(\w+)'\?\Z", re.DOTALL)
"""The engine's did-you-mean for a misspelt known field (`core.rubric._typo_warnings`), the known field captured."""


def engine_warnings(doc: RubricDoc) -> list[Finding]:
    """The engine's load-time warnings not covered by a finer check, as R009 findings
    (misspelt fields, a row without weight among weighted ones, a weight given as a
    string, derived fields written in the file…), or R024 for a mapping key that differs
    from its row's own id (trial 7 F7), or R025 for ``"type": "binary"`` beside a level table
    (trial 14 F17), or R029 for a misspelt field that decides the score or the route (`DECISIVE_KEYS`, trial 35
    P-3). An unknown warning is reported, never
    dropped. When the engine refuses the document, those of the rows it accepts alone
    (`RubricDoc.partial_warnings`): a refusal never hides a misspelt field (issue 39)."""
    out = []
    for warning in doc.normalized.warnings if doc.normalized is not None else doc.partial_warnings:
        if any(marker in warning for marker in _COVERED):
            continue
        # trial 7 F7: a mapping key unlike the row's id; trial 14 F17: "type": "binary" beside a level table
        code = "R024" if KEY_DIFFERS in warning else "R025" if BINARY_WITH_LEVELS in warning else _typo_code(warning)
        if code == "R029":
            warning += " That field decides the score or the route: the row is judged and scored as if it were not there"
        m = _WARNING_ROW.match(warning)
        if m:
            out.append(Finding(code, doc.file, m.group(2), row=m.group(1)))
        else:
            out.append(Finding(code, doc.file, warning))
    return out


def _typo_code(warning: str) -> str:
    """R029 for the engine's did-you-mean naming a field of `DECISIVE_KEYS`, else R009."""
    typo = _TYPO.match(warning)
    return "R029" if typo is not None and typo.group(1) in DECISIVE_KEYS else "R009"


__all__ = ["DECISIVE_KEYS", "Row", "RubricDoc", "build", "engine_warnings", "explicit_id", "raw_rows"]
