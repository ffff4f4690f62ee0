"""Does a task look like a chat task? The one heuristic `lint-rubric` (M006, A006: `lint.task_files`) and the run's delivery
warning (`files.files_only_rows_note`) share (trial 17 P-6: the run advised a deck task's
placeholder hurdle to search the chat message).

A chat task's agent answers in its final message and writes no file: no row of its rubric
locates a file (no workflow row but one of `MESSAGE_WORKFLOWS`, which read only the final message
or the trajectory; no code row but a text method's; no text row with a ``glob`` or ``path``), and
either a row judges the final message against a reference (`ANSWER_WORKFLOWS`: the defining row
of a reference-answer chat task, trial 18 P-2) or its prompt names no deliverable
(`DELIVERABLE_CUES`; the bare word "file" not inside a prohibition, `prohibited_spans`: "Do not create any files."
names none, trial 19 P-1). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cowork_judge._util.prohibitions import PROHIBITION, prohibited_spans
from cowork_judge.code_methods.files import TEXT_METHODS
from cowork_judge.evidence.deck_request import asks_for_deck
from cowork_judge.evidence.kinds import DECK_SUFFIXES

DELIVERABLE_CUES = ("output/", "/app/", *DECK_SUFFIXES, ".docx", ".xlsx", ".csv", ".md", "file", "文件")
"""Words of a prompt that name a deliverable (a chat task's prompt mentions none); the deck suffixes are the code
methods' (`evidence.kinds.DECK_SUFFIXES`, the keys of `code_methods.decks.DECK_SUFFIXES`; read from `evidence.kinds`
so that a code-only run does not import the deck methods: selftests/reliability/test_rel_startup.py)."""

MESSAGE_WORKFLOWS = frozenset({"answer_match", "trajectory_judge"})
"""Workflows that read no deliverable file: ``answer_match`` judges the final message (its text deliverables
only when there is none), ``trajectory_judge`` the agent's trajectory. Every other workflow (``ppt_judge``, a
plugin's) counts as locating a file — the heuristic errs toward silence."""
ANSWER_WORKFLOWS = frozenset({"answer_match"})
"""Workflows whose row judges the final message against a reference answer: a positive chat-task signal."""

RowShape = tuple[str | None, str | None, Mapping[str, Any]]
"""One row as the heuristic reads it: ``(judge_method, name, code_method_params)``; `name` is the
``code_method_name`` of a code row, the ``workflow_name`` of a workflow row."""


def locates_files(rows: Iterable[RowShape]) -> bool:
    """True when some row of `rows` judges a file: a workflow row of a workflow not in `MESSAGE_WORKFLOWS`,
    a code row of a method that is not a text method (`TEXT_METHODS`), or a text row with a ``glob`` or
    ``path``."""
    for method, name, params in rows:
        if method == "workflow" and name not in MESSAGE_WORKFLOWS:
            return True
        if method == "code" and (name not in TEXT_METHODS or "glob" in params or "path" in params):
            return True
    return False


def judges_answer(rows: Iterable[RowShape]) -> bool:
    """True when some row of `rows` is a workflow row of `ANSWER_WORKFLOWS` (it judges the final message)."""
    return any(method == "workflow" and name in ANSWER_WORKFLOWS for method, name, _ in rows)


PROHIBITABLE_CUES = ("file", "文件")
"""The cues of `DELIVERABLE_CUES` that do not count inside a prohibition (`prohibited_spans`): the bare word. A named
deliverable (``output/``, ``/app/``, an extension: "no more than 200 words in report.md") always counts."""


def names_deliverable(prompt: str) -> bool:
    """True when `prompt` names a deliverable: one of `DELIVERABLE_CUES` (case-folded), where the bare word
    (`PROHIBITABLE_CUES`: "file", "文件") counts only outside a prohibition (`prohibited_spans`; trial 19 P-1: "Do not
    create any files." names none), or it asks for a deck in words (`evidence.deck_request.asks_for_deck`: "Make a
    slide deck", trial 38 P-2: the classifier init and M012 read). A heuristic that errs toward a file task (silence)."""
    folded, allowed = prompt.casefold(), PROHIBITION.sub(" ", prompt).casefold()
    return any(cue in (allowed if cue in PROHIBITABLE_CUES else folded) for cue in DELIVERABLE_CUES) or asks_for_deck(prompt)


def looks_like_chat_task(rows: Iterable[RowShape], prompts: Iterable[str]) -> bool:
    """True when no row of `rows` locates a file (`locates_files`) and either a row judges the final
    message against a reference (`judges_answer`) or none of `prompts` (the task's prompt texts; an absent
    one is simply not passed) names a deliverable (`names_deliverable`)."""
    shapes = list(rows)
    if locates_files(shapes):
        return False
    return judges_answer(shapes) or not any(names_deliverable(p) for p in prompts)


def shape_of(method: str | None, code_method: str | None, workflow: str | None, params: Any) -> RowShape:
    """The `RowShape` of one row: its method, the name that method reads (`code_method` for a code row,
    `workflow` for a workflow row, else None) and its params ({} when not an object)."""
    name = code_method if method == "code" else workflow if method == "workflow" else None
    return method, name, params if isinstance(params, Mapping) else {}


__all__ = ["ANSWER_WORKFLOWS", "DELIVERABLE_CUES", "MESSAGE_WORKFLOWS", "judges_answer", "looks_like_chat_task",
           "locates_files", "names_deliverable", "PROHIBITABLE_CUES", "prohibited_spans", "shape_of"]
