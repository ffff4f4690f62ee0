"""Hostile deliverables end to end (the real command line against the simulator): half an
emoji, a flood of files, an answer in a shape ATIF does not allow, HTML named .pptx.
What the agent writes is judged through the rubric's rows; it never masks its own sample
(no ``exit_code``) and never passes for something it is not."""

from __future__ import annotations

import json

from reliability.test_hostile import make_tests, rollout, valid


def first_prompt(run) -> str:
    """The first user message of block-01's first attempt, from the audit folder."""
    first = (run.verifier / "judge" / "block-01" / "attempt-1.jsonl").read_text().splitlines()[0]
    return json.loads(first)["request"][1]["content"]


TWO_ROWS = [{"id": "A1", "description": "reports that the work is done", "weight": 1},
            {"id": "A2", "description": "is polite", "weight": 1}]


def test_half_an_emoji_in_the_final_message_is_judged(judge_run, tmp_path):
    # exactly what a truncating agent leaves: the JSON escape of a lone high surrogate
    trajectory = '{"schema_version": "ATIF-v1.6", "steps": [{"source": "agent", "message": "Done. \\ud83d"}]}'
    r = rollout(tmp_path, files={"notes.md": b"# Notes\nhalf an emoji in CESU-8: \xed\xa0\xbd\n"},
                agent_files={"trajectory.json": trajectory})
    run = judge_run(make_tests(tmp_path, TWO_ROWS), r, oracle={"A1": {"hit": True}, "A2": {"hit": True}})
    doc = valid(run)
    assert doc["status"] == "success" and doc["exit_code"] is None and run.reward == 1.0
    assert all(v["judged"] and v["error_kind"] is None for v in run.verdicts.values())
    assert doc["extra_fields"]["judge_error_kind"] is None and doc["extra_fields"]["judge_called"] is True
    workspace = run.work / "blocks" / "block-01"
    assert (workspace / "model_response_text.txt").read_text(encoding="utf-8") == "Done. \ufffd"
    prompt = first_prompt(run)
    assert "Done. \ufffd" in prompt and "half an emoji in CESU-8: \ufffd" in prompt


def test_a_flood_of_files_is_judged_against_the_deliverable_not_masked(judge_run, tmp_path):
    r = rollout(tmp_path, files={"report.md": "# Report\nall done"})
    data = r / "app" / "output" / "data"
    data.mkdir()
    for i in range(5003):  # report.md + the first 4999 are listed; f4999…f5002 are past the limit
        (data / f"f{i:04}.txt").write_text("NEEDLE FORBIDDEN" if i == 5002 else f"row {i}")
    rows = [
        {"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
         "code_method_params": {"glob": "report.md"}},
        {"id": "C2", "description": "5003 data files", "weight": 1, "judge_method": "code",
         "code_method_name": "file_matches_glob", "code_method_params": {"glob": "data/*.txt", "min_count": 5003}},
        {"id": "C3", "description": "the data holds the needle", "weight": 1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "NEEDLE", "glob": "data/*.txt"}},
        {"id": "C4", "description": "the data holds a forbidden word", "weight": -1, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "FORBIDDEN", "glob": "data/*.txt"}},
        {"id": "A1", "description": "the report says it is done", "weight": 1},
    ]
    run = judge_run(make_tests(tmp_path, rows), r, oracle={"A1": {"hit": True}}, timeout=300)
    doc = valid(run)
    assert doc["status"] == "success" and doc["exit_code"] is None, doc["exit_reason"]
    v = run.verdicts
    assert all(x["judged"] and x["error_kind"] is None for x in v.values())
    assert v["C1"]["hit"] is True and v["C2"]["hit"] is True  # names past the limit are seen
    for row_id, hit in (("C3", False), ("C4", True)):  # contents past the limit are not read: against the deliverable
        assert v[row_id]["hit"] is hit
        assert v[row_id]["reason"].startswith("[read limit] text_contains:")
        assert "only the first 5000 deliverables are listed" in v[row_id]["reason"]
    assert run.reward == 0.5  # W = 4; E = 1 + 1 + 0 − 1 (the deduction applies) + 1
    ef = doc["extra_fields"]
    assert ef["judge_coverage"] == 1.0 and ef["judge_unjudged"] == 0 and ef["judge_error_kind"] is None
    assert "over_limit" not in json.dumps(doc)
    assert any("4 deliverable(s) past the first 5000 were not listed" in w for w in doc["details"]["warnings"])
    assert len(doc["details"]["delivery"]["files"]) == 5000 and len(doc["details"]["delivery"]["ignored"]) == 4
    prompt = first_prompt(run)
    assert "... and 4800 more file(s): call list_files to see them" in prompt


def test_an_answer_given_as_an_object_is_unreadable_not_nothing_delivered(judge_run, tmp_path):
    trajectory = json.dumps({"schema_version": "ATIF-v1.6", "steps": [
        {"source": "user", "message": "summarise the report"},
        {"source": "agent", "message": {"text": "The report says revenue grew 12%."}},
    ]})
    r = rollout(tmp_path, agent_files={"trajectory.json": trajectory})
    run = judge_run(make_tests(tmp_path, TWO_ROWS), r, oracle={})
    doc = valid(run)
    # not "nothing delivered" (a 0 that trains the model): an error document, masked downstream
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error"
    assert "could not be read (trajectory.json)" in doc["exit_reason"]
    assert doc["extra_fields"]["judge_error_kind"] == "delivery_unreadable" and run.model_requests == 0
    assert any("step 1: the agent's message is a JSON object" in w for w in doc["details"]["warnings"])
    # trial 5, F5: the judge's failure, not the agent's: never the documented "stays in the training data" flag
    assert doc["extra_fields"]["delivery_missing"] is False


def test_an_empty_trajectory_is_unreadable_not_nothing_delivered(judge_run, tmp_path):
    # usertrial #5: a 0-byte trajectory.json scored "nothing delivered" (success, reward 0, no warning)
    r = rollout(tmp_path, agent_files={"trajectory.json": ""})
    run = judge_run(make_tests(tmp_path, TWO_ROWS), r, oracle={})
    doc = valid(run)
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error"
    assert "could not be read (trajectory.json)" in doc["exit_reason"]
    assert doc["extra_fields"]["judge_error_kind"] == "delivery_unreadable" and run.model_requests == 0
    assert doc["extra_fields"]["delivery_missing"] is False
    assert any("trajectory.json is empty" in w for w in doc["details"]["warnings"])


def test_html_named_pptx_is_no_powerpoint_deck(judge_run, tmp_path):
    html = "<!doctype html><html><body>" + "".join(f"<section>Slide {i}</section>" for i in range(5)) + "</body></html>"
    r = rollout(tmp_path, files={"deck.pptx": html})
    rows = [
        {"id": "L", "description": "a PowerPoint deck", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck",
         "code_method_params": {"prefer": ["pptx"]}},
        {"id": "P", "description": "the deck opens in PowerPoint", "weight": 1, "judge_method": "code",
         "code_method_name": "check_pptx_openable", "code_method_params": {"path": "deck.pptx"}},
        {"id": "D", "description": "some deck opens", "weight": 1, "judge_method": "code",
         "code_method_name": "check_deck_openable", "code_method_params": {"path": "deck.pptx"}},
    ]
    run = judge_run(make_tests(tmp_path, rows), r, sim=False)
    doc = valid(run)
    v = run.verdicts
    assert doc["status"] == "success" and all(x["judged"] for x in v.values())
    assert v["L"]["hit"] is False and "deck.pptx is html by its content" in v["L"]["reason"]
    assert v["P"]["hit"] is False and "deck.pptx is an HTML document, not a PowerPoint presentation" in v["P"]["reason"]
    assert v["D"]["hit"] is True and "HTML content named .pptx" in v["D"]["reason"]  # an HTML deck, said as such
    assert abs(run.reward - 1 / 3) < 1e-9


def test_a_read_limit_met_while_judging_reaches_the_results_warnings(judge_run, tmp_path):
    """A text deliverable past the 8 MiB a code method reads: the row is judged against the
    deliverable and the result's warnings say what was not read (the note is made while
    judging, after the delivery's own notes were recorded)."""
    r = rollout(tmp_path, files={"report.md": "# Report\n" + "filler line\n" * 800_000 + "NEEDLE\n"})
    rows = [{"id": "C1", "description": "the report mentions the needle", "weight": 1, "judge_method": "code",
             "code_method_name": "text_contains", "code_method_params": {"text": "NEEDLE", "glob": "*.md"}},
            {"id": "C2", "description": "a report exists", "weight": 1, "judge_method": "code",
             "code_method_name": "file_exists", "code_method_params": {"glob": "*.md"}}]
    run = judge_run(make_tests(tmp_path, rows), r, sim=False)
    doc = valid(run)
    assert doc["exit_code"] is None and run.verdicts["C1"]["judged"] and run.verdicts["C1"]["hit"] is False
    assert run.verdicts["C1"]["reason"].startswith("[read limit]")
    assert [w for w in doc["details"]["warnings"] if w.startswith("delivery: code row C1") and "read limit" in w], doc["details"]["warnings"]
