"""Does a task look like a chat task? The one heuristic `lint-rubric` (M006, A006: `lint.task_files`) and the run's delivery
warning (`files.files_only_rows_note`) share (trial 17 P-6: the run advised a deck task's
placeholder hurdle to search the chat message).

A chat task's agent answers in its final message and writes no file: no row of its rubric
locates a file (no workflow row, no code row but a text method's, no text row with a ``glob``
or ``path``), and its prompt names no deliverable (`DELIVERABLE_CUES`). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from cowork_judge.code_methods.decks import DECK_SUFFIXES
from cowork_judge.code_methods.files import TEXT_METHODS

DELIVERABLE_CUES = ("output/", "/app/", *DECK_SUFFIXES, ".docx", ".xlsx", ".csv", ".md", "file", "文件")
"""Words of a prompt that name a deliverable (a chat task's prompt mentions none); the deck suffixes are the code
methods' (`code_methods.decks.DECK_SUFFIXES`: no module but `evidence.kinds` spells them)."""

RowShape = tuple[str | None, str | None, Mapping[str, Any]]
"""One row as the heuristic reads it: ``(judge_method, code_method_name, code_method_params)``."""


def locates_files(rows: Iterable[RowShape]) -> bool:
    """True when some row of `rows` judges a file: a workflow row, a code row of a method that is not a
    text method (`TEXT_METHODS`), or a text row with a ``glob`` or ``path``."""
    for method, name, params in rows:
        if method == "workflow" or (method == "code" and (name not in TEXT_METHODS or "glob" in params
                                                          or "path" in params)):
            return True
    return False


def names_deliverable(prompt: str) -> bool:
    """True when `prompt` names a deliverable (one of `DELIVERABLE_CUES`, case-folded)."""
    folded = prompt.casefold()
    return any(cue in folded for cue in DELIVERABLE_CUES)


def looks_like_chat_task(rows: Iterable[RowShape], prompts: Iterable[str]) -> bool:
    """True when no row of `rows` locates a file (`locates_files`) and none of `prompts` (the task's
    prompt texts; an absent one is simply not passed) names a deliverable (`names_deliverable`)."""
    return not locates_files(rows) and not any(names_deliverable(p) for p in prompts)


__all__ = ["DELIVERABLE_CUES", "looks_like_chat_task", "locates_files", "names_deliverable"]
