"""``cowork-judge report``: one self-contained HTML page of one job (SPEC §19)."""

from __future__ import annotations

import argparse
import stat
import sys
from pathlib import Path

from cowork_judge._util.given_paths import absolute, close_sibling
from cowork_judge.core.layout import REPORT_PAGE_NAME as DEFAULT_NAME

EPILOG = f"""\
The page is written beside the verifier outputs ({DEFAULT_NAME}) unless --out is given,
replaced atomically when it exists, and its path is printed. An existing --out is replaced
only when it is a report page this command wrote, anything else only with --force, but never a
file the judge writes in a verifier folder (result.json, reward.txt, reward.json, ctrf.json …),
even with --force. It embeds everything (no network, no external assets, no scripts).

The document is checked against its seal as summarize and rescore check it: a result.json
(or a reward.txt / reward.json beside it) that no longer matches what the judge wrote is
refused (exit 1, no page written); one written before seals (0.2.0) is shown with that note.

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


VERIFIER_LOGS = ("reward.txt", "reward.json", "judge.log", "test-sh.log", "test-stdout.txt")
"""Files of a verifier folder (Harbor's or the judge's) that say a run happened there."""


def _special_result(path: Path) -> str | None:
    """The line for a ``result.json`` that exists but is no regular file (a FIFO, a link to a device); None else."""
    import os

    from cowork_judge.fleet.documents import file_kind

    try:
        st = os.stat(path)
    except OSError:
        return None if not os.path.islink(path) else f"{path}: a link to nothing: give a run's own result.json"
    return None if stat.S_ISREG(st.st_mode) else (
        f"{path} is not a regular file ({file_kind(st.st_mode)}{', through a link' if os.path.islink(path) else ''}): "
        "it is not read (a FIFO or a device would block or never end); give a run's own result.json")


def no_result_hint(source: Path) -> str | None:
    """Why `source` holds no result document to report on, with where one usually is (one
    line; a missing `source` with a folder or file beside it spelled alike gets ``"… does not exist: did you mean
    …?"``, `close_sibling`); None when ``source`` is a file or a folder holding ``result.json``."""
    if source.is_file() or (source / "result.json").is_file():
        return None
    expect = ("give a run's verifier folder, where `cowork-judge run` writes result.json (<logs-dir>/verifier/, "
              "/logs/verifier in a Harbor container, <job>/<trial>/verifier/ in a Harbor job), or a result.json")
    if not source.exists():  # trial 41 P-3: a mistyped folder (``logs/verifer``) or result.json gets the near name
        close = close_sibling(source) or close_sibling(source, files=True)
        return (f"{source} does not exist: did you mean {close}? ({expect})" if close
                else f"{source}: no such folder or file: {expect}")
    if not source.is_dir():
        return f"{source}: not a folder or a regular file: {expect}"
    special = _special_result(source / "result.json")
    if special:  # trial 14 F6: a result.json that is there but no regular file is not "no result.json"
        return special
    found = [c for c in (source / "verifier", source / "logs" / "verifier") if (c / "result.json").is_file()]
    if found:
        return f"{source} holds no result.json, but {found[0]} does: cowork-judge report {found[0]}"
    if absolute(source).name == "verifier" or any((source / name).exists() for name in VERIFIER_LOGS):
        return (f"{source} holds no result.json: the judge wrote none there (a run cut short, or a test.sh that never "
                f"ran the judge); `cowork-judge exit-message {source}` infers why from its logs")
    return f"{source} holds no result.json: {expect}"


def main(argv: list[str]) -> int:
    """Write the report; returns 0, 1 when it cannot be written or the document no longer
    matches what the judge wrote (its seal: refused), 2 for unreadable input."""
    p = argparse.ArgumentParser(prog="cowork-judge report", description="Write one self-contained HTML report of one judged "
                                "rollout: score, verdicts, coverage, delivery, deck pages with findings.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("verifier_dir", metavar="VERIFIER_DIR", help="the run's logs/verifier directory (or its result.json)")
    p.add_argument("--out", help=f"HTML file to write (default VERIFIER_DIR/{DEFAULT_NAME})")
    p.add_argument("--work-dir", help="the run's work dir (its evidence/ holds the page images)")
    p.add_argument("--evidence-dir", help="an evidence root (index.json, <deck>/, pages/)")
    p.add_argument("--force", action="store_true", help="replace an existing --out that is not a report page")
    args = p.parse_args(argv)

    from cowork_judge.core.layout import JUDGE_FILE_NAMES, judge_file_in_verifier
    from cowork_judge.fleet.job import JobError, JobTampered, load_job
    from cowork_judge.fleet.outputs import OutputExists, write_file
    from cowork_judge.fleet.report import render_report

    if args.out and judge_file_in_verifier(args.out):  # issue 39 (trial 3 H1): Harbor reads these; the seal covers them
        print(f"cowork-judge report: --out {args.out} is a file the judge itself writes in a verifier folder ("
              + ", ".join(JUDGE_FILE_NAMES) + "): report never writes over it, even with --force; give another file",
              file=sys.stderr)
        return 2
    source = Path(args.verifier_dir)
    missing = no_result_hint(source)
    if missing is not None:  # issue 39: say what is expected and where result.json usually is
        print(f"cowork-judge report: {missing}", file=sys.stderr)
        return 2
    try:
        job = load_job(source, work_dir=Path(args.work_dir) if args.work_dir else None,
                       evidence_dir=Path(args.evidence_dir) if args.evidence_dir else None)
    except JobTampered as exc:  # trial 6 F19: never render an edited document as the judge's page
        print(f"cowork-judge report: refused: {exc}; no page written (judge the rollout again, or restore the files the "
              "judge wrote)", file=sys.stderr)
        return 1
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
    if job.seal.state == "unsealed" and job.seal.problem:
        print(f"report: {job.seal.problem}", file=sys.stderr)
    return 0
