"""PaperBench (OpenAI preparedness, MIT) rubric trees → flat rubric rows.

A PaperBench tree node has ``id``, ``weight``, ``requirements`` (text), ``sub_tasks`` and,
in human-graded trees, ``score``. A node's score is the weighted mean of its children's
scores (weights normalized among siblings). Flattening gives each leaf the weight
``Π w_node / Σ w_siblings`` along its root path, so that ``Σ leaf_weight · leaf_score``
equals the root score exactly — which is the engine's ``E / W`` with ``W = 1``.
"""

from __future__ import annotations

from typing import Any


class PaperBenchError(ValueError):
    """The document is not a PaperBench rubric tree."""


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
    walk(tree, 1.0)
    return rows


def _weight(node: Any) -> float:
    if not isinstance(node, dict) or "id" not in node:
        raise PaperBenchError("every node needs an 'id'")
    w = node.get("weight", 1)
    if isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0:
        raise PaperBenchError(f"node {node['id']}: weight must be a non-negative number")
    return float(w)
