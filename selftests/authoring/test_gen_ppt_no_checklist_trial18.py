"""Trial 18 P-1: after ``gen-ppt-rubrics`` on a deck task with no content checks (no task_check_dir), lint said
ERROR A010 "its content rows are unjudged asset_broken" though the rubric had no content row and the run judged
every row. Now lint says what the run does: content rows with no task_check_dir are A010 (each is unjudged
``asset_broken``), visual rows alone are WARN A014 (they judge only the look), and ``gen-ppt-rubrics
--no-checklist`` writes the empty checklist that says "no content checks" on purpose. Real CLI in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit import write_task

TCD = Path("workflow_assets/ppt_judge/task_check_dir")
PROMPT = "Make a 5-10 slide deck introducing photosynthesis. Save it as a .pptx file in /app/output/.\n"
ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one .pptx deck is among the deliverables.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
    {"id": "C-DECK-OPENABLE", "description": "The located deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "check_deck_openable"},
    {"id": "A-CONTENT", "description": "The deck explains photosynthesis correctly for 8th-grade students.", "weight": 4},
    {"id": "A-LOOK", "description": "The slides are readable and tidy.", "weight": 3},
]
GATES = ["--gate", "C-LOCATE-DECK", "C-DECK-OPENABLE"]


def _deck_task(root: Path) -> Path:
    return write_task(root / "deck", ROWS, PROMPT, instruction=PROMPT, indent=1, files={
        "tests/judge_instruction.md": "You judge a slide deck about photosynthesis.\n",
        "tests/test.sh": "#!/bin/bash\npip install 'cowork-judge[pptx,workflow]'\n"})


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _lint_lines(task: Path, code: str) -> list[str]:
    return [x for x in _cli("lint", str(task / "tests")).stdout.splitlines() if f" {code}:" in x]


def test_visual_rows_without_a_checklist_are_a014_not_a010_and_gen_says_the_same(tmp_path):
    task = _deck_task(tmp_path)
    gen = _cli("gen-ppt-rubrics", str(task / "tests"), *GATES)
    assert gen.returncode == 0, gen.stderr
    assert "A014" in gen.stderr and "--no-checklist" in gen.stderr and "refuses" not in gen.stderr, gen.stderr
    lint = _cli("lint", str(task / "tests"))
    assert " A010:" not in lint.stdout and "asset_broken" not in lint.stdout, lint.stdout
    (a014,) = [x for x in lint.stdout.splitlines() if " A014:" in x]
    assert "WARN A014" in a014 and "14 ppt_judge row(s) are visual rows" in a014 and "--no-checklist" in a014


def test_content_rows_without_a_checklist_stay_a010_naming_them(tmp_path):
    task = _deck_task(tmp_path)
    row = {"id": "T1-IO", "description": "The deck names the inputs and outputs.", "weight": 3,
           "judge_method": "workflow", "workflow_name": "ppt_judge", "workflow_group": "type1",
           "depends_on": ["C-LOCATE-DECK", "C-DECK-OPENABLE"]}
    (task / "tests" / "rubric.json").write_text(json.dumps({"rubrics": [*ROWS, row]}))
    (a010,) = _lint_lines(task, "A010")
    assert "ERROR A010" in a010 and "T1-IO" in a010 and "unjudged asset_broken" in a010, a010
    assert _lint_lines(task, "A014") == []


def test_no_checklist_writes_an_empty_checklist_that_lint_accepts(tmp_path):
    task = _deck_task(tmp_path)
    gen = _cli("gen-ppt-rubrics", str(task / "tests"), "--no-checklist", *GATES)
    assert gen.returncode == 0, gen.stderr
    assert "wrote an empty checklist" in gen.stderr and "does not exist" not in gen.stderr, gen.stderr
    folder = task / "tests" / TCD
    assert json.loads((folder / "type1.json").read_text())["checks"] == []
    assert json.loads((folder / "manifest.json").read_text())["counts"] == {"type1": 0, "type2": 0, "mandatory": 0,
                                                                            "anchors": 0}
    rows = json.loads((task / "tests" / "rubric.json").read_text())["rubrics"]
    assert len([r for r in rows if r["id"].startswith("V-")]) == 14
    lint = _cli("lint", str(task / "tests"))
    assert " A010:" not in lint.stdout and " A014:" not in lint.stdout, lint.stdout
    again = _cli("gen-ppt-rubrics", str(task / "tests"), "--no-checklist")
    assert again.returncode == 0 and "already an empty checklist" in again.stderr, again.stderr


def test_no_checklist_never_overwrites_checks_and_excludes_content(tmp_path):
    task = _deck_task(tmp_path)
    folder = task / "tests" / TCD
    folder.mkdir(parents=True)
    (folder / "type1.json").write_text('{"schema": "cowork-judge/ppt-type1-checks@1", "checks": [{"id": "T1-X"}]}')
    before = (task / "tests" / "rubric.json").read_bytes()
    refused = _cli("gen-ppt-rubrics", str(task / "tests"), "--no-checklist")
    assert refused.returncode == 2 and "already holds type1.json" in refused.stderr, refused.stderr
    assert (folder / "type1.json").read_text().endswith('"T1-X"}]}') and not (folder / "manifest.json").exists()
    both = _cli("gen-ppt-rubrics", str(task / "tests"), "--no-checklist", "--content")
    assert both.returncode == 2 and "exclude each other" in both.stderr, both.stderr
    assert (task / "tests" / "rubric.json").read_bytes() == before
