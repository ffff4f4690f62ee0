"""Trial 7 F4: a deliverable rewritten in place with the same size is judged again on resume.

The instance fingerprint listed the deliverables by name and size only, so ``answer.txt``
rewritten from ``17`` to ``42`` kept its stale reward 0.0 ("1 kept"); it now carries each
file's modification time too (rsync's quick check). The real ``batch`` CLI, a code-only
rubric (no model call).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit import clean_env

RUBRIC = {"rubrics": [{"id": "C-ANSWER", "description": "answer.txt gives the answer 42.", "weight": 1, "judge_method": "code",
                       "code_method_name": "text_contains", "code_method_params": {"text": "42", "glob": "answer.txt"}}]}


def _instance(tmp_path: Path) -> tuple[Path, Path]:
    """The instances folder ``fp/`` with one instance ``q1`` whose ``answer.txt`` says 17
    (reward 0.0); returns the folder and the answer file."""
    instances = tmp_path / "fp"
    (instances / "q1" / "tests").mkdir(parents=True)
    (instances / "q1" / "tests" / "rubric.json").write_text(json.dumps(RUBRIC))
    answer = instances / "q1" / "rollout" / "app" / "output" / "answer.txt"
    answer.parent.mkdir(parents=True)
    answer.write_text("17\n")
    return instances, answer


def _rewrite_same_size(answer: Path) -> None:
    """Rewrite the answer in place as 42 (same size), one second later whatever the clock's grain."""
    before = answer.stat()
    answer.write_text("42\n")
    os.utime(answer, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))


def _batch(instances: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=clean_env(), check=False)


def test_a_deliverable_rewritten_in_place_with_the_same_size_is_judged_again(tmp_path: Path):
    instances, answer = _instance(tmp_path)
    out = tmp_path / "out"
    first = _batch(instances, out)
    assert first.returncode == 0, first.stderr
    reward = out / "q1" / "logs" / "verifier" / "reward.txt"
    assert reward.read_text().strip() == "0.0"
    again = _batch(instances, out)  # nothing changed: kept
    assert again.returncode == 0 and "1 kept" in again.stderr, again.stderr
    _rewrite_same_size(answer)
    rerun = _batch(instances, out)
    assert rerun.returncode == 0, rerun.stderr
    assert "1 of 1 instance(s) to judge (1 instance changed), 0 kept" in rerun.stderr, rerun.stderr
    assert reward.read_text().strip() == "1.0"


def test_files_beside_an_earlier_result_are_set_aside_not_deleted_when_it_is_judged_again(tmp_path: Path):
    """Trial 7 F6: a re-judged instance's ``logs/`` was removed whole, with the ``rescore`` and
    ``report`` outputs the docs put beside its result. What the judge does not write is moved to
    ``<name>/set-aside/`` first, and the batch says so."""
    instances, answer = _instance(tmp_path)
    out = tmp_path / "out"
    assert _batch(instances, out).returncode == 0
    verifier = out / "q1" / "logs" / "verifier"
    rescore = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(verifier / "result.json"), "--mode", "binary",
                              "--threshold", "0.5"], capture_output=True, text=True, timeout=120, env=clean_env(), check=False)
    assert rescore.returncode == 0, rescore.stderr
    rescored = Path(rescore.stdout.strip())
    assert rescored.parent == verifier
    (verifier / "notes.txt").write_text("precious\n")
    _rewrite_same_size(answer)
    rerun = _batch(instances, out)
    assert rerun.returncode == 0, rerun.stderr
    aside = out / "q1" / "set-aside"
    assert (aside / "notes.txt").read_text() == "precious\n" and (aside / rescored.name).is_file()
    assert f"moved notes.txt, {rescored.name}" in rerun.stderr or f"moved {rescored.name}, notes.txt" in rerun.stderr, rerun.stderr
    assert (verifier / "reward.txt").read_text().strip() == "1.0" and not (verifier / "notes.txt").exists()
    again = _batch(instances, out)  # kept: nothing moved, nothing said
    assert "moved" not in again.stderr and "1 kept" in again.stderr, again.stderr


def test_a_file_where_the_set_aside_folder_belongs_refuses_and_deletes_nothing(tmp_path: Path):
    instances, answer = _instance(tmp_path)
    out = tmp_path / "out"
    assert _batch(instances, out).returncode == 0
    verifier = out / "q1" / "logs" / "verifier"
    (verifier / "notes.txt").write_text("precious\n")
    (out / "q1" / "set-aside").write_text("a file\n")
    _rewrite_same_size(answer)
    rerun = _batch(instances, out)
    assert rerun.returncode == 2 and "set-aside exists and is not a folder" in rerun.stderr, rerun.stderr
    assert "Traceback" not in rerun.stderr and (verifier / "notes.txt").read_text() == "precious\n"
    assert (verifier / "reward.txt").read_text().strip() == "0.0"  # the earlier result stands, nothing half-done
