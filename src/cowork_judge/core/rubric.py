"""Rubric documents: the criterion model and the normalization of every accepted shape.

`normalize_rubric` is a pure function: raw JSON (already decoded) → validated
`Criterion` models + warnings. Bad input raises `RubricError` naming the row and field;
nothing here touches the disk except `load_rubric`. Derived fields (`polarity`,
`hit_means`, `level_choices`) are computed here and never read from the file (SPEC §3).
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import os
import stat
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from cowork_judge.core import scales
from cowork_judge.core.json_errors import json_error_said
from cowork_judge.core.scales import DECIMAL_RE

JudgeMethod = Literal["code", "workflow", "agentic"]
JUDGE_METHODS: tuple[str, ...] = ("code", "workflow", "agentic")

DESCRIPTION_KEYS = ("description", "criterion", "criteria", "requirement", "question", "title")
"""Accepted spellings of the row text, in order of preference (SPEC §3)."""
WEIGHT_KEYS = ("weight", "points", "score")
"""Accepted spellings of the weight; `points`/`score` only where numeric (SPEC §3)."""
LIST_KEYS = ("rubrics", "criteria", "items")
"""Top-level keys holding the row list, looked for before the id → row mapping shape."""
RESERVED_TOP_KEYS = frozenset({"workflow_config", "schema", "version", "metadata"})
"""Top-level keys that never become rows in the id → row mapping shape."""
NO_ROWS = "rubric has no rows"
"""The engine's refusal of a rubric without a row (`normalize_rubric`, `rows_problem`)."""
DECK_CODE_METHODS: frozenset[str] = frozenset({"locate_deck", "check_deck_openable", "check_pptx_openable",
                                               "page_count_between"})
"""Code methods that find or open a slide deck: a row routed to one says the rubric judges a deck (its agentic rows
view the deck's pages: `cowork-judge init` chooses the extras by it, and the run's advice reads it)."""
DERIVED_KEYS = frozenset({"polarity", "hit_means", "level_choices"})
SCORE_ONLY_FIELDS = ("weight", "depends_on")
"""Fields of `Criterion.for_judge` that shape the score but not the verdict (`Criterion.as_asked` leaves them out)."""
"""Keys the engine derives; a value for them in the file is ignored with a warning."""
ROUTING_FIELDS = (
    "judge_method",
    "code_method_name",
    "code_method_params",
    "workflow_name",
    "workflow_group",
    "na_policy",
    "page_mean_p",
    "decided_by",
)
"""Fields that choose HOW a row is judged; they must never influence the score (SPEC §3). In the
file they are flat keys of the row; a `Criterion` keeps `judge_method` and puts the rest in
its segment's typed part (`Criterion.code`, `Criterion.workflow`; `Criterion.routing` gives
them back under these names)."""

PART_FIELDS: Mapping[str, Mapping[str, str]] = {
    "code": {"method_name": "code_method_name", "params": "code_method_params"},
    "workflow": {"name": "workflow_name", "group": "workflow_group", "na_policy": "na_policy",
                 "page_mean_p": "page_mean_p", "decided_by": "decided_by"},
}
"""A row's segment part → its field → the field's name in the rubric file and in a result
document's ``criteria[]`` (where a row stays flat, as it was written)."""

_KNOWN_KEYS = frozenset(
    {"id", "hurdle", "depends_on", "type", "levels", "scores", "pass_level", "tag", "criterion_type", "criterion_necessity"}
    | set(DESCRIPTION_KEYS)
    | set(WEIGHT_KEYS)
    | set(ROUTING_FIELDS)
    | DERIVED_KEYS
)

KNOWN_ROW_KEYS = _KNOWN_KEYS
"""Every field a row may carry that the judge reads (the rest is `Criterion.extra`, carried as data)."""


class RubricError(ValueError):
    """The rubric cannot be used: it names the row (by id or position) and the field."""


class CodeRoute(BaseModel):
    """The code segment's part of a row (SPEC §8): which registered method judges it, with
    what parameters. Read by the code segment and `lint`; never by scoring."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method_name: str | None = Field(None, description="code_method_name: registered code method for `code` rows.")
    params: dict[str, Any] = Field(default_factory=dict, description="code_method_params: keyword params of the code method.")


class WorkflowRoute(BaseModel):
    """The workflow segment's part of a row (SPEC §9): which workflow judges it, and the
    per-row settings that workflow reads (`ppt_judge` reads all four; the `stub` workflow
    `na_policy`). Read by the workflows, the router (`name`) and `lint`; never by scoring."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = Field(None, description="workflow_name: workflow package for `workflow` rows.")
    group: str | None = Field(None, description="workflow_group: call group inside the workflow.")
    na_policy: Literal["pass", "fail", "unjudged"] | None = Field(None, description="na_policy: all pages N/A ⇒ …")
    page_mean_p: float | None = Field(None, description="page_mean_p: power-mean exponent across pages.")
    decided_by: dict[str, Any] | None = Field(
        None, description="decided_by: measured findings decide the row, e.g. {\"checks\": [\"text_overflow\"]} (ppt_judge).")


class Criterion(BaseModel):
    """One normalized rubric row (criterion).

    Weights are plain numbers: > 0 adds, < 0 deducts, 0 contributes nothing unless the
    whole rubric has no positive weight (equal-weight fallback, see `scoring`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Unique, stable key of the row.")
    description: str = Field(description="What is judged.")
    weight: float = Field(0.0, description="Finite weight: >0 adds, <0 deducts, 0 = no contribution.")
    hurdle: bool = Field(False, description="Fatal row: hit ⇒ the whole task scores 0.")
    depends_on: tuple[str, ...] = Field((), description="Ids this row is gated on: a positive dependency must be hit, "
                                        "a hurdle or deduction must be judged and not hit (its fault absent).")
    type: Literal["binary", "gradient"] = Field("binary", description="Scale of the row.")
    levels: dict[str, str] | None = Field(None, description="Gradient level table: fraction of weight → text.")
    pass_level: float | None = Field(
        None, description="Graded rows: the pass bar on the row's own level scale (a fraction of the weight, like the "
                          "`levels` keys): a level ≥ pass_level is hit (met), a lower one a miss that still earns "
                          "weight × level. None: any level above 0 is hit.")
    tag: str | None = Field(None, description="Free label carried through for statistics.")
    criterion_type: str | None = Field(None, description="Carried through for statistics.")
    criterion_necessity: str | None = Field(None, description="Carried through for statistics.")
    judge_method: JudgeMethod = Field("agentic", description="Which segment judges the row.")
    code: CodeRoute = Field(default_factory=lambda: CodeRoute(), description="The code segment's part (`code` rows).")
    workflow: WorkflowRoute = Field(default_factory=lambda: WorkflowRoute(),
                                    description="The workflow segment's part (`workflow` rows).")
    extra: dict[str, Any] = Field(default_factory=dict, description="Unknown keys, carried through untouched.")
    polarity: Literal["positive", "negative"] = Field(description="Derived: negative when weight < 0 or hurdle.")
    hit_means: str = Field(description="Derived: what hit=true means for this row.")
    level_choices: tuple[float, ...] | None = Field(
        None, description="Derived: sorted legal levels of a graded row; None for rows scored by hit."
    )

    @property
    def graded(self) -> bool:
        """True when the row earns ``weight × level`` (gradient, not hurdle, weight ≥ 0)."""
        return self.level_choices is not None

    def gate_met(self, hit: bool | None) -> bool:
        """Whether this row, as a dependency, lets its dependants' gates open, given its raw hit
        (None: not judged). A positive row is met when hit; a negative row (a hurdle or a
        deduction, whose hit is its fault) when judged and NOT hit: "credit B only if A is
        satisfied" means, for a fault, that the fault is absent (trial 14 F3). Unjudged is never met."""
        if hit is None:
            return False
        return hit is (self.polarity == "positive")

    def hit_at(self, level: float) -> bool:
        """Whether a graded row's (snapped) `level` counts as hit: ``level ≥ pass_level``
        (within `scales.TIE_TOLERANCE`), or ``level > 0`` when the row sets no pass bar."""
        return scales.passes(level, self.pass_level)

    def routing(self) -> dict[str, Any]:
        """The row's routing fields under their rubric-file names (`ROUTING_FIELDS`, in order)."""
        out: dict[str, Any] = {"judge_method": self.judge_method}
        for part, names in PART_FIELDS.items():
            value = getattr(self, part)
            out.update({flat: getattr(value, name) for name, flat in names.items()})
        return out

    @model_validator(mode="before")
    @classmethod
    def _nest_parts(cls, data: Any) -> Any:
        """Read a flat row (a result document's ``criteria[]``, as written since 0.1.0):
        the routing fields go into their segment's part (`PART_FIELDS`)."""
        if not isinstance(data, Mapping) or not any(flat in data for names in PART_FIELDS.values() for flat in names.values()):
            return data
        out = dict(data)
        for part, names in PART_FIELDS.items():
            given = {name: out.pop(flat) for name, flat in names.items() if flat in out}
            if given:
                out[part] = given
        return out

    @model_serializer(mode="wrap")
    def _flat_parts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Dump the row flat, its parts' fields under their file names in the parts' place (the
        ``criteria[]`` of a result document is unchanged by the typed parts); ``pass_level``
        only when the row sets one (documents of rubrics without it keep their shape)."""
        data: dict[str, Any] = handler(self)
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key == "pass_level" and value is None:
                continue
            names = PART_FIELDS.get(key)
            if names is not None and isinstance(value, dict):
                out.update({flat: value[name] for name, flat in names.items() if name in value})
            else:
                out[key] = value
        return out

    def for_judge(self) -> dict[str, Any]:
        """The row as a judge sees it: content and derived fields, no routing fields."""
        row: dict[str, Any] = {
            "id": self.id,
            "description": self.description,
            "weight": self.weight,
            "hurdle": self.hurdle,
            "type": self.type,
            "polarity": self.polarity,
            "hit_means": self.hit_means,
        }
        if self.levels is not None and self.graded:
            row["levels"] = dict(self.levels)
            row["level_choices"] = list(self.level_choices or ())
        if self.depends_on:
            row["depends_on"] = list(self.depends_on)
        if self.tag is not None:
            row["tag"] = self.tag
        return row

    def as_asked(self) -> dict[str, Any]:
        """The row as the judge reads it, less the fields that shape only the score
        (`SCORE_ONLY_FIELDS`): the question a verdict answers. Two rows with equal
        ``as_asked()`` ask the same question (the verdict cache keys on it, and ``rescore``
        reuses a stored verdict only for it); the sign of the weight is in ``polarity``."""
        return {k: v for k, v in self.for_judge().items() if k not in SCORE_ONLY_FIELDS}

    def question_changes(self, earlier: Criterion) -> list[str]:
        """What makes this row ask another question than `earlier` (the same row as it was
        judged): one phrase per changed part (``description``, ``polarity positive → negative``,
        ``hurdle False → True``, ``type binary → gradient``, ``levels``, ``tag``); empty when
        `as_asked` is equal (a weight's magnitude or ``depends_on`` alone is a pure re-score)."""
        now, then = self.as_asked(), earlier.as_asked()
        out = []
        for key in ("id", "description", "polarity", "hurdle", "type"):
            if now.get(key) != then.get(key):
                out.append(key if key in ("id", "description") else f"{key} {then.get(key)} → {now.get(key)}")
        if (now.get("levels"), now.get("level_choices")) != (then.get("levels"), then.get("level_choices")) \
                and now.get("type") == then.get("type"):
            out.append("levels")
        if now.get("tag") != then.get("tag"):
            out.append("tag")
        if not out and now != then:  # a derived field (hit_means) alone
            out.append("what a hit means")
        return out

    def judging_changes(self, earlier: Criterion) -> list[str]:
        """What makes this row judged otherwise than `earlier` (the same row as it was judged), beyond
        `question_changes`: one name per changed routing field (`ROUTING_FIELDS`: ``judge_method``,
        ``code_method_name``, ``code_method_params``, ``workflow_name``, ``page_mean_p`` …) and per changed
        unknown key a workflow may read (`extra`, e.g. answer_match's ``answer_match`` with its reference);
        the verdict cache keys on the same fields (`run.verdict_cache.row_fields`). Empty when neither changed."""
        now, then = self.routing(), earlier.routing()
        out = [key for key in ROUTING_FIELDS if now.get(key) != then.get(key)]
        out += [key for key in sorted(set(self.extra) | set(earlier.extra)) if self.extra.get(key) != earlier.extra.get(key)]
        return out


class NormalizedRubric(BaseModel):
    """The outcome of normalization: rows in file order, warnings, workflow config."""

    model_config = ConfigDict(frozen=True)

    criteria: tuple[Criterion, ...]
    warnings: tuple[str, ...] = ()
    workflow_config: dict[str, Any] = Field(default_factory=dict)

    def by_id(self) -> dict[str, Criterion]:
        """Map id → criterion."""
        return {c.id: c for c in self.criteria}


MAX_RUBRIC_BYTES = 64 * 1024 * 1024
"""Largest rubric.json read (bytes); real ones are KBs, PaperBench's largest flattened is ~2 MB."""


def load_rubric(path: Path) -> NormalizedRubric:
    """Read and normalize a `rubric.json` file.

    Raises:
        RubricError: the file is missing (or a symbolic link to nothing here: named with its target), not a regular file, larger than
            `MAX_RUBRIC_BYTES`, not UTF-8 JSON, or fails normalization.
    """
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block the read forever
            raise RubricError(f"rubric file {path} is not a regular file")
        if path.stat().st_size > MAX_RUBRIC_BYTES:
            raise RubricError(f"rubric file {path} is larger than {MAX_RUBRIC_BYTES} bytes")
        text = path.read_text(encoding="utf-8-sig")  # a UTF-8 byte-order mark (Windows editors) is accepted
    except FileNotFoundError:
        if path.is_symlink():  # copied as a link from a host folder: it dangles here
            raise RubricError(f"rubric file {path} is a symbolic link to {os.readlink(path)}, which does not exist "
                              "here (put a copy of the file in tests/)") from None
        raise RubricError(f"rubric file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricError(f"rubric file {path} cannot be read: {exc}") from None
    repeats = RepeatedKeys()
    try:
        raw = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=repeats)
    except RecursionError:
        raise RubricError(f"rubric file {path} is nested too deeply to be a rubric") from None
    except ValueError as exc:  # includes integers too long to convert
        raise RubricError(f"rubric file {path} is not valid JSON: {json_error_said(exc, text)}") from None
    conflicts = repeats.conflicts()
    if conflicts:  # trial 14 F4: `"weight": 4, …, "weight": 0` was read as 0, silently
        key, first, last = conflicts[0]
        more = f" (and {len(conflicts) - 1} more key(s))" if len(conflicts) > 1 else ""
        raise RubricError(f"rubric file {path} gives the key {key!r} twice in one object with different values "
                          f"({_short(first)}, then {_short(last)}){more}: a JSON reader keeps only the last, so which "
                          "one the author meant is unknown; give each key once (lint-rubric R018)")
    return normalize_rubric(raw)


class RepeatedKeys:
    """A ``json.loads`` ``object_pairs_hook`` that builds each object as ``json`` does (the last of a repeated
    key wins) and records every repeat as ``(key, earlier value, later value)`` in `found`."""

    def __init__(self) -> None:
        self.found: list[tuple[str, Any, Any]] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                self.found.append((key, out[key], value))
            out[key] = value
        return out

    def conflicts(self) -> list[tuple[str, Any, Any]]:
        """The repeats whose values differ (a repeat of the same value changes nothing)."""
        return [(key, a, b) for key, a, b in self.found if not _same(a, b)]


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``1`` and ``1.0`` are one number, ``true`` is not ``1``, NaN is never equal."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "…"


def _reject_constant(name: str) -> float:
    raise ValueError(f"non-finite number {name} is not allowed")


def normalize_rubric(raw: Any) -> NormalizedRubric:
    """Normalize any accepted rubric shape into validated criteria.

    Accepted shapes: ``{"rubrics": [...]}``, ``{"criteria": [...]}``, ``{"items": [...]}``,
    a bare list, or a mapping ``id → row`` (used only when no list key exists; reserved
    top-level keys such as ``workflow_config`` never become rows). ClawGym rows with a
    ``scores`` level table become gradient rows.

    Returns:
        `NormalizedRubric` with rows in input order.

    Raises:
        RubricError: naming the row and field, for anything that cannot be judged safely
            (no rows, missing description, non-finite weight, bad levels, duplicate ids…).
    """
    warnings: list[str] = []
    workflow_config: dict[str, Any] = {}
    rows: list[tuple[Any, Any]]  # (id from mapping key or None, raw row)
    if isinstance(raw, list):
        rows = [(None, r) for r in raw]
    elif isinstance(raw, Mapping):
        wc = raw.get("workflow_config")
        if wc is not None:
            if not isinstance(wc, Mapping):
                raise RubricError("top-level 'workflow_config' must be an object")
            for name, settings in wc.items():
                if not isinstance(settings, Mapping):
                    raise RubricError(f"workflow_config.{name} must be an object of settings, got {settings!r:.60}")
            workflow_config = {str(k): dict(v) for k, v in wc.items()}
        list_keys = [k for k in LIST_KEYS if isinstance(raw.get(k), list)]
        if len(list_keys) > 1:  # trial 5, F12: the second list's rows were never judged
            raise RubricError(f"rows under both {list_keys[0]!r} and {list_keys[1]!r}: only one row list is read; "
                              "merge them into one")
        if list_keys:
            rows = [(None, r) for r in raw[list_keys[0]]]
            unread = [str(k) for k in raw if k not in RESERVED_TOP_KEYS and k not in list_keys]
            if unread:
                warnings.append(f"top-level key(s) {', '.join(map(repr, unread[:5]))} not read (rows are under "
                                f"{list_keys[0]!r}; also read: {', '.join(sorted(RESERVED_TOP_KEYS))})")
        else:
            rows = [(k, v) for k, v in raw.items() if k not in RESERVED_TOP_KEYS]
    else:
        raise RubricError(f"rubric must be a JSON object or list, got {type(raw).__name__}")
    if not rows:
        raise RubricError(NO_ROWS)

    criteria: list[Criterion] = []
    taken: set[str] = set()
    explicit_ids = {i for i in (explicit_id(k, r) for k, r in rows) if i is not None}
    for position, (map_key, row) in enumerate(rows, start=1):
        where = f"row {position}" if map_key is None else f"row {map_key!r}"
        if not isinstance(row, Mapping):
            raise RubricError(f"{where}: {not_an_object(row, map_key, alone=len(rows) == 1)}")
        row_id = explicit_id(map_key, row)
        if row_id is None:
            row_id = _generate_id(position, taken | explicit_ids)
            warnings.append(f"{where}: no 'id'; generated {row_id!r} (give rows stable ids)")
        elif row_id in taken:
            raise RubricError(f"row {row_id!r}: duplicate id")
        else:
            warnings.extend(_id_warnings(row.get("id", map_key), row_id))
            warnings.extend(_key_warnings(map_key, row_id))
        taken.add(row_id)
        criteria.append(_normalize_row(row_id, row, warnings))
    weighted = [isinstance(r, Mapping) and any(k in r for k in (*WEIGHT_KEYS, "scores")) for _, r in rows]
    if any(weighted):
        for crit, has_weight in zip(criteria, weighted):
            if not has_weight:
                warnings.append(f"row {crit.id!r}: no weight (other rows have one); it counts 0 — no contribution")
    warnings.extend(_typo_warnings(criteria))
    criteria = _resolve_dependencies(criteria, warnings)
    warnings.extend(_dependency_warnings(criteria))
    warnings.extend(f"row {c.id!r}: a hurdle with a positive weight ({c.weight:g}) counts in W but can never add to E, "
                    "so no rollout can score 1.0; give hurdle rows weight 0" for c in criteria if c.hurdle and c.weight > 0)
    return NormalizedRubric(criteria=tuple(criteria), warnings=tuple(warnings), workflow_config=workflow_config)


def not_an_object(row: Any, map_key: Any = None, *, alone: bool = False) -> str:
    """Why `row` cannot be a rubric row: ``a row must be an object, got list``. For a list under a top-level key
    of an ``id → row`` mapping (`map_key`) that is its one row (`alone`) or a near miss of a `LIST_KEYS` key
    (``rubric``, ``criterias``), the key was meant to hold the row list (trial 21 P-2): the closest list key
    (``rubrics`` when none is close) is named as a did-you-mean."""
    said = f"a row must be an object, got {type(row).__name__}"
    if not isinstance(row, list) or not isinstance(map_key, str):
        return said
    close = difflib.get_close_matches(map_key.strip().lower(), LIST_KEYS, n=1, cutoff=0.6)
    if not (close or alone):
        return said
    return (f"{said}; did you mean {(close or ['rubrics'])[0]!r}? (rows go in a list under "
            f"{', '.join(map(repr, LIST_KEYS[:-1]))} or {LIST_KEYS[-1]!r})")


def rows_problem(raw: Any) -> str | None:
    """Why the engine finds no rows in the decoded rubric document `raw` (its shape, not a row's fields), as
    `normalize_rubric` words it: not an object or list, no rows, a value of an ``id → row`` mapping that is not
    an object (`not_an_object`: a misspelt ``rubrics``). None when the rows are found. `cowork-judge init`
    reads it to say so rather than choose extras from no rows (trial 21 P-2)."""
    if not isinstance(raw, (list, Mapping)):
        return f"rubric must be a JSON object or list, got {type(raw).__name__}"
    if isinstance(raw, list) or any(isinstance(raw.get(k), list) for k in LIST_KEYS):
        rows = raw if isinstance(raw, list) else next(raw[k] for k in LIST_KEYS if isinstance(raw.get(k), list))
        return None if rows else NO_ROWS
    pairs = [(k, v) for k, v in raw.items() if k not in RESERVED_TOP_KEYS]
    if not pairs:
        return NO_ROWS
    bad = next(((k, v) for k, v in pairs if not isinstance(v, Mapping)), None)
    return None if bad is None else f"row {bad[0]!r}: {not_an_object(bad[1], bad[0], alone=len(pairs) == 1)}"


@functools.lru_cache(maxsize=4096)
def _misspelt_known_key(key: str) -> str | None:
    """The known field `key` looks like a misspelling of (``wieght`` → ``weight``), or None; the
    plural of a known field is not a typo (HealthBench's ``tags`` beside ``tag``), its singular is
    (``code_method_param`` → ``code_method_params``). Cached: a batch worker loads hundreds of
    rubrics with the same extra fields, and ``difflib`` costs about a millisecond a field."""
    close = difflib.get_close_matches(key, sorted(_KNOWN_KEYS), n=1, cutoff=0.8)
    return close[0] if close and key != close[0] + "s" else None


def _typo_warnings(criteria: list[Criterion]) -> list[str]:
    """One warning per unknown field that looks like a misspelt known one (``wieght``);
    other unknown fields (HealthBench ``tags``…) are carried in `extra` silently."""
    rows_by_typo: dict[tuple[str, str], list[str]] = {}
    for c in criteria:
        for key in c.extra:
            known = _misspelt_known_key(str(key))
            if known is not None:
                rows_by_typo.setdefault((str(key), known), []).append(c.id)
    return [f"unknown field {key!r} (row(s) {', '.join(map(repr, ids[:5]))}{' …' if len(ids) > 5 else ''}) is kept as "
            f"data and not used; did you mean {known!r}?" for (key, known), ids in rows_by_typo.items()]


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _resolve_dependencies(criteria: list[Criterion], warnings: list[str]) -> list[Criterion]:
    """`criteria` with each ``depends_on`` id that names no row but equals exactly one row's id under Unicode
    NFC read as that row's id, with a warning spelling both (trial 13 L2: "café" written composed in the
    row and decomposed in ``depends_on`` was a missing dependency between two identical-looking strings).
    Row ids themselves stay as written (labels, oracle files and calibrate name rows by them); an id that
    several rows equal under NFC is not matched (`_dependency_warnings` says so)."""
    ids = {c.id for c in criteria}
    by_form: dict[str, list[str]] = {}
    for c in criteria:
        by_form.setdefault(_nfc(c.id), []).append(c.id)
    out = []
    for c in criteria:
        deps: list[str] = []
        for dep in c.depends_on:
            same = by_form.get(_nfc(dep), []) if dep not in ids else []
            if len(same) == 1:
                warnings.append(f"row {c.id!r}: depends_on {ascii(dep)} is read as row {ascii(same[0])}: the same text in "
                                "another Unicode form (NFC and NFD: a composed and a decomposed accent); write the id "
                                "as the row has it")
                dep = same[0]
            if dep not in deps:
                deps.append(dep)
        out.append(c if tuple(deps) == c.depends_on else c.model_copy(update={"depends_on": tuple(deps)}))
    return out


def spelled_id(row_id: str) -> str:
    """`row_id` quoted (``repr``), followed by its ``ascii`` spelling when it holds other characters
    (``'café' ('caf\\xe9')``): two ids that look the same but differ in code points are told apart."""
    shown = repr(row_id)
    return shown if row_id.isascii() else f"{shown} ({ascii(row_id)})"


def did_you_mean(name: str, known: Iterable[str], cutoff: float = 0.75) -> str:
    """`` (did you mean 'X'?)`` naming the one entry of `known` closest to `name` (``difflib``, ratio at least
    `cutoff`), else ``""``: the suggestion lint gives for a misspelt code method, workflow or row id."""
    match = difflib.get_close_matches(name, list(known), n=1, cutoff=cutoff)
    return f" (did you mean {match[0]!r}?)" if match else ""


def _dependency_warnings(criteria: list[Criterion]) -> list[str]:
    """Dangling ids, self-dependencies and cycles in ``depends_on``: legal (the gate
    fails closed, SPEC §4) but almost always a typo, so said at load time."""
    ids = {c.id for c in criteria}
    deps = {c.id: [d for d in c.depends_on if d in ids] for c in criteria}
    out = []
    for c in criteria:
        dangling = [d for d in c.depends_on if d not in ids]
        if dangling:
            named = ", ".join(spelled_id(d) + did_you_mean(d, ids) for d in dangling)  # lint D001's hint too
            out.append(f"row {c.id!r}: depends_on names no row: {named} (its gate is always "
                       f"closed: a positive row is left unjudged, dep_missing){_look_alike(dangling, ids)}")
        if c.id in c.depends_on:
            out.append(f"row {c.id!r}: depends on itself (its gate opens only when it is hit)")
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    cycles: list[list[str]] = []
    for c in criteria:  # iterative depth-first search: a 10 000-row chain must not recurse
        if c.id in state:
            continue
        path = [c.id]
        state[c.id] = 1
        stack = [iter(deps[c.id])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif nxt == path[-1]:
                continue  # self-dependency: said above
            elif state.get(nxt) == 1:
                if len(cycles) < 10:
                    cycles.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(deps[nxt]))
    out.extend(f"depends_on cycle {' → '.join(cycle)}: these rows gate each other" for cycle in cycles[:10])
    return out


def _look_alike(dangling: list[str], ids: set[str]) -> str:
    """``"; …"`` naming the rows a dangling id equals only under Unicode NFC (several: `_resolve_dependencies`
    did not pick one), spelled in code points; else ``""``."""
    said = []
    for dep in dangling:
        alike = sorted(i for i in ids if _nfc(i) == _nfc(dep))
        if alike:
            said.append(f"{ascii(dep)} equals rows {', '.join(map(ascii, alike))} only in another Unicode form (NFC/NFD), "
                        "so it is not matched")
    return f"; {'; '.join(said)}" if said else ""


def explicit_id(map_key: Any, row: Any) -> str | None:
    """The row's id as normalization reads it: ``id``, else the mapping key (the
    ``id → row`` shape); None when absent or a boolean."""
    value = row.get("id") if isinstance(row, Mapping) else None
    if value is None:
        value = map_key
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    return text or None


MAX_ID_CHARS = 200
"""An id longer than this is said (it is every log line's, ctrf.json test's and report row's name)."""


def _id_warnings(raw: Any, row_id: str) -> list[str]:
    """What is odd about an explicit id (trial 6 F7): surrounding spaces (read stripped), a control
    character (a line break breaks log lines and ctrf.json test names), an absurd length."""
    out = []
    if isinstance(raw, str) and raw != row_id:
        out.append(f"row {row_id!r}: its id {raw!r} has surrounding spaces; read as {row_id!r}")
    if any(unicodedata.category(ch) == "Cc" for ch in row_id):
        out.append(f"row {row_id!r}: its id holds a control character (a line break, a tab…), which breaks log lines, "
                   "ctrf.json test names and reports; write ids with letters, digits, - and _")
    if len(row_id) > MAX_ID_CHARS:
        out.append(f"row {row_id[:40]!r}…: its id is {len(row_id)} characters long (more than {MAX_ID_CHARS}); "
                   "an id is a name, the description says what the row asks")
    return out


KEY_DIFFERS = "its key in the id → row mapping is"
"""The start of the warning for a mapping key that differs from the row's own ``id`` (lint's R024)."""


def _key_warnings(map_key: Any, row_id: str) -> list[str]:
    """Trial 7 F7: a row of the ``id → row`` mapping whose own ``id`` differs from its key. The
    row's ``id`` names it (as before); the key is said, since labels, oracle files,
    ``depends_on`` and calibrate written against it would silently miss the row."""
    if map_key is None or str(map_key).strip() == row_id:
        return []
    return [f"row {row_id!r}: {KEY_DIFFERS} {str(map_key).strip()!r} but its own 'id' is {row_id!r}; the row is "
            f"{row_id!r} (labels, oracle files, depends_on and calibrate name rows by it): make the key and the 'id' "
            "the same"]


def _generate_id(position: int, taken: set[str]) -> str:
    n = position
    while True:
        candidate = f"R{n:02d}"
        if candidate not in taken:
            return candidate
        n += 1


def _normalize_row(row_id: str, row: Mapping[str, Any], warnings: list[str]) -> Criterion:
    where = f"row {row_id!r}"
    description = next((row[k] for k in DESCRIPTION_KEYS if isinstance(row.get(k), str) and row[k].strip()), None)
    if description is None:
        raise RubricError(f"{where}: field 'description' is missing or empty (aliases: {', '.join(DESCRIPTION_KEYS[1:])})")

    weight = _weight(row, where, warnings)
    hurdle = _bool(row.get("hurdle", False), where, "hurdle", warnings)
    depends_on = _depends_on(row.get("depends_on"), where, warnings)
    levels, row_type = _levels(row, where, warnings)

    if (stray := stray_routing(row)) is not None:  # trial 27 P-4: lint's M004, said in the run too
        warnings.append(f"{where}: {stray}")
    judge_method = row_judge_method(row, where, warnings)
    code_method_name = _opt_str(row.get("code_method_name"), where, "code_method_name")
    if judge_method == "code" and not code_method_name:
        warnings.append(f"{where}: judge_method 'code' without code_method_name; judged as 'agentic'")
        judge_method = "agentic"
    params = row.get("code_method_params", {})
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise RubricError(f"{where}: field 'code_method_params' must be an object")
    na_policy = row.get("na_policy")
    if na_policy is not None and na_policy not in ("pass", "fail", "unjudged"):
        raise RubricError(f"{where}: field 'na_policy' must be 'pass', 'fail' or 'unjudged', got {na_policy!r}")
    page_mean_p = row.get("page_mean_p")
    if page_mean_p is not None:
        page_mean_p = _finite(page_mean_p, where, "page_mean_p")
    decided_by = row.get("decided_by")
    if decided_by is not None and not isinstance(decided_by, Mapping):
        raise RubricError(f"{where}: field 'decided_by' must be an object such as {{\"checks\": [\"text_overflow\"]}}")

    ignored = sorted(DERIVED_KEYS & set(row))
    if ignored:
        warnings.append(f"{where}: derived field(s) {', '.join(ignored)} in the file are ignored")

    polarity = "negative" if (weight < 0 or hurdle) else "positive"
    graded = row_type == "gradient" and not hurdle and weight >= 0 and levels is not None
    level_choices = tuple(sorted({scales.parse_level_key(k) for k in levels})) if graded and levels else None
    pass_level = _pass_level(row, where, level_choices, warnings)
    extra = {k: v for k, v in row.items() if k not in _KNOWN_KEYS}
    return Criterion(
        id=row_id,
        description=description.strip(),
        weight=weight,
        hurdle=hurdle,
        depends_on=depends_on,
        type=row_type,
        levels=levels,
        pass_level=pass_level,
        tag=_opt_str(row.get("tag"), where, "tag", coerce=True),
        criterion_type=_opt_str(row.get("criterion_type"), where, "criterion_type", coerce=True),
        criterion_necessity=_opt_str(row.get("criterion_necessity"), where, "criterion_necessity", coerce=True),
        judge_method=judge_method,
        code=CodeRoute(method_name=code_method_name, params=dict(params)),
        workflow=WorkflowRoute(
            name=_opt_str(row.get("workflow_name"), where, "workflow_name"),
            group=_opt_str(row.get("workflow_group"), where, "workflow_group", coerce=True),
            na_policy=na_policy,
            page_mean_p=page_mean_p,
            decided_by=dict(decided_by) if decided_by is not None else None,
        ),
        extra=extra,
        polarity=polarity,
        hit_means=scales.hit_means(polarity=polarity, hurdle=hurdle, graded=graded, level_choices=level_choices,
                                   pass_level=pass_level),
        level_choices=level_choices,
    )


CODE_FIELDS = ("code_method_name", "code_method_params")
"""The routing fields only a ``judge_method: "code"`` row reads."""
WORKFLOW_FIELDS = ("workflow_name", "workflow_group", "na_policy", "page_mean_p")
"""The routing fields only a ``judge_method: "workflow"`` row reads."""
STRAY_ROUTING_MARKER = "did you mean judge_method"
"""In `stray_routing`'s sentence: lint reports that load warning as M004, not again as R009."""


def stray_routing(row: Mapping[str, Any]) -> str | None:
    """``code_method_name, code_method_params set on a row judged by agentic (the default): ignored; did you mean
    judge_method 'code'?`` for a row whose routing fields (`CODE_FIELDS`, `WORKFLOW_FIELDS`) belong to another
    judge_method than its own (absent, or a known one read case-insensitively), else None (an unknown judge_method is
    M003's warning). The one wording of lint's M004 and the run's load warning (trial 27 P-4)."""
    raw = row.get("judge_method")
    method = raw.strip().lower() if isinstance(raw, str) else raw
    if method is not None and method not in JUDGE_METHODS:
        return None
    stray = [f for f in CODE_FIELDS if method != "code" and row.get(f) not in (None, {})]
    stray += [f for f in WORKFLOW_FIELDS if method != "workflow" and row.get(f) is not None]
    if not stray:
        return None
    return (f"{', '.join(stray)} set on a row judged by {method or 'agentic (the default)'}: ignored; "
            f"{STRAY_ROUTING_MARKER} {'code' if stray[0].startswith('code') else 'workflow'!r}?")


MAX_ABS_WEIGHT = 1e9
"""Largest |weight| accepted: sums of a few such weights stay exact enough and finite."""


def row_judge_method(row: Mapping[str, Any], where: str = "row", warnings: list[str] | None = None) -> str:
    """The row's judge method: ``judge_method`` read case- and space-insensitively (``"Code"`` is
    ``code``, as the settings are read); an unknown one is the method the row's own fields name
    (a ``code_method_name`` → ``code``, a ``workflow_name`` → ``workflow``) rather than a model's
    opinion on a deterministic row (trial 5, F13), else ``agentic``; each fallback is a warning
    appended to `warnings` (when given). Every reader of a raw row (lint, install's extras, the
    deck rubric generator) asks here, so they agree with the engine."""
    raw = row.get("judge_method")
    if raw is None:
        return "agentic"
    folded = raw.strip().lower() if isinstance(raw, str) else raw
    if folded in JUDGE_METHODS:
        return str(folded)
    named = "code" if row.get("code_method_name") else "workflow" if row.get("workflow_name") else "agentic"
    why = {"code": " (the row names a code_method_name)", "workflow": " (the row names a workflow_name)"}.get(named, "")
    if warnings is not None:
        warnings.append(f"{where}: unknown judge_method {raw!r}; judged as {named!r}{why}")
    return named


def _weight(row: Mapping[str, Any], where: str, warnings: list[str]) -> float:
    """The row's weight from `weight`, else `points`, else a numeric `score`.

    A numeric string (``"7"``) is read with a warning for `weight` and `points` alike; a
    non-numeric `weight`/`points` is an error; a non-numeric `score` is not a weight.
    """
    for key in WEIGHT_KEYS:
        if key not in row:
            continue
        value = row[key]
        if isinstance(value, str):
            if not DECIMAL_RE.match(value):
                if key == "score":
                    continue  # a label such as "high", not a weight
                raise RubricError(f"{where}: field {key!r} must be a number, got {value!r}")
            warnings.append(f"{where}: {key} given as a string {value!r}; read as {float(value)}")
            value = float(value)
        elif key == "score" and (isinstance(value, bool) or not isinstance(value, (int, float))):
            continue
        weight = _finite(value, where, key)
        if abs(weight) > MAX_ABS_WEIGHT:
            raise RubricError(f"{where}: field {key!r} = {value!r} is out of range (|weight| ≤ {MAX_ABS_WEIGHT:g})")
        return weight
    return 0.0


def _finite(value: Any, where: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RubricError(f"{where}: field {field!r} must be a number, got {value!r}")
    try:
        out = float(value)
    except OverflowError:
        raise RubricError(f"{where}: field {field!r} is too large") from None
    if not math.isfinite(out):
        raise RubricError(f"{where}: field {field!r} must be finite, got {value!r}")
    return out


def _bool(value: Any, where: str, field: str, warnings: list[str]) -> bool:
    """A boolean field; ``"true"``/``"false"`` strings are read with a warning, as a numeric string weight is
    (trial 9 F6: they were read silently)."""
    if isinstance(value, bool):
        return value
    if value in (0, 1) and not isinstance(value, float):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        read = value.strip().lower() == "true"
        warnings.append(f"{where}: {field} given as a string {value!r}; read as {str(read).lower()}")
        return read
    raise RubricError(f"{where}: field {field!r} must be true or false, got {value!r}")


def _depends_on(value: Any, where: str, warnings: list[str]) -> tuple[str, ...]:
    """The row's ``depends_on`` ids; a single id instead of a list is read as that one id, with a warning
    (trial 9 F6: it was read silently)."""
    if value is None:
        return ()
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        warnings.append(f"{where}: depends_on given as a single id {value!r}, not a list; read as [{str(value).strip()!r}]")
        value = [value]
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, (str, int)) for v in value):
        raise RubricError(f"{where}: field 'depends_on' must be a list of row ids")
    out: list[str] = []
    for v in value:
        text = str(v).strip()
        if text and text not in out:
            out.append(text)
    return tuple(out)


BINARY_WITH_LEVELS = "\"type\": \"binary\" with a level table"
"""The start of the warning for a row that says ``"type": "binary"`` and gives a ``levels``
(``scores``) table: scored by hit, the levels ignored (lint's R025, trial 14 F17)."""


def _levels(row: Mapping[str, Any], where: str,
            warnings: list[str]) -> tuple[dict[str, str] | None, Literal["binary", "gradient"]]:
    """The row's level table and type: ``type`` as written, else gradient when a ``levels``
    (ClawGym ``scores``) table is given. An explicit ``"type": "binary"`` beside a table wins, with
    a warning naming it (`BINARY_WITH_LEVELS`). Raises RubricError: unknown type, a gradient row
    without a table, a table that is not an object, fewer than 2 levels, bad or repeated keys."""
    raw_type = row.get("type")
    table = row.get("levels")
    field = "levels"
    if table is None and isinstance(row.get("scores"), Mapping):
        table, field = row["scores"], "scores"  # ClawGym level table
    row_type: Literal["binary", "gradient"]
    if raw_type is None:
        row_type = "gradient" if table is not None else "binary"
    elif raw_type in ("binary", "gradient"):
        row_type = raw_type
    else:
        raise RubricError(f"{where}: field 'type' must be 'binary' or 'gradient', got {raw_type!r}")
    if table is None:
        if row_type == "gradient":
            raise RubricError(f"{where}: gradient row needs a 'levels' table")
        return None, row_type
    if not isinstance(table, Mapping):
        raise RubricError(f"{where}: field {field!r} must be an object mapping level → text")
    seen: dict[float, str] = {}
    levels: dict[str, str] = {}
    for key, text in table.items():
        try:
            value = scales.parse_level_key(key)
        except ValueError as exc:
            raise RubricError(f"{where}: field {field!r}: {exc}") from None
        same = next((v for v in seen if abs(v - value) <= 2 * scales.TIE_TOLERANCE), None)
        if same is not None:  # closer than the snapping tie tolerance: one level, written twice
            raise RubricError(f"{where}: field {field!r}: keys {seen[same]!r} and {key!r} are the same level")
        seen[value] = str(key)
        levels[str(key)] = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if len(levels) < 2:
        raise RubricError(f"{where}: field {field!r} needs at least 2 levels")
    if raw_type == "binary":
        warnings.append(f"{where}: {BINARY_WITH_LEVELS} ({field!r}): the judge scores it as binary, by hit alone (full "
                        f"credit or none), and its levels are ignored; drop \"type\" or set \"gradient\" to score by level")
    return levels, row_type


def _pass_level(row: Mapping[str, Any], where: str, level_choices: tuple[float, ...] | None,
                warnings: list[str]) -> float | None:
    """The row's ``pass_level``: a number (or decimal string) on the row's own level scale.

    Returns None when absent or null, and (with a warning) on a row that is not graded
    (binary, hurdle, deduction: scored by hit, so a pass bar means nothing there).

    Raises:
        RubricError: not a number, outside [0, 1] (the scale of `levels` keys: 6 of 10 is
            0.6), above the highest level (no level could pass), or at or below the lowest
            level (every level, the lowest included, would pass).
    """
    value = row.get("pass_level")
    if value is None:
        return None
    try:
        bar = scales.parse_level_key(value)
    except ValueError:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or (
                isinstance(value, str) and not DECIMAL_RE.match(value)):
            raise RubricError(f"{where}: field 'pass_level' must be a number on the row's level scale, got {value!r:.60}") from None
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        shown = scales.format_level(number) if math.isfinite(number) else f"{str(value)[:40]}"
        hint = f" ({shown} of 10 is {scales.format_level(number / 10)})" if 1 < number <= 10 else ""
        raise RubricError(f"{where}: field 'pass_level' = {shown} is outside [0, 1]: it is a level on the row's own "
                          f"scale, the fraction of the weight its `levels` keys give{hint}") from None
    if isinstance(value, str):  # as a numeric string weight is (trial 9 F6: it was read silently)
        warnings.append(f"{where}: pass_level given as a string {value!r}; read as {scales.format_level(bar)}")
    if level_choices is None:
        warnings.append(f"{where}: pass_level {scales.format_level(bar)} is ignored: the row is scored by hit (pass_level "
                        "is the pass bar of a graded row: type gradient, weight ≥ 0, not a hurdle)")
        return None
    top, bottom = level_choices[-1], level_choices[0]
    if bar > top + scales.TIE_TOLERANCE:
        raise RubricError(f"{where}: field 'pass_level' = {scales.format_level(bar)} is above the row's highest level "
                          f"{scales.format_level(top)}: no level could pass")
    if bar <= bottom + scales.TIE_TOLERANCE:
        raise RubricError(f"{where}: field 'pass_level' = {scales.format_level(bar)} is at or below the row's lowest "
                          f"level {scales.format_level(bottom)}: every level would pass")
    return bar


def _opt_str(value: Any, where: str, field: str, *, coerce: bool = False) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if coerce and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise RubricError(f"{where}: field {field!r} must be a string, got {value!r}")
