"""The lint check registry: every check's stable code, level and one-line title, and `Finding`.

Codes are stable: a fleet's tooling filters on them, and the README's table is checked
against `CHECKS` by a selftest. A code's letter names its area: P package, R rubric rows,
D ``depends_on``, M code methods and workflows, T ``task.toml``, S ``test.sh``, A assets,
instruction and reference solution, F family (``--batch``), B batch input. Each code has ONE level: ERROR makes
``lint-rubric`` exit 1, WARN does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["ERROR", "WARN"]


@dataclass(frozen=True)
class Check:
    """One registered check: its stable code, level and a one-line title for the docs."""

    code: str
    level: Level
    title: str


_TABLE: tuple[Check, ...] = (
    Check("P001", "ERROR", "the tests dir cannot be read (missing, not a directory, no permission)"),
    Check("P002", "ERROR", "the linter itself failed on this package (a lint-rubric bug: the exception is named)"),
    Check("P003", "ERROR", "a symbolic link in tests/ points outside tests/ or at nothing (try and Docker copy it as a "
                           "link that dangles in the verifier)"),
    Check("R001", "ERROR", "rubric.json is missing, not a regular file, too large, or not UTF-8"),
    Check("R002", "ERROR", "rubric.json is not valid JSON (syntax, nesting, number too long)"),
    Check("R003", "ERROR", "the engine refuses the rubric or a row (shape, missing description, bad field type…)"),
    Check("R004", "ERROR", "duplicate row id"),
    Check("R005", "WARN", "row without an id (the engine generates R01…, which moves when rows move)"),
    Check("R006", "ERROR", "weight is not a finite number, or its absolute value exceeds 1e9 (the engine's limit)"),
    Check("R007", "WARN", "nonzero weights span more than 1e4× (the smallest rows barely move the score)"),
    Check("R008", "ERROR", "the rubric can never score: no positive weight and no equal-weight fallback"),
    Check("R009", "WARN", "other engine warning (misspelt field, row without weight among weighted ones…)"),
    Check("R010", "ERROR", "a `levels` key is not a number in [0, 1]"),
    Check("R011", "ERROR", "`levels` malformed: not an object, fewer than 2 levels, one level written twice"),
    Check("R012", "ERROR", "a workflow row's level is off the 21-step grid (0, 0.05 … 1)"),
    Check("R013", "WARN", "`levels` never reach 1 (or 0): the row cannot earn its full weight (or nothing)"),
    Check("R014", "WARN", "`levels` on a hurdle or deduction row, which ignore them"),
    Check("R015", "WARN", "rubric.json starts with a UTF-8 byte-order mark (the judge reads it; strict JSON readers refuse it)"),
    Check("R016", "WARN", "no row has a positive weight: the equal-weight fallback weighs every 0-weight row 1"),
    Check("R017", "ERROR", "`pass_level` is off the row's level scale: not a number, outside [0, 1], above the top "
                           "level or at/below the lowest one"),
    Check("R018", "ERROR", "a key is given twice in one object with different values (the judge refuses the rubric: "
                           "JSON keeps only the last)"),
    Check("R019", "WARN", "a key is given twice in one object with the same value"),
    Check("R020", "ERROR", "hurdle row worded as a requirement (judges read it backwards and zero the task)"),
    Check("R021", "WARN", "hurdle row with no violation wording found, or whose only negation negates a fault "
                          "(\"does not refuse\", \"no placeholder text\")"),
    Check("R022", "WARN", "hurdle row with a nonzero weight (w > 0 caps the best score below 1)"),
    Check("R023", "ERROR", "workflow row is both hurdle and gradient"),
    Check("R024", "WARN", "a row of the `id → row` mapping has its own `id`, which differs from its key (the `id` names "
                          "the row; labels or depends_on written against the key miss it)"),
    Check("R025", "WARN", "`\"type\": \"binary\"` beside a `levels` table: scored by hit alone, the levels are ignored"),
    Check("R026", "WARN", "positive row read by a model and worded as a fault (\"the answer claims …\", \"a slide still "
                          "shows placeholder text\"): it pays for the fault (a forgotten minus sign or \"hurdle\": true)"),
    Check("R027", "WARN", "deduction (weight < 0, not hurdle) read by a model and worded as a requirement (R020's reading): "
                          "it deducts from the answer that meets it"),
    Check("R028", "WARN", "row read by a model with weight 0 that is neither a hurdle nor a gate: judged, never scores"),
    Check("R029", "ERROR", "a misspelt field that decides the score or the route (`hurdel`, `depend_on`, `wieght`, "
                           "`judge_methd`, `pass_levl`…): the engine keeps it as data, so the hurdle, gate, weight or "
                           "route is gone"),
    Check("D001", "ERROR", "`depends_on` names no row (the gate never opens)"),
    Check("D002", "ERROR", "`depends_on` cycle or self-dependency"),
    Check("D003", "ERROR", "`depends_on` is not transitively closed (fix: --fix-closure)"),
    Check("D004", "WARN", "`depends_on` on a hurdle or deduction row has no effect (they are never gated)"),
    Check("M001", "ERROR", "`code_method_name` is not registered in the installed package"),
    Check("M002", "ERROR", "`code_method_params` do not fit the method's signature"),
    Check("M003", "ERROR", "row meant for code is judged by the agent (unknown judge_method, code without a name)"),
    Check("M004", "WARN", "routing fields of another judge_method are ignored (code_method_name on an agentic row…)"),
    Check("M005", "WARN", "deck code rows (check_deck_openable, check_pptx_openable, page_count_between) without `path` "
                          "and no locate_deck row: each check locates the deck itself with locate_deck's defaults"),
    Check("M006", "WARN", "a chat task (no deliverable named by its prompt or rows) has text code rows without "
                          "\"source\": \"response\": they search the files the agent never delivers"),
    Check("M007", "ERROR", "hurdle or deduction judged by a code method whose hit means the requirement is met "
                           "(locate_deck, check_deck_openable, file_exists…): scored backwards, so the run refuses the "
                           "rubric; use a gate (depends_on) for a deliverable that must exist, or a positive row"),
    Check("M008", "ERROR", "a text code row (text_contains, regex_match, word_count_between) whose glob names only "
                           "binary files (`*.pptx`, `*.docx`, `*.png`…), or a text hurdle or deduction with no glob over "
                           "the files of a deck rubric: the text methods do not read them, so the row never hits (a "
                           "deduction or hurdle never fires)"),
    Check("M010", "ERROR", "workflow is not installed, cannot be imported, or has no name"),
    Check("M011", "ERROR", "workflow's REQUIRES_ABI is missing or incompatible with the installed engine"),
    Check("M012", "ERROR", "the package's extras (COWORK_JUDGE_EXTRAS / test.sh) cannot run its rows (a workflow or code "
                           "method needs an extra it does not install: its rows end unjudged; agentic rows of a deck rubric need "
                           "workflow to see the rendered pages)"),
    Check("M013", "WARN", "an answer_match reference starts with a number but code cannot read it as one (\"8.3 furlongs\"): "
                          "every rollout goes to the model"),
    Check("M014", "WARN", "a positive text code row with no glob over the files of a deck rubric (a deck code method "
                          "or ppt_judge row): the deck is binary to the text methods, so the row never hits on it"),
    Check("M015", "WARN", "a deck task (as init and M012 classify it) has model-judged rows no deck gate guards (no "
                          "locate_deck row in their depends_on): with no deck delivered, the agentic ones are judged on "
                          "the agent's final message; ppt_judge ones, with two decks and none located, end the run "
                          "in error"),
    Check("T001", "ERROR", "task.toml cannot be read or is not valid TOML"),
    Check("T002", "ERROR", "task.toml does not declare the credential pair a model-judged rubric needs"),
    Check("T003", "ERROR", "task.toml does not declare JUDGE_DEADLINE (its timeout_sec then rests on a default)"),
    Check("T004", "ERROR", "[verifier].timeout_sec < JUDGE_DEADLINE + install margin (480 s)"),
    Check("T005", "ERROR", "a secret (KEY/TOKEN/SECRET/PASSWORD) is written as a literal, not a ${VAR} template"),
    Check("T006", "WARN", "unknown JUDGE_*/COWORK_* name in [verifier.env] (a typo is never read)"),
    Check("T007", "WARN", "a declared knob's value is rejected by the judge (it falls back to the default)"),
    Check("T012", "ERROR", "a declared setting that changes the verdicts or the reward has a value the judge rejects "
                           "(every trial would be scored under the default; batch refuses it)"),
    Check("T008", "WARN", "a value Harbor does not expand (`x-${VAR}`, `$VAR`): passed literally"),
    Check("T009", "WARN", "COWORK_JUDGE_VERSION not declared: a fleet cannot inject a judge version"),
    Check("T010", "WARN", "no task.toml beside tests/: timeout, credentials and knobs cannot be checked"),
    Check("T011", "ERROR", "a separate verifier's tests/Dockerfile installs no LibreOffice while rows render decks "
                           "(ppt_judge: those rows end unjudged render_env)"),
    Check("T013", "ERROR", "rows about what the agent did (trajectory code methods, trajectory_judge) in a separate-verifier "
                           "task that hands the verifier no trajectory.json (no [[verifier.collect]] hook copying it)"),
    Check("T014", "WARN", "a separate verifier's tests/Dockerfile installs LibreOffice components without Impress "
                          "(libreoffice-writer…) while rows render decks: a deck does not open (render_env)"),
    Check("S001", "WARN", "no test.sh in the tests dir (Harbor fails every trial)"),
    Check("S002", "ERROR", "test.sh pins no cowork-judge version"),
    Check("S003", "WARN", "task.toml declares COWORK_JUDGE_VERSION but test.sh never reads it"),
    Check("S004", "ERROR", "test.sh (or a requirements file it names) cannot be read"),
    Check("S005", "WARN", "test.sh bakes in conflicting versions"),
    Check("A001", "WARN", "file under workflow_assets/ that no rubric workflow uses"),
    Check("A002", "WARN", "no judge instruction file with text for a model-judged rubric (the built-in default is used): "
                          "none, or each one empty, unreadable or binary (UTF-16 without its byte-order mark)"),
    Check("A003", "WARN", "a judge instruction file the judge passes over (empty, unreadable, binary) for another one, "
                          "or the one it reads has bytes that cannot be decoded (read as U+FFFD)"),
    Check("A004", "WARN", "tests/task_prompt.md of a model-judged rubric is missing, empty, unreadable, binary (not "
                          "sent), or has bytes that cannot be decoded (sent as U+FFFD)"),
    Check("A005", "WARN", "tests/task_prompt.md (the judge's copy of the task) differs from the task's instruction.md "
                          "(the agent's), whitespace aside: one was edited after the copy"),
    Check("A006", "WARN", "a chat task's solution/solve.sh (and the solution scripts it names) writes no file the judge "
                          "reads a final message from (/logs/agent/trajectory.json, final_answer.txt, response.txt, "
                          "or JUDGE_RESPONSE_FILE): the oracle run is judged nothing delivered; names what it writes "
                          "under /logs/agent instead (answer.txt)"),
    Check("A007", "WARN", "the task's solution/solve.sh copies (cp/mv) from /solution/<path> that its solution/ folder "
                          "does not hold: `harbor run -a oracle` delivers nothing there; names a file of that name or "
                          "suffix it holds (a text match, not a run)"),
    Check("A010", "ERROR", "ppt_judge assets: content rows and no task_check_dir, a broken or missing file or anchor, check ids ≠ "
                           "content-row ids, manifest pairs ≠ depends_on"),
    Check("A011", "WARN", "a ppt_judge content row's description is not its check's question verbatim"),
    Check("A012", "WARN", "ppt_judge assets in the original cowork-judge 1.3.x format (type1_checklist.json, "
                          "type2_checklist.json): read and judged as 1.3.6 judges them; says which files were read"),
    Check("A013", "WARN", "Σ visual : Σ content weight differs from the balance gen-ppt-rubrics recorded "
                          "(metadata.gen_ppt_rubrics.balance): a weight edited since; re-run gen-ppt-rubrics"),
    Check("A014", "WARN", "ppt_judge rows, all visual, and no task_check_dir: nothing judges the deck's content against "
                          "a checklist (gen-ppt-rubrics --no-checklist says so on purpose)"),
    Check("F001", "ERROR", "instances of one family resolve to different judge versions (or none)"),
    Check("F002", "ERROR", "instances of one family install different extras"),
    Check("F003", "WARN", "instances of one family use different code method sets"),
    Check("F004", "WARN", "instances of one family use different workflow sets"),
    Check("B001", "ERROR", "batch input cannot be read (missing, bad JSONL line, no instance found)"),
)

CHECKS: dict[str, Check] = {c.code: c for c in _TABLE}
"""code → `Check`, in documentation order. Read-only by convention."""

RESERVED: dict[str, str] = {}
"""Codes kept for checks that do not exist yet, with where they will plug in."""


@dataclass(frozen=True)
class Finding:
    """One problem found in one file.

    Attributes:
        code: a key of `CHECKS`; its level decides the exit status.
        file: the file (or directory) as displayed, e.g. ``inst/tests/rubric.json``.
        message: what is wrong and, where it helps, how to fix it.
        row: the rubric row id (or ``#N`` position), when the finding is about one row.
        field: the field (``depends_on``, ``levels``, ``[verifier].timeout_sec``…), when known.
    """

    code: str
    file: str
    message: str
    row: str | None = None
    field: str | None = None

    @property
    def level(self) -> Level:
        """ERROR or WARN, from the registry."""
        return CHECKS[self.code].level

    def line(self) -> str:
        """``FILE: LEVEL CODE [row 'ID'] [field F]: message`` — one line, grep-friendly."""
        where = ""
        if self.row is not None:
            where += f" row {self.row!r}"
        if self.field is not None:
            where += f" field {self.field}"
        message = " ".join(self.message.split())  # one line whatever the source text holds
        return f"{self.file}: {self.level} {self.code}{where}: {message}"

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``{code, level, file, row, field, message}``."""
        return {"code": self.code, "level": self.level, "file": self.file, "row": self.row,
                "field": self.field, "message": self.message}


__all__ = ["CHECKS", "RESERVED", "Check", "Finding", "Level"]
