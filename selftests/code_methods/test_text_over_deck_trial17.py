"""Trial 17 P-1 and P-6: text code rows in a deck task. Real CLI (`judge_run`), real python-pptx decks, code
rows only (no model call).

P-1: a placeholder hurdle (``text_contains`` "lorem ipsum", no glob) searched the deliverable files as text; the
.pptx is binary, so the hurdle could never fire: a "Lorem ipsum" deck scored 1.0 with no warning. Now a hurdle
whose every candidate file was binary is unjudged ``no_text`` (fatal under the default policy, and systemic: the
rubric's fault), a positive row stays a miss, and either way ``details.warnings`` names the row.

P-6: with no deck delivered, only a final message, the delivery warning advised the deck's hurdle to take
``"source": "response"``; in a deck task it now says the task asks for files and advises nothing of the kind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pptx = pytest.importorskip("pptx")

PROMPT = "Make a deck about photosynthesis in /app/output/.\n"
LOCATE = {"id": "C-LOCATE-DECK", "description": "One deck.", "weight": 1, "judge_method": "code",
          "code_method_name": "locate_deck"}
HURDLE = {"id": "H-PLACEHOLDER", "description": "The deck contains placeholder text such as 'Lorem ipsum'.",
          "weight": 0, "hurdle": True, "judge_method": "code", "code_method_name": "text_contains",
          "code_method_params": {"text": "lorem ipsum"}}


def _deck(path: Path, *slides: tuple[str, str]) -> None:
    deck = pptx.Presentation()
    for title, body in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
    path.parent.mkdir(parents=True, exist_ok=True)
    deck.save(str(path))


def _task(root: Path, rows: list[dict], *, deck: bool = True) -> tuple[Path, Path]:
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text(PROMPT)
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Deck saved.\n")
    if deck:
        _deck(rollout / "app" / "output" / "deck.pptx", ("Lorem ipsum", "Lorem ipsum dolor sit amet"))
    return tests, rollout


def _doc(run) -> dict:
    return json.loads((run.verifier / "result.json").read_text())


def test_a_placeholder_hurdle_over_a_deck_is_unjudged_no_text_not_a_clean_pass(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, [LOCATE, HURDLE])
    run = judge_run(tests, rollout, sim=False)
    doc = _doc(run)
    row = {r["id"]: r for r in doc["results"]}["H-PLACEHOLDER"]
    assert row["judged"] is False and row["error_kind"] == "no_text", row
    assert "deck.pptx read as binary" in row["reason"]
    assert doc["reward"] == 0.0 and doc["exit_code"] == "judge:scorer_error", (doc["reward"], doc["exit_code"])
    assert doc["status"] == "error" and run.returncode == 1
    said = [w for w in doc["details"]["warnings"] if "H-PLACEHOLDER" in w and "searched no text" in w]
    assert said and "deck.pptx" in said[0] and "judge row" in said[0], doc["details"]["warnings"]


def test_a_positive_text_row_over_a_deck_stays_a_miss_and_is_warned(tmp_path, judge_run):
    row = {"id": "C-NAMES", "description": "The deck names chlorophyll.", "weight": 1, "judge_method": "code",
           "code_method_name": "regex_match", "code_method_params": {"pattern": "chlorophyll", "flags": "i"}}
    tests, rollout = _task(tmp_path, [LOCATE, row])
    doc = _doc(judge_run(tests, rollout, sim=False))
    got = {r["id"]: r for r in doc["results"]}["C-NAMES"]
    assert (got["judged"], got["hit"], got["error_kind"]) == (True, False, None), got
    assert doc["exit_code"] is None and doc["reward"] == 0.5
    assert any("C-NAMES" in w and "searched no text" in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]


def test_a_text_file_beside_the_deck_is_searched_and_nothing_is_warned(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, [LOCATE, HURDLE])
    (rollout / "app" / "output" / "notes.md").write_text("Speaker notes on photosynthesis.\n")
    doc = _doc(judge_run(tests, rollout, sim=False))
    got = {r["id"]: r for r in doc["results"]}["H-PLACEHOLDER"]
    assert (got["judged"], got["hit"]) == (True, False), got
    assert doc["reward"] == 1.0 and doc["exit_code"] is None
    assert not any("searched no text" in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]


def test_a_deck_task_without_a_deck_is_not_advised_to_search_the_final_message(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, [LOCATE, HURDLE], deck=False)
    doc = _doc(judge_run(tests, rollout, sim=False))
    said = [w for w in doc["details"]["warnings"] if "H-PLACEHOLDER" in w]
    assert said, doc["details"]["warnings"]
    assert not any("source\": \"response" in w for w in doc["details"]["warnings"]), said
    assert "the task asks for files" in said[0] and "delivered no files, only a final message" in said[0], said
    assert doc["reward"] == 0.0
