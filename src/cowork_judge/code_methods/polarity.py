"""Rows a code method would score backwards: a hurdle or deduction judged by a method whose hit
means "the requirement is met" (trial 14 F8).

A hurdle or a deduction (weight < 0) reads its ``hit`` as "the fault is present": a hit hurdle
is fatal, a hit deduction deducts. A method registered with ``hit_kind="requirement_met"``
(`code_methods.Registration`) answers the opposite question — ``locate_deck`` hits when a deck
IS delivered, ``check_deck_openable`` when the deck DOES open — so such a row zeroes a good
rollout and passes a bad one, whatever its description says (a code method never reads it).
The run refuses the rubric (`refuse_backwards_rows`, as it refuses any rubric it cannot score
right), and ``lint-rubric`` reports each row as M007.
"""

from __future__ import annotations

from collections.abc import Sequence

from cowork_judge.code_methods import registration
from cowork_judge.core.rubric import Criterion, RubricError


def backwards_problem(name: str, *, hurdle: bool, weight: float) -> str | None:
    """Why a row judged by code method `name` with `hurdle` / `weight` would be scored backwards,
    in words, or None when it would not (a positive row, a ``found`` method, an unregistered name)."""
    entry = registration(name)
    if entry is None or entry.hit_kind != "requirement_met" or not (hurdle or weight < 0):
        return None
    kind = "a hurdle" if hurdle else f"a deduction (weight {weight:g})"
    return (f"{name} hits when the requirement is met, but {kind} reads a hit as the fault being present: "
            f"the row would score backwards (a rollout that meets it penalised, one that fails it spared). "
            f"Use a gate (depends_on) for a deliverable that must exist, or a positive row")


def backwards_rows(criteria: Sequence[Criterion]) -> list[str]:
    """One ``"row <id>: <problem>"`` line per code row `backwards_problem` refuses, in rubric order."""
    out = []
    for row in criteria:
        if row.judge_method != "code" or not row.code.method_name:
            continue
        problem = backwards_problem(row.code.method_name, hurdle=row.hurdle, weight=row.weight)
        if problem is not None:
            out.append(f"row {row.id!r}: {problem}")
    return out


def refuse_backwards_rows(criteria: Sequence[Criterion]) -> None:
    """Refuse a rubric with a row `backwards_rows` names.

    Raises:
        RubricError: naming every such row (the run then ends ``judge:scorer_error``, "bad rubric").
    """
    problems = backwards_rows(criteria)
    if problems:
        raise RubricError("; ".join(problems))
