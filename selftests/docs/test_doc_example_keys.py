"""Trial 5 F14: a command the docs show with an example ``JUDGE_API_KEY=…`` runs without the judge's own
warning about that key: docs/benchmarks.md's ``JUDGE_API_KEY=sk-sim`` (6 characters) put "JUDGE_API_KEY is shorter
than 8 characters" into ``details.warnings`` of every document of a reader who copied it."""

from __future__ import annotations

import re
from pathlib import Path

from cowork_judge.config.judge_config import load_config

REPO = Path(__file__).resolve().parents[2]
KEY = re.compile(r"\bJUDGE_API_KEY=([A-Za-z0-9_.:-]+)")


def test_every_example_key_in_the_docs_loads_without_a_warning():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), REPO / "examples" / "README.md"]
    found = {(page.relative_to(REPO).as_posix(), key) for page in pages for key in KEY.findall(page.read_text())}
    assert found, "no example key found: the pattern no longer matches the docs"
    for page, key in sorted(found):
        loaded = load_config({"JUDGE_API_KEY": key, "JUDGE_BASE_URL": "http://127.0.0.1:8123/v1"})
        assert not [w for w in loaded.warnings if "JUDGE_API_KEY" in w], (page, key, loaded.warnings)
