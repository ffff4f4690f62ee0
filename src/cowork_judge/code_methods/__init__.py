"""The `code` segment's registry: deterministic checks with zero model calls (SPEC §8).

`CODE_METHODS` is the whitelist: only names registered here run, and an unknown name is
an unjudged row (`code_missing`) whose reason lists the known names. Every method takes
``(ctx, **params)`` — ``ctx`` read-only, typed as the part of the segment context a code
method reads (`segment.code_context.CodeContext`) — and returns
``(hit, reason, artifacts)``; the code segment carries ``artifacts`` (a dict) into the
context of the rows after it (``ctx.artifacts``) and the router merges them into the run's
state for the segments after it, so later segments judge the same files. Each method's
registration (`Registration`) says what its hit means (``hit_kind``): a method whose hit means
"the requirement is met" cannot judge a hurdle or deduction (`polarity.backwards_rows`).
Adding a method never changes any existing package's behaviour.
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

from cowork_judge.code_methods import globs

CodeResult = tuple[bool, str, dict[str, Any]]
CodeMethod = Callable[..., CodeResult]

HitKind = Literal["requirement_met", "found"]
"""What a code method's ``hit`` says (`Registration.hit_kind`)."""


@dataclass(frozen=True)
class Registration:
    """One code method's entry in the whitelist.

    Attributes:
        module: the module of this package that defines a function of the method's name.
        hit_kind: what its ``hit`` says. ``"requirement_met"``: the deliverable or the agent met
            a requirement (a deck was located, it opens, the count is in range, the command
            succeeded…); such a method fits only a POSITIVE row, since a hurdle or deduction
            reads ``hit`` as "the fault is present" and would score it backwards (trial 14 F8:
            a good deck fatal, a missing one passing). ``"found"``: a text, pattern or call
            was found, neither good nor bad in itself; it fits a positive row ("names X") and
            a negative one ("the answer contains X", "the agent called tool Y") alike.
    """

    module: str
    hit_kind: HitKind


_MET: HitKind = "requirement_met"
_FOUND: HitKind = "found"

_REGISTERED: dict[str, Registration] = {
    "locate_deck": Registration("decks", _MET),
    "check_deck_openable": Registration("deck_checks", _MET),
    "check_pptx_openable": Registration("deck_checks", _MET),  # the seed packages' name; PowerPoint content only
    "file_exists": Registration("files", _MET),
    "file_nonempty": Registration("files", _MET),
    "file_matches_glob": Registration("files", _MET),
    "json_valid": Registration("files", _MET),
    "text_contains": Registration("files", _FOUND),
    "regex_match": Registration("files", _FOUND),
    "word_count_between": Registration("files", _MET),
    "page_count_between": Registration("deck_checks", _MET),
    # rows about what the agent did: its ATIF trajectory (SPEC §8, issue 37)
    "tool_called": Registration("trajectory_checks", _FOUND),
    "command_succeeded": Registration("trajectory_checks", _MET),
    "no_step_errored": Registration("trajectory_checks", _MET),
    "step_count_at_most": Registration("trajectory_checks", _MET),
    "file_written_before_final": Registration("trajectory_checks", _MET),
}
"""method name → its `Registration` (its module, what its hit says), in registration order."""


def registration(name: str) -> Registration | None:
    """The `Registration` of code method `name`, None for a name not registered (a test's stand-in)."""
    return _REGISTERED.get(name)


def _resolve(module: str, name: str) -> Any:
    """``cowork_judge.code_methods.<module>.<name>``, importing the module on first use."""
    return getattr(importlib.import_module(f"cowork_judge.code_methods.{module}"), name)


class _Registry(MutableMapping[str, CodeMethod]):
    """The whitelist as a mapping that imports a method's module on its first lookup, so a run
    imports only the methods its rubric's rows name: a rubric of file rows never loads the deck
    or trajectory checks (issue 38: a code-only run's start-up, `bench/startup.py`). An entry
    set on it (a test's stand-in method) shadows the registered one until it is deleted."""

    def __init__(self) -> None:
        self._set: dict[str, CodeMethod] = {}

    def __getitem__(self, name: str) -> CodeMethod:
        if name in self._set:
            return self._set[name]
        method: CodeMethod = _resolve(_REGISTERED[name].module, name)
        return method

    def __setitem__(self, name: str, method: CodeMethod) -> None:
        self._set[name] = method

    def __delitem__(self, name: str) -> None:
        del self._set[name]

    def __iter__(self) -> Iterator[str]:
        yield from _REGISTERED
        yield from (name for name in self._set if name not in _REGISTERED)

    def __len__(self) -> int:
        return len(_REGISTERED.keys() | self._set.keys())


CODE_METHODS: MutableMapping[str, CodeMethod] = _Registry()
"""name → method (read-only by convention: only tests set an entry). Names iterate in registration order; a lookup of an unknown name
raises `KeyError` (``CODE_METHODS.get(name)`` is None), as of a dict."""

_SIMPLE: dict[str, type | tuple[type, ...]] = {"str": str, "int": int, "float": (int, float), "bool": bool}

VALUE_CHECKS: dict[str, str] = {
    "locate_deck": "decks:locate_param_errors",
    "check_deck_openable": "decks:path_param_errors",
    "check_pptx_openable": "decks:path_param_errors",
    "page_count_between": "decks:page_param_errors",
    "file_exists": "files:glob_param_errors",
    "file_nonempty": "files:nonempty_param_errors",
    "file_matches_glob": "files:count_param_errors",
    "json_valid": "files:glob_param_errors",
    "word_count_between": "files:word_param_errors",
    "text_contains": "files:text_param_errors",
    "regex_match": "files:regex_param_errors",
    "tool_called": "trajectory_checks:tool_param_errors",
    "command_succeeded": "trajectory_checks:regex_param_errors",
    "no_step_errored": "trajectory_checks:regex_param_errors",
    "step_count_at_most": "trajectory_checks:step_param_errors",
    "file_written_before_final": "trajectory_checks:glob_param_errors",
}
"""method name → ``module:function`` of this package saying what is wrong with its parameters' VALUES once their types are right (a regex that
does not compile, a glob or deck path that can name no file, an empty range, an unknown ``source``…): deterministic refusals `param_errors`
reports before the method runs (so `lint-rubric` reports them as M002, trial 6 F14, and the run as ``code_params``). Every registered
method has one, and it is the ONLY place a parameter is refused: a method body that must refuse its parameters (a direct call) calls the
same function (`files.refuse`), so no value the check accepts makes a method raise ``ValueError`` at run time (trial 25 P-6: a refusal
kept in the body alone was a content-caused ``code_error`` on every rollout, and lint said nothing). The function gets the parameters
with the method's defaults filled in (`FilledParams`, which also says which ones the row wrote), so a bound left out is checked at
its default (``max_pages: 0`` against ``min_pages`` 1, "(the default)")."""


class FilledParams(dict[str, Any]):
    """A row's ``code_method_params`` over its method's defaults, as `param_errors` gives them to a value check
    (`VALUE_CHECKS`): the check reads every value, and `written` says which ones the row wrote (a bound left out
    is checked at its default, and the refusal says "(the default)"; a row that writes neither bound of a range is
    refused, trial 25 P-6 follow-up)."""

    def __init__(self, params: dict[str, Any], defaults: dict[str, Any]) -> None:
        super().__init__({**defaults, **params})
        self.written: frozenset[str] = frozenset(params)


def is_written(params: dict[str, Any], name: str) -> bool:
    """True when the row wrote parameter `name`: it is in `FilledParams.written`, or, for a plain dict (a method
    body's direct call of its check, which has every parameter), in the dict."""
    written: frozenset[str] | None = getattr(params, "written", None)
    return name in (params if written is None else written)


def param_errors(method: CodeMethod, params: dict[str, Any]) -> list[str]:
    """What is wrong with `params` for `method`, from its signature: unknown names,
    missing required ones, and values of the wrong type (annotations ``str``, ``int``,
    ``float``, ``bool``, ``list[str]``, each optionally ``| None``); then, types being
    right, values the method refuses (`VALUE_CHECKS`, given the parameters over the method's defaults; and a ``glob``
    `globs.check_glob` refuses). Empty when fine.

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
    if not errors and isinstance(params.get("glob"), str):  # an empty glob, or one with '..' (trial 6 F14)
        try:
            globs.check_glob(params["glob"])
        except ValueError as exc:
            errors.append(f"parameter 'glob': {exc}")
    check = VALUE_CHECKS.get(method.__name__)
    if not errors and check is not None and CODE_METHODS.get(method.__name__) is method:
        defaults = {n: p.default for n, p in accepted.items() if p.default is not inspect.Parameter.empty}
        module, function = check.split(":")
        errors = _resolve(module, function)(FilledParams(params, defaults))
    return errors


def misplaced_params(method: CodeMethod, params: Mapping[str, Any], row: Mapping[str, Any]) -> list[str]:
    """Parameters of `method` written on the row beside ``code_method_params`` rather than inside it (trial 34 P-5: a
    row-level ``"source": "response"``, as the docs' prose words it, was carried as data and the row searched the
    files, missing every correct chat answer): one sentence per such field of `row` (its fields, or its unknown ones,
    `Criterion.extra`) that is no row field (`core.rubric.KNOWN_ROW_KEYS`), names a parameter of `method` and is not
    the same inside `params`. Empty when none. `lint-rubric` (M002) and the runner (``code_params``) both refuse them."""
    from cowork_judge.core.rubric import KNOWN_ROW_KEYS

    accepted = [n for n in inspect.signature(method).parameters if n != "ctx"]
    out = []
    for name in accepted:
        if name in row and name not in KNOWN_ROW_KEYS and (name not in params or params[name] != row[name]):
            value = json.dumps(row[name], ensure_ascii=False)[:60]
            out.append(f"{name!r} is written on the row, beside code_method_params, where {method.__name__} never reads "
                       f"it (it would run with {name} "
                       + (f"{json.dumps(params[name], ensure_ascii=False)[:60]}" if name in params else "at its default")
                       + f"): move it inside, \"code_method_params\": {{…, \"{name}\": {value}}}")
    return out


TRAJECTORY_METHODS: frozenset[str] = frozenset({"tool_called", "command_succeeded", "no_step_errored",
                                                "step_count_at_most", "file_written_before_final"})
"""The code methods that read the agent's ATIF trajectory (`lint-rubric` checks the task delivers one)."""

__all__ = ["CODE_METHODS", "TRAJECTORY_METHODS", "VALUE_CHECKS", "CodeMethod", "CodeResult", "FilledParams", "HitKind",
           "Registration", "is_written", "misplaced_params", "param_errors", "registration"]
