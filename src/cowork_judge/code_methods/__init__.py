"""The `code` segment's registry: deterministic checks with zero model calls (SPEC §8).

`CODE_METHODS` is the whitelist: only names registered here run, and an unknown name is
an unjudged row (`code_missing`) whose reason lists the known names. Every method takes
``(ctx, **params)`` — ``ctx`` read-only, typed as the part of the segment context a code
method reads (`segment.code_context.CodeContext`) — and returns
``(hit, reason, artifacts)``; the code segment carries ``artifacts`` (a dict) into the
context of the rows after it (``ctx.artifacts``) and the router merges them into the run's
state for the segments after it, so later segments judge the same files.
Adding a method never changes any existing package's behaviour.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from cowork_judge.code_methods import deck_checks, decks, files, globs, trajectory_checks

CodeResult = tuple[bool, str, dict[str, Any]]
CodeMethod = Callable[..., CodeResult]

CODE_METHODS: dict[str, CodeMethod] = {
    "locate_deck": decks.locate_deck,
    "check_deck_openable": deck_checks.check_deck_openable,
    "check_pptx_openable": deck_checks.check_pptx_openable,  # the seed packages' name; PowerPoint content only
    "file_exists": files.file_exists,
    "file_nonempty": files.file_nonempty,
    "file_matches_glob": files.file_matches_glob,
    "json_valid": files.json_valid,
    "text_contains": files.text_contains,
    "regex_match": files.regex_match,
    "word_count_between": files.word_count_between,
    "page_count_between": deck_checks.page_count_between,
    # rows about what the agent did: its ATIF trajectory (SPEC §8, issue 37)
    "tool_called": trajectory_checks.tool_called,
    "command_succeeded": trajectory_checks.command_succeeded,
    "no_step_errored": trajectory_checks.no_step_errored,
    "step_count_at_most": trajectory_checks.step_count_at_most,
    "file_written_before_final": trajectory_checks.file_written_before_final,
}
"""name → method. Read-only by convention; tests never mutate it."""

_SIMPLE: dict[str, type | tuple[type, ...]] = {"str": str, "int": int, "float": (int, float), "bool": bool}

VALUE_CHECKS: dict[CodeMethod, Callable[[dict[str, Any]], list[str]]] = {
    decks.locate_deck: decks.locate_param_errors,
    deck_checks.check_deck_openable: decks.path_param_errors,
    deck_checks.check_pptx_openable: decks.path_param_errors,
    deck_checks.page_count_between: decks.path_param_errors,
    files.file_exists: files.glob_param_errors,
    files.file_nonempty: files.glob_param_errors,
    files.file_matches_glob: files.glob_param_errors,
    files.json_valid: files.glob_param_errors,
    files.word_count_between: files.glob_param_errors,
    files.text_contains: files.text_param_errors,
    files.regex_match: files.regex_param_errors,
    trajectory_checks.command_succeeded: trajectory_checks.regex_param_errors,
    trajectory_checks.no_step_errored: trajectory_checks.regex_param_errors,
    trajectory_checks.file_written_before_final: trajectory_checks.glob_param_errors,
}
"""method → what is wrong with its parameters' VALUES once their types are right (a regex that
does not compile, a glob or deck path that can name no file…): deterministic refusals `param_errors`
reports before the method runs (so `lint-rubric` reports them as M002, trial 6 F14)."""


def param_errors(method: CodeMethod, params: dict[str, Any]) -> list[str]:
    """What is wrong with `params` for `method`, from its signature: unknown names,
    missing required ones, and values of the wrong type (annotations ``str``, ``int``,
    ``float``, ``bool``, ``list[str]``, each optionally ``| None``); then, types being
    right, values the method refuses (`VALUE_CHECKS`, and a ``glob`` `globs.check_glob` refuses). Empty when fine.

    A bool is not an int here (``min_words: true`` is a rubric mistake, not 1).
    """
    sig = inspect.signature(method)
    accepted = {n: p for n, p in sig.parameters.items() if n != "ctx"}
    errors = [f"unknown parameter {name!r} (accepted: {', '.join(accepted) or 'none'})" for name in params if name not in accepted]
    for name, param in accepted.items():
        if name not in params:
            if param.default is inspect.Parameter.empty:
                errors.append(f"missing parameter {name!r}")
            continue
        annotation = str(param.annotation).replace(" ", "")
        value = params[name]
        options = annotation.split("|")
        if value is None and "None" in options:
            continue
        ok = False
        for option in options:
            if option == "list[str]":
                ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
            elif option in _SIMPLE:
                ok = isinstance(value, _SIMPLE[option]) and (option == "bool" or not isinstance(value, bool))
            elif option not in ("None",):
                ok = True  # an annotation this checker does not know: the method checks it
            if ok:
                break
        if not ok:
            errors.append(f"parameter {name!r} must be {annotation.replace('|', ' or ')}, got {value!r:.60}")
    if not errors:
        errors = _bound_errors(params)
    if not errors and isinstance(params.get("glob"), str):  # an empty glob, or one with '..' (trial 6 F14)
        try:
            globs.check_glob(params["glob"])
        except ValueError as exc:
            errors.append(f"parameter 'glob': {exc}")
    if not errors and method in VALUE_CHECKS:
        errors = VALUE_CHECKS[method](params)
    return errors


_BOUNDS = (("min_words", "max_words"), ("min_pages", "max_pages"), ("min_count", "max_count"))
"""The ``[min, max]`` parameter pairs of the counting methods."""


def _bound_errors(params: dict[str, Any]) -> list[str]:
    """A ``min`` above its ``max``: no rollout can meet the row, so it misses on every one (trial 6 F24)."""
    return [f"{lo} {params[lo]} is above {hi} {params[hi]}: no rollout can meet this row"
            for lo, hi in _BOUNDS if isinstance(params.get(lo), int) and isinstance(params.get(hi), int)
            and params[lo] > params[hi]]


TRAJECTORY_METHODS: frozenset[str] = frozenset({"tool_called", "command_succeeded", "no_step_errored",
                                                "step_count_at_most", "file_written_before_final"})
"""The code methods that read the agent's ATIF trajectory (`lint-rubric` checks the task delivers one)."""

__all__ = ["CODE_METHODS", "TRAJECTORY_METHODS", "VALUE_CHECKS", "CodeMethod", "CodeResult", "param_errors"]
