"""PaperBench (OpenAI preparedness, MIT) rubric trees → flat rubric rows.

A PaperBench tree node has ``id``, ``weight``, ``requirements`` (text), ``sub_tasks`` and,
in human-graded trees, ``score``. A node's score is the weighted mean of its children's
scores (weights normalized among siblings). Flattening gives each leaf the weight
``Π w_node / Σ w_siblings`` along its root path, so that ``Σ leaf_weight · leaf_score``
equals the root score exactly — which is the engine's ``E / W`` with ``W = 1``.

For an instance (`rubric_and_oracle`) the stored leaf grades leave the rows and become the
oracle (SPEC §20 format): the rubric the judge reads carries no human grade.
"""

from __future__ import annotations

from typing import Any


class PaperBenchError(ValueError):
    """The document is not a PaperBench rubric tree."""


MAX_DEPTH = 64
"""Deepest tree accepted (levels below the root). Published PaperBench trees are 3-7 levels
deep; the cap turns a hostile 5,000-level tree into a clear error instead of a RecursionError."""


def check_depth(tree: Any) -> None:
    """Refuse a tree nested deeper than `MAX_DEPTH` (walked without recursion).

    Raises:
        PaperBenchError: naming the depth reached and the cap.
    """
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise PaperBenchError(f"the tree is nested deeper than {MAX_DEPTH} levels (a rubric tree is a few levels deep)")
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.get("sub_tasks") or [] if isinstance(node.get("sub_tasks"), list))


def flatten(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Leaves of `tree` as rubric rows ``{id, description, weight, tag, paperbench_score}``.

    Siblings whose weights sum to 0 contribute nothing (their leaves get weight 0).

    Raises:
        PaperBenchError: a node without ``id`` or with a non-numeric / negative weight.
    """
    rows: list[dict[str, Any]] = []

    def walk(node: dict[str, Any], share: float) -> None:
        children = node.get("sub_tasks") or []
        if not children:
            row = {
                "id": str(node["id"]),
                "description": str(node.get("requirements") or node["id"]),
                "weight": share,
            }
            if node.get("task_category"):
                row["tag"] = str(node["task_category"])
            if isinstance(node.get("score"), (int, float)):
                row["paperbench_score"] = float(node["score"])
            rows.append(row)
            return
        weights = [_weight(c) for c in children]
        total = sum(weights)
        for child, w in zip(children, weights):
            walk(child, share * (w / total) if total > 0 else 0.0)

    if not isinstance(tree, dict) or "id" not in tree:
        raise PaperBenchError("a PaperBench tree is an object with an 'id'")
    check_depth(tree)
    walk(tree, 1.0)
    return rows


def _weight(node: Any) -> float:
    if not isinstance(node, dict) or "id" not in node:
        raise PaperBenchError("every node needs an 'id'")
    w = node.get("weight", 1)
    if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
        raise PaperBenchError(f"node {node['id']}: weight must be a non-negative number")
    return float(w)


LEVELS_BINARY = {"0": "the requirement is not met", "1": "the requirement is met"}


def rubric_and_oracle(tree: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Rows of `tree` for ``rubric.json`` (no stored grades in them) and its leaf grades as
    oracle verdicts ``{leaf id: {"hit": score > 0, "level"?: score, "reason": …}}``.

    PaperBench grades leaves 0 or 1, and those stay binary rows. A leaf with a grade strictly
    between 0 and 1 becomes a gradient row whose levels are 0, that grade and 1, and its
    oracle entry carries the grade as ``level``, so judging with the oracle reproduces the
    stored root score exactly either way. Leaves without a numeric grade, or with
    ``valid_score: false``, are left out of the oracle.

    Raises:
        PaperBenchError: as `flatten`; a grade outside [0, 1].
    """
    check_depth(tree)
    valid: dict[str, bool] = {}

    def walk(node: dict[str, Any]) -> None:
        valid[str(node.get("id"))] = node.get("valid_score") is not False
        for child in node.get("sub_tasks") or []:
            if isinstance(child, dict):
                walk(child)

    walk(tree)
    rows, oracle = [], {}
    for row in flatten(tree):
        grade = row.pop("paperbench_score", None)
        if grade is not None and not 0.0 <= grade <= 1.0:
            raise PaperBenchError(f"leaf {row['id']}: score {grade} is outside [0, 1]")
        if grade is not None and 0.0 < grade < 1.0:
            row["type"] = "gradient"
            row["levels"] = {"0": LEVELS_BINARY["0"], f"{grade:g}": "the requirement is partly met", "1": LEVELS_BINARY["1"]}
        rows.append(row)
        if grade is not None and valid.get(row["id"], True):
            entry: dict[str, Any] = {"hit": grade > 0, "reason": "PaperBench human grade"}
            if row.get("type") == "gradient":
                entry["level"] = grade
            oracle[row["id"]] = entry
    return rows, oracle


def stored_root_score(tree: dict[str, Any]) -> float | None:
    """The human-graded root score stored in `tree`, or None when it has none."""
    value = tree.get("score") if isinstance(tree, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def task_prompt(tree: dict[str, Any], name: str) -> str:
    """The task as Markdown: reproduce the paper (the root requirement names it)."""
    root = str(tree.get("requirements") or "").strip()
    lines = [f"# Task: reproduce the paper ({name})", ""]
    if root:
        lines += [root, ""]
    lines += ["Write the code, run it, and report the results in the submission folder (`output/`).", ""]
    return "\n".join(lines)


__all__ = ["PaperBenchError", "flatten", "rubric_and_oracle", "stored_root_score", "task_prompt"]
