"""Generate ``ppt_judge``'s rows of a ``rubric.json``: visual rows from the shared template,
content rows from the instance's ``task_check_dir`` (SPEC §16).

Both functions are pure: raw rubric JSON in, new rubric JSON out; running them twice gives
the same file, and every row they do not own is kept as it is, in place.

- `generate` (visual): the template is ``cowork_judge/workflow/ppt_judge/visual_rubrics.json``
  (the workflow never reads it at run time). Each template question becomes one row, copied
  verbatim into ``description``; ``cluster`` → ``workflow_group``; ``critical`` → the
  critical weight; ``na_policy`` and ``decided_by`` as written; ``page_mean_p`` as written,
  and for every critical row without one `CRITICAL_PAGE_MEAN_P` (−2: one page at 0 gives the
  row 0, SPEC §9), each critical layout row decided by the measured kinds that prove it
  (clipped: ``text_overflow``/``off_slide``; overlap: ``text_overlap``); ``levels`` on the 21-step
  grid (the template's anchor texts, a filler between them) so that the workflow's grid
  level survives the engine's snapping unchanged. Its rows: the ``ppt_judge`` rows whose id
  starts with the template's prefix (``V-``).
- `generate_content` (content): each type1 check becomes a binary row of weight 3.0
  (``mandatory``) or 2.0, ``workflow_group: "type1"``, ``tag``
  ``content/coverage/<section>/<kind>``; each type2 check a binary row of weight 4.0,
  ``workflow_group: "type2"``, ``depends_on`` its paired type1 then the gates, ``tag``
  ``content/correctness/<section>/<kind>`` (its pair's). Questions are copied verbatim into
  ``description``. Its rows: the ``ppt_judge`` rows whose ``workflow_group`` is ``type1``
  or ``type2``; type1 rows first, then type2, each in file order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cowork_judge.core.rubric import DECK_CODE_METHODS, LIST_KEYS, did_you_mean, row_judge_method
from cowork_judge.core.scales import format_level, parse_level_key
from cowork_judge.workflow._contract import GRID_21
from cowork_judge.workflow.ppt_judge.assets import CONTENT_GROUPS, TaskChecks
from cowork_judge.workflow.ppt_judge.balance import METADATA_KEY, content_weight, with_record
from cowork_judge.workflow.ppt_judge.settings import CRITICAL_PAGE_MEAN_P

WORKFLOW = "ppt_judge"
TEMPLATE_FILE = "visual_rubrics.json"
WEIGHT_DECIMALS = 3
"""Balanced weights are rounded to 3 decimals (a ratio off by < 0.1 %)."""
CONTENT_WEIGHTS: dict[str, float] = {"mandatory": 3.0, "type1": 2.0, "type2": 4.0}
"""SPEC §16: a type1 row weighs 3.0 when its check is mandatory, else 2.0; a type2 row 4.0
(stating a subject wrongly is worse than leaving it out: the design notes' 4 : 3 : 2)."""


class TemplateError(ValueError):
    """The template cannot be used (names the file and the problem)."""


class GenError(ValueError):
    """The rubric cannot be generated as asked (unknown gate, unsupported shape…)."""


class TemplateRow(BaseModel):
    """One visual question of the template."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(description="row id, starting with the template's id_prefix")
    cluster: str = Field(description="one of the template's clusters; becomes workflow_group")
    question: str = Field(min_length=1, description="copied verbatim into the row's description")
    critical: bool = Field(False, description="structural defect: weighs weights.critical")
    na_policy: Literal["pass", "fail", "unjudged"] | None = Field(None, description="all pages N/A ⇒ …")
    decided_by: dict[str, Any] | None = Field(None, description="deterministic checks that decide the row")
    page_mean_p: float | None = Field(None, ge=-10.0, le=10.0, description="power-mean exponent across pages; a critical "
                                      "row without one gets CRITICAL_PAGE_MEAN_P (≤ 0: a page at 0 gives the row 0)")


class VisualTemplate(BaseModel):
    """``visual_rubrics.json``."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_id: Literal["cowork-judge/ppt-visual-template@1"] = Field(alias="schema")
    about: str = ""
    id_prefix: str = Field(min_length=1)
    weights: dict[Literal["critical", "normal"], float]
    levels: dict[str, str] = Field(description="anchor level → text; keys on the 21-step grid, 0 and 1 included")
    level_filler: str = Field(min_length=1, description="text of the grid levels between anchors")
    clusters: list[str] = Field(min_length=1)
    rubrics: list[TemplateRow] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> VisualTemplate:
        from cowork_judge.workflow.ppt_judge.decided import read_rule

        if set(self.weights) != {"critical", "normal"} or any(not (w > 0) for w in self.weights.values()):
            raise ValueError("weights must give positive 'critical' and 'normal' weights")
        anchors = {parse_level_key(k) for k in self.levels}
        if not anchors <= set(GRID_21) or not {0.0, 1.0} <= anchors:
            raise ValueError("levels keys must lie on the 21-step grid and include 0 and 1")
        if set(self.clusters) & set(CONTENT_GROUPS):
            raise ValueError(f"clusters may not be named {sorted(CONTENT_GROUPS)}: those groups mark content rows")
        ids = [r.id for r in self.rubrics]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate row ids")
        for r in self.rubrics:
            if not r.id.startswith(self.id_prefix):
                raise ValueError(f"row {r.id!r} does not start with id_prefix {self.id_prefix!r}")
            if r.cluster not in self.clusters:
                raise ValueError(f"row {r.id!r}: cluster {r.cluster!r} is not one of {self.clusters}")
            if r.decided_by is not None:
                _rule, warning = read_rule(r.id, {"decided_by": r.decided_by})
                if warning:
                    raise ValueError(warning)
        return self


def template_path() -> Path:
    """Where the packaged template lives."""
    return Path(str(resources.files("cowork_judge.workflow.ppt_judge").joinpath(TEMPLATE_FILE)))


def load_template(path: Path | None = None) -> VisualTemplate:
    """Read and validate the template (default: the packaged one).

    Raises:
        TemplateError: missing, not JSON, or inconsistent (the message says what).
    """
    path = path or template_path()
    try:
        return VisualTemplate.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise TemplateError(f"template {path}: cannot read: {exc.strerror or exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ())) or "document"
        raise TemplateError(f"template {path}: {where}: {first.get('msg')}") from None


def grid_levels(template: VisualTemplate) -> dict[str, str]:
    """The 21 grid keys (``"1"`` … ``"0"``, descending) with the anchor texts, the filler between."""
    anchors = {parse_level_key(k): v for k, v in template.levels.items()}
    return {format_level(x): anchors.get(x, template.level_filler) for x in reversed(GRID_21)}


@dataclass
class Generated:
    """The outcome of `generate`.

    Attributes:
        document: the new rubric document (same top-level shape as the input).
        rows: the visual rows written, in order.
        replaced: how many old visual rows they replaced.
        gates: the ids in every visual row's ``depends_on``.
        notes: one line per decision worth telling (gates kept or closed, balance).
    """

    document: Any
    rows: list[dict[str, Any]]
    replaced: int
    gates: list[str]
    notes: list[str] = field(default_factory=list)


def generate(raw: Any, template: VisualTemplate, *, gates: Sequence[str] | None = None,
             balance: float | None = None) -> Generated:
    """Replace the visual rows of a rubric document by the template's.

    Args:
        raw: the decoded rubric.json (``{"rubrics"|"criteria"|"items": [...], ...}`` or a
            bare list); None = no rubric yet (a new ``{"rubrics": [...]}``).
        template: the visual template.
        gates: row ids every visual row depends on (their ``depends_on`` closure is added:
            gates use raw hits, SPEC §4); None = keep the gates the existing visual rows have.
        balance: scale the visual weights so that Σ visual : Σ content = `balance`, content
            being the positive weights of the other non-code, non-hurdle rows.

    Raises:
        GenError: the document is an id → row mapping (write it as a list first), a gate
            names no row, or `balance` is not positive or has no content weight to match.
    """
    doc, rows = _rows_of(raw)
    prefix = template.id_prefix
    is_visual = [_is_visual(r, prefix) for r in rows]
    old = [r for r, v in zip(rows, is_visual) if v]
    others = [r for r, v in zip(rows, is_visual) if not v]
    at = is_visual.index(True) if any(is_visual) else len(rows)
    at -= sum(is_visual[:at])
    by_id = {str(r.get("id")): r for r in others if isinstance(r, Mapping) and r.get("id") is not None}
    notes: list[str] = []
    closed = _gates(gates, old, "visual", by_id, notes)
    weights: dict[str, float] = {level: w for level, w in template.weights.items()}
    if balance is not None:
        weights, note = _balanced(weights, template, others, balance)
        notes.append(note)
        if not isinstance(doc, Mapping) or not isinstance(doc.get(METADATA_KEY, {}), Mapping):
            notes.append(f"balance {balance:g} not recorded (a bare list of rows, or a 'metadata' that is not an "
                         "object): lint-rubric cannot check it later (A013)")
    levels = grid_levels(template)
    new_rows = [_row(t, weights, levels, closed) for t in template.rubrics]
    out = _spliced(doc, others, at, new_rows, replaced=len(old), gates=closed, notes=notes)
    out.document = with_record(out.document, balance)  # metadata.gen_ppt_rubrics.balance: what lint's A013 checks
    return out


def generate_content(raw: Any, checks: TaskChecks, *, gates: Sequence[str] | None = None) -> Generated:
    """Replace the content rows of a rubric document by the rows of `checks` (module docstring).

    Args:
        raw: the decoded rubric.json (shapes as `generate`); None = no rubric yet.
        checks: the loaded ``task_check_dir`` (`cowork_judge.workflow.ppt_judge.assets`).
        gates: row ids every content row depends on (closed transitively); None = keep the
            existing content rows' gates, or, when there is no content row yet, the
            existing visual rows' gates.

    Raises:
        GenError: no task_check_dir, a problem in it (the first ones are named: a rubric is
            never written from broken assets), a check id another row already uses, a
            gate that names no row, or an id → row mapping document.
    """
    doc, rows = _rows_of(raw)
    if not checks.present:
        raise GenError(f"no task_check_dir at {checks.folder}: the content rows come from it")
    if checks.problems:
        listed = "; ".join(f"{p.file}: {p.message}" for p in checks.problems[:5])
        more = f" (and {len(checks.problems) - 5} more)" if len(checks.problems) > 5 else ""
        raise GenError(f"{checks.folder} has problems, nothing generated: {listed}{more}")
    mine = [_is_content(r) for r in rows]
    old = [r for r, m in zip(rows, mine) if m]
    others = [r for r, m in zip(rows, mine) if not m]
    if any(mine):
        at = mine.index(True)
    else:  # content first, as the workflow runs it: before the visual rows, else at the end
        at = next((i for i, r in enumerate(rows) if _is_visual(r)), len(rows))
    at -= sum(mine[:at])
    by_id = {str(r.get("id")): r for r in others if isinstance(r, Mapping) and r.get("id") is not None}
    ids = [*checks.type1, *checks.type2]
    clash = [i for i in ids if i in by_id]
    if clash:
        raise GenError(f"check id(s) already used by other rows of the rubric: {', '.join(clash)}")
    notes: list[str] = []
    if old:
        closed = _gates(gates, old, "content", by_id, notes)
    else:  # no content rows yet: they take the visual rows' gates
        closed = _gates(gates, [r for r in others if _is_visual(r)], "visual", by_id, notes)
    new_rows = []
    for c in checks.type1.values():
        new_rows.append(_content_row(c.id, c.question, CONTENT_WEIGHTS["mandatory" if c.mandatory else "type1"], "type1",
                                     closed, f"content/coverage/{c.section}/{c.kind}"))
    for t2 in checks.type2.values():
        pair = checks.type1[t2.paired_type1_id]
        new_rows.append(_content_row(t2.id, t2.question, CONTENT_WEIGHTS["type2"], "type2", [pair.id, *closed],
                                     f"content/correctness/{pair.section}/{pair.kind}"))
    return _spliced(doc, others, at, new_rows, replaced=len(old), gates=closed, notes=notes)


def _spliced(doc: Any, others: list[Any], at: int, new_rows: list[dict[str, Any]], *, replaced: int,
             gates: list[str], notes: list[str]) -> Generated:
    """The rubric document with `new_rows` inserted at index `at` of the kept rows `others`
    (a bare list stays a list; an object keeps its other keys)."""
    out_rows = others[:at] + new_rows + others[at:]
    if isinstance(doc, list):
        document: Any = out_rows
    else:
        document = dict(doc)
        document[_list_key(doc)] = out_rows
    return Generated(document=document, rows=new_rows, replaced=replaced, gates=gates, notes=notes)


def _content_row(rid: str, question: str, weight: float, group: str, deps: Sequence[str], tag: str) -> dict[str, Any]:
    row: dict[str, Any] = {"id": rid, "description": question, "weight": weight, "judge_method": "workflow",
                           "workflow_name": WORKFLOW, "workflow_group": group}
    if deps:
        row["depends_on"] = list(deps)
    row["tag"] = tag
    return row


def _is_content(row: Any) -> bool:
    """A content row: a ``ppt_judge`` row whose ``workflow_group`` is ``type1`` or ``type2``."""
    return isinstance(row, Mapping) and row.get("workflow_name") == WORKFLOW and row.get("workflow_group") in CONTENT_GROUPS


DECK_WORDS = re.compile(r"\b(slides?|slide ?decks?|decks?|pptx?|powerpoint)\b|幻灯片|演示文稿", re.IGNORECASE)
"""Words of a task prompt that asks for a deck."""


def deck_evidence(raw: Any, *, checks_present: bool, task_prompt: str | None) -> list[str]:
    """What says the task delivers a slide deck (empty: nothing does, e.g. a chat task).

    Args:
        raw: the rubric document as read (None: no rubric yet).
        checks_present: the instance has ``workflow_assets/ppt_judge/task_check_dir``.
        task_prompt: the text of ``tests/task_prompt.md`` (None: no such file).

    Returns:
        One phrase per piece of evidence (a deck gate row, a ppt_judge row, the content checks, the prompt's words).
    """
    found: list[str] = []
    try:
        _, rows = _rows_of(raw)
    except GenError:
        rows = []
    for row in rows:
        if not isinstance(row, Mapping):
            continue
        if row_judge_method(row) == "code" and row.get("code_method_name") in DECK_CODE_METHODS:
            found.append(f"row {row.get('id')!r} ({row.get('code_method_name')})")
        elif row.get("workflow_name") == WORKFLOW:
            found.append(f"row {row.get('id')!r} (ppt_judge)")
    if checks_present:
        found.append("workflow_assets/ppt_judge/task_check_dir")
    if task_prompt is not None:
        words = sorted({m.group(0).lower() for m in DECK_WORDS.finditer(task_prompt)})
        if words:
            found.append(f"task_prompt.md ({', '.join(words[:3])})")
    return found


def _is_visual(row: Any, prefix: str = "V-") -> bool:
    """A visual row: a ``ppt_judge`` row whose id starts with the template's prefix."""
    return (isinstance(row, Mapping) and row.get("workflow_name") == WORKFLOW and not _is_content(row)
            and str(row.get("id", "")).startswith(prefix))


def _rows_of(raw: Any) -> tuple[Any, list[Any]]:
    if raw is None:
        return {"rubrics": []}, []
    if isinstance(raw, list):
        return raw, list(raw)
    if isinstance(raw, Mapping):
        key = next((k for k in LIST_KEYS if isinstance(raw.get(k), list)), None)
        if key is not None:
            return raw, list(raw[key])
        raise GenError("rubric.json is an id → row mapping; write its rows as {\"rubrics\": [...]} first")
    raise GenError(f"rubric.json must be an object or a list, got {type(raw).__name__}")


def _list_key(doc: Mapping[str, Any]) -> str:
    return next(k for k in LIST_KEYS if isinstance(doc.get(k), list))


def _deps(row: Any) -> list[Any]:
    deps = row.get("depends_on") if isinstance(row, Mapping) else None
    return deps if isinstance(deps, list) else [deps] if isinstance(deps, (str, int)) else []


def _gates(gates: Sequence[str] | None, source: Sequence[Any], kind: str, by_id: Mapping[str, Any],
           notes: list[str]) -> list[str]:
    """The gate row ids for generated rows, closed over ``depends_on`` (gates read raw hits).

    `gates` None keeps the gates the `source` rows (the existing `kind` rows) depend on;
    a line for each decision worth telling is appended to `notes`. Raises `GenError` when
    a given gate names no row of `by_id` (the rubric's other rows)."""
    if gates is None:
        wanted = list(dict.fromkeys(str(d) for r in source for d in _deps(r) if str(d) in by_id))
        if wanted:
            notes.append(f"kept the existing {kind} rows' gates: {', '.join(wanted)}")
    else:
        gates = [part for g in gates for part in _gate_ids(g, by_id)]  # trial 38 P-5: "A,B" is two ids
        unknown = [g + did_you_mean(g, by_id) for g in gates if g not in by_id]  # trial 34 P-4: the close id
        if unknown:
            raise GenError(f"--gate names no row of the rubric: {', '.join(unknown)} (a dangling gate is always "
                           "closed; nothing written)")
        wanted = list(dict.fromkeys(gates))
    closed = _closure(wanted, by_id)
    if len(closed) > len(wanted):
        notes.append(f"gates closed transitively (gates read raw hits): added {', '.join(closed[len(wanted):])}")
    return closed


def _gate_ids(given: str, by_id: Mapping[str, Any]) -> list[str]:
    """One ``--gate`` word as row ids: itself when it names a row, else its comma-separated parts when every part
    does (``C-LOCATE-DECK,C-DECK-OPENABLE``, trial 38 P-5), else itself (refused by the caller, named)."""
    parts = [p.strip() for p in given.split(",") if p.strip()]
    return parts if given not in by_id and len(parts) > 1 and all(p in by_id for p in parts) else [given]


def _closure(ids: Sequence[str], by_id: Mapping[str, Any]) -> list[str]:
    """`ids` then every id they depend on, transitively (order of discovery, no duplicates)."""
    out = list(ids)
    for current in out:  # `out` grows while iterating: a breadth-first walk
        for dep in _deps(by_id.get(current)):
            if str(dep) in by_id and str(dep) not in out:
                out.append(str(dep))
    return out


def _balanced(weights: dict[str, float], template: VisualTemplate, others: Sequence[Any],
              ratio: float) -> tuple[dict[str, float], str]:
    if not (isinstance(ratio, (int, float)) and ratio > 0 and ratio != float("inf")):
        raise GenError(f"--balance must be a positive number, got {ratio!r}")
    content = content_weight(others)  # counted as lint's A013 counts it (`workflow.ppt_judge.balance`)
    if content <= 0:
        raise GenError("--balance: the rubric has no positive content weight (non-code, non-hurdle rows) to balance against")
    visual = sum(weights["critical" if t.critical else "normal"] for t in template.rubrics)
    factor = ratio * content / visual
    scaled = {k: round(w * factor, WEIGHT_DECIMALS) for k, w in weights.items()}
    achieved = sum(scaled["critical" if t.critical else "normal"] for t in template.rubrics) / content
    return scaled, (f"balance {ratio:g}: visual weights × {factor:.4f} (content weight {content:g}; "
                    f"critical {scaled['critical']:g}, normal {scaled['normal']:g}; ratio {achieved:.4f})")


def _row(t: TemplateRow, weights: Mapping[str, float], levels: dict[str, str], gates: Sequence[str]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": t.id,
        "description": t.question,
        "weight": weights["critical" if t.critical else "normal"],
        "type": "gradient",
        "levels": dict(levels),
        "judge_method": "workflow",
        "workflow_name": WORKFLOW,
        "workflow_group": t.cluster,
    }
    if t.na_policy is not None:
        row["na_policy"] = t.na_policy
    if t.critical or t.page_mean_p is not None:
        row["page_mean_p"] = t.page_mean_p if t.page_mean_p is not None else CRITICAL_PAGE_MEAN_P
    if t.decided_by is not None:
        row["decided_by"] = json.loads(json.dumps(t.decided_by))
    if gates:
        row["depends_on"] = list(gates)
    row["tag"] = f"visual/{t.cluster}" + ("/critical" if t.critical else "")
    return row
