"""Trial 6 F21: a deck (or a file a row looks for) saved beside output/ instead of in it is stray
(``outside_scored_set``, not scored), and the code rows that look for it say where it is instead of
only "no deck among the deliverables". The verdict itself (a miss) is unchanged. A real
``cowork-judge run`` (code rows only: no model call)."""

from __future__ import annotations

import json
from pathlib import Path

RUBRIC = {"rubrics": [
    {"id": "C-DECK", "description": "Exactly one slide deck is among the deliverables.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
    {"id": "C-REPORT", "description": "A report.md is delivered.", "weight": 1,
     "judge_method": "code", "code_method_name": "file_exists", "code_method_params": {"glob": "report.md"}},
    {"id": "C-CSV", "description": "A CSV is delivered.", "weight": 1,
     "judge_method": "code", "code_method_name": "file_exists", "code_method_params": {"glob": "*.csv"}},
]}


def test_a_file_left_beside_output_is_named_in_the_reason(judge_run, tmp_path: Path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Make a deck and a report in /app/output/.\n")

    def beside(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True, exist_ok=True)
        (out / "notes.txt").write_text("a real deliverable\n")
        (root / "app" / "deck.pptx").write_bytes(b"PK\x03\x04 not really a deck")
        (root / "app" / "report.md").write_text("# Report\n")

    run = judge_run(tests, None, sim=False, setup=beside)
    assert run.returncode == 0, run.stderr
    doc = json.loads((run.verifier / "result.json").read_text())
    reasons = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert reasons["C-DECK"][0] is False
    assert "deck.pptx is outside output/ (not scored)" in reasons["C-DECK"][1], reasons["C-DECK"]
    assert reasons["C-REPORT"][0] is False
    assert "report.md is outside output/ (not scored)" in reasons["C-REPORT"][1], reasons["C-REPORT"]
    assert reasons["C-CSV"][0] is False and "outside output/" not in reasons["C-CSV"][1]  # only the files the glob names
    assert doc["task_score"] == 0.0


def test_a_hidden_deck_is_named_in_the_reason(judge_run, tmp_path: Path):
    """Trial 6 F23: ``output/.deck.pptx`` is set aside as hidden; the row said only "no deck among the deliverables"."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": RUBRIC["rubrics"][:1]}))
    (tests / "task_prompt.md").write_text("Make a deck in /app/output/.\n")

    def hidden(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True, exist_ok=True)
        (out / "notes.txt").write_text("a real deliverable\n")
        (out / ".deck.pptx").write_bytes(b"PK\x03\x04 not really a deck")

    run = judge_run(tests, None, sim=False, setup=hidden)
    assert run.returncode == 0, run.stderr
    doc = json.loads((run.verifier / "result.json").read_text())
    (row,) = doc["results"]
    assert row["hit"] is False and ".deck.pptx is hidden" in row["reason"], row["reason"]
