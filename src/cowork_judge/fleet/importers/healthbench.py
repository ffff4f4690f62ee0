"""HealthBench (OpenAI, MIT) examples → rubric rows, task prompt and reference answer.

A HealthBench example has ``prompt`` (chat messages), ``rubrics`` (``criterion``,
``points`` — positive or negative —, ``tags``) and optionally
``ideal_completions_data.ideal_completion`` (a physician-written answer). Points become
weights unchanged; HealthBench's own score, Σ met points / Σ positive points clipped to
[0, 1], is exactly the engine's formula with hits as verdicts.
"""

from __future__ import annotations

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
    if isinstance(data, dict) and isinstance(data.get("ideal_completion"), str):
        return data["ideal_completion"]
    return None


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
