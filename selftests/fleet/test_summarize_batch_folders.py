"""Trial 12 F2: ``summarize A B`` of two batch folders whose instances share names merged their
``instance_tags.json`` by name, the later folder's tags replacing the earlier's, so documents of
one task joined another task's bootstrap cluster. Each batch folder's tags now belong to that
folder's documents. The real ``batch`` and ``summarize`` CLIs on code-only rubrics (no model call).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from testkit import clean_env


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=300,
                          env=clean_env(), check=False)


def _batch(root: Path, text: str, level: str) -> Path:
    """A batch of three rollouts r0..r2 of one task (answer `text`), each tagged ``level``."""
    tests = root / "task" / "tests"
    tests.mkdir(parents=True)
    tests.joinpath("rubric.json").write_text(json.dumps({"rubrics": [{
        "id": "C-ANSWER", "description": f"answer.txt gives {text}.", "weight": 1, "judge_method": "code",
        "code_method_name": "text_contains", "code_method_params": {"text": text, "glob": "answer.txt"}}]}))
    lines = []
    for i in range(3):
        (root / f"r{i}" / "app" / "output").mkdir(parents=True)
        (root / f"r{i}" / "app" / "output" / "answer.txt").write_text(text + "\n")
        lines.append(json.dumps({"tests": "task/tests", "rollout": f"r{i}", "name": f"r{i}", "tags": {"level": level}}))
    (root / "list.jsonl").write_text("\n".join(lines) + "\n")
    done = _cli("batch", str(root / "list.jsonl"), "--out", str(root / "out"))
    assert done.returncode == 0, done.stderr
    return root / "out"


def test_two_batch_folders_sharing_instance_names_keep_their_own_tags(tmp_path: Path):
    first, second = _batch(tmp_path / "a", "42", "easy"), _batch(tmp_path / "b", "km", "hard")
    tasks = {json.loads((out / "instance_tags.json").read_text())["r0"]["task"] for out in (first, second)}
    assert len(tasks) == 2
    done = _cli("summarize", str(first), str(second), "--out", str(tmp_path / "s.json"), "--group-by", "task,level")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["clusters"] == {"key": "auto", "clusters": 2, "by_source": {"tag": 6}}
    assert {k: v["documents"] for k, v in summary["groups"]["task"]["documents"].items()} == dict.fromkeys(tasks, 3)
    assert {k: v["documents"] for k, v in summary["groups"]["level"]["documents"].items()} == {"easy": 3, "hard": 3}
    assert f"instance tags read from {first / 'instance_tags.json'}" in done.stderr


def test_an_instance_tags_file_still_names_instances_in_every_folder(tmp_path: Path):
    """``--instance-tags FILE`` keeps its meaning: name → tags for the documents of every input."""
    first, second = _batch(tmp_path / "a", "42", "easy"), _batch(tmp_path / "b", "km", "hard")
    (tmp_path / "tags.json").write_text(json.dumps({f"r{i}": {"level": "given"} for i in range(3)}))
    done = _cli("summarize", str(first), str(second), "--out", str(tmp_path / "s.json"), "--group-by", "level",
                "--instance-tags", str(tmp_path / "tags.json"))
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert {k: v["documents"] for k, v in summary["groups"]["level"]["documents"].items()} == {"given": 6}
