"""Trial 19 P-3: ``cowork-judge run --app-dir DIR`` given the folder that holds the deck (not the folder that holds
``output/``) scored a clean "nothing delivered" 0 with no warning; with a fresh ``--logs-dir`` the error blamed only
``--logs-dir``. An app dir with no output folder at all but deliverable-looking files at its top now draws a
``details.warnings`` line naming the folder, the files and the layout; the reward stays the agent's 0 (an agent that
saved its work outside /app/output delivered nothing, and a chat agent's /app has no output/ either), and the
``--logs-dir`` error names the app dir's problem as well. The real CLI in a child process (code rows: no model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from testkit import run_cli, verifier_result

DECK = Path(__file__).resolve().parents[1] / "fixtures" / "decks" / "40__docling__pptx_chart.pptx"


def _instance(root: Path, folder: str = "good") -> tuple[Path, Path]:
    """(the deck's own folder, tests dir) of a one-row code-only deck instance."""
    tests, decks = root / "tests", root / "decks" / folder
    tests.mkdir(parents=True)
    decks.mkdir(parents=True)
    shutil.copy(DECK, decks / "water-cycle.pptx")
    rows = [{"id": "C1", "description": "a deck", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
             "code_method_params": {"glob": "*.pptx"}}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    return decks, tests


def _said(app: Path) -> str:
    return (f"the app dir {app} (--app-dir / JUDGE_APP_DIR) has no output/ folder, so nothing in it was judged, but it "
            "holds 1 file(s) at its top that look like deliverables (water-cycle.pptx)")


def test_an_app_dir_without_output_but_a_deck_at_its_top_is_warned(tmp_path):
    app, tests = _instance(tmp_path)
    logs = tmp_path / "logs"
    (logs / "agent").mkdir(parents=True)
    proc = run_cli(app, logs, tests)
    assert proc.returncode == 0, proc.stderr
    doc = verifier_result(logs)
    assert (doc["status"], doc["exit_code"], doc["reward"]) == ("success", None, 0.0)  # still the agent's 0
    warned = [w for w in doc["details"]["warnings"] if _said(app) in w]
    assert warned, doc["details"]["warnings"]
    assert f"put these files in {app / 'output'}/" in warned[0] and "deliverables in /app/output" in warned[0]


def test_an_app_dir_named_output_suggests_its_parent(tmp_path):
    app, tests = _instance(tmp_path, folder="output")
    logs = tmp_path / "logs"
    logs.mkdir()
    proc = run_cli(app, logs, tests)
    assert proc.returncode == 0, proc.stderr
    doc = verifier_result(logs)
    assert any(f"did you mean --app-dir {app.parent} (the folder that holds output/)?" in w
               for w in doc["details"]["warnings"]), doc["details"]["warnings"]


def test_a_fresh_logs_dir_error_names_the_app_dir_problem_too(tmp_path):
    app, tests = _instance(tmp_path)
    fresh = tmp_path / "fresh-logs"
    proc = run_cli(app, fresh, tests)
    assert proc.returncode == 1, proc.stderr
    doc = verifier_result(fresh)
    assert doc["exit_code"] == "judge:scorer_error"
    assert "(check --logs-dir)" in doc["exit_reason"] and f"; also: {_said(app)}" in doc["exit_reason"]
    assert _said(app) in proc.stderr


def test_an_empty_output_folder_with_files_beside_it_says_nothing_new(tmp_path):
    app, tests = _instance(tmp_path)
    (app / "output").mkdir()  # the agent made output/ and left its work beside it: its own 0, no layout hint
    logs = tmp_path / "logs"
    logs.mkdir()
    proc = run_cli(app, logs, tests)
    assert proc.returncode == 0, proc.stderr
    doc = verifier_result(logs)
    assert doc["reward"] == 0.0 and not any("has no output/ folder" in w for w in doc["details"]["warnings"])


def test_the_warning_stands_when_a_final_message_is_judged_in_the_decks_place(tmp_path):
    """Trial 39 P-3: every deck rollout has a closing message, so no file plus a message is judged on the message
    (JUDGE_CHAT_FALLBACK); the warning was said only when nothing at all was delivered, so the deck's own folder
    given as --app-dir scored a good deck 0 with ``details.warnings: []``."""
    app, tests = _instance(tmp_path)
    logs = tmp_path / "logs"
    (logs / "agent").mkdir(parents=True)
    (logs / "agent" / "final_answer.txt").write_text("I saved the deck as water-cycle.pptx.\n", encoding="utf-8")
    proc = run_cli(app, logs, tests)
    assert proc.returncode == 0, proc.stderr
    doc = verifier_result(logs)
    assert doc["details"]["delivery"]["from_chat"] is True, doc["details"]["delivery"]
    assert any(_said(app) in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]
