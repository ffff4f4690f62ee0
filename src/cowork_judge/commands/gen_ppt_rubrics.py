"""``cowork-judge gen-ppt-rubrics <instance>/tests``: write ppt_judge's rows into rubric.json (a task folder is
read as its ``tests/``, as ``init`` and ``lint-rubric`` read it: `cowork_judge.commands._taskfolder.task_tests_dir`).

Content rows come from the instance's ``workflow_assets/ppt_judge/task_check_dir`` and
visual rows from the shared template (`cowork_judge.authoring.gen_ppt_rubrics`); every other
row is kept. The new rubric is normalized before it is written (an invalid result is never
written); the file is rewritten atomically, and only when it changes.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cowork_judge.core.exit_status import EXIT_STATUS
from cowork_judge._util.fsutil import atomic_write

if TYPE_CHECKING:
    from cowork_judge.authoring.ppt_manifest import ManifestFix
    from cowork_judge.workflow.ppt_judge.assets import TaskChecks

DEFAULT_BALANCE = 1.0
"""Σ visual : Σ content written by default (issue 26): the template's 14 visual rows weigh 54, which
outweighed a typical author's content rows (16) 54 : 16 — a deck's look decided most of its reward.
``--balance R`` sets another ratio; ``--no-balance`` keeps the template's own weights."""

EPILOG = """Content rows (ppt_judge rows with workflow_group type1/type2) come from
tests/workflow_assets/ppt_judge/task_check_dir when it exists (type1: weight 3.0 if mandatory
else 2.0; type2: 4.0, depending on its paired type1 and the gates); --content refreshes only
them (the folder is then required). Visual rows (ppt_judge rows whose id starts with V-) come
from the shared template. Both are replaced in place (content before visual when new). Without
--gate the existing rows' gates are kept. The visual weights are scaled so that visual : content
= 1 (--balance R for another ratio, --no-balance for the template's own weights; a rubric with no
content weight keeps them). A deck task whose own rows judge the content and that has no checks
says so with --no-checklist: an empty checklist (zero checks) is written into task_check_dir,
which lint-rubric accepts (without it lint warns A014: the visual rows judge only the look). --fix-manifest
also sets task_check_dir/manifest.json's counts, pairs and type1_only from the checks (every other key and
the key order kept; each change printed; nothing when they agree). Exit status: 0 written (or nothing to change, or
--dry-run); 2 bad arguments, an unreadable rubric.json, a task_check_dir with problems, a manifest.json
--fix-manifest cannot fix (not a JSON object, unusable checks), a
rubric that would not normalize, or one that looks like a chat task's (no row finds or opens a
deck, no ppt_judge row, no task_check_dir, no deck asked for in tests/task_prompt.md; --force
writes the rows anyway), or a generated row whose weight or wording differs from what it would
write where only an author could have changed it (a weight, a visual row's wording; a content
row's wording follows task_check_dir and all visual weights moving by one factor is the balance):
each such row is named, nothing written; --force writes over them)."""


def main(argv: list[str]) -> int:
    """Run the command with `argv`; returns the exit status."""
    args = _parser().parse_args(argv)
    tests, misplaced = _task_tests(args.tests_dir)
    if misplaced:
        return _fail(misplaced)
    if tests is not None:  # the task folder, as init, try and lint-rubric take it: never a stray <task>/rubric.json
        stray = " (its own rubric.json, beside task.toml, is left alone)" if (args.tests_dir / "rubric.json").exists() else ""
        print(f"cowork-judge gen-ppt-rubrics: {args.tests_dir} is a task folder: generating for {tests / 'rubric.json'}{stray}",
              file=sys.stderr)
        args.tests_dir = tests

    from cowork_judge.core.layout import workflow_assets_dir

    path = args.tests_dir / "rubric.json"
    if not args.tests_dir.is_dir():
        from cowork_judge._util.given_paths import not_a_folder

        return _fail(f"{not_a_folder(args.tests_dir)} (nothing written)")
    try:
        old_text = path.read_text(encoding="utf-8") if path.exists() else None
        raw = json.loads(old_text) if old_text is not None else None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return _fail(f"{path}: cannot read: {exc}")
    if args.content and args.balance is not None:
        return _fail("--balance scales the visual rows, which --content leaves alone")
    if args.no_balance and args.balance is not None:
        return _fail("--balance and --no-balance exclude each other")
    if not args.force and (refused := _chat_task_refusal(args.tests_dir, raw)):  # trial 44 P-2: before any write
        return _fail(refused)
    written: list[Path] = []  # the empty checklist this call writes: removed again when the call then refuses
    if args.no_checklist:
        if args.content:
            return _fail("--no-checklist and --content exclude each other (--content reads the checklist's checks)")
        refused = _write_empty_checklist(workflow_assets_dir(args.tests_dir, "ppt_judge"), dry_run=args.dry_run,
                                         written=written)
        if refused:
            return _fail(refused)
    status = _generate_and_deliver(args, raw, old_text, path)
    if status != EXIT_STATUS["clean"] and written:  # trial 34 P-4: a refusal leaves nothing behind
        _remove_written(written)
    return status


def _remove_written(written: list[Path]) -> None:
    """Remove the files and then the folders (when empty) of `written` (created by this call), said on stderr."""
    for path in sorted(written, key=lambda p: len(p.parts), reverse=True):
        try:
            path.rmdir() if path.is_dir() else path.unlink()
        except OSError:
            pass
    print("the empty checklist this call wrote is removed again (nothing written)", file=sys.stderr)


def _generate_and_deliver(args: argparse.Namespace, raw: Any, old_text: str | None, path: Path) -> int:
    """The rows generated over the task's checklist and written (`_deliver`), and the manifest fix; the exit status."""
    from cowork_judge.authoring.gen_ppt_rubrics import GenError, TemplateError
    from cowork_judge.core.layout import workflow_assets_dir
    from cowork_judge.core.rubric import RubricError
    from cowork_judge.workflow.ppt_judge.assets import load_task_checks

    checks = load_task_checks(workflow_assets_dir(args.tests_dir, "ppt_judge"))
    try:
        rows = _generate_rows(args, raw, checks)
    except (TemplateError, GenError) as exc:
        return _fail(str(exc))
    except RubricError as exc:
        return _fail(f"the generated rubric would not normalize, nothing written: {exc}")
    for note in dict.fromkeys(rows.notes):
        print(f"note: {note}", file=sys.stderr)
    _warn_ungated(rows)
    if not checks.present and not args.no_checklist:  # trial 18 P-1: what lint then says (A014), and what the run does
        print(f"warning: {workflow_assets_dir(args.tests_dir, 'ppt_judge') / 'task_check_dir'} does not exist: no "
              "content row was written, and the visual rows judge only the deck's look (lint-rubric warns A014). "
              "Write the deck's checks there (docs/deck-judging.md), then run gen-ppt-rubrics --content; or, when "
              "your own rows judge the content, say so with gen-ppt-rubrics --no-checklist (an empty checklist)",
              file=sys.stderr)
    fix, refused = _plan_manifest(checks) if args.fix_manifest else (None, None)
    if refused:
        return _fail(refused)
    if fix is None:
        _warn_manifest(checks)
    new_text = json.dumps(rows.document, indent=2, ensure_ascii=False) + "\n"
    status = _deliver(path, old_text, new_text, f"{'; '.join(rows.parts)}; gates: {', '.join(rows.gates) or 'none'}",
                      dry_run=args.dry_run, edited=_edited_rows(raw, rows.document), force=args.force)
    return _deliver_manifest(fix, dry_run=args.dry_run) if fix is not None and status == EXIT_STATUS["clean"] else status


def _warn_ungated(rows: _Rows) -> None:
    """Trial 29 P-6: the ppt_judge rows were written with no gate (no ``--gate``, none kept) while the rubric has
    a positive locate_deck row: warn on stderr, naming ``--gate <that id>`` (what lint's M015 then says)."""
    from cowork_judge.core.deck_gate import locate_deck_ids
    from cowork_judge.core.rubric import normalize_rubric

    locators = [] if rows.gates else locate_deck_ids(normalize_rubric(rows.document).criteria)
    if locators:
        print(f"warning: the ppt_judge rows are not gated on the deck, though {locators[0]} locates it: a rollout "
              "that leaves two or more decks and locates none then ends the run in error (these rows unjudged, "
              f"workflow_error) instead of a judged 0 (lint-rubric M015); run again with --gate {locators[0]}",
              file=sys.stderr)


def _write_empty_checklist(asset_dir: Path, *, dry_run: bool, written: list[Path]) -> str | None:
    """``--no-checklist`` (trial 18 P-1): write the empty checklist (`assets.empty_checklist`) into
    ``<asset_dir>/task_check_dir``; nothing when it is one already, or with `dry_run` (said on stderr). Every
    folder it creates and file it writes is appended to `written`.
    Returns why it refuses (a checklist file is there and the folder is not an empty checklist), else None."""
    from cowork_judge.workflow.ppt_judge.assets import TASK_CHECK_DIR, empty_checklist, load_task_checks

    folder, docs = asset_dir / TASK_CHECK_DIR, empty_checklist()
    there = [name for name in docs if (folder / name).exists() or (folder / name).is_symlink()]
    if there:
        checks = load_task_checks(asset_dir)
        if checks.present and not checks.declared and not checks.problems:
            print(f"{folder}: already an empty checklist", file=sys.stderr)
            return None
        return (f"--no-checklist: {folder} already holds {', '.join(there)}: it writes only a new, empty checklist "
                "(remove the folder first to drop its checks)")
    if dry_run:
        print(f"dry run: would write an empty checklist ({', '.join(docs)}) into {folder}", file=sys.stderr)
        return None
    written += [p for p in (*reversed(folder.parents), folder) if p.is_relative_to(asset_dir.parent) and not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in docs.items():
        atomic_write(folder / name, json.dumps(doc, indent=2) + "\n")
        written.append(folder / name)
    print(f"{folder}: wrote an empty checklist (no content checks: the visual rows judge the deck's look, rows of "
          "your own its content)", file=sys.stderr)
    return None


def _plan_manifest(checks: TaskChecks) -> tuple[ManifestFix | None, str | None]:
    """``--fix-manifest`` (trial 28 P-6): (the planned fix of manifest.json, None) or (None, why it refuses), before
    anything is written."""
    from cowork_judge.authoring.ppt_manifest import ManifestFixError, plan_manifest_fix

    try:
        return plan_manifest_fix(checks), None
    except ManifestFixError as exc:
        return None, f"--fix-manifest: {exc} (nothing written)"


def _deliver_manifest(fix: ManifestFix, *, dry_run: bool) -> int:
    """Write the fixed manifest.json atomically (or say what `dry_run` would change); says what changed, or that
    its counts, pairs and type1_only already agree with the checks. Returns the exit status."""
    if fix.text is None:
        print(f"{fix.path}: no change (counts, pairs and type1_only agree with the checks)")
        return EXIT_STATUS["clean"]
    if dry_run:
        print(f"dry run: would update {fix.path}: {'; '.join(fix.changes)}; nothing written", file=sys.stderr)
        return EXIT_STATUS["clean"]
    try:
        _write_atomic(fix.path, fix.text)
    except OSError as exc:
        return _fail(f"{fix.path}: cannot write: {exc}")
    print(f"{fix.path}: updated {'; '.join(fix.changes)}")
    return EXIT_STATUS["clean"]


def _warn_manifest(checks: TaskChecks) -> None:
    """One ``warning:`` line per place the task_check_dir's ``manifest.json`` disagrees with its checks
    (`TaskChecks.manifest_disagreements`, the check behind lint's A010; trial 11 F5). The rows are written from
    the checks, which is what the judge reads; lint refuses the package until the manifest follows them."""
    if not checks.present:
        return
    for problem in checks.manifest_disagreements():
        print(f"cowork-judge gen-ppt-rubrics: warning: {checks.folder / problem.file}: {problem.message} (the rows follow type1.json/type2.json; "
              "lint-rubric reports A010 and refuses the package until manifest.json's counts, pairs and type1_only "
              "follow the checks: run gen-ppt-rubrics --fix-manifest to write them)", file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    """The command line of ``cowork-judge gen-ppt-rubrics``."""
    p = argparse.ArgumentParser(prog="cowork-judge gen-ppt-rubrics", epilog=EPILOG,
                                description="Write ppt_judge's content rows (from the instance's task_check_dir) and "
                                            "visual rows (from the shared template) into <tests>/rubric.json.")
    p.add_argument("tests_dir", type=Path, help="the instance's tests/ folder, which must exist (rubric.json in it is "
                   "created if absent), or the task folder holding it (task.toml and tests/)")
    p.add_argument("--gate", nargs="+", metavar="ID", help="row ids (code gates) every ppt_judge row depends on; "
                                                         "their own dependencies are added")
    p.add_argument("--content", action="store_true", help="refresh only the content rows (from task_check_dir)")
    p.add_argument("--no-checklist", action="store_true", help="no content checks, on purpose: write an empty "
                   "checklist into task_check_dir (zero checks; the visual rows judge the look, your own rows the "
                   "content; lint-rubric then accepts it without A014)")
    p.add_argument("--balance", type=float, metavar="R",
                   help=f"scale visual weights to visual:content = R (default {DEFAULT_BALANCE:g})")
    p.add_argument("--no-balance", action="store_true", help="keep the template's visual weights (visual rows then "
                   "usually outweigh the content rows)")
    p.add_argument("--fix-manifest", action="store_true", help="also set task_check_dir/manifest.json's counts, "
                   "pairs and type1_only from the checks (every other key kept; nothing when they agree): what "
                   "lint-rubric's A010 otherwise asks you to edit by hand")
    p.add_argument("--dry-run", action="store_true", help="print the diff instead of writing")
    p.add_argument("--force", action="store_true", help="write the deck rows even where nothing says the task delivers a "
                   "deck (no deck gate or ppt_judge row, no task_check_dir, no deck in tests/task_prompt.md), and over "
                   "generated rows whose weight or wording differs from what it would write (edited by hand)")
    p.add_argument("--template", type=Path, help=argparse.SUPPRESS)  # tests: another template
    return p


@dataclass
class _Rows:
    """The generated rubric `document`, one summary part per kind of row written (content,
    visual), the `notes` worth telling and the `gates` every ppt_judge row depends on."""

    document: Any
    parts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)


def _generate_rows(args: argparse.Namespace, raw: Any, checks: TaskChecks) -> _Rows:
    """The content rows (from `checks`, with --content or when task_check_dir exists) and
    the visual rows (unless --content) written into `raw`, normalized.

    Raises:
        TemplateError: the template cannot be read.
        GenError: the rows cannot be generated.
        RubricError: the generated rubric would not normalize.
    """
    from cowork_judge.authoring.gen_ppt_rubrics import GenError, generate, generate_content, load_template
    from cowork_judge.core.rubric import normalize_rubric

    out = _Rows(document=raw)
    if args.content or checks.present:
        content = generate_content(out.document, checks, gates=args.gate)
        out.document = content.document
        n1 = sum(1 for r in content.rows if r["workflow_group"] == "type1")
        out.parts.append(f"{n1} type1 + {len(content.rows) - n1} type2 content row(s) (replacing {content.replaced})")
        out.notes += content.notes
        out.gates = content.gates
    if not args.content:
        balance = None if args.no_balance else (args.balance if args.balance is not None else DEFAULT_BALANCE)
        template = load_template(args.template)
        try:
            visual = generate(out.document, template, gates=args.gate, balance=balance)
        except GenError as exc:
            if args.balance is not None or "no positive content weight" not in str(exc):
                raise
            visual = generate(out.document, template, gates=args.gate, balance=None)  # nothing to balance against
            out.notes.append("visual weights kept as the template's: the rubric has no content weight to balance against")
        out.document = visual.document
        out.parts.append(f"{len(visual.rows)} visual row(s) (replacing {visual.replaced})")
        out.notes += visual.notes
        out.gates = list(dict.fromkeys([*out.gates, *visual.gates]))
    normalize_rubric(out.document)
    return out


def _deliver(path: Path, old_text: str | None, new_text: str, summary: str, *, dry_run: bool,
             edited: list[str] | None = None, force: bool = False) -> int:
    """Write `new_text` to `path` when it changes (or print the diff with `dry_run`) and say
    what was written (`summary`); returns the exit status. `edited` (`_edited_rows`): rows whose
    hand edits the write would undo; without `force` they are named and nothing is written (exit 2)."""
    if dry_run:
        diff = difflib.unified_diff((old_text or "").splitlines(keepends=True), new_text.splitlines(keepends=True),
                                    fromfile=f"{path} (now)", tofile=f"{path} (generated)")
        sys.stdout.writelines(diff)
        print(f"dry run: {summary}; nothing written" + (" (no change)" if old_text == new_text else ""), file=sys.stderr)
        return EXIT_STATUS["clean"]
    if old_text == new_text:
        print(f"{path}: no change ({summary})")
        return EXIT_STATUS["clean"]
    if edited and not force:  # trial 3 M5: never discard an author's weight or wording silently
        for line in edited:
            print(f"cowork-judge gen-ppt-rubrics: {line}", file=sys.stderr)
        return _fail(f"{len(edited)} generated row(s) in {path} differ from what it would write (edited by hand, or "
                     "a visual weight the balance does not explain): nothing written; --dry-run shows the diff, --force writes the "
                     "generated rows over them")
    try:
        _write_atomic(path, new_text)
    except OSError as exc:
        return _fail(f"{path}: cannot write: {exc}")
    print(f"{path}: wrote {summary}")
    return EXIT_STATUS["clean"]


def _edited_rows(old: object, new: object) -> list[str]:
    """One line per generated row present in both rubrics (same id) that the run would change
    where only an author could have changed it: "ID: weight 5 → 1.444; wording replaced".

    Not edits: a content row's wording (it follows the task_check_dir's question, the place to
    edit it), and the visual weights of the largest set of visual rows (two or more) that one
    earlier balance explains (`_rebalanced`: the balance recomputed after a content weight
    changed, each weight rounded to `WEIGHT_DECIMALS`; trial 30 P-3). Rows only in one rubric
    (added, removed) are not edits.
    """
    from cowork_judge.core.rubric import LIST_KEYS

    def rows(doc: object) -> dict[str, dict[str, object]]:
        items = next((doc[k] for k in LIST_KEYS if isinstance(doc.get(k), list)), []) if isinstance(doc, dict) else doc
        return {str(r["id"]): r for r in (items if isinstance(items, list) else []) if isinstance(r, dict) and "id" in r}

    before, after = rows(old), rows(new)
    both = [(rid, before[rid], row) for rid, row in after.items() if rid in before]
    explained = _rebalanced({rid: (b.get("weight"), a.get("weight")) for rid, b, a in both if rid.startswith("V-")})
    out = []
    for rid, was, row in both:
        changes = []
        if was.get("weight") != row.get("weight") and rid not in explained:
            changes.append(f"weight {was.get('weight')} → {row.get('weight')}")
        if rid.startswith("V-") and was.get("description") != row.get("description"):
            changes.append("wording replaced")
        if changes:
            out.append(f"{rid}: {'; '.join(changes)}")
    return out


def _rebalanced(weights: dict[str, tuple[object, object]]) -> set[str]:
    """The ids (of `weights`: id → (weight now in the file, weight the run would write)) whose weight one
    common factor r explains: ``was = r × new`` up to the rounding of both to `WEIGHT_DECIMALS`, r taken
    where the most rows agree. Empty when fewer than two rows agree (one moved row is a hand edit), or no
    weight moved. Non-numeric or non-positive weights are never explained.

    Each row allows r in [(was − h) / (new + h), (was + h) / (new − h)], h half a unit of the last kept
    decimal: a weight the tool wrote by any earlier balance lies in it, whatever its size (trial 30 P-3:
    critical 1.0 and normal 0.5, both ×0.1667, gave ratios 1.125 and 1.126 after 9 → 8, which the old
    per-row ratio rounded to 1.12 and 1.13)."""
    from cowork_judge.authoring.gen_ppt_rubrics import WEIGHT_DECIMALS

    half = 0.5 * 10.0 ** -WEIGHT_DECIMALS + 1e-9
    spans: dict[str, tuple[float, float]] = {}
    for rid, (was, now) in weights.items():
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 for x in (was, now)):
            w, n = float(was), float(now)  # type: ignore[arg-type]
            spans[rid] = ((w - half) / (n + half), (w + half) / (n - half) if n > half else float("inf"))
    if not spans or all(weights[rid][0] == weights[rid][1] for rid in spans):
        return set()
    best = max((lo for lo, _ in spans.values()),
               key=lambda r: sum(lo <= r <= hi for lo, hi in spans.values()))
    agree = {rid for rid, (lo, hi) in spans.items() if lo <= best <= hi}
    return agree if len(agree) >= 2 else set()


def _chat_task_refusal(tests_dir: Path, raw: object) -> str | None:
    """Why the command refuses `tests_dir` as a chat task (`_not_a_deck_task`), judged on the folder as it was
    before this call wrote anything (trial 44 P-2: the empty checklist ``--no-checklist`` writes is no evidence
    of a deck, and the dry run and the real run must agree). None: it may be a deck task."""
    from cowork_judge.core.layout import workflow_assets_dir
    from cowork_judge.workflow.ppt_judge.assets import load_task_checks

    return _not_a_deck_task(tests_dir, raw, load_task_checks(workflow_assets_dir(tests_dir, "ppt_judge")).present)


def _not_a_deck_task(tests_dir: Path, raw: object, checks_present: bool) -> str | None:
    """Why the rubric looks like a chat task's (None: it may be a deck task). A rubric with no rows and no
    task prompt is a deck rubric being started: nothing says otherwise."""
    from cowork_judge.authoring.gen_ppt_rubrics import deck_evidence
    from cowork_judge.core.rubric import DECK_CODE_METHODS, LIST_KEYS

    prompt_path = tests_dir / "task_prompt.md"
    try:
        prompt = prompt_path.read_text(encoding="utf-8", errors="replace") if prompt_path.is_file() else None
    except OSError:
        prompt = None
    rows = next((raw[k] for k in LIST_KEYS if isinstance(raw.get(k), list)), None) if isinstance(raw, dict) else raw
    n = len(rows) if isinstance(rows, list) else 0
    if deck_evidence(raw, checks_present=checks_present, task_prompt=prompt) or (n == 0 and prompt is None):
        return None
    seen = []
    if n:
        seen.append(f"none of the {n} row(s) of rubric.json finds or opens a deck ({', '.join(sorted(DECK_CODE_METHODS))}) "
                    "or is a ppt_judge row")
    seen.append("there is no workflow_assets/ppt_judge/task_check_dir")
    if prompt is not None:
        seen.append("tests/task_prompt.md asks for no slides, deck or .pptx")
    return (f"{tests_dir} looks like a chat task: {'; '.join(seen)}. The 14 visual rows judge a slide deck: a rollout "
            "without one loses their whole weight. Nothing written; add the deck's gate rows first (e.g. a locate_deck "
            "row, then --gate), or pass --force if this task does deliver a deck")


def _write_atomic(path: Path, text: str) -> None:
    atomic_write(path, text, keep_mode=True)


def _task_tests(path: Path) -> tuple[Path | None, str]:
    """(the ``tests/`` folder to write in when `path` is a task folder, else None; why nothing may be written, or "").

    A folder with a ``task.toml`` and a ``tests/`` folder is a task folder even when a ``rubric.json`` was saved
    in it by mistake (trial 18 P-3: the rows went into that stray file): its rubric is ``tests/rubric.json``,
    the one init, try and the verifier read. When only the stray one exists, the author is told to move it
    (`install.taskinit.rubric_too_high`).
    """
    from cowork_judge._util.given_paths import not_tests_hint
    from cowork_judge.commands._taskfolder import task_tests_dir
    from cowork_judge.install.taskinit import rubric_too_high

    try:
        task = (path / "task.toml").is_file() and (path / "tests").is_dir()
    except OSError:
        task = False
    if task and (stray := rubric_too_high(path)):
        return None, (f"{path} is a task folder and its rubric is tests/rubric.json (init, try and the verifier read "
                      f"only that one), which is missing, but {stray}; then run gen-ppt-rubrics again (nothing written)")
    if not task and (hint := not_tests_hint(path, str(path))) is not None:  # inside solution/ (trial 32 P-1)
        return None, f"{path} is {hint} (nothing written)"
    return (path / "tests" if task else task_tests_dir(path)), ""


def _fail(message: str) -> int:
    print(f"cowork-judge gen-ppt-rubrics: {message}", file=sys.stderr)
    return EXIT_STATUS["usage"]
