"""Trial 6 F8, the part h39t6c left: a symbolic link in a batch's instance folder whose target
does not exist (an instance folder moved or deleted after the folder of links was assembled)
was passed over without a word, so its instance was neither judged nor counted. The batch now
refuses before judging (exit 2), naming each such link and where it points. The real ``batch``
CLI, a code-only rubric (no model call)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit import clean_env

RUBRIC = {"rubrics": [{"id": "C-ANSWER", "description": "answer.txt gives the answer 42.", "weight": 1, "judge_method": "code",
                       "code_method_name": "text_contains", "code_method_params": {"text": "42", "glob": "answer.txt"}}]}


def _instance(folder: Path) -> Path:
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "rubric.json").write_text(json.dumps(RUBRIC))
    (folder / "rollout" / "app" / "output").mkdir(parents=True)
    (folder / "rollout" / "app" / "output" / "answer.txt").write_text("42\n")
    return folder


def _batch(instances: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=clean_env(), check=False)


def test_a_dangling_link_among_the_instances_is_refused_naming_it(tmp_path: Path):
    store = tmp_path / "store"
    _instance(store / "q1")
    linked = tmp_path / "linked"
    (linked / "group").mkdir(parents=True)
    (linked / "q1").symlink_to(store / "q1")
    (linked / "q2").symlink_to(store / "q2")  # q2 was never there (or was deleted)
    (linked / "group" / "q3").symlink_to("../../store/q3")
    out = tmp_path / "out"
    proc = _batch(linked, out)
    assert proc.returncode == 2, proc.stderr
    assert str(linked / "q2") in proc.stderr and str(store / "q2") in proc.stderr, proc.stderr
    assert str(linked / "group" / "q3") in proc.stderr, proc.stderr
    assert "does not exist" in proc.stderr, proc.stderr
    assert not (out / "q1").exists()  # nothing judged: the batch is refused whole, before it starts


def test_links_that_resolve_and_hidden_dangling_links_are_not_refused(tmp_path: Path):
    store = tmp_path / "store"
    _instance(store / "q1")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "q1").symlink_to(store / "q1")
    (tmp_path / "notes.txt").write_text("a file\n")
    (linked / "notes").symlink_to(tmp_path / "notes.txt")  # a link to a file: not an instance, as before
    (linked / ".previous").symlink_to(tmp_path / "gone")  # hidden names are never read
    proc = _batch(linked, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "1 of 1 instance(s) to judge" in proc.stderr, proc.stderr
