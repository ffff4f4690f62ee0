"""Trial 5 F19: ``lint-rubric --help`` sent the reader to a README section ('Linting a package') that does not
exist; the check codes are in docs/lint-rubric.md. The real CLI's help names a page that exists and lists the codes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_help_names_the_page_that_lists_the_check_codes():
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    help_text = " ".join(proc.stdout.split())
    assert "Linting a package" not in help_text
    pages = re.findall(r"docs/[\w/-]+\.md", help_text)
    assert pages == ["docs/lint-rubric.md"], help_text
    page = (REPO / pages[0]).read_text(encoding="utf-8")
    assert "`R021`" in page and "lint_ignore" in page
