"""Which model-judged rows of a rubric no deliverable gate guards (trial 28 P-5).

A deck task's model-judged rows are meant to judge the deck. With no deck delivered and a final
message, the run falls back to the message (``JUDGE_CHAT_FALLBACK``): a row gated on a row that
locates the deliverable (``depends_on`` a positive ``locate_deck``, ``check_deck_openable`` or
``file_exists`` row) is then not met without a model call, but an ungated row is judged on what the
agent *says* it made. Lint (M015) and the run's ``delivery:`` warning read `ungated_model_rows`.
"""

from __future__ import annotations

from collections.abc import Sequence

from cowork_judge.core.rubric import DECK_CODE_METHODS, Criterion

GATE_METHODS: frozenset[str] = DECK_CODE_METHODS | {"file_exists"}
"""Code methods whose positive row, listed in ``depends_on``, closes the gate when no deliverable exists."""


def gate_ids(criteria: Sequence[Criterion]) -> set[str]:
    """Ids of the rows of `criteria` that gate on a deliverable: positive code rows of `GATE_METHODS`."""
    return {c.id for c in criteria
            if c.judge_method == "code" and c.code.method_name in GATE_METHODS and c.polarity == "positive"}


def ungated_model_rows(criteria: Sequence[Criterion]) -> list[str]:
    """Ids (rubric order) of the positive model-judged rows (agentic or workflow: not code) whose ``depends_on``
    closure holds no deliverable gate (`gate_ids`). Hurdles and deductions are left out: ``depends_on`` never
    gates them. Dangling ids and cycles are walked safely (each row once)."""
    gates = gate_ids(criteria)
    deps = {c.id: c.depends_on for c in criteria}
    out = []
    for crit in criteria:
        if crit.judge_method == "code" or crit.polarity != "positive" or crit.hurdle:
            continue
        seen: set[str] = set()
        todo = list(crit.depends_on)
        while todo:
            row = todo.pop()
            if row in seen:
                continue
            seen.add(row)
            todo.extend(deps.get(row, ()))
        if not seen & gates:
            out.append(crit.id)
    return out


__all__ = ["GATE_METHODS", "gate_ids", "ungated_model_rows"]
