"""Trial 30 P-1: init printed ``[[verifier.collect]] += …`` and the docs named a ``[[verifier.collect]]`` table,
while a task.toml from ``harbor init`` (``collect = []`` under ``[verifier]``) gets an inline
``collect = [{ command = … }]`` entry. What init prints, and docs/harbor-task.md, now name the form it writes."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cowork_judge.install.taskinit import COLLECT_COMMAND
from testkit import clean_env

DOCS = Path(__file__).resolve().parents[2] / "docs" / "harbor-task.md"
TOML = 'version = "1.0"\n\n[verifier]\ntimeout_sec = 600.0\nenvironment_mode = "separate"\n{collect}\n[agent]\ntimeout_sec = 300.0\n'


@pytest.mark.parametrize(("collect", "said", "written", "again"), [
    ("collect = []\n", "task.toml: [verifier] collect = [...] += { command = ... }", "collect = [{ command = ",
     "task.toml: [verifier] collect = [...] already holds a hook that copies"),
    ("", "task.toml: [[verifier.collect]] table added", "[[verifier.collect]]\ncommand = ",
     "task.toml: [[verifier.collect]] already copies"),
])
def test_init_says_and_docs_name_the_collect_form_it_writes(tmp_path: Path, collect: str, said: str, written: str,
                                                            again: str):
    task = tmp_path / "task"
    (task / "tests").mkdir(parents=True)
    (task / "tests" / "rubric.json").write_text('{"rubrics": [{"id": "A", "description": "The answer is right.", "weight": 1}]}')
    (task / "tests" / "task_prompt.md").write_text("Why is the sky blue?\n")
    (task / "task.toml").write_text(TOML.format(collect=collect))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task)], capture_output=True, text=True,
                          timeout=300, env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (task / "task.toml").read_text()
    assert said in proc.stdout, proc.stdout
    assert written in text, text
    assert tomllib.loads(text)["verifier"]["collect"] == [{"command": COLLECT_COMMAND}]
    docs = " ".join(DOCS.read_text().split())
    assert said.removeprefix("task.toml: ") in docs
    assert written.split("\n")[0].rstrip() in docs
    # init run again (step 9) names the form the task has (trial 33 P-3: it named a table for the inline entry)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task)], capture_output=True, text=True,
                          timeout=300, env=clean_env(), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert again in proc.stdout + proc.stderr, proc.stdout + proc.stderr
