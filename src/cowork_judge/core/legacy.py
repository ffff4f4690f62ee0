"""The original cowork-judge 1.3.6's output fields, derived from this project's result document.

The original (``cowork-judge`` 1.2.0–1.3.6 on the package registry) wrote ``result.json``
with ``metric_id``, ``score``, ``is_hit_hurdle``, ``score_normalized``, ``reward``,
``details.results[]`` (``rubric_number``, ``rubric_detail``, ``weight``, ``hit``,
``gained``, ``justification``), ``details.summary`` and ``usage.timings``; a
``reward_exit_message.json`` (``exit_code``, ``exit_reason``, ``extra_fields``) and a
``judge_verdict.json`` (``details.criteria[]``). Fleet pipelines read those names, so this
project writes them beside its own fields: `with_legacy_fields` adds the original's fields
to a result document (a superset: none of this project's keys changes), `exit_message`
and `judge_verdict` build the two other documents. Everything here works on the JSON form
of the document (a plain dict), so the last-resort writer can use it without pydantic;
no I/O, no clock, no environment.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

ORIGINAL_VERSION = "1.3.6"
"""The newest original release whose output shapes these fields reproduce."""

LEGACY_EXTRA_KEYS: tuple[str, ...] = (
    "is_rubrics", "rubrics_total_num", "rubrics_api_success_num", "score_normalized", "raw_score",
    "reward_mode", "pass_threshold", "pass_compare", "is_hit_hurdle", "judge_version", "metric_id", "judge_model",
    "judge_error_rows", "judge_scored_weight_frac", "judge_error_negative_skipped", "judge_hurdle_unverifiable",
    "judge_no_scored_rows", "judge_reasoning_effort", "judge_reasoning_effort_degraded",
)
"""The 19 ``extra_fields`` keys of the original's exit message that this project's own
``extra_fields`` does not carry (its other keys — ``passed``, ``judge_coverage``,
``judge_unjudged``, ``judge_degraded``, ``judge_error_kind``, ``judge_seconds``,
``judge_evidence_pages``, ``judge_methods``, ``judge_coverage_by_method``,
``judge_unjudged_weight_frac``, ``judge_called``, ``delivery_missing``,
``delivery_from_chat`` — are already there with the same meaning)."""

UNJUDGED_PREFIX = "[judge]"
"""How the original starts the reason of a row it could not judge (its readers count
judged rows by it); `judge_verdict` writes it before an unjudged row's reason."""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _rows(doc: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(row of results[], its criterion of criteria[] or {}) pairs, in rubric order."""
    criteria = {str(c.get("id")): c for c in _list(doc.get("criteria")) if isinstance(c, dict)}
    return [(row, _dict(criteria.get(str(row.get("id"))))) for row in _list(doc.get("results")) if isinstance(row, dict)]


def row_tallies(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The original's per-run tallies over the rows of a result document.

    Returns:
        ``{"total", "judged", "error_rows", "scored_weight", "error_weight", "error_negative",
        "hurdle_unverifiable"}``: rows, judged rows, unjudged rows, the positive weight of
        judged rows (hurdles included, as 1.3.6 counts it), the positive weight of unjudged
        rows, unjudged rows with a negative weight, and whether a hurdle row is unjudged.
    """
    total = judged = error_negative = 0
    scored_weight = error_weight = 0.0
    hurdle_unverifiable = False
    for row, criterion in _rows(doc):
        total += 1
        weight = _number(row.get("weight")) or 0.0
        if row.get("judged") is True:
            judged += 1
            scored_weight += max(weight, 0.0)
            continue
        error_weight += max(weight, 0.0)
        error_negative += weight < 0
        hurdle_unverifiable |= criterion.get("hurdle") is True
    return {"total": total, "judged": judged, "error_rows": total - judged, "scored_weight": round(scored_weight, 4),
            "error_weight": round(error_weight, 4), "error_negative": error_negative,
            "hurdle_unverifiable": hurdle_unverifiable}


def legacy_score(doc: Mapping[str, Any]) -> float:
    """The original's ``score`` (= its ``score_normalized``): the normalised score in [0, 1],
    or the reward when no score was computed (an error document: 0.0)."""
    score = _number(doc.get("score_normalized"))
    if score is None:
        score = _number(doc.get("task_score"))
    return score if score is not None else 0.0


def legacy_results(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The original's ``details.results[]``: one entry per row, in rubric order.

    ``hit`` is the judge's hit (False for an unjudged row, as 1.3.6 writes it, with
    ``judge_error: true``); ``gained`` is the row's contribution to the earned weight
    (this project's ``contribution``, 4 decimals); ``level`` only on a graded row.
    """
    out: list[dict[str, Any]] = []
    for row, criterion in _rows(doc):
        entry: dict[str, Any] = {
            "rubric_number": row.get("id"), "rubric_detail": criterion.get("description", ""),
            "weight": row.get("weight"), "hit": row.get("hit") is True,
            "gained": round(_number(row.get("contribution")) or 0.0, 4), "justification": row.get("reason") or "",
        }
        level = _number(row.get("level"))
        if level is not None:
            entry["level"] = round(level, 4)
        if row.get("judged") is not True:
            entry["judge_error"] = True
        out.append(entry)
    return out


def _usage(doc: Mapping[str, Any], tallies: Mapping[str, Any]) -> dict[str, Any]:
    extra = _dict(doc.get("extra_fields"))
    seconds = _number(extra.get("judge_seconds")) or 0.0
    return {"model": doc.get("judge_model"), "vendor": "openai", "backend": doc.get("judge_backend"),
            "judged": f"{tallies['judged']}/{tallies['total']}", "api_calls": extra.get("judge_calls", 0),
            "elapsed_seconds": seconds, "timings": {"total": seconds}}


def with_legacy_fields(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a result document (its JSON form) with the original's fields added.

    Added at the top level: ``score``, ``is_hit_hurdle``, ``reward``, ``judge_version``,
    ``usage`` (``model``, ``vendor``, ``backend``, ``judged`` "n/m", ``api_calls``,
    ``elapsed_seconds``, ``timings``); under ``details``: ``results``, ``summary``,
    ``raw_score``, ``total_positive``, ``scored_weight``, ``reward``. ``metric_id`` and
    ``score_normalized`` are this project's own fields already (``score_normalized`` is
    null where no score was computed; ``score`` is then 0.0 as 1.3.6 writes it). None of
    these keys is one of this project's own; when the document already carries them (a
    re-written document) they are derived again from its own fields.
    """
    out = dict(doc)
    tallies = row_tallies(doc)
    details = dict(_dict(doc.get("details")))
    reward = doc.get("task_score")
    earned = _number(details.get("earned"))
    additions = {"score": legacy_score(doc), "is_hit_hurdle": doc.get("fatal") is True, "reward": reward,
                 "judge_version": doc.get("version"), "usage": _usage(doc, tallies)}
    out.update(additions)
    detail_additions = {
        "results": legacy_results(doc),
        "summary": {"rubrics_total": tallies["total"], "judged": tallies["judged"],
                    "unjudged": tallies["error_rows"], "scored": tallies["judged"], "error_rows": tallies["error_rows"]},
        "raw_score": round(earned, 4) if earned is not None else 0.0,
        "total_positive": _number(details.get("weight_total")) or 0.0,
        "scored_weight": tallies["scored_weight"], "reward": reward,
    }
    details.update(detail_additions)
    out["details"] = details
    return out


def legacy_extra_fields(doc: Mapping[str, Any], *, reasoning_effort: str | None = None) -> dict[str, Any]:
    """The exit message's ``extra_fields``: this project's ``extra_fields`` plus `LEGACY_EXTRA_KEYS`.

    Args:
        doc: the result document's JSON form.
        reasoning_effort: the reasoning effort the judge was asked for, when the backend
            takes one (None otherwise, as 1.3.6 writes for its claude backend).
    """
    tallies = row_tallies(doc)
    policy = _dict(_dict(doc.get("details")).get("policy"))
    earned = _number(_dict(doc.get("details")).get("earned"))
    judged_positive = tallies["scored_weight"] + tallies["error_weight"]
    extra = dict(_dict(doc.get("extra_fields")))
    legacy = {
        "is_rubrics": tallies["total"] > 0, "rubrics_total_num": tallies["total"],
        "rubrics_api_success_num": tallies["judged"], "score_normalized": legacy_score(doc),
        "raw_score": round(earned, 4) if earned is not None else 0.0,
        "reward_mode": policy.get("reward_mode", "continuous"), "pass_threshold": policy.get("pass_threshold", 0.75),
        "pass_compare": policy.get("pass_compare", "gte"), "is_hit_hurdle": doc.get("fatal") is True,
        "judge_version": doc.get("version"), "metric_id": doc.get("metric_id"), "judge_model": doc.get("judge_model"),
        "judge_error_rows": tallies["error_rows"],
        "judge_scored_weight_frac": round(tallies["scored_weight"] / judged_positive, 4) if judged_positive else 0.0,
        "judge_error_negative_skipped": tallies["error_negative"],
        "judge_hurdle_unverifiable": tallies["hurdle_unverifiable"],
        "judge_no_scored_rows": tallies["scored_weight"] <= 0,
        "judge_reasoning_effort": reasoning_effort, "judge_reasoning_effort_degraded": False,
    }
    for key in LEGACY_EXTRA_KEYS:
        extra[key] = legacy[key]
    return extra


def exit_message(doc: Mapping[str, Any], *, reasoning_effort: str | None = None) -> dict[str, Any]:
    """``reward_exit_message.json``: ``{"task_score", "exit_code", "exit_reason", "extra_fields"}``.

    ``exit_code`` is the document's (null on success), ``exit_reason`` its reason or ``""``,
    ``task_score`` the reward (0.0 when the run was skipped and has none).
    """
    reward = _number(doc.get("task_score"))
    return {"task_score": reward if reward is not None else 0.0, "exit_code": doc.get("exit_code"),
            "exit_reason": doc.get("exit_reason") or "",
            "extra_fields": legacy_extra_fields(doc, reasoning_effort=reasoning_effort)}


def judge_verdict(doc: Mapping[str, Any]) -> dict[str, Any] | None:
    """``judge_verdict.json``: ``{"details": {"criteria": [{"id", "hit", "reason", "confidence",
    "level"}, …]}}`` as 1.3.6 wrote it, or None when the document has no row (no rubric read).

    An unjudged row's reason starts with `UNJUDGED_PREFIX` (the original's readers count
    judged rows by it); each entry also carries this project's ``judged``, ``method`` and
    ``error_kind``.
    """
    rows = [row for row, _ in _rows(doc)]
    if not rows:
        return None
    criteria = []
    for row in rows:
        reason = str(row.get("reason") or "")
        if row.get("judged") is not True and not reason.startswith(UNJUDGED_PREFIX):
            reason = f"{UNJUDGED_PREFIX} {reason}".rstrip()
        criteria.append({"id": row.get("id"), "hit": row.get("hit") is True, "reason": reason, "confidence": None,
                         "level": row.get("level_raw", row.get("level")), "judged": row.get("judged") is True,
                         "method": row.get("method"), "error_kind": row.get("error_kind")})
    return {"details": {"criteria": criteria}}


_NUMBER = {"type": "number"}
LEGACY_RESULT_PROPERTIES: dict[str, Any] = {
    "score": {**_NUMBER, "description": "1.3.6's score: = score_normalized, or the reward when no score was computed "
                                        "(0.0 on an error document)."},
    "is_hit_hurdle": {"type": "boolean", "description": "1.3.6's is_hit_hurdle: = fatal (a hurdle row counted as hit)."},
    "reward": {"anyOf": [_NUMBER, {"type": "null"}], "description": "1.3.6's reward: = task_score."},
    "judge_version": {"type": "string", "description": "1.3.6's judge_version: = version."},
    "usage": {"type": "object", "description": "1.3.6's usage: model, vendor, backend, judged ('n/m'), api_calls "
                                               "(= extra_fields.judge_calls), elapsed_seconds and timings {total} "
                                               "(= extra_fields.judge_seconds)."},
}
"""JSON Schema properties of the top-level fields `with_legacy_fields` adds (merged into the
published result schema by `core.result.result_json_schema`)."""

LEGACY_DETAILS_PROPERTIES: dict[str, Any] = {
    "results": {"type": "array", "items": {"type": "object"}, "description": (
        "1.3.6's rows: rubric_number (= id), rubric_detail (the row's description), weight, hit (False when "
        "unjudged, with judge_error true), gained (= contribution), justification (= reason), level on a graded row.")},
    "summary": {"type": "object", "description": "1.3.6's summary: rubrics_total, judged, unjudged, scored, error_rows."},
    "raw_score": {**_NUMBER, "description": "1.3.6's raw_score: = details.earned (0.0 when no score was computed)."},
    "total_positive": {**_NUMBER, "description": "1.3.6's total_positive: = details.weight_total."},
    "scored_weight": {**_NUMBER, "description": "1.3.6's scored_weight: the positive weight of the judged rows."},
    "reward": {"anyOf": [_NUMBER, {"type": "null"}], "description": "1.3.6's details.reward: = task_score."},
}
"""JSON Schema properties of the ``details`` fields `with_legacy_fields` adds."""
