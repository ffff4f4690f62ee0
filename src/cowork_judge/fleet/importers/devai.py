"""DevAI (metauto-ai/agent-as-a-judge, MIT) tasks → rubric rows, task prompt and oracle verdicts.

A DevAI task has a ``query`` (the user's request), ``requirements`` (``requirement_id``,
``criteria`` text, ``category``, ``prerequisites``: ids of requirements it builds on) and
``preferences`` (soft wishes, not part of DevAI's requirement metric). Human judgments
(``human_labels/``) have the same shape with ``satisfied`` filled in.

Requirements become binary rows of weight 1 (DevAI counts satisfied requirements); each
``prerequisites`` list becomes ``depends_on`` exactly as written — NOT closed: DevAI lists
only direct prerequisites, and the engine's gates read raw hits, so a converted rubric
needs ``lint-rubric --fix-closure`` before it ships. Preferences become weight-0 rows
(judged, reported, never scored) only when asked for.
"""

from __future__ import annotations

from typing import Any


class DevAIError(ValueError):
    """The document is not a DevAI task."""


def requirement_id(number: int, *, prefix: str = "R") -> str:
    """Row id of DevAI requirement `number` (``R00``, ``R01`` …)."""
    return f"{prefix}{number:02d}"


def rubric_rows(task: dict[str, Any], *, preferences: bool = False) -> list[dict[str, Any]]:
    """Rubric rows of one task, requirements first (file order), then preferences if asked.

    Raises:
        DevAIError: no ``requirements`` list, a requirement without an integer id or
            text, or prerequisites that are not a list of integers.
    """
    requirements = task.get("requirements") if isinstance(task, dict) else None
    if not isinstance(requirements, list) or not requirements:
        raise DevAIError("task has no 'requirements' list")
    rows: list[dict[str, Any]] = []
    for n, item in enumerate(requirements, start=1):
        if not isinstance(item, dict):
            raise DevAIError(f"requirement {n} is not an object")
        number = item.get("requirement_id")
        if isinstance(number, bool) or not isinstance(number, int):
            raise DevAIError(f"requirement {n} has no integer 'requirement_id'")
        text = item.get("criteria")
        if not isinstance(text, str) or not text.strip():
            raise DevAIError(f"requirement {number} has no 'criteria' text")
        prerequisites = item.get("prerequisites") or []
        if not isinstance(prerequisites, list) or any(isinstance(p, bool) or not isinstance(p, int) for p in prerequisites):
            raise DevAIError(f"requirement {number}: 'prerequisites' must be a list of requirement ids")
        row: dict[str, Any] = {"id": requirement_id(number), "description": text.strip(), "weight": 1}
        if prerequisites:
            row["depends_on"] = [requirement_id(p) for p in prerequisites]
        if isinstance(item.get("category"), str):
            row["tag"] = item["category"]
        rows.append(row)
    if preferences:
        for n, item in enumerate(task.get("preferences") or [], start=1):
            if not isinstance(item, dict) or not isinstance(item.get("criteria"), str):
                raise DevAIError(f"preference {n} has no 'criteria' text")
            number = item.get("preference_id", n - 1)
            rows.append({"id": requirement_id(int(number), prefix="P"), "description": item["criteria"].strip(),
                         "weight": 0, "tag": "preference"})
    return rows


def task_prompt(task: dict[str, Any]) -> str:
    """The user's request as Markdown.

    Raises:
        DevAIError: no ``query`` text.
    """
    query = task.get("query") if isinstance(task, dict) else None
    if not isinstance(query, str) or not query.strip():
        raise DevAIError("task has no 'query' text")
    name = task.get("name")
    title = f"# Task: {name}" if isinstance(name, str) and name else "# Task"
    return f"{title}\n\n{query.strip()}\n"


def oracle(labels: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Human judgments as simulator oracle verdicts ``{row id: {"hit": bool}}`` (SPEC §20).

    Requirements whose ``satisfied`` is not a boolean are left out (the oracle then
    answers ``hit=false``, "not in oracle").
    """
    out: dict[str, dict[str, Any]] = {}
    for item in labels.get("requirements") or []:
        if isinstance(item, dict) and isinstance(item.get("satisfied"), bool) and isinstance(item.get("requirement_id"), int):
            out[requirement_id(item["requirement_id"])] = {"hit": item["satisfied"], "reason": "DevAI human label"}
    return out


__all__ = ["DevAIError", "oracle", "requirement_id", "rubric_rows", "task_prompt"]
