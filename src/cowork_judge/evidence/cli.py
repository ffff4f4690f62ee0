"""``cowork-judge evidence <deck|dir>... --out DIR``: run the evidence layer alone.

Exit codes: 0 evidence built and every deck openable; 1 evidence built but at least one
deck is broken (its sniff status is not ``ok*``); 2 usage error (bad option, missing path,
no deck-like file). Never prints a traceback for bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn

from .build import is_deck

DEFAULT_BUDGET_SEC = 180.0
"""Same default as ``JUDGE_EVIDENCE`` (SPEC §13)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse would sys.exit(2) with usage
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="cowork-judge evidence", description="Sniff, extract, render and check decks (no model calls).",
                epilog="Exit status: 0 every deck opened; 1 evidence was written but some deck is broken "
                       "(its sniff status says why); 2 bad arguments or the output folder cannot be written.")
    p.add_argument("decks", nargs="+", help="deck files (.pptx .pptm .ppsx .potx .ppt .pdf .html) or folders of them")
    p.add_argument("--out", required=True, type=Path, help="evidence output folder")
    p.add_argument("--width-px", type=int, default=1600, help="PNG width in pixels (default 1600)")
    p.add_argument("--budget-sec", type=float, default=DEFAULT_BUDGET_SEC, help="time budget in seconds (default 180)")
    p.add_argument("--soffice", help="LibreOffice executable (default: autodetect)")
    p.add_argument("--chromium", help="Chromium executable for HTML decks (default: autodetect)")
    p.add_argument("--json", action="store_true", help="print the index.json summary instead of the table")
    return p


def _collect(items: list[str]) -> tuple[list[Path], Path | None]:
    files: list[Path] = []
    roots = [Path(i) for i in items if Path(i).is_dir()]
    for item in items:
        path = Path(item)
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file() and is_deck(p)
                            and not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.is_file():
            if not is_deck(path):
                raise _UsageError(f"{item}: not a deck-like file (expected .pptx .pptm .ppsx .potx .ppt .pdf .html)")
            files.append(path)
        elif path.exists():
            raise _UsageError(f"{item}: not a regular file or folder (a FIFO, socket or device is not read)")
        else:
            raise _UsageError(f"{item}: no such file or folder")
    if not files:
        raise _UsageError("no deck-like files found")
    root = roots[0].resolve() if len(roots) == 1 and len(items) == 1 else None
    return [f.resolve() for f in files], root


def main(argv: list[str] | None = None) -> int:
    """Run the command with ``argv`` = the arguments after ``evidence``; returns the exit code."""
    try:
        args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.width_px < 16 or args.width_px > 10000:
            raise _UsageError("--width-px must be between 16 and 10000")
        if args.budget_sec <= 0:
            raise _UsageError("--budget-sec must be positive")
        files, root = _collect(args.decks)
    except _UsageError as exc:
        print(f"cowork-judge evidence: error: {exc}", file=sys.stderr)
        return 2
    from .build import build_evidence

    try:
        summary = build_evidence(files, args.out.absolute(), budget_sec=args.budget_sec, width_px=args.width_px,
                                 soffice=args.soffice, chromium=args.chromium, root=root)
    except OSError as exc:
        print(f"cowork-judge evidence: error: cannot write evidence to {args.out}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(summary.to_json())
    else:
        print(f"evidence → {summary.out_dir}  ({summary.pages_rendered} pages rendered, {summary.seconds:.1f} s)")
        for d in summary.decks:
            skipped = "; ".join(f"{s.layer}: {s.kind} ({s.reason})" for s in d.layers_skipped)
            findings = ", ".join(f"{k}={v}" for k, v in sorted(d.findings_by_check.items())) or "none"
            print(f"- {d.source}: {d.sniff_status}, slides {d.slide_count if d.slide_count is not None else '?'}, "
                  f"pages {d.pages_rendered}/{d.page_count}, findings: {findings}"
                  + (f"; skipped {skipped}" if skipped else ""))
    return 0 if all(d.sniff_status.startswith("ok") for d in summary.decks) else 1


if __name__ == "__main__":
    sys.exit(main())
