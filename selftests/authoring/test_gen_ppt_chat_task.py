"""``cowork-judge gen-ppt-rubrics`` on a chat task (issue 39 item 16): nothing says the task delivers a deck, so
the 14 visual rows (which a rollout without a deck loses whole) are not appended without ``--force``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.commands import main

CHAT_ROWS = {"rubrics": [
    {"id": "A-DOSE", "description": "The answer gives the adult paracetamol dose (500 mg to 1 g every 4-6 hours).",
     "weight": 2},
    {"id": "A-WARN", "description": "The answer names the daily maximum of 4 g.", "weight": 1},
]}


def chat_task(tmp_path: Path, prompt: str | None = "A patient asks which fever medicine to take. Answer in chat.") -> Path:
    tests = tmp_path / "chat" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(CHAT_ROWS, indent=2))
    if prompt is not None:
        (tests / "task_prompt.md").write_text(prompt)
    return tests


def test_a_chat_task_is_refused_and_the_rubric_left_alone(tmp_path):
    tests = chat_task(tmp_path)
    before = (tests / "rubric.json").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(tests)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "looks like a chat task" in proc.stderr and "none of the 2 row(s)" in proc.stderr and "--force" in proc.stderr
    assert "task_prompt.md asks for no slides" in proc.stderr and "Traceback" not in proc.stderr
    assert (tests / "rubric.json").read_bytes() == before


def test_force_writes_the_rows_anyway(tmp_path, capsys):
    tests = chat_task(tmp_path)
    assert main(["gen-ppt-rubrics", str(tests), "--force"]) == 0
    rows = json.loads((tests / "rubric.json").read_text())["rubrics"]
    assert len([r for r in rows if r["id"].startswith("V-")]) == 14 and rows[:2] == CHAT_ROWS["rubrics"]


@pytest.mark.parametrize("prompt, extra_row", [
    ("Make a slide deck of 8 slides about fever medicines; save it as a .pptx file.", None),  # the prompt asks for one
    ("做一个关于退烧药的幻灯片。", None),
    (None, {"id": "C-LOCATE-DECK", "description": "One deck is delivered.", "weight": 1, "judge_method": "code",
            "code_method_name": "locate_deck"}),  # a deck gate
])
def test_a_deck_task_is_not_refused(tmp_path, prompt, extra_row):
    tests = chat_task(tmp_path, prompt)
    if extra_row is not None:
        doc = json.loads((tests / "rubric.json").read_text())
        doc["rubrics"].append(extra_row)
        (tests / "rubric.json").write_text(json.dumps(doc))
    assert main(["gen-ppt-rubrics", str(tests)]) == 0


def test_a_rubric_being_started_is_not_refused(tmp_path):
    fresh = tmp_path / "fresh" / "tests"
    fresh.mkdir(parents=True)  # no rubric, no prompt: nothing says it is not a deck task
    assert main(["gen-ppt-rubrics", str(fresh)]) == 0


def test_deck_evidence_names_what_it_found():
    from cowork_judge.authoring.gen_ppt_rubrics import deck_evidence

    doc = {"rubrics": [{"id": "V-X", "workflow_name": "ppt_judge"},
                       {"id": "C", "judge_method": "code", "code_method_name": "page_count_between"}]}
    assert deck_evidence(doc, checks_present=True, task_prompt="Build a PowerPoint") == [
        "row 'V-X' (ppt_judge)", "row 'C' (page_count_between)", "workflow_assets/ppt_judge/task_check_dir",
        "task_prompt.md (powerpoint)"]
    assert deck_evidence(CHAT_ROWS, checks_present=False, task_prompt="apptitude test, in chat") == []


def test_the_task_folder_is_read_as_its_tests_folder(tmp_path):
    """trial #6: `gen-ppt-rubrics <task>` wrote a stray <task>/rubric.json; it takes the task folder as init and
    lint-rubric do, and writes <task>/tests/rubric.json."""
    tests = chat_task(tmp_path, "Make a slide deck of 8 slides about fever medicines; save it as a .pptx file.")
    task = tests.parent
    (task / "task.toml").write_text('version = "1.0"\n')
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(task)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (task / "rubric.json").exists()
    assert f"{task} is a task folder: generating for {tests / 'rubric.json'}" in proc.stderr
    assert f"{tests / 'rubric.json'}: wrote" in proc.stdout
    rows = json.loads((tests / "rubric.json").read_text())["rubrics"]
    assert len([r for r in rows if r["id"].startswith("V-")]) == 14


def test_no_task_check_dir_is_said_at_once_not_left_to_lint(tmp_path):
    """Trial 14 P1-3: with no ``task_check_dir`` the command wrote only the 14 visual rows, exit 0, and said
    nothing; lint then refused the package (A010). It now says so when it writes (still exit 0: the visual rows
    are right, the content rows come later with --content). Trial 18 P-1: lint warns (A014), it does not refuse,
    and --no-checklist is the way to say there are no content checks."""
    tests = chat_task(tmp_path, "Make a slide deck of 8 slides about fever medicines; save it as a .pptx file.")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(tests)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "task_check_dir does not exist: no content row was written" in proc.stderr
    assert "A014" in proc.stderr and "--content" in proc.stderr and "--no-checklist" in proc.stderr


def _gen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", *args], capture_output=True,
                          text=True, timeout=120)


def test_no_checklist_does_not_bypass_the_chat_task_refusal(tmp_path):
    """Trial 44 P-2: ``--no-checklist`` first wrote the empty task_check_dir, which then counted as deck evidence:
    the 14 visual rows went into a chat task (exit 0) while ``--dry-run --no-checklist`` refused. Both now refuse
    on the folder as it was (exit 2, nothing written, no workflow_assets left); ``--force`` still writes."""
    tests = chat_task(tmp_path)
    before = (tests / "rubric.json").read_bytes()
    for extra in ([], ["--dry-run"]):
        proc = _gen(str(tests), "--no-checklist", *extra)
        assert proc.returncode == 2, (extra, proc.stdout + proc.stderr)
        assert "looks like a chat task" in proc.stderr and "there is no workflow_assets/ppt_judge/task_check_dir" \
            in proc.stderr and "Traceback" not in proc.stderr
        assert (tests / "rubric.json").read_bytes() == before and not (tests / "workflow_assets").exists()
    proc = _gen(str(tests), "--no-checklist", "--force")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads((tests / "rubric.json").read_text())["rubrics"]
    assert len([r for r in rows if r["id"].startswith("V-")]) == 14
    assert (tests / "workflow_assets" / "ppt_judge" / "task_check_dir").is_dir()
