"""Trial 28 P-3: a one-letter typo in ``depends_on`` (``C-LOCATE-DEK``) got D001 "names no row" with no
nearest id, unlike every other typo message on the author's path. D001 now names the closest row id."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import rows


def _lint(tests: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(tests)], capture_output=True, text=True,
                          timeout=120, check=False)


def test_d001_names_the_nearest_row_id(make_instance):
    tests = make_instance(rubric=rows((2, {"depends_on": ["C-DEKC", "nothing-like-it"]})))
    done = _lint(tests)
    d001 = [line for line in done.stdout.splitlines() if "D001" in line]
    assert done.returncode == 1 and len(d001) == 1, done.stdout + done.stderr
    assert d001[0].endswith("names no row: 'C-DEKC' (did you mean 'C-DECK'?), 'nothing-like-it' (the gate fails "
                            "closed: this row never scores)"), d001
