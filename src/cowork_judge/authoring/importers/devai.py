"""DevAI (metauto-ai/agent-as-a-judge, MIT) tasks → rubric rows, task prompt and oracle verdicts.

A DevAI task has a ``query`` (the user's request), ``requirements`` (``requirement_id``,
``criteria`` text, ``category``, ``prerequisites``: ids of requirements it builds on) and
``preferences`` (soft wishes, not part of DevAI's requirement metric). Human judgments
(``human_labels/``) have the same shape with ``satisfied`` filled in.

Requirements become binary rows of weight 1 (DevAI counts satisfied requirements); each
``prerequisites`` list becomes ``depends_on`` — by default exactly as written, which is NOT
closed: DevAI lists only direct prerequisites, and the engine's gates read raw hits (SPEC
§4), so `rubric_rows(..., transitive=True)` (what ``cowork-judge import devai`` writes)
gives each row the transitive closure, the same ids ``lint-rubric --fix-closure`` would
add. Preferences become weight-0 rows (judged, reported, never scored) only when asked for.
"""

from __future__ import annotations

from typing import Any

from cowork_judge.fleet.calibrate import normalize_text


class DevAIError(ValueError):
    """The document is not a DevAI task."""


def requirement_id(number: int, *, prefix: str = "R") -> str:
    """Row id of DevAI requirement `number` (``R00``, ``R01`` …)."""
    return f"{prefix}{number:02d}"


def rubric_rows(task: dict[str, Any], *, preferences: bool = False, transitive: bool = False,
                warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """Rubric rows of one task, requirements first (file order), then preferences if asked.

    Args:
        task: a DevAI task (``instances/*.json``) or a human judgment (``human_labels/*.json``).
        preferences: add the preferences as weight-0 rows ``P00``….
        transitive: `depends_on` is the transitive closure of the prerequisites (see
            `close_dependencies`); False keeps DevAI's direct prerequisites.
        warnings: receives one line per quirk of the data that was repaired: a requirement
            listed as its own prerequisite (DevAI task 45: ``3 → 3``) is dropped from its
            ``depends_on`` (a self-gate can never open; it is no dependency). A cycle
            through other requirements stays an error.

    Raises:
        DevAIError: no ``requirements`` list, a requirement without an integer id or
            text, prerequisites that are not a list of integers, or (``transitive``) a
            prerequisite naming no requirement or a prerequisite cycle.
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
        if number in prerequisites:
            prerequisites = [p for p in prerequisites if p != number]
            if warnings is not None:
                warnings.append(f"requirement {requirement_id(number)} lists itself as a prerequisite; the self-reference "
                                "was dropped")
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
    return close_dependencies(rows) if transitive else rows


def close_dependencies(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows` with each ``depends_on`` replaced by its transitive closure.

    The ids a row already lists keep their order; ids reached through them follow in row
    order (the order ``lint-rubric --fix-closure`` appends them). Rows without
    dependencies are returned unchanged.

    Raises:
        DevAIError: a dependency names no row, or the dependencies form a cycle.
    """
    order = {row["id"]: n for n, row in enumerate(rows)}
    direct = {row["id"]: list(row.get("depends_on") or []) for row in rows}
    for row_id, deps in direct.items():
        missing = [d for d in deps if d not in order]
        if missing:
            raise DevAIError(f"requirement {row_id}: prerequisite {missing[0]} names no requirement")
    closed: dict[str, list[str]] = {}

    def close(row_id: str, path: tuple[str, ...]) -> list[str]:
        if row_id in closed:
            return closed[row_id]
        if row_id in path:
            raise DevAIError(f"prerequisite cycle: {' -> '.join((*path[path.index(row_id):], row_id))}")
        reached: set[str] = set()
        for dep in direct[row_id]:
            reached.add(dep)
            reached.update(close(dep, (*path, row_id)))
        first = list(direct[row_id])
        closed[row_id] = first + sorted(reached - set(first), key=order.__getitem__)
        return closed[row_id]

    out = []
    for row in rows:
        deps = close(row["id"], ())
        out.append({**row, "depends_on": deps} if deps else row)
    return out


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


def oracle(labels: dict[str, Any], task: dict[str, Any] | None = None,
           warnings: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Human judgments as simulator oracle verdicts ``{row id: {"hit": bool, "criterion": text}}`` (SPEC §20).

    Requirements whose ``satisfied`` is not a boolean are left out (the oracle then
    answers ``hit=false``, "not in oracle"). With `task`, a label is matched by id AND by
    its text (`normalize_text`): a label whose text differs from the task's requirement of
    that id, or that names no requirement, is dropped with a line in `warnings` naming
    both texts (DevAI task 52's labels have 5 requirements with shifted texts against
    the task's 4: applied by id, they would grade each row by its neighbour's label).
    """
    wanted: dict[int, str] | None = None
    if task is not None:
        wanted = {r["requirement_id"]: str(r.get("criteria") or "") for r in task.get("requirements") or []
                  if isinstance(r, dict) and isinstance(r.get("requirement_id"), int)}
    out: dict[str, dict[str, Any]] = {}
    for item in labels.get("requirements") or []:
        if isinstance(item, dict) and isinstance(item.get("satisfied"), bool) and isinstance(item.get("requirement_id"), int):
            number, text = item["requirement_id"], str(item.get("criteria") or "")
            rid = requirement_id(number)
            if wanted is not None:
                if number not in wanted:
                    if warnings is not None:
                        warnings.append(f"label {rid} dropped: the task has no requirement {rid} (label text: {text!r})")
                    continue
                if text and normalize_text(text) != normalize_text(wanted[number]):
                    if warnings is not None:
                        warnings.append(f"label {rid} dropped: its text {text!r} is not the requirement's "
                                        f"{wanted[number]!r}")
                    continue
            entry: dict[str, Any] = {"hit": item["satisfied"], "reason": "DevAI human label"}
            if text:
                entry["criterion"] = text
            out[rid] = entry
    return out


def instance_tags(task: dict[str, Any]) -> dict[str, Any]:
    """Instance-level tags for ``summarize --group-by``: DevAI's ``tags`` as ``topic:<tag>``
    entries, and the task's flags (``kaggle``, ``training``, ``web``) as booleans."""
    out: dict[str, Any] = {"collection": "devai"}
    tags = [f"topic:{t}" for t in task.get("tags") or [] if isinstance(t, str)]
    if tags:
        out["tags"] = tags
    for key, name in (("is_kaggle_api_needed", "kaggle"), ("is_training_needed", "training"), ("is_web_navigation_needed", "web")):
        if isinstance(task.get(key), bool):
            out[name] = task[key]
    return out


__all__ = ["DevAIError", "close_dependencies", "instance_tags", "normalize_text", "oracle", "requirement_id", "rubric_rows",
           "task_prompt"]
