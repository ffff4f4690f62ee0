"""Issue 39, trial 6 F15: text code rows (``text_contains``, ``regex_match``,
``word_count_between``) search the deliverable files unless ``"source": "response"`` is given.
On a chat answer (a final message, no files) such a row misses: its reason says where it
looked and that the final message was not searched, and the run warns once, naming the rows.
Real CLI (`judge_run`), code rows only (no model call)."""

from __future__ import annotations

import json
from pathlib import Path

FILES_ONLY = " in the deliverable files (source: files, the default; the final message was not searched)"


def _task(root: Path, rows: list[dict]) -> tuple[Path, Path]:
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("The sky is blue because of Rayleigh scattering.\n")
    return tests, rollout


def _row(rid: str, method: str, **params) -> dict:
    return {"id": rid, "description": rid, "weight": 1, "judge_method": "code", "code_method_name": method,
            "code_method_params": params}


def test_files_only_text_rows_on_a_chat_answer_say_where_they_looked_and_warn(tmp_path, judge_run):
    rows = [_row("T1", "text_contains", text="Rayleigh"), _row("T2", "regex_match", pattern="Rayleigh"),
            _row("T3", "word_count_between", min_words=1, max_words=150),
            _row("T4", "text_contains", text="Rayleigh", source="response")]
    tests, rollout = _task(tmp_path, rows)
    run = judge_run(tests, rollout, sim=False)
    doc = json.loads((run.verifier / "result.json").read_text())
    reasons = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert reasons["T1"] == (False, "'Rayleigh' not found" + FILES_ONLY)
    assert reasons["T2"] == (False, "/Rayleigh/ does not match" + FILES_ONLY)
    assert reasons["T3"] == (False, "nothing to count: no deliverable matches '*' (source: files, the default; the final "
                                    "message was not searched)")
    assert reasons["T4"] == (True, "'Rayleigh' found in final message")
    assert ("delivery: code rows T1, T2, T3 search the deliverable files (source: files, the default), but this rollout "
            "delivered no files, only a final message: they cannot match it; give them \"source\": \"response\" inside code_method_params (not on the row) to search "
            "the final message") in doc["details"]["warnings"], doc["details"]["warnings"]


def test_a_rollout_with_files_gets_no_warning_and_the_reason_still_says_where(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, [_row("T1", "text_contains", text="Rayleigh", glob="*.md")])
    (rollout / "app" / "output" / "notes.md").write_text("nothing relevant\n")
    run = judge_run(tests, rollout, sim=False)
    doc = json.loads((run.verifier / "result.json").read_text())
    assert [(r["hit"], r["reason"]) for r in doc["results"]] == [
        (False, "'Rayleigh' not found in the deliverable files matching '*.md' (source: files, the default; the final "
                "message was not searched)")]
    assert not any("source" in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]
