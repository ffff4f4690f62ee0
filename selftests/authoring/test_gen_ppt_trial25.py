"""Trial 25 P-4 (the real CLIs in a child process): a deck with coverage (type1) checks only and no ``type2.json``
was refused "type2.json: missing" without saying what to write, after a first line saying it was "writing" the
rubric. A manifest that says ``"type2": 0`` (no pairs) now stands for the empty type2 list (gen writes, lint
accepts); without it the refusal names the empty document; the first line no longer says "writing"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TYPE1 = {"schema": "cowork-judge/ppt-type1-checks@1", "checks": [
    {"id": "T1-CALVIN", "question": "The deck presents the Calvin cycle.", "mandatory": True,
     "search_hints": ["Calvin"], "section": "stages", "kind": "process"}]}
EMPTY_TYPE2 = '{"schema": "cowork-judge/ppt-type2-checks@1", "checks": []}'


def _task(root: Path, type2_count: int) -> Path:
    task = root / "photo-checks"
    checks = task / "tests" / "workflow_assets" / "ppt_judge" / "task_check_dir"
    checks.mkdir(parents=True)
    (task / "task.toml").write_text('version = "1.0"\n')
    (checks / "type1.json").write_text(json.dumps(TYPE1))
    manifest = {"schema": "cowork-judge/ppt-task-check-manifest@1", "subject": "Photosynthesis",
                "counts": {"type1": 1, "type2": type2_count, "mandatory": 1, "anchors": 0}, "pairs": {},
                "type1_only": ["T1-CALVIN"], "anchor_index": {}}
    (checks / "manifest.json").write_text(json.dumps(manifest))
    return task


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_coverage_checks_only_need_no_type2_file(tmp_path):
    task = _task(tmp_path, type2_count=0)
    proc = _cli("gen-ppt-rubrics", "photo-checks", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "wrote 1 type1 + 0 type2 content row(s)" in proc.stdout
    rows = json.loads((task / "tests" / "rubric.json").read_text())["rubrics"]
    assert [r["id"] for r in rows if r.get("workflow_group") == "type1"] == ["T1-CALVIN"]
    assert not (task / "tests" / "workflow_assets" / "ppt_judge" / "task_check_dir" / "type2.json").exists()
    lint = _cli("lint", "photo-checks", cwd=tmp_path)
    assert "A010" not in lint.stdout and "type2.json" not in lint.stdout, lint.stdout


def test_a_missing_type2_file_the_manifest_counts_says_what_to_write(tmp_path):
    task = _task(tmp_path, type2_count=1)
    proc = _cli("gen-ppt-rubrics", "photo-checks", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "nothing generated: type2.json: missing" in proc.stderr
    assert f"writes {EMPTY_TYPE2}" in proc.stderr and '"type2": 0' in proc.stderr
    assert not (task / "tests" / "rubric.json").exists()
    assert "writing" not in proc.stderr  # the first line said "writing …/rubric.json" and nothing was written
    assert "photo-checks is a task folder: generating for photo-checks/tests/rubric.json" in proc.stderr
