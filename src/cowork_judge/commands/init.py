"""``cowork-judge init <task-dir>``: write tests/test.sh and merge the verifier blocks into task.toml.

Run it after ``harbor init`` (whose stubs it replaces) and after writing ``tests/rubric.json``
(the extras follow the rubric's rows); ``--image`` bakes the judge into the separate verifier.

Exit status: 0 done (or nothing to do, or ``--dry-run``); 1 refused because a change
conflicts with the task (``--force`` overrides); 2 bad arguments or an unusable task folder.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from cowork_judge.commands._args import Parser, UsageError


def main(argv: list[str]) -> int:
    """Initialise the task folder given in `argv`; returns the exit status."""
    p = Parser(prog="cowork-judge init",
                description="Write tests/test.sh from the cowork-judge template and merge the [verifier] and [verifier.env] "
                            "blocks (and, for a separate verifier container, the artifacts it needs) into task.toml.",
                epilog="Exit status: 0 done or nothing to do; 1 refused (a change conflicts with the task; --force "
                       "overrides); 2 bad arguments or an unusable task folder.")
    p.add_argument("task_dir", type=Path, help="the Harbor task folder (holds task.toml)")
    p.add_argument("--force", action="store_true", help="replace a different tests/test.sh, raise a too small "
                   "timeout_sec, and overwrite the COWORK_JUDGE_VERSION placeholder")
    p.add_argument("--dry-run", action="store_true", help="print the diff and change nothing")
    p.add_argument("--extras", default=None, help="default of COWORK_JUDGE_EXTRAS, e.g. workflow (default: what the rows of "
                   "tests/rubric.json need, none without a rubric)")
    p.add_argument("--image", action="store_true", help="separate verifier: write tests/Dockerfile with Python, LibreOffice, "
                   "fonts and the pinned judge (this cowork-judge's version) with its extras baked in from --index-url, so "
                   "test.sh needs no network")
    p.add_argument("--index-url", default=None, metavar="URL",
                   help="with --image: the PEP 503 index the image installs the judge from (the default of its ARG "
                        "COWORK_WHEEL_URL; default: the one the image named before, else task.toml's COWORK_WHEEL_URL "
                        "default, else pip's configured index). The registry's cowork-judge 1.x is another system")
    p.add_argument("--env", action="append", default=[], metavar="NAME", dest="env_names",
                   help="also pass the host variable NAME to the judge: adds NAME = \"${NAME:-}\" to [verifier.env] "
                        "(repeatable; for JUDGE_GUARD, JUDGE_SAMPLES, JUDGE_PANEL, JUDGE_PRICES, a panel judge's key "
                        "variable…; unset on the host, the judge keeps its default)")
    try:
        args = p.parse_args(argv)
        if args.extras is not None and not re.fullmatch(r"[A-Za-z0-9_.,-]*", args.extras):
            raise UsageError(f"--extras {args.extras!r}: expected a comma-separated list such as pptx,workflow")
    except UsageError as exc:
        print(f"cowork-judge init: error: {exc}", file=sys.stderr)
        return 2
    from cowork_judge.install.taskinit import InitError
    from cowork_judge.install.template import TemplateError

    try:  # trial 17 P-12: an InitError anywhere (the plan, its diff, the writes) is one line, never a traceback
        return _init(args)
    except (InitError, TemplateError) as exc:
        print(f"cowork-judge init: error: {exc}", file=sys.stderr)
        return 2


def _init(args: argparse.Namespace) -> int:
    """Plan, print and (unless a dry run or a conflict) apply; returns the exit status.

    Raises:
        InitError, TemplateError: the task folder cannot be read, planned or written.
    """
    from cowork_judge.install.taskinit import apply, plan_init

    plan = plan_init(args.task_dir, force=args.force, extras=args.extras, image=args.image, env_names=args.env_names,
                     index_url=args.index_url)
    if args.dry_run:
        sys.stdout.write(plan.diff())
    refused = bool(plan.conflicts) and not args.dry_run  # nothing is written: stdout must not say it was
    for line in plan.actions:  # a no-op or a warning is no action: said as it is, never as "would do"
        said = line in plan.noops or line.startswith("warning: ")
        print(("" if said else "not written: would do: " if refused else "would do: " if args.dry_run else "") + line)
    if plan.conflicts:
        for line in plan.conflicts:
            print(f"cowork-judge init: conflict: {line}", file=sys.stderr)
        if not args.dry_run:
            print("cowork-judge init: nothing written (use --force to apply anyway)", file=sys.stderr)
        return 1
    if args.dry_run or not (plan.files or plan.removals):
        return 0
    apply(plan)
    return 0
