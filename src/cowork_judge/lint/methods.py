"""Routing checks against the INSTALLED engine: code methods, their parameters, workflows.

Nothing from the linted package is imported or run: code method names are looked up in
`cowork_judge.code_methods.CODE_METHODS` and workflow names are loaded by the engine's own
lazy loader (`cowork_judge.workflow.load`), which imports only this installed package's
``cowork_judge.workflow.<name>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache

from cowork_judge.core import deck_gate
from cowork_judge import ABI_COMPAT
from cowork_judge.code_methods import CODE_METHODS, misplaced_params, param_errors
from cowork_judge.code_methods.polarity import backwards_problem
from cowork_judge.core.rubric import JUDGE_METHODS, did_you_mean, stray_routing
from cowork_judge.code_methods.decks import DECK_SUFFIXES
from cowork_judge.install.extras import DECK_CODE_METHODS
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import Row, RubricDoc
from cowork_judge.workflow import WorkflowUnavailable, load



DECK_CHECKS = ("check_deck_openable", "check_pptx_openable", "page_count_between")
"""The code methods that judge THE deck (`code_methods.decks.the_deck`): its ``path``, else the located one."""


def check(doc: RubricDoc, *, abi_compat: tuple[int, ...] = ABI_COMPAT) -> list[Finding]:
    """M001–M005, M007, M008, M010, M011, M014 for every row.

    Args:
        abi_compat: the engine ABIs a workflow may require (default: the installed
            engine's `ABI_COMPAT`; tests pass another tuple to exercise M011).
    """
    out: list[Finding] = []
    for row in doc.rows:
        if isinstance(row.raw, Mapping):
            out += _row(doc, row, abi_compat)
    return out + _deck_without_locator(doc) + _text_rows_over_deck(doc)


def _deck_without_locator(doc: RubricDoc) -> list[Finding]:
    """M005 on each deck check without ``path`` when no row is a ``locate_deck`` row (trial 6,
    F12): the run locates the deck for it with ``locate_deck``'s defaults, which the author may
    not mean, and nothing gates the deck rows on a deck being there."""
    code_rows = [row for row in doc.rows if isinstance(row.raw, Mapping) and row.method == "code"]
    if any(row.get("code_method_name") == "locate_deck" for row in code_rows):
        return []
    out = []
    for row in code_rows:
        name, params = row.get("code_method_name"), row.get("code_method_params")
        if name in DECK_CHECKS and not (isinstance(params, Mapping) and params.get("path") is not None):
            out.append(Finding("M005", doc.file, f"{name} judges the located deck, and no row is a locate_deck row: the "
                                                 "check locates the deck itself with locate_deck's defaults (exactly one "
                                                 "deck, pptx before html before pdf; two decks of a kind are a miss). Add a "
                                                 "locate_deck row (e.g. C-LOCATE-DECK) and list it in this row's depends_on, "
                                                 "or give `path`", row=row.label, field="code_method_name"))
    return out


def _row(doc: RubricDoc, row: Row, abi_compat: tuple[int, ...]) -> Iterator[Finding]:
    raw_method = row.get("judge_method")
    method = raw_method.strip().lower() if isinstance(raw_method, str) else raw_method  # read as the engine reads it
    name = row.get("code_method_name")
    if method is not None and method not in JUDGE_METHODS:
        hint = did_you_mean(str(method), JUDGE_METHODS)
        judged_by = ("judged as 'code' (it names a code_method_name)" if name else
                     "judged as 'workflow' (it names a workflow_name)" if row.get("workflow_name") else
                     "the agentic judge would judge this row")
        yield Finding("M003", doc.file, f"unknown judge_method {raw_method!r:.40}{hint}: {judged_by} "
                                        f"(known: {', '.join(JUDGE_METHODS)})", row=row.label, field="judge_method")
    elif method == "code":
        if not isinstance(name, str) or not name.strip():
            yield Finding("M003", doc.file, "judge_method 'code' without a code_method_name: the agentic judge would "
                                            "judge this row", row=row.label, field="code_method_name")
        elif name not in CODE_METHODS:
            yield Finding("M001", doc.file, f"{name!r:.60} is not registered in the installed cowork-judge"
                                            f"{_method_hint(name)} (known: {', '.join(CODE_METHODS)})",
                          row=row.label, field="code_method_name")
        else:
            params = row.get("code_method_params", {})
            if params is None:
                params = {}
            if isinstance(params, Mapping):  # anything else is R003 (the engine refuses it)
                for problem in (misplaced_params(CODE_METHODS[name], params, row.fields)  # trial 34 P-5
                                + param_errors(CODE_METHODS[name], dict(params))):
                    yield Finding("M002", doc.file, f"{name}: {problem}", row=row.label, field="code_method_params")
            yield from _backwards(doc, row, name)
            yield from _binary_glob(doc, row, name, params)
    elif method == "workflow":
        workflow = row.get("workflow_name")
        refused = _workflow_problem(workflow if isinstance(workflow, str) else None, abi_compat)
        if refused is not None:
            code, message = refused
            yield Finding(code, doc.file, message, row=row.label, field="workflow_name")
    if (stray := stray_routing(row.fields)) is not None:
        yield Finding("M004", doc.file, stray, row=row.label, field=stray.split(",")[0].split(" ")[0])


def _backwards(doc: RubricDoc, row: Row, name: str) -> Iterator[Finding]:
    """M007 when code method `name` would score this hurdle or deduction backwards (trial 14 F8;
    `code_methods.polarity`): the run refuses such a rubric."""
    if row.crit is None:  # the engine refuses the row anyway (R003)
        return
    problem = backwards_problem(name, hurdle=row.crit.hurdle, weight=row.crit.weight)
    if problem is not None:
        yield Finding("M007", doc.file, f"{problem}; the run refuses this rubric (judge:scorer_error)", row=row.label,
                      field="hurdle" if row.crit.hurdle else "weight")


TEXT_METHODS = ("text_contains", "regex_match", "word_count_between")
"""The code methods that read deliverables as text (`code_methods.files`): binary files are skipped."""
SLIDE_SUFFIXES = frozenset({*(s for s in DECK_SUFFIXES if s not in (".pdf", ".html", ".htm")), ".odp", ".key"})
"""The PowerPoint suffixes of the one deck table (`evidence.kinds`, through `code_methods.decks`) and the other
slide formats: a text row over them is better a judge row."""
BINARY_SUFFIXES = frozenset({*SLIDE_SUFFIXES, ".docx", ".doc", ".odt", ".xlsx", ".xls", ".ods", ".zip", ".png", ".jpg",
                             ".jpeg", ".gif", ".webp"})
"""File suffixes whose content always has a NUL byte in its first 8 KiB (zip containers, OLE
files, images), so `agent_text.looks_binary` skips them: every PowerPoint suffix of the one deck
table (`evidence.kinds`) and the other office and image formats. PDF is not listed: an
uncompressed PDF may have none."""


def _binary_glob(doc: RubricDoc, row: Row, name: str, params: object) -> Iterator[Finding]:
    """M008 when a text method's ``glob`` can match only binary files (trial 14 F10: ``text_contains``
    over ``*.pptx`` is a permanent miss: the deck is a zip, never searched)."""
    if name not in TEXT_METHODS or not isinstance(params, Mapping) or params.get("source", "files") != "files":
        return
    glob = params.get("glob")
    if not isinstance(glob, str):
        return
    last = glob.rstrip("/").rsplit("/", 1)[-1]
    dot = last.rfind(".")
    suffix = last[dot:].lower() if dot >= 0 else ""
    if suffix in BINARY_SUFFIXES:
        hint = ("; judge what a deck says with a judge row (agentic: 'The deck mentions …')"
                if suffix in SLIDE_SUFFIXES else "")
        yield Finding("M008", doc.file, f"{name} over glob {glob!r} reads only {suffix} files, which are binary to the "
                                        f"text methods (not searched): the row can never hit{hint}",
                      row=row.label, field="code_method_params")


DECK_WORKFLOWS = deck_gate.DECK_WORKFLOWS
"""The workflows that judge a deck: a rubric with such a row (or a deck code method) judges a deck (one owner,
`core.deck_gate.DECK_WORKFLOWS`)."""


def judges_deck(doc: RubricDoc) -> bool:
    """True when `doc` is a deck rubric: a row judges a deck — a deck code method
    (`install.extras.DECK_CODE_METHODS`, the rule init's extras and M012 follow) or a deck workflow
    (`DECK_WORKFLOWS`)."""
    for row in doc.rows:
        if isinstance(row.raw, Mapping) and ((row.method == "code" and row.get("code_method_name") in DECK_CODE_METHODS)
                                             or (row.method == "workflow" and row.get("workflow_name") in DECK_WORKFLOWS)):
            return True
    return False


def _text_rows_over_deck(doc: RubricDoc) -> list[Finding]:
    """M008 / M014 (trial 17 P-1): a text row with no ``glob`` over the deliverable files (the default
    source) in a deck rubric (`judges_deck`). The deck is binary to the text methods: a hurdle or deduction
    can never fire on it (M008, ERROR; the run leaves it unjudged ``no_text``), a positive row never hits
    on it (M014, WARN: the agent may deliver a text file beside the deck)."""
    if not judges_deck(doc):
        return []
    out = []
    for row in doc.rows:
        name, params = row.get("code_method_name"), row.get("code_method_params")
        params = params if isinstance(params, Mapping) else {}
        if (not isinstance(row.raw, Mapping) or row.method != "code" or name not in TEXT_METHODS or "glob" in params
                or params.get("source", "files") != "files"):
            continue
        negative = row.crit is not None and row.crit.polarity == "negative"
        fault = "can never fire on it (a hurdle or deduction that cannot look)" if negative else "can never hit on it"
        out.append(Finding("M008" if negative else "M014", doc.file,
                           f"{name} searches every deliverable file as text (no glob, source: files), but this rubric "
                           f"judges a deck, which is binary to the text methods (not searched): the row {fault}; judge "
                           "what a deck says with a judge row (agentic: 'The deck contains placeholder text …'), or give "
                           "a glob of text files", row=row.label, field="code_method_params"))
    return out


@lru_cache(maxsize=64)
def _workflow_problem(name: str | None, abi_compat: tuple[int, ...]) -> tuple[str, str] | None:
    """(code, message) when workflow `name` cannot run on this engine, else None (cached:
    the loader imports a workflow once per process anyway)."""
    if not name:
        return "M010", "judge_method 'workflow' without a workflow_name: its rows would be unjudged workflow_missing"
    try:
        load(name, abi_compat=abi_compat)
    except WorkflowUnavailable as exc:
        reason = str(exc)
        code = "M011" if ("REQUIRES_ABI" in reason or "requires ABI" in reason) else "M010"
        return code, f"{reason}: its rows would be unjudged workflow_missing"
    return None


def uses(doc: RubricDoc) -> tuple[frozenset[str], frozenset[str]]:
    """(code method names, workflow names) the rubric routes to, for family checks."""
    methods: set[str] = set()
    workflows: set[str] = set()
    for row in doc.rows:
        if row.method == "code" and isinstance(row.get("code_method_name"), str):
            methods.add(row.get("code_method_name"))
        if row.method == "workflow" and isinstance(row.get("workflow_name"), str):
            workflows.add(row.get("workflow_name"))
    return frozenset(methods), frozenset(workflows)


def _method_hint(name: str) -> str:
    """`` (did you mean 'X'?)`` for an unregistered code method `name` (trial 38 P-1: ``slide_count_between`` got
    ``word_count_between``, a text method): a deck's slides are its pages (``slide`` read as ``page``), a known
    method that alone starts with the name (``page_count``) comes first, then `did_you_mean`; "" when none is close."""
    norm = name.strip().lower().replace("slide", "page")
    starts = [m for m in CODE_METHODS if m.startswith(norm)] if len(norm) >= 4 else []
    if len(starts) == 1:
        return f" (did you mean {starts[0]!r}?)"
    return did_you_mean(norm, CODE_METHODS) or did_you_mean(name, CODE_METHODS)


def needs_model(doc: RubricDoc) -> bool:
    """True when some row is judged by a model (anything but a working code row): such a
    rubric needs credentials and an instruction (SPEC §11)."""
    for row in doc.rows:
        if not isinstance(row.raw, Mapping):
            continue
        if row.crit is not None:
            if row.crit.judge_method != "code":
                return True
        elif row.method != "code":
            return True
    return False


__all__ = ["check", "needs_model", "uses"]
