"""``cowork-judge report``: one self-contained HTML page of one job (SPEC §19)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_NAME = "report.html"

EPILOG = f"""\
The page is written beside the verifier outputs ({DEFAULT_NAME}) unless --out is given,
replaced atomically when it exists, and its path is printed. An existing --out is replaced
only when it is a report page this command wrote, anything else only with --force. It embeds everything (no
network, no external assets, no scripts).

Deck page images and findings are read from --evidence-dir, else <--work-dir>/evidence,
else <verifier>/evidence. The run deletes its temp work dir at the end: keep the pages by
judging with `cowork-judge run --work-dir DIR` (or JUDGE_WORK_DIR=DIR).

example:
  cowork-judge run --logs-dir run1/logs --work-dir run1/work
  cowork-judge report run1/logs/verifier --work-dir run1/work
"""


def is_report_page(path: Path) -> bool:
    """True when `path` is a regular file (not a link) holding a page this command wrote:
    the page template's generator tag and the report title in its first 4 KiB. A missing or
    unreadable file, a link or any other file is False."""
    from cowork_judge.fleet.report import REPORT_TITLE

    try:
        if path.is_symlink() or not path.is_file():
            return False
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    marks = (b'<meta name="generator" content="cowork-judge ', f"<title>{REPORT_TITLE}: ".encode())
    return head.startswith(b"<!doctype html>") and all(mark in head for mark in marks)


def main(argv: list[str]) -> int:
    """Write the report; returns 0, 1 when it cannot be written, 2 for unreadable input."""
    p = argparse.ArgumentParser(prog="cowork-judge report", description="Write one self-contained HTML report of one judged "
                                "rollout: score, verdicts, coverage, delivery, deck pages with findings.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("verifier_dir", metavar="VERIFIER_DIR", help="the run's logs/verifier directory (or its result.json)")
    p.add_argument("--out", help=f"HTML file to write (default VERIFIER_DIR/{DEFAULT_NAME})")
    p.add_argument("--work-dir", help="the run's work dir (its evidence/ holds the page images)")
    p.add_argument("--evidence-dir", help="an evidence root (index.json, <deck>/, pages/)")
    p.add_argument("--force", action="store_true", help="replace an existing --out that is not a report page")
    args = p.parse_args(argv)

    from cowork_judge.fleet.job import JobError, load_job
    from cowork_judge.fleet.outputs import OutputExists, write_file
    from cowork_judge.fleet.report import render_report

    source = Path(args.verifier_dir)
    try:
        job = load_job(source, work_dir=Path(args.work_dir) if args.work_dir else None,
                       evidence_dir=Path(args.evidence_dir) if args.evidence_dir else None)
    except JobError as exc:
        print(f"cowork-judge report: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else job.verifier_dir / DEFAULT_NAME
    # the default report.html beside the verifier outputs is this command's own file; an
    # --out that exists is replaced only when it is a report page written by this command
    force = args.force or not args.out or is_report_page(out)
    try:
        write_file(out, render_report(job).encode("utf-8"), force=force)
    except OutputExists as exc:
        print(f"cowork-judge report: {exc}; it is not a report page written by cowork-judge report", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"cowork-judge report: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(str(out))
    if job.evidence_note:
        print(f"report: {job.evidence_note}", file=sys.stderr)
    return 0
