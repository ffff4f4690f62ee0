"""Trial 13 L3: JUDGE_RESPONSE_FILE pointing into the task's tests/ folder (the verifier's own files:
the rubric, the reference answers) was read silently as the agent's answer. It is refused, unread:
the final message comes from the agent logs, and with none there the run is unjudged
``delivery_unreadable``, never the rubric judged as the answer."""

from __future__ import annotations

import json

RUBRIC = {"rubrics": [
    {"id": "C-SPEED", "description": "The answer states 25 m/s.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "25 m/s", "source": "response"}}]}


def _tests(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("A car travels 90 km/h. What is its speed in m/s?\n")
    return tests


def test_a_response_file_in_tests_is_not_the_answer(judge_run, tmp_path):
    tests = _tests(tmp_path)
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    run = judge_run(tests, rollout, sim=False, env={"JUDGE_RESPONSE_FILE": str(tests / "rubric.json")})
    doc = run.doc
    row = doc["results"][0]
    assert row["judged"] is False and row["error_kind"] == "delivery_unreadable"  # the rubric says "25 m/s"
    assert doc["extra_fields"]["delivery_from_chat"] is False
    said = [w for w in doc["details"]["warnings"] if "tests/ folder" in w]
    assert len(said) == 1 and "not read as the agent's final message" in said[0]


def test_the_trajectory_answers_when_the_response_file_is_refused(judge_run, tmp_path):
    tests = _tests(tmp_path)
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "trajectory.json").write_text(json.dumps({"schema_version": "ATIF-v1.4", "steps": [
        {"step_id": 1, "source": "agent", "message": "It is 90 / 3.6 = 25 m/s."}]}))
    run = judge_run(tests, rollout, sim=False, env={"JUDGE_RESPONSE_FILE": str(tests / "task_prompt.md")})
    doc = run.doc
    assert doc["results"][0]["hit"] is True and doc["details"]["delivery"]["final_message_source"] == "trajectory"
    assert any("tests/ folder" in w for w in doc["details"]["warnings"])
