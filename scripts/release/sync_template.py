#!/usr/bin/env python3
"""Check (default) or rewrite (--write) the generated parts of templates/test.sh.

Generated parts: the baked default version (= cowork_judge.__version__), the exit-message
table (= cowork_judge.install.exit_messages), the last-resort result document
(= src/cowork_judge/schemas/fallback-result.json, or the document the judge writes for a
run that failed before judging while that file does not exist).
Exit status: 0 in sync (or rewritten), 1 out of sync (a unified diff is printed), 2 error.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))

from cowork_judge.install.template import TemplateError, expected  # noqa: E402

TEMPLATE = REPO / "templates" / "test.sh"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="rewrite templates/test.sh in place")
    args = p.parse_args(argv)
    try:
        current = TEMPLATE.read_text(encoding="utf-8")
        want = expected(current)
    except (OSError, TemplateError, RuntimeError) as exc:
        print(f"sync_template: error: {exc}", file=sys.stderr)
        return 2
    if current == want:
        print("sync_template: templates/test.sh is in sync")
        return 0
    if args.write:
        TEMPLATE.write_text(want, encoding="utf-8")
        print("sync_template: templates/test.sh rewritten")
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), want.splitlines(True),
                                               "templates/test.sh", "templates/test.sh (expected)"))
    print("sync_template: templates/test.sh is out of sync: run scripts/release/sync_template.py --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
