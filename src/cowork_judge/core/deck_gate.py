"""Which model-judged rows of a rubric no deliverable gate guards (trial 28 P-5).

A deck task's model-judged rows are meant to judge the deck. With no deck delivered and a final
message, the run falls back to the message (``JUDGE_CHAT_FALLBACK``): a row gated on a row that
locates the deliverable (``depends_on`` a positive ``locate_deck``, ``check_deck_openable`` or
``file_exists`` row) is then not met without a model call, but an ungated row is judged on what the
agent *says* it made. Lint (M015) and the run's ``delivery:`` warning read `ungated_model_rows`.

A deck workflow's row (``ppt_judge``, `DECK_WORKFLOWS`) is different (trial 29 P-6): with no deck it is a
judged miss without a model call, not judged on the message; ungated, a rollout that leaves two or more decks
and locates none leaves it unjudged (``workflow_error``: a systemic, masked sample) where a gate gives a judged
0. `split_ungated` tells the two kinds apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from cowork_judge.core.rubric import DECK_CODE_METHODS, Criterion

DECK_WORKFLOWS: frozenset[str] = frozenset({"ppt_judge"})
"""The workflows that judge a deck (no message fallback: with no deck their rows are a judged miss)."""

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


def split_ungated(criteria: Sequence[Criterion]) -> tuple[list[str], list[str]]:
    """`ungated_model_rows` of `criteria` in two lists (rubric order): the agentic rows, judged on the agent's final
    message in the deck's place when no deck is delivered, and the deck workflow rows (`DECK_WORKFLOWS`), which are
    a judged miss then and need the gate for a rollout with several decks. Other workflows' rows (answer_match,
    trajectory_judge) are in neither: they read the message or the trajectory by design."""
    method = {c.id: c.judge_method for c in criteria}
    deck_rows = {c.id for c in criteria if c.judge_method == "workflow" and c.workflow.name in DECK_WORKFLOWS}
    rows = ungated_model_rows(criteria)
    return [r for r in rows if method[r] == "agentic"], [r for r in rows if r in deck_rows]


def locate_deck_ids(criteria: Sequence[Criterion]) -> list[str]:
    """Ids (rubric order) of the positive ``locate_deck`` code rows of `criteria`: the gate
    ``gen-ppt-rubrics --gate`` is given."""
    return [c.id for c in criteria
            if c.judge_method == "code" and c.code.method_name == "locate_deck" and c.polarity == "positive"]


__all__ = ["DECK_WORKFLOWS", "GATE_METHODS", "gate_ids", "locate_deck_ids", "split_ungated", "ungated_model_rows"]
