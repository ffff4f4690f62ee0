"""Reference-answer problems (one JSON object per line) → `answer_match` rows, prompt and labels.

The line format follows the team's answer-judging data (``seeds/000``): a problem, its
reference answer and solution, an agent's response, and statistics keys. Accepted keys
(first spelling wins):

==================  =======================================================================
``id``              ``id``, ``problem_id`` (string or integer; required)
question            ``question``, ``problem``, ``problem_text``
reference answer    ``reference_answer``, ``answer``, ``problem_answer`` (a list = parts)
reference solution  ``reference_solution``, ``solution``, ``problem_solution``
response            ``response`` (the agent's final answer; optional)
statistics          ``difficulty``, ``collection``, ``tags`` / ``problem_tags`` (list)
judging             ``rel_tol`` (relative tolerance of this problem), ``steps`` (key steps)
label               ``verdict``: ``correct`` / ``partially_correct`` / ``incorrect``
==================  =======================================================================

Rows: ``ANSWER`` (`answer_row`) and, with ``process=True`` and a solution, ``PROCESS``
(`process_row`); weights as given (the seed's 0.3 answer / 0.7 process by default when
both exist, else the answer row alone weighs 1). Rows carry ``difficulty``, ``collection`` and
the tags (as ``topic:<tag>`` entries of ``tags``) so ``summarize --group-by
difficulty,topic,collection`` can tabulate rows as well as instances.
"""

from __future__ import annotations

import json
import math
from typing import Any

from cowork_judge.workflow.answer_match.rows import answer_row, process_row

LABEL_LEVELS = {"correct": 1.0, "partially_correct": 0.5, "incorrect": 0.0}
"""The seed's answer verdicts as levels of the ANSWER row."""
ANSWER_ID, PROCESS_ID = "ANSWER", "PROCESS"


class AnswersError(ValueError):
    """The line is not a reference-answer problem (the message names the field)."""


def _first(record: dict[str, Any], *keys: str) -> Any:
    return next((record[k] for k in keys if record.get(k) not in (None, "")), None)


def problem_id(record: Any) -> str:
    """The problem's id as text.

    Raises:
        AnswersError: not an object, or no string/integer ``id`` / ``problem_id``.
    """
    if not isinstance(record, dict):
        raise AnswersError("a problem is a JSON object")
    value = _first(record, "id", "problem_id")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise AnswersError("the problem has no 'id' (or 'problem_id')")
    return str(value).strip()


def topic_tags(record: dict[str, Any]) -> list[str]:
    """The problem's tags as ``topic:<tag>`` entries."""
    tags = _first(record, "tags", "problem_tags") or []
    return [f"topic:{t}" for t in tags if isinstance(t, str) and t.strip()] if isinstance(tags, list) else []


def rubric_rows(record: dict[str, Any], *, process: bool = False, answer_weight: float | None = None,
                process_weight: float | None = None, rel_tol: float | None = None) -> list[dict[str, Any]]:
    """The ANSWER row (and the PROCESS row when asked and a solution exists).

    Raises:
        AnswersError: no reference answer and no solution, or a malformed field.
    """
    for key in ("reference_answer", "answer", "problem_answer"):
        if key in record and (record[key] is None or (isinstance(record[key], (str, list)) and not any(
                str(p).strip() for p in ([record[key]] if isinstance(record[key], str) else record[key])))):
            raise AnswersError(f"'{key}' is {json.dumps(record[key])}: there is no reference answer to compare the "
                               f"response with (drop the key to judge by the solution alone, or give the answer)")
    reference = _first(record, "reference_answer", "answer", "problem_answer")
    solution = _first(record, "reference_solution", "solution", "problem_solution")
    question = _first(record, "question", "problem", "problem_text")
    for name, value in (("solution", solution), ("question", question)):
        if value is not None and not isinstance(value, str):
            raise AnswersError(f"'{name}' must be a string")
    if isinstance(reference, float) and not math.isfinite(reference):  # JSON's NaN / Infinity (trial 12 F9)
        key = next(k for k in ("reference_answer", "answer", "problem_answer") if record.get(k) is reference)
        raise AnswersError(f"'{key}' is {json.dumps(reference)}, not a finite number: there is no reference answer "
                           "to compare the response with")
    if isinstance(reference, (int, float)) and not isinstance(reference, bool):
        reference = repr(reference) if isinstance(reference, float) else str(reference)
    if reference is None:
        if not solution:
            raise AnswersError("the problem has neither a reference answer nor a solution")
        reference = ""
    if not isinstance(reference, (str, list)) or (isinstance(reference, list) and not all(isinstance(p, str) for p in reference)):
        raise AnswersError("'reference_answer' must be a string or a list of strings")
    tol = record.get("rel_tol", rel_tol)
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 <= tol <= 1):
        raise AnswersError("'rel_tol' must be a number in [0, 1]")
    carried: dict[str, Any] = {}
    if isinstance(record.get("difficulty"), (str, int)) and not isinstance(record.get("difficulty"), bool):
        carried["difficulty"] = str(record["difficulty"])
    if topic_tags(record):
        carried["tags"] = topic_tags(record)
    if isinstance(record.get("collection"), str) and record["collection"]:
        carried["collection"] = record["collection"]
    with_process = process and bool(solution)
    aw = answer_weight if answer_weight is not None else (0.3 if with_process else 1.0)
    pw = process_weight if process_weight is not None else 0.7
    rows = [answer_row(ANSWER_ID, reference, weight=aw, rel_tol=tol, solution=solution, question=question, **carried)]
    if with_process:
        steps = record.get("steps") or []
        if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
            raise AnswersError("'steps' must be a list of strings")
        rows.append(process_row(PROCESS_ID, solution, weight=pw, steps=steps, question=question, **carried))
    return rows


def task_prompt(record: dict[str, Any]) -> str:
    """The problem as Markdown (the question; the id when there is none)."""
    question = _first(record, "question", "problem", "problem_text")
    body = question.strip() if isinstance(question, str) else f"Problem {problem_id(record)}."
    return f"# Task: solve the problem\n\n{body}\n\nGive your final answer on a last line starting with \"Final answer:\".\n"


def response(record: dict[str, Any]) -> str | None:
    """The agent's response stored with the problem, or None."""
    value = record.get("response")
    return value if isinstance(value, str) and value.strip() else None


def oracle(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The stored ``verdict`` as an oracle entry of the ANSWER row ({} when there is none).

    Raises:
        AnswersError: a verdict that is not one of `LABEL_LEVELS`.
    """
    verdict = record.get("verdict")
    if verdict is None:
        return {}
    if verdict not in LABEL_LEVELS:
        raise AnswersError(f"'verdict' must be one of {', '.join(LABEL_LEVELS)}, got {verdict!r}")
    level = LABEL_LEVELS[verdict]
    return {ANSWER_ID: {"hit": level > 0, "level": level, "reason": f"stored verdict: {verdict}"}}


def instance_tags(record: dict[str, Any]) -> dict[str, Any]:
    """Instance-level tags: ``collection``, ``difficulty`` and the ``topic:`` tags."""
    out: dict[str, Any] = {"collection": str(record.get("collection") or "answers")}
    if isinstance(record.get("difficulty"), (str, int)) and not isinstance(record.get("difficulty"), bool):
        out["difficulty"] = str(record["difficulty"])
    if topic_tags(record):
        out["tags"] = topic_tags(record)
    return out
