"""Trial 5 F15: ``text_contains`` finds text that differs only in Unicode normalization: "café" written composed
(NFC, U+00E9) and decomposed (NFD, e + U+0301, as macOS file names and some editors write it) read the same, so a
code row must not call one absent from the other. A real ``cowork-judge run`` (code rows only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NFC, NFD = "caf\u00e9", "cafe\u0301"


@pytest.mark.parametrize(("needle", "answer"), [(NFC, NFD), (NFD, NFC)])
def test_text_contains_ignores_unicode_normalization(judge_run, tmp_path: Path, needle: str, answer: str):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "C-CAFE", "description": "The answer names the café.", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": needle, "source": "response"}},
        {"id": "C-CAFE-CASE", "description": "The answer names the CAFÉ in capitals.", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains",
         "code_method_params": {"text": needle.upper(), "source": "response", "case_sensitive": True}},
    ]}, ensure_ascii=False))
    (tests / "task_prompt.md").write_text("Where did you meet?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(f"We met at the {answer} by the station.\n")
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode == 0, run.stderr
    rows = {r["id"]: r for r in json.loads((run.verifier / "result.json").read_text())["results"]}
    assert rows["C-CAFE"]["hit"] is True, rows["C-CAFE"]["reason"]
    assert rows["C-CAFE-CASE"]["hit"] is False  # case-sensitive: "CAFÉ" is not in the answer
