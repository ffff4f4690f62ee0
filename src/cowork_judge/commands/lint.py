"""``cowork-judge lint`` / ``lint-rubric``: check task packages before they ship (SPEC §15).

Exit status: 0 when no ERROR was found (WARNs allowed unless ``--strict``), 1 on any
ERROR (or on a ``--fix-closure`` that could not write), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cowork_judge.commands._taskfolder import task_tests_dir

if TYPE_CHECKING:
    from cowork_judge.lint.codes import Finding

USAGE_EXIT = 2


def _parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Check <instance>/tests (and the task.toml beside it) before packaging. Nothing from the package "
                    "is executed. Exit 1 on any ERROR, 0 otherwise.",
        epilog="Every check code, its level and what it catches: docs/lint-rubric.md (\"Checking a package before it "
               "ships\"); a row can waive a code with \"lint_ignore\": [\"R021\"].")
    p.add_argument("tests_dirs", nargs="*", metavar="TESTS_DIR", help="an instance's tests/ folder, or the task folder "
                   "that holds it and task.toml (several allowed)")
    p.add_argument("--batch", metavar="DIR_OR_JSONL", help="lint many instances and check each family for one judge "
                                                           "version, extras, code method and workflow set")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    p.add_argument("--fix-closure", action="store_true", help="rewrite depends_on to its transitive closure (only "
                                                              "that), print the diff, then lint")
    p.add_argument("--dry-run", action="store_true", help="with --fix-closure: print the diff, write nothing")
    p.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    p.add_argument("--ignore", metavar="CODES", default="", help="comma-separated check codes to leave out")
    return p


def main(argv: list[str], *, prog: str = "cowork-judge lint") -> int:
    """Run the linter with `argv`; returns the exit status (see the module docstring)."""
    args = _parser(prog).parse_args(argv)
    from cowork_judge.lint import batch, report
    from cowork_judge.lint.codes import CHECKS
    from cowork_judge.lint.instance import lint_instance_guarded

    ignore = {c.strip().upper() for c in args.ignore.split(",") if c.strip()}
    unknown = sorted(ignore - set(CHECKS))
    if unknown:
        print(f"{prog}: unknown check code(s) in --ignore: {', '.join(unknown)}", file=sys.stderr)
        return USAGE_EXIT
    if not args.tests_dirs and not args.batch:
        print(f"{prog}: give a tests dir (e.g. {prog} my-task/tests) or --batch DIR_OR_JSONL", file=sys.stderr)
        return USAGE_EXIT
    if args.dry_run and not args.fix_closure:
        print(f"{prog}: --dry-run goes with --fix-closure", file=sys.stderr)
        return USAGE_EXIT

    entries = [e for e in (_entry(d, prog) for d in args.tests_dirs) if e is not None]
    if args.tests_dirs and not entries and not args.batch:
        return USAGE_EXIT  # every folder given was a kept `try --out` folder, each said so
    batch_findings: list[Finding] = []
    if args.batch:
        found, batch_findings = batch.discover(Path(args.batch))
        entries += found
    fixes = [_fix(e.tests_dir / "rubric.json", f"{e.display}/rubric.json", args) for e in entries] if args.fix_closure else []
    failed_write = any(f.get("write_error") for f in fixes)

    def lint(entry: batch.Entry) -> Any:
        result = lint_instance_guarded(entry.tests_dir, display=entry.display)
        result.findings = [f for f in result.findings if f.code not in ignore]
        return result

    if args.batch:
        reports, families = batch.run(entries, lint)
        for family in families:
            family.findings = [f for f in family.findings if f.code not in ignore]
    else:
        reports, families = [lint(e) for e in entries], []
    if args.format == "json":
        sys.stdout.write(report.dumps(report.document(reports, families, batch_findings, fix=fixes or None)))
    else:
        _print_fixes(fixes)
        sys.stdout.write(report.text(reports, families, batch_findings))
    status = report.exit_status(reports, families, batch_findings)
    if args.strict and (any(r.findings for r in reports) or any(f.findings for f in families) or batch_findings):
        status = 1
    return 1 if failed_write else status


def _entry(given: str, prog: str) -> Any:
    """The lint entry of one TESTS_DIR argument; a task folder is read as its ``tests/`` (and said so); None for a
    folder ``try --out`` kept (trial 44 P-1: no task, skipped with one line)."""
    from cowork_judge.lint import batch
    from cowork_judge.lint.instance import kept_try

    shown = given.rstrip("/") or given
    if kept_try(Path(given)):
        print(f"{prog}: {shown} is a folder `cowork-judge try --out` kept, not a task: skipped (re-judge it with "
              f"`cowork-judge try --rollout {shown}`)", file=sys.stderr)
        return None
    tests = task_tests_dir(Path(given))
    if tests is None:
        return _file_entry(Path(given), shown, prog)
    print(f"{prog}: {shown} is a task folder: linting {shown}/tests (and {shown}/task.toml)", file=sys.stderr)
    return batch.Entry(tests, f"{shown}/tests", "")


def _file_entry(path: Path, shown: str, prog: str) -> Any:
    """The lint entry of a TESTS_DIR argument that is no task folder (trial 17 P-4): a ``rubric.json`` file is
    read as its folder (and said so, as a task folder is); another file beside a ``rubric.json`` stays a P001
    with a "did you mean" line naming its folder."""
    from cowork_judge.lint import batch

    try:
        is_file = path.is_file()
        beside_rubric = is_file and (path.parent / "rubric.json").is_file()
    except OSError:
        is_file = beside_rubric = False
    folder = str(Path(shown).parent)
    if is_file and path.name == "rubric.json":
        print(f"{prog}: {shown} is the rubric file: linting its folder {folder}", file=sys.stderr)
        return batch.Entry(path.parent, folder, "")
    if beside_rubric:
        print(f"{prog}: {shown} is a file: did you mean its folder {folder}?", file=sys.stderr)
    return batch.Entry(path, shown, "")


def _fix(path: Path, shown: str, args: argparse.Namespace) -> dict[str, Any]:
    from cowork_judge.lint.fix import FixRefused, fix_closure, write_atomically

    out: dict[str, Any] = {"file": shown, "changed": False, "written": False, "rows": {}, "diff": "", "refused": None,
                           "write_error": None}
    try:
        result = fix_closure(path)
    except FixRefused as exc:
        out["refused"] = str(exc)
        return out
    out.update(changed=result.changed, rows=result.rows, diff=result.diff(shown))
    if result.changed and not args.dry_run:
        try:
            write_atomically(path, result.new_text)
            out["written"] = True
        except OSError as exc:
            out["write_error"] = f"cannot write {shown}: {exc.strerror or exc}"
    return out


def _print_fixes(fixes: list[dict[str, Any]]) -> None:
    """Each rewrite's diff and one line about it; "already closed" is said for a single
    rubric, a count for many."""
    for fix in fixes:
        if fix["refused"]:
            print(f"{fix['file']}: --fix-closure left the file unchanged: {fix['refused']}", file=sys.stderr)
        elif not fix["changed"]:
            if len(fixes) == 1:
                print(f"{fix['file']}: depends_on already closed")
        else:
            sys.stdout.write(fix["diff"])
            added = sum(len(v) for v in fix["rows"].values())
            verb = "added" if fix["written"] else "would add"
            print(f"{fix['file']}: closure {verb} {added} id(s) to {len(fix['rows'])} row(s)")
            if fix["write_error"]:
                print(f"{fix['file']}: {fix['write_error']}", file=sys.stderr)
    if len(fixes) > 1:
        changed = [f for f in fixes if f["changed"]]
        rows = sum(len(f["rows"]) for f in changed)
        ids = sum(len(v) for f in changed for v in f["rows"].values())
        print(f"--fix-closure: {len(changed)} of {len(fixes)} rubrics needed it ({ids} ids added to {rows} rows)")


def console() -> None:
    """Entry point of the ``lint-rubric`` console script."""
    try:
        code = main(sys.argv[1:], prog="lint-rubric")
    except KeyboardInterrupt:
        print("lint-rubric: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


__all__ = ["console", "main"]
