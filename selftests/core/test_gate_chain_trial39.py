"""Trial 39 P-1: a row gated on two rows, the deck's locate row (judged, missed: no deck) and an openable check that
was itself gated closed by it, read ``[gate] C-DECK-OPENABLE, C-LOCATE-DECK judged and missed``: the openable check
was never judged. The reason now tells the two apart. The real CLI in a child process (code rows, no model); the
scores do not change."""

from __future__ import annotations

import json
from pathlib import Path

from testkit import run_cli, verifier_result

ROWS = [
    {"id": "C-LOCATE-DECK", "description": "One deck is delivered.", "weight": 1, "judge_method": "code",
     "code_method_name": "locate_deck"},
    {"id": "C-DECK-OPENABLE", "description": "The deck opens.", "weight": 1, "judge_method": "code",
     "code_method_name": "check_deck_openable", "depends_on": ["C-LOCATE-DECK"]},
    {"id": "C-SLIDE-COUNT", "description": "5 to 12 slides.", "weight": 1, "judge_method": "code",
     "code_method_name": "page_count_between", "code_method_params": {"min_pages": 5, "max_pages": 12},
     "depends_on": ["C-LOCATE-DECK", "C-DECK-OPENABLE"]},
]


def test_a_dependency_closed_by_its_own_gate_is_not_said_judged(tmp_path: Path):
    tests, app, logs = tmp_path / "tests", tmp_path / "app", tmp_path / "logs"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}), encoding="utf-8")
    (app / "output").mkdir(parents=True)
    (logs / "agent").mkdir(parents=True)
    (logs / "agent" / "final_answer.txt").write_text("I made the deck.\n", encoding="utf-8")  # no deck: judged on it
    proc = run_cli(app, logs, tests)
    assert proc.returncode == 0, proc.stderr
    rows = {r["id"]: r for r in verifier_result(logs)["results"]}
    assert rows["C-DECK-OPENABLE"]["reason"].startswith("[gate] C-LOCATE-DECK judged and missed"), rows
    said = rows["C-SLIDE-COUNT"]["reason"]
    assert said.startswith("[gate] C-LOCATE-DECK judged and missed; C-DECK-OPENABLE closed by its own gate"), said
    assert "C-DECK-OPENABLE, C-LOCATE-DECK judged and missed" not in said
    assert all(r["hit"] is False and r["judged"] is True for r in rows.values())  # the scores as before
