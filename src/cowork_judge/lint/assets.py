"""Files around the rubric: workflow assets nobody uses, the judge instruction, asset hooks.

``tests/workflow_assets/<workflow name>/`` holds per-instance assets of one workflow. A
file there is unused (A001) when no rubric row names that workflow, or when it sits
directly under ``workflow_assets/``, or when the workflow's registered asset check does
not claim it. Workflows without a registered asset check may read anything in their folder.

`ASSET_CHECKS` is the table of those checks (workflow name → check); each runs for every
rubric that routes rows to its workflow, whether the instance has assets or not (a missing
folder can be the finding): ``ppt_judge`` → `cowork_judge.lint.ppt_assets.check` (A010,
A011).
"""

from __future__ import annotations

import os
from pathlib import Path

from cowork_judge.lint import ppt_assets
from cowork_judge.lint.asset_check import AssetCheck, AssetContext, AssetResult
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import RubricDoc
from cowork_judge.core.layout import TASK_PROMPT_NAME
from cowork_judge.run.instruction import COPY_HINT, INSTRUCTION_NAMES, choose_instruction, misnamed_instruction, task_prompt_text

ASSETS_DIR = "workflow_assets"
MAX_ASSET_FILES = 20_000
"""Files walked under workflow_assets/ before the walk stops (with a finding)."""
MAX_LISTED = 20
"""Unused files named one by one; the rest are counted."""


ASSET_CHECKS: dict[str, AssetCheck] = {"ppt_judge": ppt_assets.check}
"""workflow name → its asset check (called with the workflow's folder, which may not exist)."""


def check_assets(tests_dir: Path, display: str, doc: RubricDoc | None, workflows: frozenset[str]) -> list[Finding]:
    """A001 (and whatever the registered asset checks report) for ``tests/workflow_assets/``.

    Args:
        display: how the tests dir is shown in findings.
        workflows: workflow names the rubric routes to.
    """
    root = tests_dir / ASSETS_DIR
    out: list[Finding] = []
    unused: list[str] = []
    whole: dict[str, int] = {}
    files_by_workflow: dict[str, list[Path]] = {}
    walked = 0
    for current, dirs, files in os.walk(root, onerror=None, followlinks=False) if _real_dir(root) else ():
        dirs.sort()
        for name in sorted(files):
            walked += 1
            if walked > MAX_ASSET_FILES:
                out.append(Finding("A001", f"{display}/{ASSETS_DIR}", f"more than {MAX_ASSET_FILES} files: the rest "
                                                                      "were not looked at"))
                return out + _listed(display, unused, whole)
            path = Path(current) / name
            rel = path.relative_to(root)
            if len(rel.parts) == 1:
                unused.append(rel.as_posix())
            elif rel.parts[0] not in workflows:
                whole[rel.parts[0]] = whole.get(rel.parts[0], 0) + 1
            else:
                files_by_workflow.setdefault(rel.parts[0], []).append(path)
    for name in sorted(workflows):
        hook = ASSET_CHECKS.get(name)
        if hook is None or doc is None:
            continue
        result = hook(AssetContext(tests_dir=tests_dir, asset_dir=root / name, doc=doc, display=display))
        out += result.findings
        if result.used is not None:
            used = result.used | {_resolved(u) for u in result.used}  # a symlinked anchor is used through its link
            unused += [p.relative_to(root).as_posix() for p in files_by_workflow.get(name, [])
                       if p not in used and _resolved(p) not in used]
    return out + _listed(display, unused, whole)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return path


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _listed(display: str, unused: list[str], whole: dict[str, int]) -> list[Finding]:
    out = [Finding("A001", f"{display}/{ASSETS_DIR}/{name}", f"{count} file(s) for workflow {name!r}, which no rubric "
                                                            "row names: packaged for nothing (or a workflow_name typo)")
           for name, count in sorted(whole.items())]
    for rel in unused[:MAX_LISTED]:
        out.append(Finding("A001", f"{display}/{ASSETS_DIR}/{rel}", "no workflow uses this file"))
    if len(unused) > MAX_LISTED:
        out.append(Finding("A001", f"{display}/{ASSETS_DIR}", f"and {len(unused) - MAX_LISTED} more unused files"))
    return out


def check_instruction(tests_dir: Path, display: str, configured: str | None) -> list[Finding]:
    """What the run would say about its judge instruction (SPEC §10 order), found the run's way
    (`run.instruction.choose_instruction`, so lint and run agree on a UTF-16 or Latin-1 file):
    `configured` (JUDGE_INSTRUCTION_FILE from task.toml, relative to tests/ or under /tests/), else
    the first of `INSTRUCTION_NAMES` with text.

    A002 when none has text (the judge falls back to its built-in default; the files passed over
    are named with why: unreadable, binary — UTF-16 without its mark —, empty); A003 for a file
    passed over while another is used, and for bytes of the used file that could not be decoded
    (the judge reads them as U+FFFD). Call it only for model-judged rubrics (trial 11 F13)."""
    candidates: list[Path] = []
    if configured:
        path = Path(configured)
        if configured.startswith("/tests/"):
            candidates.append(tests_dir / configured[len("/tests/"):])
        elif not path.is_absolute():
            candidates.append(tests_dir / path)
        else:
            return []  # a file baked into the image: not the package's business
    candidates += [tests_dir / name for name in INSTRUCTION_NAMES]
    text, chosen, problems = choose_instruction(list(dict.fromkeys(candidates)))

    def shown(path: Path) -> str:
        return f"{display}/{path.relative_to(tests_dir)}" if path.is_relative_to(tests_dir) else str(path)

    if chosen is None:
        names = ", ".join(INSTRUCTION_NAMES)
        passed = "".join(f"; {shown(path)} {problem}" for path, problem in problems)
        if (near := misnamed_instruction(tests_dir)) is not None:  # tests/judge-instruction.md (trial 41 P-6)
            passed += (f"; {shown(near[0])} is spelled alike but not read: did you mean to name it {near[1]}? "
                       f"(`mv {shown(near[0])} {display}/{near[1]}`)")
        return [Finding("A002", display, f"no judge instruction ({names}, or JUDGE_INSTRUCTION_FILE) with text{passed}: "
                                         "the judge falls back to its built-in default instruction")]
    out = []
    for path, problem in problems:
        if path == chosen:
            out.append(Finding("A003", shown(path), f"{problem}: the judge reads it with U+FFFD in place of the "
                                                    "undecodable bytes; save it as UTF-8"))
        else:
            out.append(Finding("A003", shown(path), f"{problem}: the judge passes it over and reads "
                                                    f"{shown(chosen)} instead"))
    return out


def check_task_prompt(tests_dir: Path, display: str, fix: str = "") -> list[Finding]:
    """A004 for a ``task_prompt.md`` the judge cannot be sent cleanly: what the run warns
    (`run.instruction.task_prompt_text`, the same reader) — missing, empty, unreadable, binary
    (UTF-16 without its mark: not sent), or with bytes that could not be decoded (sent as
    U+FFFD); a missing, empty or unreadable one ends with `fix` in place of the run's general hint when it is
    given (the ``cp`` from the task's ``instruction.md``: `task_files.prompt_copy_fix`, trial 19 P-6); not when a file beside it is spelled alike: the run's "did you mean: rename" says the fix, trial 29 P-8). Call it only for model-judged rubrics (a code row never reads the task)."""
    text, warnings = task_prompt_text(tests_dir / TASK_PROMPT_NAME, needs_model=True)
    fix = fix if not text.strip() and not any("did you mean: rename" in w for w in warnings) else ""
    return [Finding("A004", f"{display}/{TASK_PROMPT_NAME}",
                    _shown(warning, tests_dir, display, fix)) for warning in warnings]


def _shown(warning: str, tests_dir: Path, display: str, fix: str) -> str:
    """The run's `warning` as lint prints it: the tests folder as the user spelled it, the exact ``cp`` (`fix`) in
    place of the run's general hint when there is one."""
    shown = warning.replace(f" in {tests_dir}:", f" in {display}:")
    return shown.replace(COPY_HINT, "") + fix if fix else shown


__all__ = ["ASSETS_DIR", "ASSET_CHECKS", "AssetCheck", "AssetContext", "AssetResult", "check_assets", "check_instruction", "check_task_prompt"]
