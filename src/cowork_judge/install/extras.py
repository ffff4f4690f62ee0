"""Which pip extras of cowork-judge a rubric's rows need (``COWORK_JUDGE_EXTRAS``).

A row can only be judged where its tools are installed: ``ppt_judge`` renders decks with
LibreOffice and reads the pages with PyMuPDF (extra ``workflow``), the deck open checks
open decks with python-pptx (extra ``pptx``; PyMuPDF counts rendered pages when present,
else a scan of the PDF does; ``page_count_between`` gets ``pptx`` too but never imports it:
`RUN_WITHOUT_EXTRAS`). A package that installs
too few extras does not fail loudly: its rows end unjudged ``render_env`` and the reward
collapses (issue 26: ``--extras pptx`` on a deck task left 17 of 23 rows unjudged, reward
0.1). `cowork-judge init` writes the extras computed here, and lint (M012) errors when the
package's extras cannot run its rows.

Agentic rows in a rubric that judges a deck (a deck code method: `DECK_CODE_METHODS`) need
``workflow`` too (trial 14 P1-1): the agentic judge views the deck's rendered pages, and with
``pptx`` alone the verifier has neither PyMuPDF nor (in the image init writes) LibreOffice, so
no page is rendered and those rows are judged on the slides' extracted text alone.

A workflow declares what it needs as ``REQUIRES_EXTRAS`` (a tuple of extra names) in its
package ``cowork_judge.workflow.<name>``; code methods are listed in `CODE_METHOD_EXTRAS`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cowork_judge.core.json_errors import json_error_said
from cowork_judge.core.rubric import DECK_CODE_METHODS, NO_ROWS, row_judge_method, rows_problem
from cowork_judge.evidence.deck_request import asks_for_deck

CODE_METHOD_EXTRAS: dict[str, tuple[str, ...]] = {
    "check_pptx_openable": ("pptx",),
    "check_deck_openable": ("pptx",),  # python-pptx; rendered pages by PyMuPDF when present, else a PDF scan
    "page_count_between": ("pptx",),  # kept for init (more is safe); its run never imports it: RUN_WITHOUT_EXTRAS
}
"""Code method name → the extras init installs for it (the others need none)."""

RUN_WITHOUT_EXTRAS: frozenset[str] = frozenset({"page_count_between"})
"""Code methods of `CODE_METHOD_EXTRAS` whose run imports nothing their extras install (trial 42 P-1):
``page_count_between`` counts a .pptx's slide list and an HTML deck's slides with the standard library; a .pdf needs
PyMuPDF (extra ``workflow``), a legacy .ppt LibreOffice, neither of which ``pptx`` installs. init still gives them
``pptx``; lint M012 and init's ``--extras`` warning leave them out (`unjudged_without`): their rows are judged."""


PAGE_RENDERING_EXTRA = "workflow"
"""The extra that renders a deck's pages (PyMuPDF; its image carries LibreOffice: `verifier_image.DECK_PACKAGES`)."""

KNOWN: tuple[str, ...] = ("fleet", "fleet-redis", "pptx", "workflow")
"""The extras a task may declare: pyproject's optional-dependencies without the developer ones (docs, dev)."""


def unknown_problem(extras: Iterable[str]) -> str | None:
    """A sentence naming the entries of `extras` that are not in `KNOWN` (with a did-you-mean), None when all are."""
    bad = [e.strip() for e in extras if e.strip() and e.strip().lower() not in KNOWN]
    if not bad:
        return None
    parts = []
    for name in bad:
        close = difflib.get_close_matches(name.lower(), KNOWN, n=1, cutoff=0.6)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"unknown extra {', '.join(parts)}: cowork-judge's extras are {', '.join(KNOWN)}"


SUBSUMES: dict[str, frozenset[str]] = {"workflow": frozenset({"pptx"})}
"""An extra whose requirements include another's (pyproject: ``workflow`` carries python-pptx and lxml)."""


def workflow_extras(name: str) -> tuple[str, ...]:
    """``REQUIRES_EXTRAS`` of the installed workflow `name` (() when it declares none or cannot load)."""
    from cowork_judge.workflow import requires_extras

    return requires_extras(name)


def required(code_methods: Iterable[str], workflows: Iterable[str], agentic_rows: int = 0, *,
             deck_named: bool = False) -> dict[str, list[str]]:
    """Extra → the routes that need it (``workflow ppt_judge``, ``code page_count_between``), sorted.

    `agentic_rows`: how many agentic rows the rubric has; with a deck code method among `code_methods`, or
    `deck_named` (a code row's glob names a deck suffix, `deck_glob_rows`, or the task prompt a deck file,
    `prompt_names_deck`: trial 20 P-5), they view the deck's pages, so they need `PAGE_RENDERING_EXTRA` (``N agentic row(s) viewing the deck's pages``)."""
    code_methods = set(code_methods)
    need: dict[str, list[str]] = {}
    for name in sorted(set(workflows)):
        for extra in workflow_extras(name):
            need.setdefault(extra, []).append(f"workflow {name}")
    for name in sorted(set(code_methods)):
        for extra in CODE_METHOD_EXTRAS.get(name, ()):
            need.setdefault(extra, []).append(f"code method {name}")
    if agentic_rows and (code_methods & DECK_CODE_METHODS or deck_named):
        need.setdefault(PAGE_RENDERING_EXTRA, []).append(f"{agentic_rows} agentic row(s) viewing the deck's rendered pages")
    return dict(sorted(need.items()))


def minimal(extras: Iterable[str]) -> tuple[str, ...]:
    """`extras` without those another one already installs, sorted (``pptx,workflow`` → ``workflow``)."""
    chosen = {e.strip().lower() for e in extras if e.strip()}
    covered = set().union(*(SUBSUMES.get(e, frozenset()) for e in chosen)) if chosen else set()
    return tuple(sorted(chosen - covered))


def covers(installed: Iterable[str], extra: str) -> bool:
    """True when the `installed` extras provide `extra` (itself or one that subsumes it)."""
    have = {e.strip().lower() for e in installed}
    return extra in have or any(extra in SUBSUMES.get(e, frozenset()) for e in have)


def missing(installed: Iterable[str], need: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """The entries of `need` that `installed` does not cover."""
    have = list(installed)
    return {extra: why for extra, why in need.items() if not covers(have, extra)}


def unjudged_without(need: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """`need` (`required`'s answer) without the routes of `RUN_WITHOUT_EXTRAS` (``code method page_count_between``),
    and without an extra left with no route: the routes whose rows really end unjudged (or judged without pages)
    when the extra is missing."""
    dropped = {f"code method {name}" for name in RUN_WITHOUT_EXTRAS}
    kept = {extra: [w for w in why if w not in dropped] for extra, why in need.items()}
    return {extra: why for extra, why in kept.items() if why}


def _rows(rubric: Any) -> list[Mapping[str, Any]]:
    """The row objects of a raw rubric document, found as the engine finds them (`core.rubric.normalize_rubric`):
    a list of rows, an object holding one under a key of `core.rubric.LIST_KEYS`, else an ``id → row`` object
    (its values but the reserved top-level keys)."""
    from cowork_judge.core.rubric import LIST_KEYS, RESERVED_TOP_KEYS

    if isinstance(rubric, Mapping):
        key = next((k for k in LIST_KEYS if isinstance(rubric.get(k), list)), None)
        rows = rubric[key] if key is not None else [v for k, v in rubric.items() if k not in RESERVED_TOP_KEYS]
    else:
        rows = rubric
    return [row for row in rows if isinstance(row, Mapping)] if isinstance(rows, list) else []


def agentic_count(rubric: Any) -> int:
    """How many rows of a raw rubric document an agentic judge decides (`core.rubric.row_judge_method`)."""
    return sum(1 for row in _rows(rubric) if row_judge_method(row) == "agentic")


def deck_glob_rows(rubric: Any) -> list[str]:
    """Ids of the code rows of a raw rubric document whose ``code_method_params.glob`` names a deck suffix
    (`evidence.kinds.DECK_SUFFIXES`: ``file_exists`` on ``*.pptx``, ``output/*.pdf``): such a rubric judges a
    deck though no deck code method says so (trial 20 P-5)."""
    from cowork_judge.evidence.kinds import DECK_SUFFIXES

    out = []
    for row in _rows(rubric):
        params = row.get("code_method_params")
        glob = params.get("glob") if isinstance(params, Mapping) else None
        if row_judge_method(row) == "code" and isinstance(glob, str) and glob.lower().endswith(DECK_SUFFIXES):
            out.append(str(row.get("id", "?")))
    return out


def prompt_names_deck(tests_dir: Path) -> bool:
    """True when ``tests_dir/task_prompt.md`` asks for a deck (`evidence.deck_request.asks_for_deck`: a PowerPoint
    file named, or asked for in words, trial 38 P-2): the task
    delivers a deck though no row of the rubric says so (a rubric of agentic rows alone, trial 20 P-5).
    False when the file is missing or unreadable (undecodable bytes are replaced)."""
    try:
        text = (tests_dir / "task_prompt.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return asks_for_deck(text)


def routes_of(rubric: Any) -> tuple[set[str], set[str]]:
    """(code method names, workflow names) of a raw rubric document (a list of rows or an object holding one
    under a key of `core.rubric.LIST_KEYS`)."""
    methods: set[str] = set()
    workflows: set[str] = set()
    for row in _rows(rubric):
        method = row_judge_method(row)
        if method == "code" and isinstance(row.get("code_method_name"), str):
            methods.add(row["code_method_name"])
        if method == "workflow" and isinstance(row.get("workflow_name"), str):
            workflows.add(row["workflow_name"])
    return methods, workflows


class RubricUnreadable(ValueError):
    """A rubric file exists but cannot be read as JSON, or its rows cannot be found; ``str(exc)`` is the
    predicate that follows the file's name (``"is not UTF-8 text (…)"``, ``"cannot be read (…)"``, ``"is not
    valid JSON: …"`` with its line and column, as lint's R002 says it; ``"is not read as rows: …"`` with the
    engine's reason, as lint's R003 says it). `lint_code`: the lint check that reports it."""

    def __init__(self, message: str, lint_code: str = "R002") -> None:
        super().__init__(message)
        self.lint_code = lint_code


class RubricWithoutRows(RubricUnreadable):
    """The rubric file holds no row yet (``{"rubrics": []}``): there is nothing to choose extras from."""


def for_rubric_file(path: Path) -> tuple[tuple[str, ...], dict[str, list[str]]] | None:
    """(minimal extras, extra → routes) of the rubric at `path`; None when there is no such file. Its agentic
    rows view a deck's pages when a deck code method, a deck glob or the ``task_prompt.md`` beside it says the
    task delivers a deck (`required`).

    A leading UTF-8 byte-order mark is skipped, as the engine does.

    Raises:
        RubricWithoutRows: the rubric holds no row (`core.rubric.NO_ROWS`).
        RubricUnreadable: the file exists but cannot be read, is not UTF-8, is not valid JSON, or the engine
            finds no rows in it (`core.rubric.rows_problem`: a misspelt ``rubrics`` key, trial 21 P-2).
    """
    import json

    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise RubricUnreadable(f"is not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r}); save it "
                               "as UTF-8") from None
    except OSError as exc:
        raise RubricUnreadable(f"cannot be read ({exc.strerror or exc})") from None
    try:
        raw = json.loads(text)
    except RecursionError:
        raise RubricUnreadable("is not valid JSON: nested too deeply to be a rubric") from None
    except ValueError as exc:
        raise RubricUnreadable(f"is not valid JSON: {json_error_said(exc, text)}") from None
    problem = rows_problem(raw)
    if problem == NO_ROWS:
        raise RubricWithoutRows("has no rows yet")
    if problem is not None:
        raise RubricUnreadable(f"is not read as rows: {problem}", lint_code="R003")
    need = required(*routes_of(raw), agentic_rows=agentic_count(raw), deck_named=bool(deck_glob_rows(raw)) or prompt_names_deck(path.parent))
    return minimal(need), need


__all__ = ["CODE_METHOD_EXTRAS", "RUN_WITHOUT_EXTRAS", "unjudged_without", "DECK_CODE_METHODS", "KNOWN", "PAGE_RENDERING_EXTRA", "agentic_count", "SUBSUMES", "deck_glob_rows", "prompt_names_deck", "RubricUnreadable", "RubricWithoutRows", "covers", "for_rubric_file", "minimal", "missing", "required", "routes_of", "unknown_problem",
           "workflow_extras"]
