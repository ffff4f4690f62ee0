"""Trial 5 F4: a deliverable that is a symbolic link leaving output/ is set aside (``symlink_escape``), and the
code rows that look for it say so instead of calling it absent ("no deck among the deliverables"). The verdict
itself (a miss) is unchanged. A real ``cowork-judge run`` (code rows only: no model call)."""

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


def test_a_link_leaving_output_is_named_in_the_reason(judge_run, tmp_path: Path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Make a deck and a report.\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "agents.pptx").write_bytes(b"PK\x03\x04 not really a deck")
    (elsewhere / "report.md").write_text("# Report\n")

    def links(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True, exist_ok=True)
        (out / "deck.pptx").symlink_to(elsewhere / "agents.pptx")
        (out / "report.md").symlink_to(elsewhere / "report.md")
        (out / "notes.txt").write_text("a real deliverable\n")

    run = judge_run(tests, None, sim=False, setup=links)
    assert run.returncode == 0, run.stderr
    doc = json.loads((run.verifier / "result.json").read_text())
    reasons = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert reasons["C-DECK"][0] is False
    assert "deck.pptx is a symbolic link leaving output/ (not scored)" in reasons["C-DECK"][1], reasons["C-DECK"]
    assert reasons["C-REPORT"][0] is False
    assert "report.md is a symbolic link leaving output/ (not scored)" in reasons["C-REPORT"][1], reasons["C-REPORT"]
    assert reasons["C-CSV"][0] is False and "symbolic link" not in reasons["C-CSV"][1]  # only the files the glob names
    assert doc["task_score"] == 0.0


def test_a_link_to_nothing_is_named_in_the_reason(judge_run, tmp_path: Path):
    """Trial 7 F1: a link to nothing (a deck linked from a folder the verifier does not have) is ``dangling_link``,
    and the rows that look for it say so; before, it was an anonymous ``not_regular`` and the row said "no deck"."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))

    def links(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True, exist_ok=True)
        (out / "deck.pptx").symlink_to(tmp_path / "repo" / "good.pptx")  # not there
        (out / "notes.txt").write_text("a real deliverable\n")

    run = judge_run(tests, None, sim=False, setup=links)
    doc = json.loads((run.verifier / "result.json").read_text())
    reasons = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert reasons["C-DECK"][0] is False
    assert "deck.pptx is a symbolic link to nothing that exists (not scored)" in reasons["C-DECK"][1], reasons["C-DECK"]
    assert doc["details"]["delivery"]["ignored"] == ["deck.pptx (dangling_link)"]
