"""Trial 18 P-3 (gen-ppt-rubrics part; the real CLI in a child process): a deck task whose rubric was saved one
folder too high (``<task>/rubric.json``, not ``<task>/tests/rubric.json``). gen-ppt-rubrics wrote the 14 visual rows
into the stray file; a folder with ``task.toml`` and ``tests/`` is now always a task folder: with only the stray
rubric it refuses (exit 2, nothing written) and says to move it, and with both it writes ``tests/rubric.json``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROWS = {"rubrics": [
    {"id": "C-LOCATE-DECK", "description": "Exactly one slide deck (.pptx) is among the deliverables.", "weight": 1,
     "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
]}


def _deck_task(root: Path) -> Path:
    task = root / "deck"
    (task / "tests").mkdir(parents=True)
    (task / "task.toml").write_text('version = "1.0"\n\n[verifier]\ntimeout_sec = 600.0\n')
    (task / "tests" / "task_prompt.md").write_text("Make a 5-slide deck (.pptx) about photosynthesis.\n")
    (task / "rubric.json").write_text(json.dumps(ROWS, indent=1))  # the mistake: not tests/rubric.json
    return task


def _gen(task: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(task), "--gate", "C-LOCATE-DECK"],
                          capture_output=True, text=True, timeout=120)


def test_a_rubric_beside_task_toml_is_refused_with_where_to_move_it(tmp_path):
    task = _deck_task(tmp_path)
    before = (task / "rubric.json").read_bytes()
    proc = _gen(task)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"a rubric.json sits one folder too high: move it (`mv {task}/rubric.json {task}/tests/`" in proc.stderr
    assert "nothing written" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (task / "rubric.json").read_bytes() == before
    assert sorted(p.name for p in (task / "tests").iterdir()) == ["task_prompt.md"]


def test_with_both_rubrics_the_tests_one_is_written_and_the_stray_one_left_alone(tmp_path):
    task = _deck_task(tmp_path)
    (task / "tests" / "rubric.json").write_text(json.dumps(ROWS, indent=1))
    before = (task / "rubric.json").read_bytes()
    proc = _gen(task)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"generating for {task / 'tests' / 'rubric.json'}" in proc.stderr and "left alone" in proc.stderr
    rows = json.loads((task / "tests" / "rubric.json").read_text())["rubrics"]
    assert len([r for r in rows if r["id"].startswith("V-")]) == 14
    assert (task / "rubric.json").read_bytes() == before
