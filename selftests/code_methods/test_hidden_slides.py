"""Trial 9 F13: ``page_count_between`` counts every slide of the deck's slide list, hidden ones too (a
presentation skips them); the count is unchanged, but the reason says how many are hidden so a reader of the
result knows what the number means. A real ``cowork-judge run`` on a python-pptx deck."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pptx = pytest.importorskip("pptx")


def _deck(path: Path, slides: int, hidden: set[int]) -> None:
    prs = pptx.Presentation()
    for n in range(1, slides + 1):
        s = prs.slides.add_slide(prs.slide_layouts[5])
        s.shapes.title.text = f"Slide {n}"
        if n in hidden:
            s._element.set("show", "0")
    prs.save(str(path))


def _run(judge_run, tmp_path: Path, hidden: set[int]) -> dict:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "C-PAGES", "description": "8 to 15 slides.", "weight": 1, "judge_method": "code",
         "code_method_name": "page_count_between", "code_method_params": {"min_pages": 8, "max_pages": 15}}]}))
    (tests / "task_prompt.md").write_text("Make a deck of 8 to 15 slides.\n")
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    _deck(rollout / "app" / "output" / "deck.pptx", 10, hidden)
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode == 0, run.stderr
    return json.loads((run.verifier / "result.json").read_text())["results"][0]


def test_hidden_slides_count_and_the_reason_says_so(judge_run, tmp_path):
    row = _run(judge_run, tmp_path, hidden=set(range(4, 11)))
    assert row["hit"] is True  # the count is unchanged: 10 slides in the slide list
    assert "10 page(s)" in row["reason"] and "7 of them hidden" in row["reason"], row["reason"]


def test_no_hidden_slides_no_note(judge_run, tmp_path):
    row = _run(judge_run, tmp_path, hidden=set())
    assert row["hit"] is True and "hidden" not in row["reason"], row["reason"]
