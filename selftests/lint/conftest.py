"""Minimal task packages for lint tests: a clean base instance that each test breaks one way.

`make_instance(**changes)` writes ``<tmp>/<name>/tests`` (rubric.json, judge_instruction.md,
task_prompt.md, test.sh, extra files) and ``<tmp>/<name>/task.toml``, and returns the tests dir. The base
instance lints with no finding at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

import pytest

BASE_ROWS: list[dict[str, Any]] = [
    {"id": "C-DECK", "description": "Exactly one deck is among the deliverables.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
    {"id": "A-HURDLE", "description": "The deliverable is missing: there is no deck in output/.", "weight": 0,
     "hurdle": True},
    {"id": "A-CONTENT", "description": "The deck explains the three findings of the report.", "weight": 3,
     "depends_on": ["C-DECK"]},
    {"id": "A-DEPTH", "description": "The deck's analysis is graded.", "weight": 2, "type": "gradient",
     "levels": {"1": "deep", "0.5": "some", "0": "none"}, "depends_on": ["A-CONTENT", "C-DECK"]},
    {"id": "A-TYPOS", "description": "The deck has spelling mistakes.", "weight": -1},
]
BASE_TOML = """\
version = "1.0"

[verifier]
timeout_sec = 2280

[verifier.env]
JUDGE_API_KEY = "${JUDGE_API_KEY}"
JUDGE_BASE_URL = "${JUDGE_BASE_URL}"
JUDGE_DEADLINE = "${JUDGE_DEADLINE:-1800}"
COWORK_JUDGE_VERSION = "${COWORK_JUDGE_VERSION:-0.1.0}"
COWORK_JUDGE_VERSION_SOURCE = "${COWORK_JUDGE_VERSION_SOURCE:-placeholder}"
"""
# workflow: the base is a deck rubric (locate_deck) judged by agentic rows, which view the rendered pages (M012)
BASE_SH = """\
#!/usr/bin/env bash
VERSION="${COWORK_JUDGE_VERSION:-0.1.0}"
python3 -m pip install -q "cowork-judge[workflow]==${VERSION}" && cowork-judge run
"""
BASE_INSTRUCTION = "Judge the deck in output/ against each row.\n"
BASE_PROMPT = "Summarise the quarterly report for the board.\n"
"""The base instance's tests/task_prompt.md (A004 otherwise); it names no deliverable (M006's cues)."""


def rows(*changes: tuple[int, dict[str, Any]], extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """BASE_ROWS with row N updated by a dict (a value None deletes the key), plus extra rows."""
    out = [dict(r) for r in BASE_ROWS]
    for n, change in changes:
        for k, v in change.items():
            if v is None:
                out[n].pop(k, None)
            else:
                out[n][k] = v
    return out + list(extra or [])


@pytest.fixture
def make_instance(tmp_path: Path) -> Callable[..., Path]:
    """``make_instance(rubric=..., rubric_text=..., toml=..., sh=..., instruction=..., files={...}, name=...)``.

    ``rubric`` is a list of rows or a whole document (default: BASE_ROWS under "rubrics"),
    False for no rubric.json; ``rubric_text`` / ``rubric_bytes`` write raw content instead;
    ``toml``/``sh``/``instruction``/``prompt`` (task_prompt.md) None leaves that file out; ``files`` maps paths relative to tests/ to text.
    """
    names = count()

    def make(*, rubric: Any = None, rubric_text: str | None = None, rubric_bytes: bytes | None = None,
             toml: str | None = BASE_TOML,
             sh: str | None = BASE_SH, instruction: str | None = BASE_INSTRUCTION, prompt: str | None = BASE_PROMPT,
             files: dict[str, str] | None = None, name: str | None = None) -> Path:
        root = tmp_path / (name or f"inst{next(names)}")
        tests = root / "tests"
        tests.mkdir(parents=True)
        if rubric_bytes is not None:
            (tests / "rubric.json").write_bytes(rubric_bytes)
        elif rubric_text is not None:
            (tests / "rubric.json").write_text(rubric_text, encoding="utf-8")
        elif rubric is not False:
            doc = {"rubrics": BASE_ROWS} if rubric is None else ({"rubrics": rubric} if isinstance(rubric, list) else rubric)
            (tests / "rubric.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
        if toml is not None:
            (root / "task.toml").write_text(toml, encoding="utf-8")
        if sh is not None:
            (tests / "test.sh").write_text(sh, encoding="utf-8")
        if instruction is not None:
            (tests / "judge_instruction.md").write_text(instruction, encoding="utf-8")
        if prompt is not None:
            (tests / "task_prompt.md").write_text(prompt, encoding="utf-8")
        for rel, text in (files or {}).items():
            path = tests / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tests

    return make
