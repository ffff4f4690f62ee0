"""What an `answer_match` row carries, read and checked; and builders for such rows.

A row keeps its reference material under one key, ``answer_match`` (carried through by the
engine in ``extra``; it is configuration, never read by scoring)::

    {"id": "ANSWER", "description": "The final answer agrees with the reference answer.",
     "weight": 0.3, "type": "gradient", "levels": {"0": "…", "0.5": "…", "1": "…"},
     "judge_method": "workflow", "workflow_name": "answer_match",
     "answer_match": {"reference": "9.8 m/s^2", "rel_tol": 0.05, "solution": "…", "question": "…"}}

    {"id": "PROCESS", …, "levels": {21 levels 0, 0.05 … 1},
     "answer_match": {"process": true, "solution": "…", "steps": ["…", "…", "…"], "question": "…"}}

``reference`` is a string, or a list of strings for a multi-part answer (correct only when
every part is). ``rel_tol`` (relative, default ``workflow_config.answer_match.rel_tol``,
else 0.05) applies to numeric answers; 0 demands the exact number. A process row needs the
reference ``solution``; ``steps`` (3–6 key steps) are optional: without them the model
names the key steps first (one more call per rollout).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cowork_judge.workflow._contract import GRID_21
from cowork_judge.workflow.answer_match.quantity import part_texts

CONFIG_KEY = "answer_match"
DEFAULT_REL_TOL = 0.05
"""Relative tolerance of numeric answers when neither the row nor the workflow config sets one."""
MIN_STEPS, MAX_STEPS = 3, 6
"""A process row asks for this many key steps of the reference solution."""
ANSWER_LEVELS = {
    "0": "incorrect: the final answer disagrees with the reference, or there is none",
    "0.5": "partially correct: some parts right, or the right approach with a slip in the result",
    "1": "correct: every part of the final answer agrees with the reference",
}
STEP_LEVELS = {
    "0": "the step is wrong or missing",
    "0.5": "the approach of the step is right but its execution slips (a sign, a factor, a wrong intermediate value)",
    "1": "the step is carried out with correct reasoning and result",
}
PROCESS_LEVELS = {f"{g:g}": f"mean credit {g:g} over the key steps of the reference solution" for g in GRID_21}


class RowConfigError(ValueError):
    """The row's ``answer_match`` settings are missing or malformed (the message names the field)."""


@dataclass(frozen=True)
class RowSpec:
    """The checked settings of one row.

    Attributes:
        kind: ``answer`` (final answer vs reference) or ``process`` (key steps).
        parts: reference answer parts (answer rows; one entry when not multi-part).
        rel_tol: relative tolerance for numbers, in [0, 1].
        solution: the reference solution ("" when none).
        question: the problem statement ("" when none).
        steps: key steps given by the row (process rows), else ().
    """

    kind: str
    parts: tuple[str, ...]
    rel_tol: float
    solution: str
    question: str
    steps: tuple[str, ...]


def read_spec(extra: Mapping[str, Any], settings: Mapping[str, Any]) -> RowSpec:
    """Read a row's ``answer_match`` settings (`extra` is the row's carried-through keys).

    Raises:
        RowConfigError: no ``answer_match`` object, an answer row without ``reference`` (and
            no solution to take it from), a process row without ``solution``, a tolerance
            outside [0, 1], or steps that are not a list of 1–6 strings.
    """
    raw = extra.get(CONFIG_KEY)
    if not isinstance(raw, Mapping):
        raise RowConfigError(f"the row has no '{CONFIG_KEY}' object with its reference answer")
    tol = raw.get("rel_tol", settings.get("rel_tol", DEFAULT_REL_TOL))
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or not 0 <= tol <= 1:
        raise RowConfigError(f"{CONFIG_KEY}.rel_tol must be a number in [0, 1], got {tol!r}")
    solution = _text(raw.get("solution"), "solution")
    question = _text(raw.get("question", settings.get("question")), "question")
    if raw.get("process") is True:
        if not solution.strip():
            raise RowConfigError(f"a process row needs {CONFIG_KEY}.solution (the reference solution)")
        steps = raw.get("steps") or []
        if not isinstance(steps, list) or len(steps) > MAX_STEPS or not all(isinstance(s, str) and s.strip() for s in steps):
            raise RowConfigError(f"{CONFIG_KEY}.steps must be a list of at most {MAX_STEPS} non-empty strings")
        return RowSpec("process", (), float(tol), solution, question, tuple(s.strip() for s in steps))
    reference = raw.get("reference")
    if isinstance(reference, str):
        parts: tuple[str, ...] = (reference.strip(),)
    elif isinstance(reference, list) and reference and all(isinstance(p, str) and p.strip() for p in reference):
        parts = tuple(part_texts(reference))  # part labels such as "(a)" removed
    elif reference is None:
        parts = ("",)
    else:
        raise RowConfigError(f"{CONFIG_KEY}.reference must be a string or a non-empty list of strings")
    if not any(parts) and not solution.strip():
        raise RowConfigError(f"the row has neither {CONFIG_KEY}.reference nor a solution to take the answer from")
    return RowSpec("answer", parts, float(tol), solution, question, ())


def _text(value: Any, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RowConfigError(f"{CONFIG_KEY}.{name} must be a string")
    return value


def answer_row(row_id: str, reference: str | Sequence[str], *, weight: float = 1.0, rel_tol: float | None = None,
               solution: str | None = None, question: str | None = None, description: str | None = None,
               **carried: Any) -> dict[str, Any]:
    """A rubric row judging the final answer (levels 0 / 0.5 / 1); `carried` keys (e.g.
    ``difficulty``, ``tags``) are added to the row for statistics."""
    config: dict[str, Any] = {"reference": reference if isinstance(reference, str) else list(reference)}
    if rel_tol is not None:
        config["rel_tol"] = rel_tol
    if solution:
        config["solution"] = solution
    if question:
        config["question"] = question
    multi = not isinstance(reference, str) and len(reference) > 1
    text = description or ("The final answer agrees with the reference answer"
                           + (" in every part" if multi else "")
                           + " (numbers within the relative tolerance, symbols in any equivalent form).")
    return {"id": row_id, "description": text, "weight": weight, "type": "gradient", "levels": dict(ANSWER_LEVELS),
            "judge_method": "workflow", "workflow_name": CONFIG_KEY, **carried, CONFIG_KEY: config}


def process_row(row_id: str, solution: str, *, weight: float = 1.0, steps: Sequence[str] = (), question: str | None = None,
                description: str | None = None, **carried: Any) -> dict[str, Any]:
    """A rubric row judging the key steps of the reference solution (level = mean step credit)."""
    config: dict[str, Any] = {"process": True, "solution": solution}
    if steps:
        config["steps"] = list(steps)
    if question:
        config["question"] = question
    text = description or "The response carries out the key steps of the reference solution (each 1, 0.5 or 0; the level is their mean)."
    return {"id": row_id, "description": text, "weight": weight, "type": "gradient", "levels": dict(PROCESS_LEVELS),
            "judge_method": "workflow", "workflow_name": CONFIG_KEY, **carried, CONFIG_KEY: config}
