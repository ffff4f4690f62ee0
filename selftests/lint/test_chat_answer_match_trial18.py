"""Trial 18 P-2: a chat task with an ``answer_match`` row (the workflow that judges the final message) was taken
for a file task — every workflow row counted as "locates a file" — so lint's M006 and A006 stayed silent and the
run's delivery warning said "the task asks for files". Now ``answer_match`` and ``trajectory_judge`` rows locate no
file, an ``answer_match`` row is a chat-task signal, and a ``ppt_judge`` (or unknown) workflow row still makes a file
task. Real CLI (`cowork_judge lint`, `judge_run` with the simulator).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testkit import lint_stdout, write_task

from cowork_judge.code_methods import task_kind

PROMPT = ('How long does sunlight take to reach Earth? Explain briefly and end with "Answer: <minutes>". '
          "Answer in your final message.\n")
ANSWER = {"id": "ANSWER", "description": "The final answer agrees with the reference answer.", "weight": 3,
          "type": "gradient", "levels": {"0": "incorrect", "0.5": "partially correct", "1": "correct"},
          "judge_method": "workflow", "workflow_name": "answer_match", "answer_match": {"reference": ["8.3 min"]}}
SPEED = {"id": "C-SPEED", "description": "The answer mentions the speed of light.", "weight": 1,
         "judge_method": "code", "code_method_name": "text_contains", "code_method_params": {"text": "speed of light"}}
CALC = {"id": "A-CALC", "description": "The answer explains the calculation (distance / speed of light).", "weight": 2}
PRINTS = '#!/bin/bash\necho "Sunlight takes 8.3 minutes at the speed of light. Answer: 8.3 min"\n'


def _task(root: Path, rows: list[dict], prompt: str = PROMPT) -> Path:
    return write_task(root / "chat", rows, prompt, instruction=prompt, indent=1,
                      files={"tests/judge_instruction.md": "You judge a short chat answer.\n", "solution/solve.sh": PRINTS})


def _lint(task: Path) -> str:
    return lint_stdout(task)


def test_an_answer_match_chat_task_gets_m006_and_a006(tmp_path):
    out = _lint(_task(tmp_path, [ANSWER, SPEED, CALC]))
    m006 = next((x for x in out.splitlines() if "M006" in x), "")
    assert "C-SPEED" in m006 and '"source": "response"' in m006, out
    assert "ANSWER" not in m006.split("search the deliverable")[0], m006
    assert any("solution/solve.sh: WARN A006" in x for x in out.splitlines()), out


def test_an_answer_match_row_is_a_chat_signal_even_when_the_prompt_says_file(tmp_path):
    prompt = "Which file format does PowerPoint save by default, and how long does sunlight take to reach Earth?\n"
    out = _lint(_task(tmp_path, [ANSWER, SPEED], prompt))
    assert "M006" in out and "A006" in out, out


@pytest.mark.parametrize("workflow", ["ppt_judge", "my_plugin_workflow"])
def test_a_file_reading_workflow_row_keeps_a_file_task(tmp_path, workflow):
    row = {"id": "V-LOOK", "description": "The slides are tidy.", "weight": 1, "judge_method": "workflow",
           "workflow_name": workflow}
    out = _lint(_task(tmp_path, [row, SPEED], "Explain photosynthesis to a 12-year-old.\n"))
    assert "M006" not in out and "A006" not in out, out


def test_the_heuristic_per_workflow():
    speed = ("code", "text_contains", {"text": "x"})
    assert task_kind.looks_like_chat_task([("workflow", "answer_match", {}), speed], ["Save it as a .md file"])
    assert task_kind.looks_like_chat_task([("workflow", "trajectory_judge", {}), speed], ["Say hi."])
    assert not task_kind.looks_like_chat_task([("workflow", "trajectory_judge", {}), speed], ["Save it as report.md"])
    assert not task_kind.looks_like_chat_task([("workflow", "ppt_judge", {}), speed], ["Say hi."])
    assert not task_kind.looks_like_chat_task([("workflow", "answer_match", {}), ("code", "locate_deck", {})], [])


def test_the_run_warning_advises_source_response_in_an_answer_match_chat_task(tmp_path, judge_run):
    task = _task(tmp_path, [ANSWER, SPEED, CALC])
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text(
        "Light covers 150 million km at the speed of light (300,000 km/s): 500 s.\nAnswer: 8.3 min\n")
    run = judge_run(task / "tests", rollout)
    doc = json.loads((run.verifier / "result.json").read_text())
    said = [w for w in doc["details"]["warnings"] if "C-SPEED" in w]
    assert said and '"source": "response"' in said[0], doc["details"]["warnings"]
    assert not any("the task asks for files" in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]
