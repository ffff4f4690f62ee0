"""Trial 19, a new task author's path. Real CLI (`cowork_judge lint`, `cowork_judge run` with the simulator).

- P-5: R020/R021 (a hurdle worded as a requirement, or with no violation wording) read a row as a model reads it; a
  code method never reads the description, so a code hurdle ("The answer contains the phrase 'As an AI'.", the docs'
  "The agent called web_search.") is not checked. A judge hurdle with the same wording still is.
- P-1: a chat prompt that says "Do not create any files." named a deliverable (the cue "file"), silencing M006/A006;
  a deliverable cue inside a prohibition no longer counts ("no files other than report.md" still does).
- P-6: A004 (no task_prompt.md) names the ``cp`` from the task's instruction.md; the run's warning names the fix.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.code_methods import task_kind

CHAT = "In your final message, explain why the sky is blue. Use at most 150 words.\n"
BLUE = {"id": "A-BLUE", "description": "The answer explains that air scatters blue light more than red.", "weight": 1}
RAYLEIGH = {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1,
            "judge_method": "code", "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh"}}
AS_AN_AI = "The answer contains the phrase 'As an AI'."
PRINTS = '#!/bin/bash\necho "Air scatters blue light more than red: Rayleigh scattering."\n'


def _task(root: Path, rows: list[dict], prompt: str = CHAT, *, copy: bool = True) -> Path:
    task = root / "chat"
    (task / "tests").mkdir(parents=True)
    (task / "solution").mkdir()
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}, indent=1))
    if copy:
        (task / "tests" / "task_prompt.md").write_text(prompt)
    (task / "tests" / "judge_instruction.md").write_text("You judge a short chat answer.\n")
    (task / "instruction.md").write_text(prompt)
    (task / "solution" / "solve.sh").write_text(PRINTS)
    return task


def _lint(target: Path, cwd: Path | None = None) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(target)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, proc.stdout


def _hurdle(description: str, method: str | None, name: str = "text_contains", params: dict | None = None) -> dict:
    row = {"id": "H-X", "description": description, "weight": 0, "hurdle": True}
    if method == "code":
        row |= {"judge_method": "code", "code_method_name": name,
                "code_method_params": params or {"text": "As an AI", "source": "response"}}
    return row


@pytest.mark.parametrize("description, name, params", [
    (AS_AN_AI, "text_contains", None),
    ("The agent called web_search.", "tool_called", {"name": "web_search"}),
    ("The answer has a title.", "regex_match", {"pattern": "^#", "source": "response"}),
])
def test_a_code_hurdle_is_not_read_for_its_wording(tmp_path, description, name, params):
    code, out = _lint(_task(tmp_path, [BLUE, _hurdle(description, "code", name, params)]))
    assert "R020" not in out and "R021" not in out, out
    assert code == 0, out


def test_a_judge_hurdle_with_the_same_wording_is_still_checked(tmp_path):
    code, out = _lint(_task(tmp_path, [BLUE, _hurdle(AS_AN_AI, None)]))
    assert "ERROR R020" in out and "H-X" in out and code == 1, out
    _, out = _lint(_task(tmp_path / "b", [BLUE, _hurdle("The agent called web_search.", None)]))
    assert "WARN R021" in out, out


def test_a_chat_prompt_that_forbids_files_gets_m006_and_a006(tmp_path):
    _, out = _lint(_task(tmp_path, [RAYLEIGH, BLUE], CHAT.strip() + " Do not create any files.\n"))
    assert "M006" in out and "C-RAYLEIGH" in out, out
    assert "solution/solve.sh: WARN A006" in out, out


def test_a_prompt_that_forbids_other_files_stays_a_file_task(tmp_path):
    prompt = "Write a short report on the sky's colour. Do not create any files other than report.md.\n"
    _, out = _lint(_task(tmp_path, [RAYLEIGH, BLUE], prompt))
    assert "M006" not in out and "A006" not in out, out


@pytest.mark.parametrize("prompt, names", [
    ("Answer in your final message only; don't write a file.", False),
    ("Summarize Hamlet. No files, no code, just the answer.", False),
    ("Give me five names without creating files or folders.", False),
    ("用三句话解释光合作用。不要创建任何文件。", False),
    ("Do not create any files other than report.md.", True),
    ("Don't forget to save the summary as a file.", True),
    ("Do not use the internet. Save your answer to output/answer.md.", True),
    ("Do not modify the input files; write your analysis to output/analysis.md.", True),
    ("Write no more than 200 words in report.md.", True),
    ("Never use more than 3 bullet points per slide of deck.pptx.", True),
    ("Do not write to /app/; answer in your final message.", True),
    ("Answer in at most 100 words; no more than one file.", True),
])
def test_a_cue_inside_a_prohibition_does_not_count(prompt, names):
    assert task_kind.names_deliverable(prompt) is names


def test_a004_names_the_cp_from_instruction_md(tmp_path):
    task = _task(tmp_path, [BLUE], copy=False)
    _, out = _lint(Path("chat"), cwd=tmp_path)
    a004 = next((x for x in out.splitlines() if "A004" in x), "")
    assert "`cp chat/instruction.md chat/tests/task_prompt.md`" in a004, out
    _, out = _lint(Path("."), cwd=task / "tests")
    assert "`cp ../instruction.md ./task_prompt.md`" in out, out


def test_a004_without_an_instruction_md_names_the_general_fix(tmp_path):
    task = _task(tmp_path, [BLUE], copy=False)
    (task / "instruction.md").unlink()
    _, out = _lint(Path("chat"), cwd=tmp_path)
    a004 = next((x for x in out.splitlines() if "A004" in x), "")
    assert "copy the task's instruction.md" in a004 and "`cp" not in a004, out


def test_the_run_warning_names_the_fix(tmp_path, judge_run):
    task = _task(tmp_path, [BLUE], copy=False)
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Air scatters blue light more than red.\n")
    run = judge_run(task / "tests", rollout)
    warnings = json.loads((run.verifier / "result.json").read_text())["details"]["warnings"]
    said = [w for w in warnings if "task_prompt.md" in w]
    assert said and "copy the task's instruction.md (the agent's text) to tests/task_prompt.md" in said[0], warnings
