"""The visual : content weight balance ``gen-ppt-rubrics`` writes, and where it records it (trial 17 P-3).

``gen-ppt-rubrics`` scales the 14 visual rows so that Σ visual weight : Σ content weight equals
a ratio (1 by default) and records that ratio in the rubric document under
``metadata.gen_ppt_rubrics.balance`` (``metadata`` is a top-level key the judge never reads).
``lint-rubric`` (A013) measures the ratio again and warns when an edit moved it. Both sides
count weights with `visual_and_content`, so they cannot disagree on what "content" means.
A rubric written without the record (before it existed, or a bare list of rows) is not checked.
The judge never reads any of this at run time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cowork_judge.core.rubric import row_judge_method
from cowork_judge.workflow.ppt_judge.assets import CONTENT_GROUPS

METADATA_KEY = "metadata"
RECORD_KEY = "gen_ppt_rubrics"
BALANCE_KEY = "balance"
VISUAL_PREFIX = "V-"
WORKFLOW = "ppt_judge"


def is_visual(row: Any, prefix: str = VISUAL_PREFIX) -> bool:
    """A visual row: a ``ppt_judge`` row, not a content one (``workflow_group`` type1/type2), whose id starts with `prefix`."""
    return (isinstance(row, Mapping) and row.get("workflow_name") == WORKFLOW
            and row.get("workflow_group") not in CONTENT_GROUPS and str(row.get("id", "")).startswith(prefix))


def positive_weight(row: Mapping[str, Any]) -> float:
    """The row's weight (``weight``, else ``points``) when it is a positive number, else 0.0."""
    w = row.get("weight", row.get("points"))
    return float(w) if isinstance(w, (int, float)) and not isinstance(w, bool) and w > 0 else 0.0


def content_weight(rows: Sequence[Any]) -> float:
    """Σ positive weight of the `rows` (the visual ones already left out) that count as content: neither code
    rows nor hurdles (what a model judges on the deck's substance)."""
    return sum(positive_weight(r) for r in rows if isinstance(r, Mapping)
               and row_judge_method(r) != "code" and r.get("hurdle") is not True)


def visual_and_content(rows: Sequence[Any], prefix: str = VISUAL_PREFIX) -> tuple[float, float]:
    """(Σ positive weight of the visual rows, `content_weight`) of a rubric's raw rows."""
    visual = sum(positive_weight(r) for r in rows if is_visual(r, prefix))
    return visual, content_weight([r for r in rows if not is_visual(r, prefix)])


def recorded_balance(doc: Any) -> float | None:
    """The ratio ``metadata.gen_ppt_rubrics.balance`` of a decoded rubric document, None when absent or not a
    positive number (a bare list of rows, a rubric never balanced, or one written before the record existed)."""
    meta = doc.get(METADATA_KEY) if isinstance(doc, Mapping) else None
    record = meta.get(RECORD_KEY) if isinstance(meta, Mapping) else None
    value = record.get(BALANCE_KEY) if isinstance(record, Mapping) else None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < float("inf")
    return float(value) if ok else None  # type: ignore[arg-type]


def with_record(doc: Any, ratio: float | None) -> Any:
    """`doc` (a rubric document object) with ``metadata.gen_ppt_rubrics.balance`` set to `ratio`, or removed when
    `ratio` is None (the visual weights are then the template's: nothing promised). Other metadata is kept; a bare
    list, or a ``metadata`` that is not an object, is returned unchanged (nothing can be recorded there)."""
    if not isinstance(doc, Mapping):
        return doc
    meta = doc.get(METADATA_KEY, {})
    if not isinstance(meta, Mapping):
        return doc
    record = {k: v for k, v in (meta.get(RECORD_KEY) or {}).items()} if isinstance(meta.get(RECORD_KEY), Mapping) else {}
    if ratio is None:
        record.pop(BALANCE_KEY, None)
    else:
        record[BALANCE_KEY] = ratio
    new_meta = {k: v for k, v in meta.items() if k != RECORD_KEY}
    if record:
        new_meta[RECORD_KEY] = record
    out = dict(doc)
    if new_meta:
        out[METADATA_KEY] = new_meta
    else:
        out.pop(METADATA_KEY, None)
    return out


__all__ = ["BALANCE_KEY", "METADATA_KEY", "RECORD_KEY", "content_weight", "is_visual", "recorded_balance",
           "visual_and_content", "with_record"]
