"""``cowork-judge exit-message <verifier-dir>``: why a run left no reward (SPEC §17).

Prints ``<exit_code><TAB><reason>`` (one line; test.sh reads it) or, with ``--json``,
``{"exit_code", "exit_reason", "rule", "line"}``. The classification is the table in
`cowork_judge.install.exit_messages`. Exit status 0, or 2 for a folder that does not exist.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cowork_judge.commands._args import Parser, UsageError


def main(argv: list[str]) -> int:
    """Infer the exit code of the run whose verifier folder is given; returns the exit status."""
    p = Parser(prog="cowork-judge exit-message",
                description="Infer the most likely exit_code of a run that left no reward, from its verifier logs "
                            "(test-sh.log, judge.log, test-stdout.txt).")
    p.add_argument("verifier_dir", type=Path, help="the run's verifier folder, e.g. /logs/verifier")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of 'exit_code<TAB>reason'")
    try:
        args = p.parse_args(argv)
        if not args.verifier_dir.is_dir():
            raise UsageError(f"{args.verifier_dir}: no such folder")
    except UsageError as exc:
        print(f"cowork-judge exit-message: error: {exc}", file=sys.stderr)
        return 2
    from cowork_judge.install.exit_messages import infer_from_dir, quote_line

    result = infer_from_dir(args.verifier_dir)
    if args.json:
        print(json.dumps({"exit_code": result.exit_code, "exit_reason": result.exit_reason, "rule": result.rule,
                          "line": quote_line(result.line)}))
    else:
        print(f"{result.exit_code}\t{result.exit_reason}")
    return 0
