"""Trial 19 P-4: a code row whose ``code_method_params`` its method refuses (``"source": "final_message"``, an
unknown key) was unjudged ``code_error``, classed content-caused: a hurdle zeroed every rollout with ``status:
success``, no ``exit_code`` and ``try`` exit 0, and a positive row lowered every reward the same way. The parameters
are a property of the rubric (the same on every rollout), exactly like a misspelt method (``code_missing``): the row
is now unjudged ``code_params`` and the run is systemic (``judge:scorer_error``), for a hurdle and a positive row alike;
``try`` names the row's reason under the reward. Real ``try`` in a child process against the simulator over HTTP."""

from __future__ import annotations

import json

import pytest

from install.test_try_output import inited_task, try_on_sim

GOOD = {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1,
        "judge_method": "code", "code_method_name": "text_contains",
        "code_method_params": {"text": "Rayleigh", "source": "response"}}
HURDLE = {"id": "H-AI", "description": "The answer contains the phrase 'As an AI'.", "weight": 0, "hurdle": True,
          "judge_method": "code", "code_method_name": "text_contains",
          "code_method_params": {"text": "As an AI", "source": "final_message"}}
POSITIVE = {"id": "C-WORDS", "description": "10 to 200 words.", "weight": 1, "judge_method": "code",
            "code_method_name": "word_count_between",
            "code_method_params": {"min_words": 5, "max_words": 200, "source": "response", "max_chars": 9}}
LENGTH = {"id": "C-LENGTH", "description": "2 to 150 words.", "weight": 1, "judge_method": "code",
          "code_method_name": "word_count_between",
          "code_method_params": {"min_words": 2, "max_words": 150, "source": "final_message"}}
"""Trial 25 P-6: the same ``source`` guess on ``word_count_between`` was checked only inside the method (``code_error``,
``status: success``, every rollout 0.1 lower)."""
ANSWER = "Air scatters blue light more than red: Rayleigh scattering.\n"


def _chat_task(root, rows):
    return inited_task(root / "chat", rows, "In your final message, explain why the sky is blue.\n")


@pytest.mark.parametrize(("row", "reason"), [
    (HURDLE, "parameter 'source' must be 'files' or 'response', got 'final_message'"),
    (POSITIVE, "unknown parameter 'max_chars'"),
    (LENGTH, "parameter 'source' must be 'files' or 'response', got 'final_message'"),
], ids=["hurdle-source", "positive-unknown-key", "word-count-source-trial25"])
def test_code_params_a_method_refuses_make_the_run_systemic_and_try_says_why(tmp_path, sandbox_ready, row, reason):
    task = _chat_task(tmp_path, [GOOD, row])
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    proc = try_on_sim(task, tmp_path, "--final-message", str(answer))
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1, said
    assert "status: error" in said and "unjudged: code_params 1" in said, said
    assert f"not judged: {row['id']} (code_params): code_method_params of" in said and reason in said, said
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert (doc["status"], doc["exit_code"]) == ("error", "judge:scorer_error"), doc["exit_reason"]
    verdict = {r["id"]: r for r in doc["results"]}[row["id"]]
    assert verdict["judged"] is False and verdict["error_kind"] == "code_params" and reason in verdict["reason"]
    assert {r["id"]: r for r in doc["results"]}["C-RAYLEIGH"]["hit"] is True  # the good row is judged as before
