#!/usr/bin/env python3
"""Release check: the tag names this version, templates/test.sh bakes it, and it succeeds the original.

Usage: check_version.py [--tag vX.Y.Z]   (the tag defaults to $RELEASE_TAG; none = template only)
Exit status: 0 consistent, 1 a mismatch (printed), 2 unreadable files.

The version must be above `ORIGINAL_NEWEST`, the newest release of the original
``cowork-judge`` (1.2.0–1.3.6) on the package registry: a version at or below it would
collide with, or sort under, the original, so ``pip install cowork-judge`` would keep
installing the original and a pin of ours could resolve to the original's file. The check
uses that constant only (no network).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

ORIGINAL_NEWEST = "1.3.6"
"""The newest original ``cowork-judge`` on the registry (PyPI release history of the project
``cowork-judge``: 1.2.0 … 1.3.6, read when 2.0.0 was chosen; issue 34). Raise it only if
the registry ever lists a newer original."""


def release_tuple(version: str) -> tuple[int, ...]:
    """The numeric release part of a version (``"2.0.0rc1"`` → ``(2, 0, 0)``), for ordering.

    Raises:
        ValueError: the version does not start with dotted integers.
    """
    match = re.match(r"^(\d+(?:\.\d+)*)", version)
    if match is None:
        raise ValueError(f"version {version!r} does not start with a dotted number")
    parts = [int(x) for x in match.group(1).split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def succeeds_original(version: str) -> bool:
    """True when ``version`` is above `ORIGINAL_NEWEST` (a pre-release of a higher release counts).

    Raises:
        ValueError: see `release_tuple`.
    """
    return release_tuple(version) > release_tuple(ORIGINAL_NEWEST)


def package_version() -> str:
    text = (REPO / "src" / "cowork_judge" / "core" / "version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if match is None:
        raise ValueError("no __version__ in src/cowork_judge/core/version.py")
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
    try:
        if not succeeds_original(version):
            problems.append(f"__version__ {version!r} is at or below {ORIGINAL_NEWEST!r}, the newest original cowork-judge on the "
                            "registry: pick a higher version (pip would otherwise install the original)")
    except ValueError as exc:
        problems.append(str(exc))
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
