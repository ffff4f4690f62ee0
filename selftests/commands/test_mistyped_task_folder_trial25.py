"""Trial 25 P-1 (the real CLIs in a child process): a mistyped task folder got three wordings from four commands,
and only ``gen-ppt-rubrics`` said "did you mean"; ``lint-rubric`` counted the missing path as "1 instance". All four
now name the folder beside it spelled alike, in one wording (`cowork_judge._util.given_paths.not_a_folder`), create
nothing, and lint's summary counts the path as not linted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HINT = "photo-dek does not exist: did you mean photo-deck?"

CASES = [
    (["init", "photo-dek"], 2, f"cowork-judge init: error: {HINT}"),
    (["try", "photo-dek", "--rollout", "rollout"], 2, f"cowork-judge try: error: {HINT}"),
    (["gen-ppt-rubrics", "photo-dek", "--no-checklist"], 2, f"cowork-judge gen-ppt-rubrics: {HINT} (nothing written)"),
    (["lint", "photo-dek"], 1, "photo-dek: ERROR P001: not found: did you mean photo-deck?"),
]


def _workspace(root: Path) -> Path:
    task = root / "photo-deck"
    (task / "tests").mkdir(parents=True)
    (task / "task.toml").write_text('version = "1.0"\n')
    (task / "tests" / "rubric.json").write_text('{"rubrics": []}\n')
    (root / "rollout").mkdir()
    (root / "rollout" / "deck.pptx").write_bytes(b"PK\x03\x04")
    return root


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


@pytest.mark.parametrize(("args", "status", "said"), CASES, ids=[c[0][0] for c in CASES])
def test_every_command_names_the_folder_spelled_alike(tmp_path, args, status, said):
    root = _workspace(tmp_path)
    before = _tree(root)
    proc = _cli(args, root)
    both = proc.stdout + proc.stderr
    assert proc.returncode == status, both
    assert said in both and "Traceback" not in both
    assert _tree(root) == before  # nothing created, not even the mistyped folder


@pytest.mark.parametrize(("args", "status", "said"), CASES, ids=[c[0][0] for c in CASES])
def test_no_guess_without_a_folder_spelled_alike(tmp_path, args, status, said):
    root = _workspace(tmp_path)
    proc = _cli([a.replace("photo-dek", "elsewhere") for a in args], root)
    both = proc.stdout + proc.stderr
    assert proc.returncode == status, both
    assert "did you mean" not in both and "elsewhere" in both and "Traceback" not in both


def test_lint_counts_a_missing_path_as_no_instance(tmp_path):
    root = _workspace(tmp_path)
    alone = _cli(["lint", "photo-dek"], root)
    assert alone.returncode == 1 and alone.stdout.endswith("1 path not linted (P001): 1 error, 0 warnings\n"), alone.stdout
    with_task = _cli(["lint", "photo-dek", "photo-deck"], root)
    assert "\n1 instance, 1 path not linted (P001): " in with_task.stdout, with_task.stdout
    assert with_task.returncode == 1
