"""Trial 10 F7: ``summarize`` (and a batch's own ``summary.json``) made every batch instance its own
bootstrap cluster, so k rollouts of one task got intervals as if they were k tasks, and one task
judged 8 times passed the 5-cluster bar. A batch now tags every instance with its task (its JSONL
``tags.task``, else ``tests-<digest of its tests/>``) in ``instance_tags.json``, and ``--task-key
auto`` clusters an instance by that tag. The real ``batch`` and ``summarize`` CLIs on code-only
rubrics (no model call).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import clean_env

from cowork_judge.batch.instances import BatchInstance, instance_tag_map


def _rubric(text: str) -> dict:
    return {"rubrics": [{"id": "C-ANSWER", "description": f"answer.txt gives {text}.", "weight": 1, "judge_method": "code",
                         "code_method_name": "text_contains", "code_method_params": {"text": text, "glob": "answer.txt"}}]}


def _rollout(folder: Path, answer: str) -> Path:
    (folder / "app" / "output").mkdir(parents=True)
    (folder / "app" / "output" / "answer.txt").write_text(answer + "\n")
    return folder


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=300,
                          env=clean_env(), check=False)


def _summary(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture
def one_task(tmp_path: Path) -> Path:
    """A JSONL list of 8 rollouts of one task (one tests/ folder), rewards 1, 0, 1, 0 …"""
    tests = tmp_path / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(_rubric("42")))
    lines = []
    for i in range(8):
        _rollout(tmp_path / f"r{i}", "42" if i % 2 == 0 else "17")
        lines.append(json.dumps({"tests": "task/tests", "rollout": f"r{i}", "name": f"r{i}"}))
    (tmp_path / "list.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path / "list.jsonl"


def test_rollouts_of_one_task_are_one_cluster(one_task: Path, tmp_path: Path):
    out = tmp_path / "out"
    done = _cli("batch", str(one_task), "--out", str(out))
    assert done.returncode == 0, done.stderr
    tags = json.loads((out / "instance_tags.json").read_text())
    assert len({t["task"] for t in tags.values()}) == 1 and next(iter(tags.values()))["task"].startswith("tests-")
    own = _summary(out / "summary.json")
    assert own["clusters"] == {"key": "auto", "clusters": 1, "by_source": {"tag": 8}}
    assert own["reward"]["mean_ci"] is None and "1 task(s)" in own["reward"]["ci_note"]  # was [0.5, 0.5]-like, from 8 "tasks"

    again = _cli("summarize", str(out), "--out", str(tmp_path / "s.json"))
    assert again.returncode == 0, again.stderr
    summary = _summary(tmp_path / "s.json")
    assert summary["clusters"] == own["clusters"] and summary["reward"]["mean_ci"] is None
    assert "1 task(s)" in again.stderr

    per_rollout = _cli("summarize", str(out), "--out", str(tmp_path / "p.json"), "--task-key", "path")
    assert per_rollout.returncode == 0, per_rollout.stderr
    assert _summary(tmp_path / "p.json")["clusters"] == {"key": "path", "clusters": 8, "by_source": {"path": 8}}


def test_instance_folders_holding_copies_of_one_tests_share_a_task(tmp_path: Path):
    """Folder input (as `import` writes it): three copies of task A's tests/, three of task B's
    (another rubric): two clusters, and ``--group-by task`` shows each task's three rollouts."""
    root = tmp_path / "instances"
    for task, text in (("a", "42"), ("b", "km")):
        for i in range(3):
            inst = root / f"{task}{i}"
            (inst / "tests").mkdir(parents=True)
            (inst / "tests" / "rubric.json").write_text(json.dumps(_rubric(text)))
            _rollout(inst / "rollout", text if i else "nothing")
    out = tmp_path / "out"
    done = _cli("batch", str(root), "--out", str(out), "--group-by", "task")
    assert done.returncode == 0, done.stderr
    summary = _summary(out / "summary.json")
    assert summary["clusters"]["clusters"] == 2 and summary["clusters"]["by_source"] == {"tag": 6}
    groups = summary["groups"]["task"]["documents"]
    assert sorted(g["documents"] for g in groups.values()) == [3, 3]
    assert all(g["reward_mean"] == pytest.approx(2 / 3) for g in groups.values())


def test_a_task_tag_names_the_task_and_other_tags_still_group(tmp_path: Path):
    """JSONL ``tags.task`` wins over the digest: two task folders the fleet calls one task are one
    cluster; an instance's other tags still group (the tags are looked up by instance, not by task)."""
    lines = []
    for i in range(4):
        tests = tmp_path / f"t{i}" / "tests"
        tests.mkdir(parents=True)
        (tests / "rubric.json").write_text(json.dumps(_rubric("42" if i < 2 else "km")))
        _rollout(tmp_path / f"r{i}", "42 km")
        lines.append(json.dumps({"tests": f"t{i}/tests", "rollout": f"r{i}", "name": f"r{i}",
                                 "tags": {"task": "alpha" if i < 2 else "beta", "difficulty": ["easy", "hard"][i % 2]}}))
    (tmp_path / "list.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    done = _cli("batch", str(tmp_path / "list.jsonl"), "--out", str(out), "--group-by", "task,difficulty")
    assert done.returncode == 0, done.stderr
    summary = _summary(out / "summary.json")
    assert summary["clusters"]["clusters"] == 2
    assert sorted(summary["groups"]["task"]["documents"]) == ["alpha", "beta"]
    assert {k: v["documents"] for k, v in summary["groups"]["difficulty"]["documents"].items()} == {"easy": 2, "hard": 2}


def test_the_task_digest_follows_the_bytes_not_the_folder(tmp_path: Path):
    """Copies share a task; one byte apart (another imported question) does not; an unreadable
    tests/ gets no task tag rather than failing the batch's outputs."""
    for name, text in (("a", "42"), ("b", "42"), ("c", "43")):
        (tmp_path / name / "tests").mkdir(parents=True)
        (tmp_path / name / "tests" / "rubric.json").write_text(json.dumps(_rubric(text)))
    instances = [BatchInstance(name=n, tests_dir=tmp_path / n / "tests") for n in ("a", "b", "c")]
    instances.append(BatchInstance(name="gone", tests_dir=tmp_path / "missing" / "tests"))
    tasks = {name: tags.get("task") for name, tags in instance_tag_map(instances).items()}
    assert tasks["a"] == tasks["b"] != tasks["c"] and tasks["gone"] is None
