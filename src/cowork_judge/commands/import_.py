"""``cowork-judge import {healthbench,paperbench,devai,answers} <source> --out DIR``: public
formats → Harbor-style instances (SPEC §19).

Exit status: 0 every instance written and lint clean; 1 some source item could not be
converted or written, or an instance has lint errors (each named on one line; the others
are written); 2 usage errors and sources that cannot be read at all.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cowork_judge.commands._args import Parser, UsageError

if TYPE_CHECKING:
    from cowork_judge.authoring.importers.instance import Instance

FORMATS = ("healthbench", "paperbench", "devai", "answers")

EPILOG = """\
formats and sources:
  healthbench  a .jsonl of examples, a .json (one example, a list, or simple-evals' *_allresults.json with
               graded records), or a folder of them. The response is the graded completion, else the
               physician-written ideal completion (--response none: no rollout).
  paperbench   a rubric tree .json or a folder of them (judge_eval/<paper>/<n>/grading/expected_result.json
               → <paper>-<n>, its submission/ folder as the deliverables). Leaf weight = product of the
               normalized sibling weights on its path; the leaf grades are the labels.
  devai        a task .json or a folder (instances/); prerequisites → transitive depends_on;
               --labels human_labels/ (matched by task name).
  answers      a .jsonl of reference-answer problems (id, question, reference_answer, reference_solution,
               response, difficulty, tags, collection, verdict) judged by the answer_match workflow.

each instance: <out>/<name>/{instruction.md, task.toml, tests/{rubric.json, task_prompt.md,
judge_instruction.md, test.sh}, rollout/{logs/agent/trajectory.json, app/output/}, oracle.json
(labels), instance.json (tags for summarize --group-by)}.

example:
  cowork-judge import devai benchmark/devai/instances --out tasks/devai \\
      --labels benchmark/devai/human_labels --deliverables workspaces/OpenHands
"""


def main(argv: list[str]) -> int:
    """Import the source named in `argv`; prints each instance folder; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        _check_options(args)
    except UsageError as exc:
        print(f"cowork-judge import: error: {exc}", file=sys.stderr)
        return 2

    from cowork_judge.authoring.importers.plan import PLANNERS, ImportOptions, Problem, Skipped, SourceError
    from cowork_judge.fleet.outputs import Progress

    options = ImportOptions(with_labels=args.with_labels or args.labels is not None, labels=args.labels,
                            deliverables=args.deliverables, response=args.response, no_ideal=args.no_ideal,
                            preferences=args.preferences,
                            process=args.process, answer_weight=args.answer_weight, process_weight=args.process_weight,
                            rel_tol=args.rel_tol, limit=args.limit)
    tally = _Tally()
    progress = Progress(None, "import")
    try:
        for item in PLANNERS[args.format](args.source, options):
            if isinstance(item, Skipped):
                tally.skipped += 1
                print(f"cowork-judge import: {item.where}: skipped: {item.reason}", file=sys.stderr)
            elif isinstance(item, Problem):
                tally.failed += 1
                print(f"cowork-judge import: {item.where}: {item.error}", file=sys.stderr)
            elif _write_one(item, args, tally):
                progress.tick()
                if options.limit is not None and tally.written >= options.limit:
                    break
    except SourceError as exc:
        progress.done()
        print(f"cowork-judge import: error: {exc}", file=sys.stderr)
        return 2
    progress.done()
    print(tally.summary(args.format, args.out), file=sys.stderr)
    return 1 if tally.failed or tally.lint_errors else 0


def _parser() -> Parser:
    """The command line of ``cowork-judge import``."""
    p = Parser(prog="cowork-judge import", description="Convert public rubric formats into Harbor-style instances "
               "(rubric.json, prompt, judge instruction, the rollout, labels).", epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("format", choices=FORMATS, help="source format")
    p.add_argument("source", type=Path, help="file or folder (see below)")
    p.add_argument("--out", type=Path, required=True, help="folder receiving one sub-folder per instance")
    p.add_argument("--with-labels", action="store_true", help="write the stored human grades as oracle.json")
    p.add_argument("--labels", type=Path, help="labels kept apart from the source (implies --with-labels)")
    p.add_argument("--deliverables", type=Path, help="folder of agent files: <DIR>/<instance name>/ → rollout/app/output/")
    p.add_argument("--response", choices=("ideal", "none"), default="ideal", help="healthbench: rollout from the ideal completion")
    p.add_argument("--no-ideal", choices=("write", "skip"), default="write",
                   help="healthbench with --response ideal: an example without an ideal completion is written without a "
                        "rollout and counted apart (write, default) or left out (skip)")
    p.add_argument("--preferences", action="store_true", help="devai: preferences as weight-0 rows")
    p.add_argument("--process", action="store_true", help="answers: add the PROCESS row (key steps) when a solution exists")
    p.add_argument("--answer-weight", type=float, help="answers: weight of ANSWER (default 0.3 with PROCESS, else 1)")
    p.add_argument("--process-weight", type=float, help="answers: weight of PROCESS (default 0.7)")
    p.add_argument("--rel-tol", type=float, help="answers: relative tolerance of numeric answers (default 0.05)")
    p.add_argument("--limit", type=int, help="stop after N instances")
    p.add_argument("--force", action="store_true", help="replace instance folders that exist")
    return p


def _check_options(args: argparse.Namespace) -> None:
    """Refuse option values out of range, and --deliverables that is not a folder.

    Raises:
        UsageError: naming the option.
    """
    for name in ("answer_weight", "process_weight"):
        if getattr(args, name) is not None and not getattr(args, name) > 0:
            raise UsageError(f"--{name.replace('_', '-')} must be > 0")
    if args.rel_tol is not None and not 0 <= args.rel_tol <= 1:
        raise UsageError("--rel-tol must be in [0, 1]")
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be ≥ 1")
    if args.deliverables is not None and not args.deliverables.is_dir():
        raise UsageError(f"--deliverables {args.deliverables}: not a folder")


@dataclass
class _Tally:
    """What an import did: instances written (with labels; chat instances with nothing
    delivered), source items failed or skipped, and the lint findings of those written."""

    written: int = 0
    labelled: int = 0
    failed: int = 0
    skipped: int = 0
    undelivered: int = 0
    lint_errors: int = 0
    lint_warnings: int = 0

    def summary(self, fmt: str, out: Path) -> str:
        """The closing line of an import of format `fmt` into `out`."""
        apart = ""
        if fmt in ("healthbench", "answers") and (self.undelivered or self.skipped):  # answers: trial 6 F10
            apart = (f", {self.undelivered} without a response (nothing delivered: they score 0 unless a rollout is "
                     "added)" if self.undelivered else "") + (f", {self.skipped} skipped (no ideal completion)"
                                                             if self.skipped else "")
        return (f"import {fmt}: {self.written} instance(s) written to {out} ({self.labelled} with labels){apart}, "
                f"{self.failed} failed; lint: {self.lint_errors} error(s), {self.lint_warnings} warning(s)")


def _write_one(item: Instance, args: argparse.Namespace, tally: _Tally) -> bool:
    """Write one planned instance under --out and lint it (its errors named on stderr, its
    path printed); returns whether it was written (a failure is one line on stderr)."""
    from cowork_judge.authoring.importers.instance import InstanceExists, InvalidText, write_instance
    from cowork_judge.lint.instance import lint_instance

    try:
        path = write_instance(item, args.out, force=args.force)
    except (InstanceExists, InvalidText, OSError) as exc:
        tally.failed += 1
        print(f"cowork-judge import: {item.name}: {exc}", file=sys.stderr)
        return False
    for warning in item.warnings:
        print(f"cowork-judge import: {item.name}: warning: {warning}", file=sys.stderr)
    tally.undelivered += item.kind in ("chat", "answer") and item.response is None and not item.deliverables
    report = lint_instance(path / "tests")
    errors = [f for f in report.findings if f.level == "ERROR"]
    tally.lint_errors += len(errors)
    tally.lint_warnings += len(report.findings) - len(errors)
    for finding in errors:
        print(f"cowork-judge import: {item.name}: lint {finding.line()}", file=sys.stderr)
    tally.written += 1
    tally.labelled += item.oracle is not None
    print(str(path))
    return True
