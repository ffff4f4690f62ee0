#!/usr/bin/env python3
"""Release check: the tag names this version, and templates/test.sh bakes this version.

Usage: check_version.py [--tag vX.Y.Z]   (the tag defaults to $RELEASE_TAG; none = template only)
Exit status: 0 consistent, 1 a mismatch (printed), 2 unreadable files.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def package_version() -> str:
    text = (REPO / "src" / "cowork_judge" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if match is None:
        raise ValueError("no __version__ in src/cowork_judge/__init__.py")
    return match.group(1)


def template_version() -> str:
    text = (REPO / "templates" / "test.sh").read_text(encoding="utf-8")
    match = re.search(r'^COWORK_JUDGE_DEFAULT_VERSION="([^"]*)"$', text, re.MULTILINE)
    if match is None:
        raise ValueError('no COWORK_JUDGE_DEFAULT_VERSION="..." line in templates/test.sh')
    return match.group(1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tag", default=os.environ.get("RELEASE_TAG", ""), help="the git tag being released, e.g. v0.1.0")
    args = p.parse_args(argv)
    try:
        version, baked = package_version(), template_version()
    except (OSError, ValueError) as exc:
        print(f"check_version: error: {exc}", file=sys.stderr)
        return 2
    problems = []
    if baked != version:
        problems.append(f"templates/test.sh bakes {baked!r} but __version__ is {version!r} (run scripts/release/sync_template.py --write)")
    if args.tag and args.tag != f"v{version}":
        problems.append(f"tag {args.tag!r} does not name __version__ {version!r} (expected 'v{version}')")
    for line in problems:
        print(f"check_version: {line}", file=sys.stderr)
    if not problems:
        print(f"check_version: {version} (template {baked}{', tag ' + args.tag if args.tag else ', no tag given'})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
