"""Trial 24 P-2 (the real CLI in a child process): ``gen-ppt-rubrics`` given the rubric file, or a mistyped
folder, said only "… is not a folder". It now says what the path is and, where sure, "did you mean" the folder
(as lint-rubric, init and try do); a missing folder is never created (the help says it must exist) and nothing
is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUBRIC = '{"rubrics": []}\n'


def _task(root: Path) -> Path:
    task = root / "deck"
    (task / "tests").mkdir(parents=True)
    (task / "task.toml").write_text('version = "1.0"\n')
    (task / "tests" / "rubric.json").write_text(RUBRIC)
    return task


def _gen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", *args, "--no-checklist"],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_the_rubric_file_is_named_with_its_folder(tmp_path):
    task = _task(tmp_path)
    before = _tree(tmp_path)
    proc = _gen("deck/tests/rubric.json", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "deck/tests/rubric.json is the rubric file, not a folder: did you mean its folder deck/tests?" in proc.stderr
    assert "nothing written" in proc.stderr and "Traceback" not in proc.stderr
    assert _tree(tmp_path) == before and (task / "tests" / "rubric.json").read_text() == RUBRIC


def test_a_mistyped_folder_is_not_created_and_the_near_one_is_named(tmp_path):
    _task(tmp_path)
    before = _tree(tmp_path)
    proc = _gen("deck/test", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "deck/test does not exist: did you mean deck/tests? (nothing written)" in proc.stderr
    assert _tree(tmp_path) == before


def test_a_missing_folder_with_no_near_name_gets_no_guess(tmp_path):
    _task(tmp_path)
    proc = _gen("elsewhere/tests", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "elsewhere/tests does not exist (nothing written)" in proc.stderr
    assert "did you mean" not in proc.stderr and not (tmp_path / "elsewhere").exists()


def test_the_help_says_the_folder_must_exist():
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", "--help"],
                          capture_output=True, text=True, timeout=120)
    text = " ".join(proc.stdout.split())
    assert "tests/ folder, which must exist (rubric.json in it is created if absent)" in text
