"""Trial 12 F5 and F6: a batch list's JSONL line with a tag value NaN or Infinity died with a Python
traceback (from writing ``instance_tags.json``), and a line with a key given twice was read
silently, the last value winning. Both are now refused naming the line, exit 2, nothing written.
The real ``batch`` CLI on a code-only rubric (no model call).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import clean_env


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=300,
                          env=clean_env(), check=False)


def _instance(root: Path, name: str) -> None:
    tests = root / "inst" / name / "tests"
    tests.mkdir(parents=True)
    tests.joinpath("rubric.json").write_text(json.dumps({"rubrics": [{
        "id": "C-ANSWER", "description": "answer.txt gives 42.", "weight": 1, "judge_method": "code",
        "code_method_name": "text_contains", "code_method_params": {"text": "42", "glob": "answer.txt"}}]}))
    (root / "inst" / name / "rollout" / "app" / "output").mkdir(parents=True)
    (root / "inst" / name / "rollout" / "app" / "output" / "answer.txt").write_text("42\n")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_tag_value_is_refused_naming_the_line(tmp_path: Path, value: str):
    _instance(tmp_path, "c1")
    (tmp_path / "l.jsonl").write_text('"inst/c1"\n{"instance": "inst/c1", "name": "c2", "tags": {"x": %s}}\n' % value)
    done = _cli("batch", str(tmp_path / "l.jsonl"), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"l.jsonl:2: tag 'x' is {value}" in done.stderr
    assert not (tmp_path / "out" / "instance_tags.json").exists() and not (tmp_path / "out" / "c1").exists()


def test_a_non_finite_tag_in_instance_json_is_refused_naming_the_file(tmp_path: Path):
    _instance(tmp_path, "c1")
    (tmp_path / "inst" / "c1" / "instance.json").write_text('{"tags": {"x": NaN}}')
    done = _cli("batch", str(tmp_path / "inst"), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "instance.json" in done.stderr and "tag 'x' is NaN" in done.stderr
    assert not (tmp_path / "out" / "instance_tags.json").exists()


@pytest.mark.parametrize(("line", "key"), [
    ('{"instance": "inst/c1", "instance": "inst/c2"}', "instance"),
    ('{"instance": "inst/c1", "tags": {"level": "easy", "level": "hard"}}', "level"),
])
def test_a_key_given_twice_is_refused_naming_the_line_and_key(tmp_path: Path, line: str, key: str):
    _instance(tmp_path, "c1")
    _instance(tmp_path, "c2")
    (tmp_path / "l.jsonl").write_text('"inst/c1"\n' + line + "\n")
    done = _cli("batch", str(tmp_path / "l.jsonl"), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert f"l.jsonl:2: key {key!r} is given twice" in done.stderr
    assert not (tmp_path / "out" / "instance_tags.json").exists()


def test_a_key_given_twice_in_instance_json_is_refused_naming_the_file_and_key(tmp_path: Path):
    """``instance.json`` is read as a JSONL line is: a repeated tag was kept last-wins, silently."""
    _instance(tmp_path, "c1")
    (tmp_path / "inst" / "c1" / "instance.json").write_text('{"tags": {"level": "easy", "level": "hard"}}')
    done = _cli("batch", str(tmp_path / "inst"), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "instance.json: key 'level' is given twice" in done.stderr
    assert not (tmp_path / "out" / "instance_tags.json").exists()
