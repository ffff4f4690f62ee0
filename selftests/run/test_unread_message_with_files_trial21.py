"""Trial 21 (found while fixing P-4): in a FILE task (files under output/) whose final message exists but could not
be read — a ``trajectory.json`` that is a JSON array, an agent message that is a JSON object, ATIF steps that hide
the answer, a JUDGE_RESPONSE_FILE the run refuses — the files are judged, but a code row over the response
(``"source": "response"``) scored a plain miss "no final message was given": a 0 charged to the agent, ``status:
success``. Such a row is unjudged ``delivery_unreadable`` (the kind of the all-unreadable run), its reason naming
the file and why; ``file_written_before_final`` does not guess the final step of a trajectory the run found
unreadable; and a model row's prompt says the message exists but was not read. A run with files and NO final
message at all is as before: a real miss, with the warning.

Real runs: ``python -m cowork_judge run`` against the simulator over HTTP (the ``judge_run`` fixture).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ANSWER = "Rayleigh scattering sends the short blue wavelengths everywhere; the details are in notes.md."
HEAD = {"schema_version": "ATIF-v1.4", "session_id": "reference", "agent": {"name": "reference", "version": "1"}}
UNREAD_NOTE = "The agent's final chat message is not shown: it exists ("
WRITE = {"source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c1", "function_name": "write_file",
                                                             "arguments": {"path": "/app/output/notes.md", "content": "x"}}]}


def _tests(tmp_path: Path, *, written: bool = False) -> Path:
    rows: list[dict[str, Any]] = [
        {"id": "C-R", "description": "The answer names Rayleigh scattering.", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
        {"id": "C-F", "description": "A notes file is delivered.", "weight": 1, "judge_method": "code",
         "code_method_name": "file_exists", "code_method_params": {"glob": "*.md"}},
        {"id": "L-WHY", "description": "The notes explain why the sky is blue.", "weight": 1},
    ]
    if written:
        rows.append({"id": "C-W", "description": "The notes were written before the final answer.", "weight": 1,
                     "judge_method": "code", "code_method_name": "file_written_before_final",
                     "code_method_params": {"glob": "*.md"}})
    tests = tmp_path / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}), encoding="utf-8")
    (tests / "answer.txt").write_text(ANSWER, encoding="utf-8")
    return tests


def _rollout(trajectory: Any | None):
    def setup(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True, exist_ok=True)
        (out / "notes.md").write_text("# Why the sky is blue\n\nRayleigh scattering of sunlight by air molecules.\n",
                                      encoding="utf-8")
        if trajectory is not None:
            (root / "logs" / "agent" / "trajectory.json").write_text(json.dumps(trajectory), encoding="utf-8")
    return setup


def _atif(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {**HEAD, "steps": [{"step_id": n, **s} for n, s in enumerate(steps, start=1)]}


def _first_prompt(run: Any) -> str:
    """The first user message the agentic block sent to the simulator (as the run's audit recorded the request)."""
    first = json.loads((run.verifier / "judge" / "block-01" / "attempt-1.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return next(m["content"] for m in first["request"] if m["role"] == "user")


UNREADABLE = [
    # (trajectory document, env, the unreadable source, what the reason says of it)
    (_atif([{"source": "user", "message": "Why?"}, {"source": "assistant", "message": ANSWER}]), {},
     "trajectory.json", "trajectory.json is not valid ATIF: step 2 has source 'assistant'"),
    ([{"source": "agent", "message": ANSWER}], {}, "trajectory.json", "trajectory.json is not an ATIF trajectory"),
    (_atif([{"source": "agent", "message": {"text": ANSWER}}]), {}, "trajectory.json", "trajectory.json step 0"),
    (None, {"JUDGE_RESPONSE_FILE": "TESTS/answer.txt"}, "JUDGE_RESPONSE_FILE=", "is in the task's tests/ folder"),
]


@pytest.mark.parametrize("trajectory,env,source,why", UNREADABLE, ids=["atif-assistant", "json-array", "message-object",
                                                                        "response-file-refused"])
def test_a_response_row_over_an_unreadable_message_is_unjudged_not_a_miss(judge_run, tmp_path, trajectory, env, source, why):
    tests = _tests(tmp_path)
    env = {k: v.replace("TESTS", str(tests)) for k, v in env.items()}
    run = judge_run(tests, setup=_rollout(trajectory), env=env)
    doc = run.doc
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["C-R"]["error_kind"] == "delivery_unreadable" and rows["C-R"]["hit"] is None, rows["C-R"]
    reason = rows["C-R"]["reason"]
    assert reason.startswith(f"the final message could not be read: {source}") and why in reason, reason
    assert rows["C-F"]["hit"] is True and rows["L-WHY"]["error_kind"] is None, rows
    extra = doc["extra_fields"]
    assert extra["judge_error_kind"] == "delivery_unreadable" and extra["judge_degraded"] is True
    assert not extra["delivery_missing"] and extra["judge_coverage"] < 1.0
    said = json.dumps(doc)
    assert "no final message was given" not in said, [w for w in doc["details"]["warnings"]]
    # the model row's prompt says the message exists but was not read, not that there is none
    prompt = _first_prompt(run)
    assert UNREAD_NOTE + source in prompt and "<model_response" not in prompt, prompt[-1500:]


def test_file_written_before_final_does_not_guess_the_final_step_of_an_unreadable_trajectory(judge_run, tmp_path):
    """The steps are read (``tool_called`` rows still work), but the final message's step is hidden by an
    ``assistant`` step: "before the final message" cannot be measured, so the row is unjudged, not a hit."""
    traj = _atif([{"source": "user", "message": "Why?"}, WRITE, {"source": "assistant", "message": ANSWER}])
    run = judge_run(_tests(tmp_path, written=True), setup=_rollout(traj))
    row = {r["id"]: r for r in run.doc["results"]}["C-W"]
    assert row["error_kind"] == "delivery_unreadable" and row["hit"] is None, row
    assert row["reason"].startswith("the final message could not be read: trajectory.json is not valid ATIF: step 3 "
                                    "has source 'assistant'") and row["reason"].endswith("so the step it was given at "
                                                                                         "is unknown"), row["reason"]


def test_files_and_no_final_message_at_all_is_still_a_real_miss(judge_run, tmp_path):
    """Nothing was given (no trajectory, no answer file): the response row is a judged miss, with the warning,
    and the prompt says nothing of an unread message."""
    run = judge_run(_tests(tmp_path, written=True), setup=_rollout(None))
    doc = run.doc
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["C-R"]["hit"] is False and rows["C-R"]["error_kind"] is None
    assert rows["C-R"]["reason"] == "'Rayleigh' not found: no final message was given"
    assert rows["C-W"]["error_kind"] == "trajectory_missing", rows["C-W"]
    assert any("code row C-R reads the final message (source: response), but no final message was given" in w
               for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    assert UNREAD_NOTE not in _first_prompt(run)


def test_a_valid_trajectory_with_its_final_message_is_judged_as_before(judge_run, tmp_path):
    traj = _atif([{"source": "user", "message": "Why?"}, WRITE, {"source": "agent", "message": ANSWER}])
    run = judge_run(_tests(tmp_path, written=True), setup=_rollout(traj))
    doc = run.doc
    assert (doc["status"], doc["exit_code"]) == ("success", None), doc["exit_reason"]
    rows = {r["id"]: r for r in doc["results"]}
    assert rows["C-R"]["hit"] is True and rows["C-W"]["hit"] is True, rows
    assert rows["C-W"]["reason"] == "'/app/output/notes.md' written at step 2, before the final message (step 3)"
    prompt = _first_prompt(run)
    assert UNREAD_NOTE not in prompt and "<model_response" in prompt


def test_answer_match_does_not_read_the_files_in_place_of_an_unreadable_message(judge_run, tmp_path):
    """answer_match reads the text deliverables as the answer when NO final message was given (trial 20 P-3);
    when one exists but could not be read, the answer may be in it: the row is unjudged, not judged on the files."""
    from cowork_judge.workflow.answer_match.rows import answer_row

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [answer_row("ANSWER", "499 s")]}), encoding="utf-8")
    (tests / "task_prompt.md").write_text("# Task\n\nHow long does the light take?\n", encoding="utf-8")
    traj = _atif([{"source": "user", "message": "How long?"}, {"source": "assistant", "message": "Answer: 499 s"}])
    run = judge_run(tests, setup=_rollout(traj), oracle={}, env={"JUDGE_WORKFLOW_START_JITTER": "0"})
    row = {r["id"]: r for r in run.doc["results"]}["ANSWER"]
    assert row["error_kind"] == "delivery_unreadable", row
    assert row["reason"].startswith("the final message could not be read: trajectory.json is not valid ATIF"), row
    assert not [w for w in run.doc["details"]["warnings"] if "answer read from" in w], run.doc["details"]["warnings"]
    assert run.model_requests == 0
