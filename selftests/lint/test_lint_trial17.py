"""Trial 17 P-3, P-9, P-11: three silent drifts of a task package that ``lint-rubric`` now reports (a real
``python -m cowork_judge lint`` over a real task folder, and ``gen-ppt-rubrics``'s main for the deck rows).

- P-9 (A005): ``tests/task_prompt.md``, the judge's copy of the task, differs from ``instruction.md``.
- P-3 (A013): a weight edit after ``gen-ppt-rubrics`` broke the visual : content balance it recorded.
- P-11 (A006): a chat task's ``solution/solve.sh`` only prints the answer (judged nothing delivered).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from testkit import lint_stdout, write_task

from cowork_judge.commands import main
from cowork_judge.lint.instance import lint_instance

CHAT_PROMPT = "Explain to a curious 12-year-old why the sky is blue, in 60 to 200 words. Answer in your final message.\n"
CHAT_ROWS = [
    {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh", "source": "response"}},
    {"id": "A-CORRECT", "description": "The answer explains that the air scatters blue light most.", "weight": 3},
]
DECK_PROMPT = "Make a slide deck (6-10 slides) that explains photosynthesis. Save it as a .pptx file in /app/output/.\n"
DECK_ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one .pptx deck is among the deliverables.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
    {"id": "C-DECK-OPENABLE", "description": "The located deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "check_deck_openable"},
    {"id": "A-CONTENT", "description": "The deck explains photosynthesis correctly for high-school students.", "weight": 4},
    {"id": "A-LOOK", "description": "The slides are readable and tidy.", "weight": 2},
]
TYPE1 = {"schema": "cowork-judge/ppt-type1-checks@1", "checks": [
    {"id": "T1-IO", "question": "The deck names the inputs and outputs of photosynthesis.", "mandatory": True,
     "search_hints": ["input", "output"], "section": "basics", "kind": "definition"},
    {"id": "T1-STAGES", "question": "The deck presents the light-dependent reactions and the Calvin cycle.",
     "search_hints": ["Calvin"], "section": "stages", "kind": "process"}]}
TYPE2 = {"schema": "cowork-judge/ppt-type2-checks@1", "checks": [
    {"id": "T2-IO", "question": "The deck states the inputs and outputs correctly.", "paired_type1_id": "T1-IO",
     "scope": "page", "anchor_refs": ["anchors/equation.md"]}]}
MANIFEST = {"schema": "cowork-judge/ppt-task-check-manifest@1", "subject": "Photosynthesis",
            "counts": {"type1": 2, "type2": 1, "mandatory": 1, "anchors": 1}, "pairs": {"T2-IO": "T1-IO"},
            "type1_only": ["T1-STAGES"], "anchor_index": {}}


def _task(root: Path, rows: list[dict], prompt: str, *, instruction: str | None = None, solve: str | None = None) -> Path:
    return write_task(root / "task", rows, prompt, instruction=prompt if instruction is None else instruction, indent=1,
                      files={} if solve is None else {"solution/solve.sh": solve})


def _lint(target: Path) -> str:
    return lint_stdout(target)


def _codes(task: Path) -> list[str]:
    return [f.code for f in lint_instance(task / "tests").findings]


# --- P-9: the judge's copy of the task drifts from instruction.md (A005) -------------------------------------

def test_p9_an_edited_instruction_md_is_a005_naming_the_copy(tmp_path):
    task = _task(tmp_path, DECK_ROWS, DECK_PROMPT,
                 instruction=DECK_PROMPT.replace("6-10 slides", "8-12 slides").replace("photosynthesis", "cellular respiration"))
    later = os.stat(task / "tests" / "task_prompt.md").st_mtime_ns + 10**9
    os.utime(task / "instruction.md", ns=(later, later))
    out = _lint(task)
    line = next((x for x in out.splitlines() if "A005" in x), "")
    assert f"{task}/tests/task_prompt.md: WARN A005" in line, out
    assert "instruction.md was changed last" in line and "8-12 slides" in line and "6-10 slides" in line, line
    assert f"`cp {task}/instruction.md {task}/tests/task_prompt.md`" in line, line
    assert "WARN A005" in _lint(task / "tests")  # the tests folder, whose parent holds instruction.md, too


@pytest.mark.parametrize("variant", ["same", "crlf-and-indent", "no-instruction", "no-task-prompt"])
def test_p9_no_a005_when_the_copies_agree_or_one_is_missing(tmp_path, variant):
    instruction = {"crlf-and-indent": "  " + DECK_PROMPT.replace(" ", "  ").replace("\n", "\r\n\r\n")}.get(variant)
    task = _task(tmp_path, DECK_ROWS, DECK_PROMPT, instruction=instruction)
    if variant == "no-instruction":
        (task / "instruction.md").unlink()
    if variant == "no-task-prompt":
        (task / "tests" / "task_prompt.md").unlink()
    assert "A005" not in _codes(task)


# --- P-3: the visual : content balance gen-ppt-rubrics recorded (A013) -----------------------------------------

def _deck_task(tmp_path: Path) -> Path:
    task = _task(tmp_path, DECK_ROWS, DECK_PROMPT)
    checks = task / "tests" / "workflow_assets" / "ppt_judge" / "task_check_dir"
    (checks / "anchors").mkdir(parents=True)
    (checks / "type1.json").write_text(json.dumps(TYPE1))
    (checks / "type2.json").write_text(json.dumps(TYPE2))
    (checks / "manifest.json").write_text(json.dumps(MANIFEST))
    (checks / "anchors" / "equation.md").write_text("6 CO2 + 6 H2O + light -> C6H12O6 + 6 O2\n")
    return task


def _rubric(task: Path) -> dict:
    return json.loads((task / "tests" / "rubric.json").read_text())


def _set_weight(task: Path, rid: str, weight: float) -> None:
    doc = _rubric(task)
    for row in doc["rubrics"]:
        if row["id"] == rid:
            row["weight"] = weight
    (task / "tests" / "rubric.json").write_text(json.dumps(doc, indent=1))


def test_p3_an_own_row_weight_edit_after_gen_ppt_rubrics_is_a013(tmp_path, capsys):
    task = _deck_task(tmp_path)
    assert main(["gen-ppt-rubrics", str(task), "--gate", "C-LOCATE-DECK", "C-DECK-OPENABLE"]) == 0
    assert _rubric(task)["metadata"] == {"gen_ppt_rubrics": {"balance": 1.0}}
    assert "A013" not in _codes(task)
    _set_weight(task, "A-CONTENT", 12)  # content 4+2+3+2+4 = 15 → 23; visual stays 15
    out = _lint(task)
    line = next((x for x in out.splitlines() if "A013" in x), "")
    assert f"{task}/tests/rubric.json: WARN A013 field metadata.gen_ppt_rubrics.balance" in line, out
    assert "visual : content weight is 0.652" in line and "balanced it to 1" in line, line
    assert "gen-ppt-rubrics" in line and "again" in line, line
    assert main(["gen-ppt-rubrics", str(task)]) == 0  # the documented fix re-balances: lint is quiet again
    assert "A013" not in _codes(task)


def test_p3_the_record_follows_the_balance_chosen_and_old_rubrics_are_not_checked(tmp_path, capsys):
    task = _deck_task(tmp_path)
    assert main(["gen-ppt-rubrics", str(task), "--gate", "C-LOCATE-DECK", "--balance", "2"]) == 0
    assert _rubric(task)["metadata"] == {"gen_ppt_rubrics": {"balance": 2.0}}
    assert "A013" not in _codes(task)
    _set_weight(task, "A-LOOK", 5)
    assert "A013" in _codes(task)
    assert main(["gen-ppt-rubrics", str(task), "--no-balance", "--force"]) == 0  # no promise, no record
    assert "metadata" not in _rubric(task) and "A013" not in _codes(task)
    doc = _rubric(task)  # a rubric from before the record (or hand-written) is never checked
    doc["metadata"] = {"owner": "team-a"}
    (task / "tests" / "rubric.json").write_text(json.dumps(doc))
    assert main(["gen-ppt-rubrics", str(task), "--force"]) == 0  # balances again: other metadata kept
    assert _rubric(task)["metadata"] == {"owner": "team-a", "gen_ppt_rubrics": {"balance": 1.0}}


# --- P-11: a chat task's solve.sh that only prints the answer (A006) ----------------------------------------

PRINTS = "#!/bin/bash\ncat /solution/answer.txt      # prints the answer\n"


def test_p11_a_chat_solve_sh_that_only_prints_is_a006(tmp_path):
    task = _task(tmp_path, CHAT_ROWS, CHAT_PROMPT, solve=PRINTS)
    out = _lint(task)
    line = next((x for x in out.splitlines() if "A006" in x), "")
    assert f"{task}/solution/solve.sh: WARN A006" in line, out
    assert "/logs/agent/final_answer.txt" in line and "nothing delivered" in line, line


@pytest.mark.parametrize("variant", ["writes-final-answer", "runs-a-script-that-writes", "response-file", "template",
                                     "deck-task", "no-solve-sh"])
def test_p11_no_a006_when_solve_sh_writes_a_final_message_or_is_no_chat_solution(tmp_path, variant):
    solve = {"writes-final-answer": "#!/bin/bash\nmkdir -p /logs/agent && cp /solution/answer.txt /logs/agent/final_answer.txt\n",
             "runs-a-script-that-writes": "#!/bin/bash\npython3 /solution/solve.py\n",
             "response-file": "#!/bin/bash\ncp /solution/answer.txt /app/reply.md\n",
             "template": "#!/bin/bash\n\n# Use this file to solve the task.\n",
             "no-solve-sh": None}.get(variant, PRINTS)
    rows, prompt = (DECK_ROWS, DECK_PROMPT) if variant == "deck-task" else (CHAT_ROWS, CHAT_PROMPT)
    task = _task(tmp_path, rows, prompt, solve=solve)
    if variant == "runs-a-script-that-writes":
        (task / "solution" / "solve.py").write_text("open('/logs/agent/response.txt', 'w').write(open('/solution/a').read())\n")
    if variant == "response-file":
        (task / "task.toml").write_text('version = "1.0"\n\n[verifier.env]\nJUDGE_RESPONSE_FILE = "/app/reply.md"\n')
    assert "A006" not in _codes(task)
