#!/usr/bin/env python3
"""Release check: every packaged copy in the built wheel and sdist is byte-identical to its source.

Usage: check_packaged.py DIST_DIR   (holds exactly one cowork_judge-*.whl and one cowork_judge-*.tar.gz)
Exit status: 0 identical, 1 a copy differs or is missing (printed), 2 bad arguments.
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

WHEEL_COPIES: dict[str, str] = {
    "templates/test.sh": "cowork_judge/_templates/test.sh",
    "src/cowork_judge/data/judge_instruction.md": "cowork_judge/data/judge_instruction.md",
    "src/cowork_judge/schemas/result.schema.json": "cowork_judge/schemas/result.schema.json",
    "src/cowork_judge/py.typed": "cowork_judge/py.typed",  # PEP 561: type checkers read the package's hints
    "src/cowork_judge/guard/confusables.json": "cowork_judge/guard/confusables.json",  # the guard's TR39 skeleton table
}
"""Source (repo path) → path inside the wheel."""

SDIST_COPIES: tuple[str, ...] = tuple(WHEEL_COPIES)
"""Sources that the sdist carries at the same relative path (under its top folder)."""

REPO_COPIES: dict[str, tuple[str, ...]] = {
    "src/cowork_judge/data/judge_instruction.md": (),
}
"""Source → files elsewhere in the repository that must stay verbatim copies of it (none today:
tests/judge_instruction.md is the example task's own instruction, not a copy)."""


def check(dist: Path) -> list[str]:
    """Every mismatch as one line ([] = all copies identical)."""
    problems: list[str] = []
    wheels = sorted(dist.glob("cowork_judge-*.whl"))
    sdists = sorted(dist.glob("cowork_judge-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [f"{dist} must hold one wheel and one sdist (found {len(wheels)} and {len(sdists)})"]
    with zipfile.ZipFile(wheels[0]) as zf:
        names = set(zf.namelist())
        for source, inside in WHEEL_COPIES.items():
            if inside not in names:
                problems.append(f"{wheels[0].name}: {inside} is missing")
            elif zf.read(inside) != (REPO / source).read_bytes():
                problems.append(f"{wheels[0].name}: {inside} differs from {source}")
    with tarfile.open(sdists[0]) as tf:
        top = tf.getnames()[0].split("/")[0]
        for source in SDIST_COPIES:
            try:
                member = tf.extractfile(f"{top}/{source}")
            except KeyError:
                member = None
            if member is None:
                problems.append(f"{sdists[0].name}: {source} is missing")
            elif member.read() != (REPO / source).read_bytes():
                problems.append(f"{sdists[0].name}: {source} differs from the checkout")
    for source, copies in REPO_COPIES.items():
        for copy in copies:
            if (REPO / copy).read_bytes() != (REPO / source).read_bytes():
                problems.append(f"{copy} is no longer a verbatim copy of {source}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: check_packaged.py DIST_DIR", file=sys.stderr)
        return 2
    problems = check(Path(args[0]))
    for line in problems:
        print(f"check_packaged: {line}", file=sys.stderr)
    if not problems:
        print(f"check_packaged: {len(WHEEL_COPIES)} wheel and {len(SDIST_COPIES)} sdist copies identical to their sources")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
