"""Lint one instance: ``<instance>/tests`` plus the ``task.toml`` beside it.

`lint_instance` reads files and never executes anything from the package; everything it
cannot read becomes a finding. The result also carries the facts family checks compare
(judge version, extras, code methods, workflows).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cowork_judge import ABI_COMPAT
from cowork_judge.code_methods import TRAJECTORY_METHODS
from cowork_judge._util.given_paths import absolute, close_sibling, not_tests_hint, parent_of, shown_parent
from cowork_judge.core.deck_gate import locate_deck_ids, split_ungated
from cowork_judge.core.rubric import DECK_CODE_METHODS, RepeatedKeys
from cowork_judge.install.taskinit import AGENT_COPY_DIR, rubric_misnamed, rubric_too_high
from cowork_judge.install import extras as extras_mod
from cowork_judge.lint import answer_rows, assets, deps, methods, row_wording, rubric_checks, solve_sources, task_files, tasktoml, testsh
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import RubricDoc, build, engine_warnings
from cowork_judge.lint.reading import NotJson, Unreadable, read_json, read_text


@dataclass(frozen=True)
class Facts:
    """What an instance resolves to, compared across a family by ``--batch``.

    Attributes:
        version: the judge version an un-injected run installs, None when not pinned.
        version_source: ``placeholder`` (task.toml) or ``package`` (baked into test.sh).
        extras: pip extras installed (sorted), None when test.sh does not say.
        code_methods: code method names the rubric routes to.
        workflows: workflow names the rubric routes to.
        agentic_rows: rows an agentic judge decides (with a deck code method they view the deck's pages:
            `install.extras.required`); not compared across a family.
        deck_named: a code row's glob or the task prompt names a deck (`install.extras.deck_glob_rows`,
            `prompt_names_deck`): the agentic rows view a deck's pages though no deck code method says so;
            not compared across a family.
    """

    version: str | None = None
    version_source: str | None = None
    extras: tuple[str, ...] | None = None
    code_methods: frozenset[str] = frozenset()
    workflows: frozenset[str] = frozenset()
    agentic_rows: int = 0
    deck_named: bool = False

    def needs(self) -> dict[str, list[str]]:
        """Extra → the routes of the rubric that need it (`install.extras.required`)."""
        return extras_mod.required(self.code_methods, self.workflows, self.agentic_rows, deck_named=self.deck_named)

    def as_dict(self) -> dict[str, Any]:
        """JSON form (sets as sorted lists)."""
        return {"version": self.version, "version_source": self.version_source,
                "extras": list(self.extras) if self.extras is not None else None,
                "code_methods": sorted(self.code_methods), "workflows": sorted(self.workflows)}


@dataclass
class InstanceReport:
    """The findings of one instance (waived ones kept apart) and its facts."""

    tests_dir: str
    findings: list[Finding] = field(default_factory=list)
    waived: list[Finding] = field(default_factory=list)
    facts: Facts = field(default_factory=Facts)

    @property
    def errors(self) -> int:
        """Number of ERROR findings."""
        return sum(1 for f in self.findings if f.level == "ERROR")

    @property
    def warnings(self) -> int:
        """Number of WARN findings."""
        return sum(1 for f in self.findings if f.level == "WARN")

    def as_dict(self) -> dict[str, Any]:
        """JSON form: ``{tests_dir, errors, warnings, findings[], waived[], facts}``."""
        return {"tests_dir": self.tests_dir, "errors": self.errors, "warnings": self.warnings,
                "findings": [f.as_dict() for f in self.findings], "waived": [f.as_dict() for f in self.waived],
                "facts": self.facts.as_dict()}


def _not_a_directory(tests_dir: Path) -> str:
    """P001's reason for a tests dir that is no folder, with init's and try's "did you mean" (trial 25 P-1)."""
    if tests_dir.exists():
        return "not a directory"
    close = close_sibling(tests_dir)
    return f"not found: did you mean {close}?" if close else "not found"


def lint_instance(tests_dir: Path, *, display: str | None = None, abi_compat: tuple[int, ...] = ABI_COMPAT) -> InstanceReport:
    """Run every check on one instance.

    Args:
        tests_dir: the instance's ``tests/`` directory; ``task.toml`` is looked for in its parent.
        display: how the tests dir is named in findings (default: `tests_dir` as given).
        abi_compat: engine ABIs accepted for workflows (default: the installed engine's).

    Returns:
        `InstanceReport`. Never raises for anything found in the package.
    """
    shown = display if display is not None else str(tests_dir)
    report = InstanceReport(tests_dir=shown)
    try:
        if not tests_dir.is_dir():
            report.findings.append(Finding("P001", shown, _not_a_directory(tests_dir)))
            return report
        os.listdir(tests_dir)
    except OSError as exc:
        report.findings.append(Finding("P001", shown, f"cannot be read: {exc.strerror or exc}"))
        return report
    if (hint := not_tests_hint(tests_dir, shown)) is not None:  # `lint-rubric .` inside solution/ (trial 32 P-1)
        report.findings.append(Finding("P001", shown, f"{hint} (lint-rubric takes a task folder or its tests/)"))
        return report
    if not _looks_like_tests(tests_dir) and (hint := _batch_hint(tests_dir, shown)):  # a folder of tasks (trial 34 P-3)
        report.findings.append(Finding("R001", f"{shown}/rubric.json", f"cannot be read: not found{hint}"))
        return report  # its missing task.toml and test.sh are no news: it is no task
    base = shown_parent(shown)  # `.` inside tests/ names ../task.toml (trial 18 P-6)
    toml_shown = "task.toml" if base == "." else f"{base}/task.toml"

    doc, findings = _rubric(tests_dir, f"{shown}/rubric.json", abi_compat)
    findings += _links_leaving(tests_dir, shown)
    toml, toml_findings = _task_toml(parent_of(tests_dir) / "task.toml", toml_shown)
    if toml is None and not _looks_like_tests(tests_dir):
        toml_findings = [replace(f, message=f"{f.message}; {_not_a_tests_folder(tests_dir, shown)}") if f.code == "T010"
                         else f for f in toml_findings]
    placeholder_value = toml.env.get(testsh.PLACEHOLDER) if toml is not None else None
    placeholder = placeholder_value.effective if placeholder_value is not None else None
    pins = None
    script = tests_dir / "test.sh"
    if not os.path.lexists(script):
        sh_findings = [Finding("S001", f"{shown}/test.sh", _missing_test_sh(tests_dir))]
    else:
        pins, sh_findings = testsh.check(script, f"{shown}/test.sh", tests_dir=tests_dir,
                                         declared=placeholder_value is not None, placeholder=placeholder)
    if toml is not None:  # after test.sh: a variable the package's own test.sh reads is not unknown
        toml_findings += tasktoml.check(toml, needs_model=doc is None or methods.needs_model(doc),
                                        also_read=pins.names_read if pins is not None else frozenset())
    findings += toml_findings + sh_findings
    code_methods, workflows = methods.uses(doc) if doc is not None else (frozenset(), frozenset())
    findings += assets.check_assets(tests_dir, shown, doc, workflows)
    if doc is not None and methods.needs_model(doc):
        configured = toml.env.get("JUDGE_INSTRUCTION_FILE") if toml is not None else None
        if _agentic_rows(doc):  # trial 37 P-2: the workflows (ppt_judge…) ask with their own prompts, never this file
            findings += assets.check_instruction(tests_dir, shown, configured.effective if configured else None)
        findings += assets.check_task_prompt(tests_dir, shown, task_files.prompt_copy_fix(tests_dir, shown))
        findings += task_files.check_prompt_copy(tests_dir, shown)
    version, source = testsh.resolved_version(pins, placeholder)
    report.facts = Facts(version=version, version_source=source, extras=_extras(pins, toml),
                         code_methods=code_methods, workflows=workflows, agentic_rows=_agentic_rows(doc),
                         deck_named=_deck_named(doc, tests_dir))
    findings += _extras_findings(report.facts, toml, toml_shown, f"{shown}/test.sh")
    findings += _image_findings(tests_dir / "Dockerfile", f"{shown}/Dockerfile", toml, report.facts)
    findings += _trajectory_findings(doc, toml, toml_shown)
    findings += _chat_text_findings(doc, tests_dir, f"{shown}/rubric.json")
    findings += _ungated_deck_findings(doc, report.facts, f"{shown}/rubric.json")  # trial 28 P-5
    response_file = toml.env.get("JUDGE_RESPONSE_FILE") if toml is not None else None
    findings += task_files.check_solution(tests_dir, shown, doc, response_file.effective if response_file else None)
    findings += solve_sources.check_solve_sources(tests_dir, shown)  # trial 35 P-6
    report.findings, report.waived = _apply_waivers(findings, doc)
    return report


def _links_leaving(tests_dir: Path, shown: str) -> list[Finding]:
    """P003: every symbolic link under ``tests/`` whose target is not inside ``tests/`` (an absolute link, one
    that climbs out with ``..``, or one that dangles). ``cowork-judge try`` and Docker's ``COPY`` copy a link
    as a link, so in the verifier it points at nothing and the judge cannot read the file."""
    root = tests_dir.resolve()
    found = []
    for folder, dirs, files in os.walk(tests_dir):  # never follows a link to a folder: it is reported, not entered
        for name in sorted([*dirs, *files]):
            path = Path(folder) / name
            if not path.is_symlink():
                continue
            try:
                target = os.readlink(path)
                resolved = path.resolve()
            except (OSError, RuntimeError):  # a loop of links
                target, resolved = "?", path
            inside = not os.path.isabs(target) and resolved.is_relative_to(root) and os.path.exists(resolved)
            if not inside:
                rel = path.relative_to(tests_dir).as_posix()
                found.append(Finding("P003", f"{shown}/{rel}", f"a symbolic link to {target}, outside tests/: "
                                     "`cowork-judge try` and Docker's COPY copy it as a link, which points at nothing in "
                                     "the verifier (the judge cannot read it); put a copy of the file there instead"))
    return found


NOT_A_TESTS_FOLDER = ("this is not a tests/ folder (no rubric.json, no task.toml beside it): lint-rubric takes a task "
                      "folder or its tests/")
"""Said by S001 and T010 for a folder that is no task's ``tests/`` (`_looks_like_tests`)."""


def _not_a_tests_folder(tests_dir: Path, shown: str) -> str:
    """`NOT_A_TESTS_FOLDER`, plus `_batch_hint` when the folder holds task folders."""
    return NOT_A_TESTS_FOLDER + _batch_hint(tests_dir, shown)


def _batch_hint(tests_dir: Path, shown: str) -> str:
    """"; it holds task folders (a, b): lint them all with `lint-rubric --batch DIR`" when subfolders of
    `tests_dir` are task folders (hold ``tests/rubric.json``; trial 22: ``lint-rubric .`` from the folder of
    the tasks); "" otherwise. `shown` is the folder as the user wrote it."""
    try:
        names = sorted(e.name for e in os.scandir(tests_dir)
                       if e.is_dir() and os.path.isfile(os.path.join(e.path, "tests", "rubric.json"))
                       and not kept_try(Path(e.path)))
    except OSError:
        return ""
    if not names:
        return ""
    listed = ", ".join(names[:3]) + (f" … ({len(names)} in all)" if len(names) > 3 else "")
    each = "*/" if shown in (".", "./") else f"{shown.rstrip('/')}/*/"  # trial 34 P-3: --batch checks one family
    return (f"; {shown} holds task folders ({listed}): lint each of them with `lint-rubric {each}`; "
            f"`lint-rubric --batch {shown}` also checks that they are packaged alike (one judge version, extras, code "
            "methods and workflows: F001-F004), for many instances of one task, not for unrelated tasks")


def kept_try(folder: Path) -> bool:
    """Is `folder` one ``cowork-judge try --out`` kept (`kept_try_folder`: its marker file, or the shape of a run),
    and so no task (trial 44 P-1: its ``tests/`` is try's copy of the verifier's)? False when it cannot be read."""
    from cowork_judge.install.dryrun import kept_try_folder

    try:
        return folder.is_dir() and kept_try_folder(folder)
    except OSError:
        return False


def _looks_like_tests(tests_dir: Path) -> bool:
    """`tests_dir` may be a task's ``tests/``: named tests, or holding a rubric.json, or beside a task.toml."""
    return (absolute(tests_dir).name == "tests" or os.path.lexists(tests_dir / "rubric.json")
            or os.path.lexists(parent_of(tests_dir) / "task.toml"))


def _missing_test_sh(tests_dir: Path) -> str:
    """The S001 message: `cowork-judge init` writes test.sh; a folder that is no task's ``tests/`` is said to be
    none, since test.sh does not belong there."""
    message = "missing: Harbor runs tests/test.sh, so no trial of this package gets a reward"
    if not _looks_like_tests(tests_dir):
        return f"{message}; but {NOT_A_TESTS_FOLDER}, and `cowork-judge init <task folder>` writes tests/test.sh"
    return f"{message}; `cowork-judge init <task folder>` writes it (the task folder holds task.toml and tests/)"


def lint_instance_guarded(tests_dir: Path, *, display: str | None = None,
                          abi_compat: tuple[int, ...] = ABI_COMPAT) -> InstanceReport:
    """`lint_instance`, except that a failure of the linter itself becomes a P002 finding
    naming the exception, so one pathological package cannot stop a batch of thousands."""
    try:
        return lint_instance(tests_dir, display=display, abi_compat=abi_compat)
    except Exception as exc:  # noqa: BLE001 - a bug here must cost one instance, not the batch
        shown = display if display is not None else str(tests_dir)
        return InstanceReport(tests_dir=shown, findings=[
            Finding("P002", shown, f"lint-rubric failed on this package ({type(exc).__name__}: {str(exc)[:200]}); "
                                   "please report it with the package")])


def _one_folder_too_high(tests_dir: Path, file: str) -> str:
    """The R001 hint (`rubric_too_high`, its paths as `file`, the shown ``tests/rubric.json``, names them) when
    ``tests/rubric.json`` is missing but the task folder above holds a ``rubric.json``; "" otherwise."""
    above = f"{shown_parent(file.removesuffix('/rubric.json'))}/rubric.json".removeprefix("./")
    hint = rubric_too_high(parent_of(tests_dir), tests_dir=tests_dir, shown=(above, file))
    hint = hint or rubric_misnamed(tests_dir, file)  # tests/rubrics.json (trial 41 P-5)
    return f"; {hint}" if hint else ""


def _rubric(tests_dir: Path, file: str, abi_compat: tuple[int, ...]) -> tuple[RubricDoc | None, list[Finding]]:
    try:
        repeats = RepeatedKeys()
        raw, _, bom = read_json(tests_dir / "rubric.json", repeats)
    except Unreadable as exc:
        hint = _one_folder_too_high(tests_dir, file) or _batch_hint(tests_dir, file.removesuffix("/rubric.json"))
        return None, [Finding("R001", file, f"cannot be read: {exc}{hint}")]
    except NotJson as exc:
        return None, [Finding("R002", file, f"not valid JSON: {exc}")]
    doc = build(raw, file)
    findings = [Finding("R015", file, "starts with a UTF-8 byte-order mark: the judge skips it and reads the rubric, "
                                      "but strict JSON readers (Python's json.load, some fleet tools) refuse the file; "
                                      "save it as UTF-8 without BOM")] if bom else []
    findings += _repeated_keys(repeats, file)
    findings += rubric_checks.check_rows(doc)
    findings += row_wording.check(doc)
    findings += deps.check(doc)
    findings += methods.check(doc, abi_compat=abi_compat)
    findings += answer_rows.check(doc)
    findings += engine_warnings(doc)
    findings += rubric_checks.check_document(doc, findings)
    order = {r.label: r.position for r in doc.rows}
    findings.sort(key=lambda f: (order.get(f.row, 0) if f.row is not None else 0, f.code))
    return doc, findings


def _repeated_keys(repeats: RepeatedKeys, file: str) -> list[Finding]:
    """R018 (the engine refuses the file) for a key given twice with different values, R019 for one given twice
    with the same value (harmless, but a merge leftover worth removing). Trial 14 F4: both were silent."""
    out: list[Finding] = []
    for key, first, last in repeats.found:
        values = f"{json.dumps(first, default=str)[:60]}, then {json.dumps(last, default=str)[:60]}"
        if (key, first, last) in repeats.conflicts():
            out.append(Finding("R018", file, f"the key {key!r} is given twice in one object with different values "
                                             f"({values}): the judge refuses the rubric (a JSON reader keeps only the "
                                             "last, so which one was meant is unknown); give it once"))
        else:
            out.append(Finding("R019", file, f"the key {key!r} is given twice in one object, with the same value "
                                             f"({values}): harmless today, but remove the copy"))
    return out


def _task_toml(path: Path, file: str) -> tuple[tasktoml.TaskToml | None, list[Finding]]:
    if not os.path.lexists(path):  # its checks run only when it sits beside tests/ (SPEC §15)
        return None, [Finding("T010", file, "not found beside tests/: Harbor needs it, and its [verifier] timeout_sec, "
                                            "credential pair and knobs cannot be checked (`harbor init` creates it, then "
                                            "`cowork-judge init` writes them)")]
    return tasktoml.load(path, file)


def _extras_findings(facts: Facts, toml: tasktoml.TaskToml | None, toml_file: str, sh_file: str) -> list[Finding]:
    """M012: a workflow or code method of the rubric needs an extra the package does not install (not one whose run
    imports none of it: `install.extras.RUN_WITHOUT_EXTRAS`, trial 42 P-1)."""
    if facts.extras is None:
        return []
    lacking = extras_mod.missing(facts.extras, extras_mod.unjudged_without(facts.needs()))
    if not lacking:
        return []
    declared = toml is not None and toml.env.get(testsh.EXTRAS_VAR) is not None
    have = ",".join(facts.extras) or "none"
    known = [e for e in facts.extras if e.strip().lower() in extras_mod.KNOWN]  # a typo is not kept in the fix
    want = ",".join(extras_mod.minimal([*known, *lacking]))
    return [Finding("M012", toml_file if declared else sh_file,
                    f"installs extras [{have}], but {', '.join(why)} need(s) {extra!r}: {_lacking_effect(why)}; set "
                    f"{testsh.EXTRAS_VAR} to {want!r} (cowork-judge init chooses it from the rubric)", field=testsh.EXTRAS_VAR)
            for extra, why in lacking.items()]


def _lacking_effect(why: list[str], *, unjudged: str = "extras_missing, scorer_error") -> str:
    """What becomes of the rows `why` names (`install.extras.required`'s routes) without their extra or renderer:
    unjudged with the kinds `unjudged` says, or (agentic rows of a deck rubric) judged without a page."""
    effects = []
    if any("agentic row" not in w for w in why):
        effects.append(f"those rows would end unjudged ({unjudged})")
    if any("agentic row" in w for w in why):
        effects.append("no page of the deck would be rendered, so the agentic rows would be judged on its extracted "
                       "text alone, with every signal of the run green")
    return "; ".join(effects)


RENDERING_EXTRA = "workflow"
"""The extra whose rows render decks with LibreOffice (ppt_judge's ``REQUIRES_EXTRAS``): a verifier image
for them needs LibreOffice too (`install.verifier_image.DECK_PACKAGES`)."""


def _image_findings(path: Path, file: str, toml: tasktoml.TaskToml | None, facts: Facts) -> list[Finding]:
    """T011: a separate verifier built from ``tests/Dockerfile`` that installs no LibreOffice, for rows that
    render decks. Only the Dockerfile's instructions count (comments do not); an image whose base already
    carries LibreOffice is waived with ``--ignore T011``."""
    if toml is None or not toml.separate or not os.path.lexists(path):
        return []
    need = facts.needs().get(RENDERING_EXTRA)
    if not need:
        return []
    try:
        text = read_text(path)
    except Unreadable:
        return []
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")).lower()
    if "libreoffice" in body or "soffice" in body:
        return _impress_findings(body, file, need)
    return [Finding("T011", file, f"the separate verifier is built from this file, which installs no LibreOffice, but "
                                  f"{', '.join(need)} render(s) decks with it: {_lacking_effect(need, unjudged='render_env')} "
                                  "(and `cowork-judge try` would not notice: it uses this machine's LibreOffice); run "
                                  "cowork-judge init (it writes the image for the extras task.toml declares), or install "
                                  "libreoffice-impress and fonts (--ignore T011 for a base image that has them)")]


OFFICE_PACKAGE = re.compile(r"\blibreoffice(?:-[a-z0-9][a-z0-9.+-]*)?")
"""A LibreOffice package name in a Dockerfile's install lines (``libreoffice``, ``libreoffice-writer``…)."""


def _impress_findings(body: str, file: str, need: list[str]) -> list[Finding]:
    """T014 (trial 9 F7): a Dockerfile `body` (lower case, comments dropped) that names LibreOffice packages, all of
    them components without Impress (``libreoffice-writer``, ``libreoffice-calc``, ``libreoffice-core``…): a deck
    does not open there, and the deck rows `need` names end unjudged render_env. The whole suite (a bare
    ``libreoffice``, ``libreoffice-nogui``) or any ``…impress…`` package is enough; [] then."""
    names = set(OFFICE_PACKAGE.findall(body))
    if not names or any(n in ("libreoffice", "libreoffice-nogui") or "impress" in n for n in names):
        return []
    return [Finding("T014", file, f"this file installs LibreOffice {', '.join(sorted(names))} but not Impress, and "
                                  f"{', '.join(need)} render(s) decks with it: a .pptx does not open without Impress, so "
                                  f"{_lacking_effect(need, unjudged='render_env')}; add libreoffice-impress (or install "
                                  "libreoffice-impress-nogui; --ignore T014 for a base image that has it)")]


TRAJECTORY_WORKFLOW = "trajectory_judge"
"""The workflow whose rows a model judges on the agent's trajectory."""


def trajectory_rows(doc: RubricDoc | None) -> list[str]:
    """Labels of the rows judged on the agent's ATIF trajectory: code rows of a trajectory
    method (`code_methods.TRAJECTORY_METHODS`) and `TRAJECTORY_WORKFLOW` rows."""
    out = []
    for row in doc.rows if doc is not None else []:
        if not isinstance(row.raw, Mapping):
            continue
        method = row.method
        if (method == "code" and row.get("code_method_name") in TRAJECTORY_METHODS) or (
                method == "workflow" and row.get("workflow_name") == TRAJECTORY_WORKFLOW):
            out.append(row.label)
    return out


def _trajectory_findings(doc: RubricDoc | None, toml: tasktoml.TaskToml | None, file: str) -> list[Finding]:
    """T013: rows about what the agent did, in a task whose separate verifier receives no trajectory.

    A verifier sharing the agent's container reads ``/logs/agent/trajectory.json`` where the agent
    left it: nothing to check. A separate one sees it only through a collect hook (`tasktoml.carries_trajectory`);
    without one every such row ends unjudged ``trajectory_missing``. Host mode (Harbor's verifier class)
    reads the trial folder instead: ``--ignore T013`` there."""
    if toml is None or not toml.separate or toml.trajectory_carried:
        return []
    rows = trajectory_rows(doc)
    if not rows:
        return []
    shown = ", ".join(rows[:6]) + (f" and {len(rows) - 6} more" if len(rows) > 6 else "")
    return [Finding("T013", file, f"the verifier runs in its own container and no [[verifier.collect]] hook hands it the "
                                  f"agent's trajectory.json, but row(s) {shown} judge what the agent did: every one would "
                                  f"end unjudged trajectory_missing; run cowork-judge init (it writes the hook copying "
                                  f"the agent's files to {AGENT_COPY_DIR}), or --ignore T013 when Harbor runs the judge "
                                  "as its verifier class (host mode reads the trial folder)", field="[[verifier.collect]]")]


def _chat_text_findings(doc: RubricDoc | None, tests_dir: Path, file: str) -> list[Finding]:
    """M006 (trial 9 F4): text code rows (`TEXT_METHODS`) that search the deliverable files (``source: files``, the
    default) in a task that looks like a chat task (`task_files.looks_like_chat`: no row locates a file — no workflow
    row but an ``answer_match``/``trajectory_judge`` one, no other code row, no ``glob``/``path`` — and an
    ``answer_match`` row or a prompt that names no deliverable): they would search files the agent never delivers
    and miss (try warns at run time; lint said nothing). [] otherwise."""
    if not task_files.looks_like_chat(doc, tests_dir):
        return []
    rows = [r for r in (doc.rows if doc is not None else []) if isinstance(r.raw, Mapping)]
    text_rows = [row.label for row in rows if row.method == "code" and _params(row).get("source", "files") == "files"]
    if not text_rows:
        return []
    shown = ", ".join(text_rows[:6]) + (f" and {len(text_rows) - 6} more" if len(text_rows) > 6 else "")
    return [Finding("M006", file, f"code row(s) {shown} search the deliverable files (source: files, the default), but "
                                  "the task looks like a chat task (no row locates a file; an answer_match row judges "
                                  "the final message, or its prompt names no deliverable): they cannot match the final message; give them \"source\": \"response\" inside code_method_params "
                                  "(or --ignore M006 if the agent does write files)", field="code_method_params")]


def _ungated_deck_findings(doc: RubricDoc | None, facts: Facts, file: str) -> list[Finding]:
    """M015 (trial 28 P-5): a deck task — a deck code method or workflow, a code row's deck glob or a task prompt
    naming a PowerPoint file (`Facts.deck_named`: what init and M012 read) — whose positive model-judged rows no
    deliverable gate guards (`core.deck_gate.ungated_model_rows`). With no deck delivered and a final message the run
    judges the agentic ones on that message (JUDGE_CHAT_FALLBACK): the agent's claims, not its slides; the ppt_judge
    ones are said apart (`_ungated_workflow_finding`, trial 29 P-6). [] otherwise."""
    if doc is None or doc.normalized is None:
        return []
    deck_task = (facts.deck_named or bool(facts.code_methods & DECK_CODE_METHODS)
                 or bool(facts.workflows & set(methods.DECK_WORKFLOWS)))
    if not deck_task:
        return []
    message_rows, workflow_rows = split_ungated(doc.criteria)
    out = [_ungated_workflow_finding(workflow_rows, locate_deck_ids(doc.criteria), file)] if workflow_rows else []
    if not message_rows:
        return out
    return [Finding("M015", file, f"this is a deck task, but model-judged row(s) {_shown(message_rows)} are not gated "
                                  "on the deck (no locate_deck row in their depends_on): with no deck delivered, these "
                                  "rows are judged on the agent's final message (its claims, not slides; the run warns, "
                                  "the score is not changed); add the gate as docs/rubric.md shows (\"Use a gate, not a "
                                  "hurdle, for a deliverable that must exist\"): a positive locate_deck row listed in "
                                  "their depends_on", field="depends_on"), *out]


def _ungated_workflow_finding(rows: list[str], locators: list[str], file: str) -> Finding:
    """M015 for ungated ppt_judge `rows` (trial 29 P-6): not judged on the message (with no deck they are a judged
    miss), but a rollout leaving two or more decks and locating none ends the run in error; the fix is
    ``gen-ppt-rubrics --gate`` with the rubric's locate_deck row (`locators`) or a new one."""
    fix = (f"cowork-judge gen-ppt-rubrics <task> --gate {locators[0]}" if locators else
           "add a positive locate_deck row, then cowork-judge gen-ppt-rubrics <task> --gate <its id>")
    return Finding("M015", file, f"this is a deck task, but ppt_judge row(s) {_shown(rows)} are not gated on the deck "
                                 "(no locate_deck row in their depends_on): with no deck they are a judged miss (no "
                                 "model call), but a rollout that leaves two or more decks and locates none leaves them "
                                 "unjudged (workflow_error): status error, a systemic sample the fleet masks, where a "
                                 f"gate gives a judged 0; regenerate them gated: {fix}", field="depends_on")


def _shown(rows: list[str]) -> str:
    """`rows` as one phrase: the first six ids, then how many more."""
    return ", ".join(rows[:6]) + (f" and {len(rows) - 6} more" if len(rows) > 6 else "")


def _params(row: Any) -> Mapping[str, Any]:
    """A row's ``code_method_params`` when it is an object, else {}."""
    params = row.get("code_method_params")
    return params if isinstance(params, Mapping) else {}


def _deck_named(doc: RubricDoc | None, tests_dir: Path) -> bool:
    """Whether a code row's glob (`install.extras.deck_glob_rows`) or the task prompt
    (`install.extras.prompt_names_deck`) says the task delivers a deck: init reads the same (trial 20 P-5)."""
    rows = [row.raw for row in doc.rows] if doc is not None else []
    return bool(extras_mod.deck_glob_rows(rows)) or extras_mod.prompt_names_deck(tests_dir)


def _agentic_rows(doc: RubricDoc | None) -> int:
    """How many rows of `doc` an agentic judge decides (0 without a rubric)."""
    return sum(1 for row in (doc.rows if doc is not None else []) if isinstance(row.raw, Mapping) and row.method == "agentic")


def _extras(pins: testsh.Pins | None, toml: tasktoml.TaskToml | None) -> tuple[str, ...] | None:
    declared = toml.env.get(testsh.EXTRAS_VAR) if toml is not None else None
    if declared is not None and (pins is None or pins.extras_from_placeholder):
        value = declared.effective or ""
        return tuple(sorted({p.strip().lower() for p in value.strip("[]").split(",") if p.strip()}))
    return pins.extras if pins is not None else None


def _apply_waivers(findings: list[Finding], doc: RubricDoc | None) -> tuple[list[Finding], list[Finding]]:
    """Split off row findings whose row waives their code (``"lint_ignore": ["R021"]``)."""
    if doc is None:
        return findings, []
    waivers = {r.label: rubric_checks.waived(r) for r in doc.rows if isinstance(r.raw, Mapping)}
    kept: list[Finding] = []
    waived: list[Finding] = []
    for f in findings:
        (waived if f.row is not None and f.code in waivers.get(f.row, ()) else kept).append(f)
    return kept, waived


__all__ = ["Facts", "InstanceReport", "lint_instance", "lint_instance_guarded"]
