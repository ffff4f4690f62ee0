"""Issue 39, trial 6 F1: a final message over the 16 MiB read limit is the deliverable's doing
(docs/rubric.md "Read limits"): its first 16 MiB are judged with a warning that says so, and a
text row over the response whose answer may sit past the limit is judged as a read limit
(a miss for a positive row, a hit for a deduction); never an unreadable delivery masked as the
judge's failure (``judge:scorer_error``). Real CLI (`judge_run`), code rows only."""

from __future__ import annotations

import json

from cowork_judge.run.answer import MAX_MESSAGE_BYTES


def _row(rid: str, weight: int, text: str) -> dict:
    return {"id": rid, "description": rid, "weight": weight, "judge_method": "code", "code_method_name": "text_contains",
            "code_method_params": {"text": text, "source": "response"}}


def test_a_final_message_over_the_limit_is_judged_on_what_was_read(tmp_path, judge_run):
    tests, rollout = tmp_path / "tests", tmp_path / "rollout"
    tests.mkdir()
    rows = [_row("HEAD", 1, "Rayleigh"), _row("TAIL", 1, "Mie"), _row("BAD", -1, "forbidden")]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    agent = rollout / "logs" / "agent"
    agent.mkdir(parents=True)
    (rollout / "app" / "output").mkdir(parents=True)
    size = MAX_MESSAGE_BYTES + 1000
    with (agent / "final_answer.txt").open("wb") as fh:  # "é" (2 bytes) straddles the limit: no U+FFFD, no "not UTF-8"
        fh.write(b"Rayleigh " + b"a" * (MAX_MESSAGE_BYTES - 10) + "é".encode() + b" Mie forbidden" + b"b" * 985)
    assert (agent / "final_answer.txt").stat().st_size == size
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode == 0, run.stderr[-2000:]
    doc = json.loads((run.verifier / "result.json").read_text())
    assert (doc["status"], doc["exit_code"], doc["details"]["delivery"]["missing"]) == ("success", None, False)
    results = {r["id"]: r for r in doc["results"]}
    assert all(r["judged"] and r["error_kind"] is None for r in results.values())
    assert results["HEAD"]["hit"] is True
    assert results["TAIL"]["hit"] is False and results["TAIL"]["reason"].startswith("[read limit] text_contains: 'Mie' not "
                                                                                   "found in what was read, but the final "
                                                                                   "message")
    assert results["BAD"]["hit"] is True and "the deduction applies" in results["BAD"]["reason"]
    note = (f"delivery: final_answer.txt is {size} bytes, more than the {MAX_MESSAGE_BYTES} bytes (16 MiB) read of a "
            f"final message: its first {MAX_MESSAGE_BYTES} bytes are judged (a read limit, the deliverable's doing)")
    assert note in doc["details"]["warnings"], doc["details"]["warnings"]
    assert not any("not UTF-8" in w for w in doc["details"]["warnings"])
