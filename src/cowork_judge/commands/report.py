"""``cowork-judge report``: one self-contained HTML page of one job (SPEC §19)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_NAME = "report.html"

EPILOG = f"""\
The page is written beside the verifier outputs ({DEFAULT_NAME}) unless --out is given,
replaced atomically when it exists, and its path is printed. It embeds everything (no
network, no external assets, no scripts).

Deck page images and findings are read from --evidence-dir, else <--work-dir>/evidence,
else <verifier>/evidence. The run deletes its temp work dir at the end: keep the pages by
judging with `cowork-judge run --work-dir DIR` (or JUDGE_WORK_DIR=DIR).

example:
  cowork-judge run --logs-dir run1/logs --work-dir run1/work
  cowork-judge report run1/logs/verifier --work-dir run1/work
"""


def main(argv: list[str]) -> int:
    """Write the report; returns 0, 1 when it cannot be written, 2 for unreadable input."""
    p = argparse.ArgumentParser(prog="cowork-judge report", description="Write one self-contained HTML report of one judged "
                                "rollout: score, verdicts, coverage, delivery, deck pages with findings.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("verifier_dir", metavar="VERIFIER_DIR", help="the run's logs/verifier directory (or its result.json)")
    p.add_argument("--out", help=f"HTML file to write (default VERIFIER_DIR/{DEFAULT_NAME})")
    p.add_argument("--work-dir", help="the run's work dir (its evidence/ holds the page images)")
    p.add_argument("--evidence-dir", help="an evidence root (index.json, <deck>/, pages/)")
    args = p.parse_args(argv)

    from cowork_judge.fleet.job import JobError, load_job
    from cowork_judge.fleet.outputs import write_file
    from cowork_judge.fleet.report import render_report

    source = Path(args.verifier_dir)
    try:
        job = load_job(source, work_dir=Path(args.work_dir) if args.work_dir else None,
                       evidence_dir=Path(args.evidence_dir) if args.evidence_dir else None)
    except JobError as exc:
        print(f"cowork-judge report: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else job.verifier_dir / DEFAULT_NAME
    try:
        write_file(out, render_report(job).encode("utf-8"), force=True)
    except OSError as exc:
        print(f"cowork-judge report: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(str(out))
    if job.evidence_note:
        print(f"report: {job.evidence_note}", file=sys.stderr)
    return 0
