"""Trial 21 P-4: a ``trajectory.json`` shaped like ATIF (an object with ``steps``) whose steps the reader cannot
use — ``"source": "assistant"`` or ``"Agent"`` where ATIF says ``"agent"``, ``"content"`` where an agent step has
``"message"`` — was read as "no final message": reward 0, ``status: success``, coverage 1.000, no warning (a
reference answer charged as the agent's 0). Such a file is unreadable, as a JSON array already was: every row
unjudged ``delivery_unreadable``, a warning naming the step and what is wrong. A VALID trajectory whose agent
said nothing is still nothing delivered (a real 0), and a valid one reads as before.

Real runs: ``python -m cowork_judge run`` against the simulator over HTTP (the ``judge_run`` fixture).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testkit import write_rubric

ANSWER = "Sunlight is scattered by air molecules: Rayleigh scattering sends the short blue wavelengths everywhere."
HEAD = {"schema_version": "ATIF-v1.4", "session_id": "reference", "agent": {"name": "reference", "version": "1"}}
SOURCES = "ATIF's sources are 'system', 'user', 'agent'"
RULE = "the final message is the 'message' of the last step with source 'agent'"


def _tests(tmp_path: Path) -> Path:
    rows = [
        {"id": "C-WORD", "description": "The answer names Rayleigh scattering.", "weight": 2, "judge_method": "code",
         "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
        {"id": "L-WHY", "description": "The answer explains why the sky is blue.", "weight": 1},
    ]
    return write_rubric(tmp_path / "tests", rows)


def _trajectory(steps: list[dict[str, Any]]):
    def setup(root: Path) -> None:
        doc = {**HEAD, "steps": [{"step_id": n, **s} for n, s in enumerate(steps, start=1)]}
        (root / "logs" / "agent" / "trajectory.json").write_text(json.dumps(doc), encoding="utf-8")
    return setup


HIDDEN = [
    # the chat-API role name (the trial's hand-written reference answer)
    ([{"source": "assistant", "message": ANSWER}], f"step 1 has source 'assistant': {SOURCES}; {RULE}"),
    ([{"source": "Agent", "message": ANSWER}], f"step 1 has source 'Agent': {SOURCES} (lower case); {RULE}"),
    ([{"source": "user", "message": "Why is the sky blue?"}, {"source": "agent", "content": ANSWER}],
     f"step 2 (source 'agent') has no 'message' (it has 'content'); {RULE}"),
    ([{"source": "agent", "message": "", "content": [{"type": "text", "text": ANSWER}]}],
     "step 1 (source 'agent') has an empty 'message' (and 'content', which ATIF steps do not have)"),
    ([{"source": "user", "message": "Why?"}, {"role": "assistant", "content": ANSWER}],
     f"step 2 has no 'source': {SOURCES}"),
    # a readable agent message, then a step that may be the real final answer: not taken as the answer
    ([{"source": "agent", "message": "Let me think."}, {"source": "user", "message": "go on"},
      {"source": "assistant", "message": ANSWER}, {"source": "assistant", "message": "Anything else?"}],
     f"step 3 has source 'assistant': {SOURCES} (1 more step after it too); {RULE}"),
]


@pytest.mark.parametrize("steps,why", HIDDEN, ids=["assistant", "Agent", "content", "empty-message", "role", "after-answer"])
def test_an_atif_file_whose_steps_hide_the_answer_is_unreadable_not_nothing_delivered(judge_run, tmp_path, steps, why):
    run = judge_run(_tests(tmp_path), setup=_trajectory(steps))
    doc = run.doc
    assert doc["status"] != "success" and doc["exit_code"], (doc["status"], doc["exit_code"], doc["exit_reason"])
    extra = doc["extra_fields"]
    assert not extra["delivery_missing"] and extra["judge_coverage"] == 0.0 and extra["judge_error_kind"] == "delivery_unreadable"
    assert {r["id"]: r["error_kind"] for r in doc["results"]} == {"C-WORD": "delivery_unreadable",
                                                                  "L-WHY": "delivery_unreadable"}
    assert "the agent's final message could not be read (trajectory.json)" in doc["exit_reason"]
    warned = [w for w in doc["details"]["warnings"] if w.startswith("delivery: trajectory.json is not valid ATIF: ")]
    assert len(warned) == 1 and why in warned[0], doc["details"]["warnings"]
    assert run.model_requests == 0, "no model call on an unreadable final message"


def test_a_valid_trajectory_whose_agent_said_nothing_is_still_nothing_delivered(judge_run, tmp_path):
    steps = [{"source": "system", "message": "You are a helpful assistant."},
             {"source": "user", "message": "Why is the sky blue?"},
             {"source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c1", "function_name": "bash",
                                                                "arguments": {"command": "ls"}}],
              "observation": {"results": [{"source_call_id": "c1", "content": "notes.md"}]}}]
    run = judge_run(_tests(tmp_path), setup=_trajectory(steps))
    doc = run.doc
    assert (doc["status"], doc["exit_code"], doc["extra_fields"]["delivery_missing"], doc["reward"]) == ("success", None, True, 0.0)
    assert doc["details"]["delivery"]["final_message_source"] is None
    assert not [w for w in doc["details"]["warnings"] if "trajectory.json" in w], doc["details"]["warnings"]


def test_steps_that_do_not_hide_the_final_answer_leave_it_read(judge_run, tmp_path):
    """A bad step BEFORE the final agent message, or a tool-call step after it carrying a producer's own
    fields (``observations``), hides nothing: the answer is read and judged."""
    steps = [{"source": "user", "message": "Why is the sky blue?"},
             {"source": "assistant", "message": "a draft, in a step ATIF does not allow"},
             {"source": "agent", "message": ANSWER},
             {"source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c1", "function_name": "bash",
                                                                "arguments": {"command": "true"}}],
              "observations": [{"content": "done"}]}]
    run = judge_run(_tests(tmp_path), setup=_trajectory(steps))
    doc = run.doc
    assert (doc["status"], doc["exit_code"], doc["extra_fields"]["delivery_missing"]) == ("success", None, False), doc["exit_reason"]
    assert doc["details"]["delivery"]["final_message_source"] == "trajectory"
    assert {r["id"]: r["hit"] for r in doc["results"]}["C-WORD"] is True
