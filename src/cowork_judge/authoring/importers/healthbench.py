"""HealthBench (OpenAI, MIT) examples → rubric rows, task prompt and reference answer.

A HealthBench example has ``prompt`` (chat messages), ``rubrics`` (``criterion``,
``points`` — positive or negative —, ``tags``) and optionally
``ideal_completions_data.ideal_completion`` (a physician-written answer). Points become
weights unchanged. HealthBench's per-example score (``calculate_score`` in
openai/simple-evals ``healthbench_eval.py``) is Σ points of met criteria / Σ positive points,
NOT clipped (the benchmark clips the mean over examples to [0, 1]); that is exactly the
engine's ``score_raw = E / W`` with hits as verdicts, and the reward is it clipped.

Graded examples: simple-evals records each graded completion in
``metadata.example_level_metadata[]`` of its ``*_allresults.json`` as ``{"prompt_id",
"prompt", "completion": [{"role", "content"}], "rubric_items": [{"criterion", "points",
"tags", "criteria_met", "explanation"}], "score"}``. `from_record` turns such a record into
an example plus its response and grades; `oracle` turns grades into simulator verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


class HealthBenchError(ValueError):
    """The document is not a HealthBench example."""


def rubric_rows(example: dict[str, Any], *, id_prefix: str = "HB") -> list[dict[str, Any]]:
    """Rubric rows of one example, ids ``HB01``… in file order.

    Raises:
        HealthBenchError: no ``rubrics`` list, or a criterion without text or points.
    """
    rubrics = example.get("rubrics")
    if not isinstance(rubrics, list) or not rubrics:
        raise HealthBenchError("example has no 'rubrics' list")
    rows = []
    width = max(2, len(str(len(rubrics))))
    for n, item in enumerate(rubrics, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("criterion"), str):
            raise HealthBenchError(f"rubric {n} has no 'criterion' text")
        points = item.get("points")
        if isinstance(points, bool) or not isinstance(points, (int, float)):
            raise HealthBenchError(f"rubric {n} has no numeric 'points'")
        if not math.isfinite(points):
            raise HealthBenchError(f"rubric {n}: 'points' is {points!r}, not a finite number")
        tags = [t for t in item.get("tags", []) if isinstance(t, str)]
        axis = next((t.split(":", 1)[1] for t in tags if t.startswith("axis:")), None)
        row: dict[str, Any] = {"id": f"{id_prefix}{n:0{width}d}", "description": item["criterion"], "weight": points}
        if axis:
            row["tag"] = axis
        if tags:
            row["tags"] = tags
        rows.append(row)
    return rows


def task_prompt(example: dict[str, Any]) -> str:
    """The conversation the model answered, as Markdown (one section per message)."""
    messages = example.get("prompt")
    if not isinstance(messages, list) or not messages:
        raise HealthBenchError("example has no 'prompt' messages")
    parts = ["# Task: answer the user's last message", ""]
    for m in messages:
        if isinstance(m, dict):
            parts += [f"## {m.get('role', 'user')}", "", str(m.get("content", "")).strip(), ""]
    return "\n".join(parts).rstrip() + "\n"


def ideal_completion(example: dict[str, Any]) -> str | None:
    """The physician-written ideal completion, or None when the example has none."""
    data = example.get("ideal_completions_data")
    ideal = data.get("ideal_completion") if isinstance(data, dict) else None
    return ideal if isinstance(ideal, str) else None


def atif_trajectory(example: dict[str, Any], answer: str, *, session_id: str) -> dict[str, Any]:
    """An ATIF v1.4 trajectory whose last agent step is `answer`."""
    steps: list[dict[str, Any]] = []
    for m in example.get("prompt", []):
        source = "agent" if m.get("role") == "assistant" else "user"
        steps.append({"step_id": len(steps) + 1, "source": source, "message": str(m.get("content", ""))})
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": answer})
    return {
        "schema_version": "ATIF-v1.4",
        "session_id": session_id,
        "agent": {"name": "healthbench-ideal-completion", "version": "1", "model_name": "physician"},
        "steps": steps,
    }


def is_graded_record(value: Any) -> bool:
    """True for a simple-evals graded record (``rubric_items`` carrying ``criteria_met``)."""
    items = value.get("rubric_items") if isinstance(value, dict) else None
    return isinstance(items, list) and bool(items) and all(isinstance(i, dict) and "criteria_met" in i for i in items)


def from_record(record: dict[str, Any]) -> tuple[dict[str, Any], str | None, list[dict[str, Any]]]:
    """Split a graded record into (example, graded response, grades).

    The example has the record's ``prompt_id``, ``prompt`` and ``rubrics`` (its rubric
    items without the grades); the response is the last completion message's text (None
    when absent); grades are ``{"criteria_met": bool, "explanation": str}`` in rubric order.

    Raises:
        HealthBenchError: not a graded record, or a grade that is not true/false.
    """
    if not is_graded_record(record):
        raise HealthBenchError("not a graded HealthBench record (no 'rubric_items' with 'criteria_met')")
    rubrics, grades = [], []
    for n, item in enumerate(record["rubric_items"], start=1):
        met = item.get("criteria_met")
        if not isinstance(met, bool):
            raise HealthBenchError(f"rubric item {n}: 'criteria_met' must be true or false, got {met!r}")
        rubrics.append({k: item[k] for k in ("criterion", "points", "tags") if k in item})
        grades.append({"criteria_met": met, "explanation": str(item.get("explanation") or "")})
    completion = record.get("completion")
    response = None
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        response = str(completion[-1].get("content") or "") or None
    elif isinstance(completion, str) and completion:
        response = completion
    example = {"prompt_id": record.get("prompt_id"), "prompt": record.get("prompt"), "rubrics": rubrics,
               "example_tags": record.get("example_tags") or []}
    return example, response, grades


def oracle(rows: Sequence[dict[str, Any]], grades: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Grades (rubric order, as from `from_record`) as oracle verdicts ``{row id: {"hit", "reason"}}``.

    Raises:
        HealthBenchError: the number of grades differs from the number of rows.
    """
    if len(rows) != len(grades):
        raise HealthBenchError(f"{len(grades)} grades for {len(rows)} rubric items")
    out = {}
    for row, grade in zip(rows, grades):
        entry: dict[str, Any] = {"hit": bool(grade["criteria_met"])}
        reason = grade.get("explanation")
        entry["reason"] = f"HealthBench grade: {reason}" if reason else "HealthBench grade"
        out[row["id"]] = entry
    return out


def example_score(example: dict[str, Any], met: Sequence[bool]) -> float | None:
    """HealthBench's per-example score: Σ points of met criteria / Σ positive points (not
    clipped); None when no criterion has positive points. Source: ``calculate_score`` in
    openai/simple-evals ``healthbench_eval.py``; kept here to check the round trip.

    Raises:
        HealthBenchError: `met` does not have one entry per rubric item.
    """
    rubrics = example.get("rubrics") or []
    if len(rubrics) != len(met):
        raise HealthBenchError(f"{len(met)} grades for {len(rubrics)} rubric items")
    possible = math.fsum(r["points"] for r in rubrics if r["points"] > 0)
    if possible == 0:
        return None
    return math.fsum(r["points"] for r, m in zip(rubrics, met) if m) / possible


def instance_tags(example: dict[str, Any]) -> dict[str, Any]:
    """Instance-level tags for ``summarize --group-by``: the example's ``example_tags``
    (``theme:hedging``, ``physician_agreed_category:…``) as a tag list."""
    out: dict[str, Any] = {"collection": "healthbench"}
    tags = [t for t in example.get("example_tags") or [] if isinstance(t, str)]
    if tags:
        out["tags"] = tags
    return out
