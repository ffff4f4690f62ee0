"""Trial 35 P-1: a ``word_count_between`` row over the final message (``"source": "response"``, ``max_words``
only) was a hit when the rollout gave no final message at all (``no final message was given (0 words);
required [0, 150]``), while the same row over files that match nothing is a miss (``nothing to count``) and
``text_contains`` on the missing message is a miss. No message is now nothing to count: a miss (an empty
answer file is no message: the reader passes over it). Real CLI (`judge_run`), code rows only (no model call)."""

from __future__ import annotations

import json
from pathlib import Path


def _task(root: Path, message: str | None) -> tuple[Path, Path]:
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    rows = [{"id": "C-LENGTH", "description": "At most 150 words.", "weight": 1, "judge_method": "code",
             "code_method_name": "word_count_between", "code_method_params": {"max_words": 150, "source": "response"}},
            {"id": "C-RAYLEIGH", "description": "Names Rayleigh.", "weight": 1, "judge_method": "code",
             "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "app" / "output" / "notes.txt").write_text("Rayleigh scattering makes the sky blue.\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    if message is not None:
        (rollout / "logs" / "agent" / "final_answer.txt").write_text(message)
    return tests, rollout


def test_no_final_message_is_nothing_to_count_a_miss(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, None)
    doc = json.loads((judge_run(tests, rollout, sim=False).verifier / "result.json").read_text())
    rows = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert rows["C-LENGTH"] == (False, "nothing to count: no final message was given"), rows
    assert rows["C-RAYLEIGH"] == (False, "'Rayleigh' not found: no final message was given"), rows
    assert doc["reward"] == 0.0, doc["reward"]
    assert any("C-LENGTH, C-RAYLEIGH read the final message (source: response), but no final message was given" in w
               for w in doc["details"]["warnings"]), doc["details"]["warnings"]


def test_an_existing_message_is_still_counted(tmp_path, judge_run):
    tests, rollout = _task(tmp_path, "The sky is blue because of Rayleigh scattering.\n")
    doc = json.loads((judge_run(tests, rollout, sim=False).verifier / "result.json").read_text())
    rows = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert rows["C-LENGTH"] == (True, "8 words; required [0, 150]"), rows



def test_an_empty_answer_file_is_no_message_either(tmp_path, judge_run):
    """The reader takes an empty (or white-space) final_answer.txt as "no message there" (`run.answer.agent_logs`),
    so an empty answer earns no "at most N words" credit either."""
    tests, rollout = _task(tmp_path, "  \n")
    doc = json.loads((judge_run(tests, rollout, sim=False).verifier / "result.json").read_text())
    rows = {r["id"]: (r["hit"], r["reason"]) for r in doc["results"]}
    assert rows["C-LENGTH"] == (False, "nothing to count: no final message was given"), rows
