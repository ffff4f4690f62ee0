"""Trial 8 F5: lint reported only the first problem of a deck content check (a type2 check with a bad
``paired_type1_id`` AND a missing anchor named only the pairing; fix one, see the next) and called an anchor that a
broken check names unused (A001). Every problem of a check is now reported at once, and an anchor a broken check
names is not A001 (a real ``python -m cowork_judge lint`` child process on a copy of the example deck task)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TYPE2 = "tests/workflow_assets/ppt_judge/task_check_dir/type2.json"
REAL = "anchors/workflows-vs-agents.md"


def _lint(tmp_path: Path, **first_check) -> str:
    """Lint a copy of the example task whose first type2 check is updated with `first_check`; its output."""
    task = tmp_path / "task"
    shutil.copytree(REPO / "tests", task / "tests")
    shutil.copy2(REPO / "task.toml", task / "task.toml")
    doc = json.loads((task / TYPE2).read_text())
    assert doc["checks"][0]["anchor_refs"] == [REAL]
    doc["checks"][0].update(first_check)
    (task / TYPE2).write_text(json.dumps(doc, indent=1))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stdout


def test_a_bad_pairing_and_missing_anchors_are_all_named_at_once(tmp_path):
    out = _lint(tmp_path, paired_type1_id="T1-NOPE", anchor_refs=[REAL, "anchors/missing.md", "anchors/gone.md"])
    assert "check T2-WORKFLOWS-AGENTS: paired_type1_id 'T1-NOPE' is no type1 check" in out, out
    assert "anchor 'anchors/missing.md' of T2-WORKFLOWS-AGENTS: missing" in out, out
    assert "anchor 'anchors/gone.md' of T2-WORKFLOWS-AGENTS: missing" in out, out
    assert "workflows-vs-agents.md: WARN A001" not in out, out  # the broken check names it: not unused


def test_every_schema_error_of_a_check_is_named_and_its_anchor_is_not_unused(tmp_path):
    out = _lint(tmp_path, scope="everywhere", question="")
    line = next(x for x in out.splitlines() if "T2-WORKFLOWS-AGENTS" in x and "A010" in x)
    assert "scope" in line and "question" in line, out
    assert "workflows-vs-agents.md: WARN A001" not in out, out
