"""Trial 13 L7: with JUDGE_CHAT_FALLBACK=0 a rollout that delivered no files, only a final message, is
nothing delivered — but a code row with ``"source": "response"`` reads the final message in every run,
so it is judged on it (not a silent delivery zero), and the result says which rows were which."""

from __future__ import annotations

import json



RUBRIC = {"rubrics": [
    {"id": "C-SPEED", "description": "The answer states 25 m/s.", "weight": 2, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "25 m/s", "source": "response"}},
    {"id": "C-REPORT", "description": "A report file names the speed.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "25 m/s"}},
    {"id": "A-CLEAR", "description": "The report explains the conversion.", "weight": 1},
]}


def _layout(tmp_path, answer: str):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("A car travels 90 km/h. Write its speed in m/s to a report.\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [
        {"step_id": 1, "source": "agent", "message": answer}]}))
    return tests, rollout


def test_a_response_row_reads_the_final_message_with_chat_fallback_off(judge_run, tmp_path):
    tests, rollout = _layout(tmp_path, "The speed is 25 m/s (90 / 3.6).")
    run = judge_run(tests, rollout, oracle={"A-CLEAR": {"hit": True}}, env={"JUDGE_CHAT_FALLBACK": "0"})
    doc = json.loads((run.verifier / "result.json").read_text())
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["C-SPEED"]["judged"] and rows["C-SPEED"]["hit"] is True and rows["C-SPEED"]["method"] == "code"
    assert rows["C-REPORT"]["hit"] is False and rows["C-REPORT"]["method"] == "delivery"
    assert rows["A-CLEAR"]["hit"] is False and rows["A-CLEAR"]["method"] == "delivery"
    assert run.model_requests == 0 and doc["extra_fields"]["delivery_missing"] is True
    assert run.reward == 0.5  # 2 of 4
    said = [w for w in doc["details"]["warnings"] if "JUDGE_CHAT_FALLBACK is off" in w]
    assert len(said) == 1 and "C-REPORT, A-CLEAR" in said[0] and "C-SPEED" in said[0]


def test_a_response_row_misses_on_a_message_without_the_text(judge_run, tmp_path):
    tests, rollout = _layout(tmp_path, "I could not work it out.")
    run = judge_run(tests, rollout, oracle={}, env={"JUDGE_CHAT_FALLBACK": "0"})
    doc = json.loads((run.verifier / "result.json").read_text())
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["C-SPEED"]["method"] == "code" and rows["C-SPEED"]["hit"] is False
    assert "in the final message" in rows["C-SPEED"]["reason"] and run.reward == 0.0


def test_a_response_row_gated_on_an_unjudged_files_row_is_a_gate_miss(judge_run, tmp_path):
    """A `source: response` row whose depends_on names a row the run scores as nothing delivered is gated by
    that row's verdict (a miss: the gate is closed), not left unjudged as if the dependency named no row."""
    tests, rollout = _layout(tmp_path, "The speed is 25 m/s.")
    rubric = json.loads((tests / "rubric.json").read_text())
    rubric["rubrics"].append({"id": "C-UNIT", "description": "The answer gives the unit.", "weight": 1,
                              "judge_method": "code", "code_method_name": "regex_match", "depends_on": ["C-REPORT", "C-SPEED"],
                              "code_method_params": {"pattern": "m/s", "source": "response"}})
    (tests / "rubric.json").write_text(json.dumps(rubric))
    run = judge_run(tests, rollout, oracle={}, env={"JUDGE_CHAT_FALLBACK": "0"})
    rows = {r["id"]: r for r in run.doc["results"]}
    assert rows["C-SPEED"]["hit"] is True
    assert rows["C-UNIT"]["judged"] is True and rows["C-UNIT"]["gate"] == "closed"
    assert rows["C-UNIT"]["reason"].startswith("[gate] C-REPORT judged and missed")
