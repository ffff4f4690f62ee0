"""Trial 9 F12: an invisible format character inside a word (zero-width space U+200B, ZWNJ U+200C, ZWJ U+200D,
word joiner U+2060, soft hyphen U+00AD, BOM U+FEFF) must not hide the word from a text row: a deduction
``text_contains`` / ``regex_match`` row written on "ocean" is hit by "oce\u200ban", and a positive row on "Rayleigh"
is hit by "Ray\u00adleigh". Text rows compare after NFC with the default-ignorable format characters dropped, on both
sides (`cowork_judge.safety.agent_text.comparable_text`). A real ``cowork-judge run`` (code rows only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FORMAT_CHARS = {"zwsp": "\u200b", "zwnj": "\u200c", "zwj": "\u200d", "word-joiner": "\u2060", "soft-hyphen": "\u00ad",
                "bom": "\ufeff", "tag": "\U000e0041", "lrm": "\u200e"}


def _judge(judge_run, tmp_path: Path, answer: str) -> dict[str, dict]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "C-RAY", "description": "Names Rayleigh scattering.", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
        {"id": "C-NOT", "description": "Does not claim the sky reflects the ocean.", "weight": -1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "ocean", "source": "response"}},
        {"id": "C-NOT-RE", "description": "Does not claim the sky reflects the sea.", "weight": -1, "judge_method": "code",
         "code_method_name": "regex_match", "code_method_params": {"pattern": "reflects the (sea|ocean)", "source": "response"}},
    ]}))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(answer, encoding="utf-8")
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode == 0, run.stderr
    return {r["id"]: r for r in json.loads((run.verifier / "result.json").read_text())["results"]}


@pytest.mark.parametrize("name", sorted(FORMAT_CHARS))
def test_format_character_inside_a_word_does_not_evade_a_text_row(judge_run, tmp_path: Path, name: str):
    ch = FORMAT_CHARS[name]
    rows = _judge(judge_run, tmp_path, f"Ray{ch}leigh scattering at 450 nm; the sky re{ch}flects the oce{ch}an.\n")
    assert rows["C-RAY"]["hit"] is True, rows["C-RAY"]["reason"]
    assert rows["C-NOT"]["hit"] is True, rows["C-NOT"]["reason"]
    assert rows["C-NOT-RE"]["hit"] is True, rows["C-NOT-RE"]["reason"]


def test_plain_answer_without_the_words_still_misses(judge_run, tmp_path: Path):
    rows = _judge(judge_run, tmp_path, "Blue light scatters more (\u201cRayleigh\u201d); the sky does not mirror the sea.\n")
    assert rows["C-RAY"]["hit"] is True
    assert rows["C-NOT"]["hit"] is False
    assert rows["C-NOT-RE"]["hit"] is False
