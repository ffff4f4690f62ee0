"""Trial 7 F3: ``JUDGE_VERDICT_CACHE`` naming a folder that cannot be created or written was a
silent no-op (an INFO line only). A fleet whose cache volume is mounted wrong re-asks every row
on each regrade: the run now says so in ``details.warnings`` and as a log WARNING, naming the
variable and the path. Real ``python -m cowork_judge run`` against the simulator."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

RUBRIC = {"rubrics": [{"id": "A-SKY", "description": "The answer explains why the sky is blue.", "weight": 1}]}


def _task(tmp_path: Path) -> tuple[Path, Path]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (tests / "task_prompt.md").write_text("Why is the sky blue?\n")
    rollout = tmp_path / "rollout"
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "logs" / "agent" / "final_answer.txt").write_text("Rayleigh scattering: the sky is blue.\n")
    return tests, rollout


@pytest.mark.parametrize("where", ["proc", "under-a-file"])
def test_a_cache_folder_that_cannot_be_created_is_a_named_warning(judge_run, tmp_path: Path, where: str):
    tests, rollout = _task(tmp_path)
    if where == "proc":
        cache = "/proc/h39t7c-no-cache"
    else:
        (tmp_path / "afile").write_text("not a folder\n")
        cache = str(tmp_path / "afile" / "cache")
    run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_VERDICT_CACHE": cache})
    assert run.returncode == 0, run.stderr
    assert run.reward == 1.0  # the score is the judge's, cache or not
    (warning,) = [w for w in run.doc["details"]["warnings"] if "JUDGE_VERDICT_CACHE" in w]
    assert cache in warning and "cannot be created" in warning and "every" in warning, warning
    assert any("WARNING" in line and "JUDGE_VERDICT_CACHE" in line for line in run.stderr.splitlines()), run.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only (mode 555) folder")
def test_a_cache_folder_that_cannot_be_written_is_a_named_warning(judge_run, tmp_path: Path):
    tests, rollout = _task(tmp_path)
    cache = tmp_path / "ro-cache"
    cache.mkdir()
    cache.chmod(0o555)
    try:
        run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_VERDICT_CACHE": str(cache)})
    finally:
        cache.chmod(0o755)
    (warning,) = [w for w in run.doc["details"]["warnings"] if "JUDGE_VERDICT_CACHE" in w]
    assert "cannot be written" in warning and "none is stored" in warning, warning


def test_a_writable_cache_folder_says_nothing(judge_run, tmp_path: Path):
    tests, rollout = _task(tmp_path)
    run = judge_run(tests, rollout, oracle={"A-SKY": {"hit": True}}, env={"JUDGE_VERDICT_CACHE": str(tmp_path / "new" / "cache")})
    assert not [w for w in run.doc["details"]["warnings"] if "JUDGE_VERDICT_CACHE" in w]
    assert list((tmp_path / "new" / "cache").rglob("*.json"))  # the verdict was stored
    assert not list((tmp_path / "new" / "cache").glob(".probe*"))  # the write check leaves nothing behind


def test_unusable_names_a_folder_that_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The read-only volume case where root could write anyway: the probe's write fails (EROFS)."""
    import errno

    from cowork_judge.run import verdict_cache as vc

    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(vc.tempfile, "mkstemp", read_only)
    said = vc.VerdictCache(tmp_path / "cache").unusable()
    assert said is not None and "cannot be written (Read-only file system)" in said and "none is stored" in said, said
    assert str(tmp_path / "cache") in said
