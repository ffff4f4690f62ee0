"""Trial 30 P-3: harbor-task.md step 9's re-balance (``gen-ppt-rubrics`` again after the author edits the weight of
their own rows) must not mistake the tool's own earlier balance for a hand edit. Critical visual rows at 1.0 and
normal ones at 0.5 (content weight 9) moved by ratios 1.125 and 1.126 after 9 → 8, which the old rule rounded
apart and refused (exit 2, nothing written). A real hand edit of a visual row is still refused."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.commands import main

GATES = ["--no-checklist", "--gate", "C-LOCATE-DECK", "C-DECK-OPENABLE"]
WEIGHTS = [0.5, 1, 1.5, 2, 2.5, 3, 4, 4.5, 5, 6, 7, 8, 8.5, 9, 10, 12, 16, 18, 24, 27]


def deck_task(root: Path, weight: float) -> Path:
    """The repro's deck task (two code gates and one own row of `weight`); returns the task folder."""
    (root / "tests").mkdir(parents=True)
    (root / "task.toml").write_text("[verifier]\ntimeout_sec = 2280.0\n")
    (root / "tests" / "task_prompt.md").write_text("Make a .pptx deck about the water cycle in /app/output/.\n")
    rows = [{"id": "C-LOCATE-DECK", "description": "One deck.", "weight": 1, "judge_method": "code",
             "code_method_name": "locate_deck"},
            {"id": "C-DECK-OPENABLE", "description": "Opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
             "judge_method": "code", "code_method_name": "check_deck_openable"},
            {"id": "A-STAGES", "description": "The deck explains the four stages of the water cycle.", "weight": weight,
             "depends_on": ["C-LOCATE-DECK", "C-DECK-OPENABLE"]}]
    (root / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}, indent=1))
    return root


def set_weight(task: Path, rid: str, weight: float) -> None:
    """The author's edit: row `rid` of tests/rubric.json gets `weight`."""
    path = task / "tests" / "rubric.json"
    doc = json.loads(path.read_text())
    next(r for r in doc["rubrics"] if r["id"] == rid)["weight"] = weight
    path.write_text(json.dumps(doc, indent=1))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("before,after", [(9, 8), (27, 24)])
def test_the_reported_pairs_rebalance_through_the_cli(tmp_path, before, after):
    task = deck_task(tmp_path / "t", before)
    assert cli("gen-ppt-rubrics", str(task), *GATES).returncode == 0
    set_weight(task, "A-STAGES", after)
    proc = cli("gen-ppt-rubrics", str(task), *GATES)
    assert proc.returncode == 0, proc.stderr
    assert "edited by hand" not in proc.stderr and "wrote" in proc.stdout, proc.stdout + proc.stderr
    lint = cli("lint", str(task))
    assert "1 instance:" in lint.stdout and "A013" not in lint.stdout + lint.stderr, lint.stdout + lint.stderr


def test_every_weight_edit_of_an_own_row_rebalances(tmp_path, capsys):
    refused = []
    for i, (before, after) in enumerate(itertools.permutations(WEIGHTS, 2)):
        task = deck_task(tmp_path / str(i), before)
        assert main(["gen-ppt-rubrics", str(task), *GATES]) == 0
        set_weight(task, "A-STAGES", after)
        status = main(["gen-ppt-rubrics", str(task), *GATES])
        capsys.readouterr()
        main(["lint", str(task)])
        out = capsys.readouterr()
        assert "1 instance:" in out.out, out.out + out.err
        if status != 0 or "A013" in out.out + out.err:
            refused.append((before, after, status))
    assert not refused, f"{len(refused)} re-balance(s) refused or left A013: {refused[:20]}"


def test_a_hand_edit_of_a_visual_row_is_still_refused(tmp_path):
    task = deck_task(tmp_path / "t", 9)
    assert cli("gen-ppt-rubrics", str(task), *GATES).returncode == 0
    set_weight(task, "A-STAGES", 8)
    set_weight(task, "V-LAYOUT-CLIPPED", 2)
    before = (task / "tests" / "rubric.json").read_bytes()
    proc = cli("gen-ppt-rubrics", str(task), *GATES)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "V-LAYOUT-CLIPPED: weight 2 →" in proc.stderr and "1 generated row(s)" in proc.stderr, proc.stderr
    assert (task / "tests" / "rubric.json").read_bytes() == before
