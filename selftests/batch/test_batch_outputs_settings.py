"""Trial 2 findings 2–4, through the real CLI: ``batch``/``calibrate --out`` never inside an
instance's inputs; ``rescore --name`` never one of the judge's own files, ``summarize --out``
never one of its inputs; an invalid setting is named by ``batch`` and, when it changes the
reward, refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.core.layout import JUDGE_FILE_NAMES

SRC = Path(__file__).resolve().parents[2] / "src"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    base["PYTHONPATH"] = str(SRC) + os.pathsep + base.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=120, check=False)


def _instances(root: Path) -> Path:
    inst = root / "inst"
    (inst / "chat1" / "tests").mkdir(parents=True)
    (inst / "chat1" / "tests" / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "d", "weight": 1}]}')
    (inst / "chat1" / "rollout" / "logs" / "agent").mkdir(parents=True)
    return inst


@pytest.mark.parametrize("command", ["batch", "calibrate"])
@pytest.mark.parametrize("inside", ["chat1/rollout/xx", "chat1/tests/o", "chat1/rollout", "chat1/tests"])
def test_out_inside_an_instance_input_is_refused(tmp_path, command, inside):
    inst = _instances(tmp_path)
    before = sorted(str(p.relative_to(inst)) for p in inst.rglob("*"))
    extra = ["--report", str(tmp_path / "report.json")] if command == "calibrate" else []
    got = _cli(command, str(inst), "--out", str(inst / inside), *extra)
    assert got.returncode == 2, got.stderr
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and "is inside" in lines[0] and "chat1" in lines[0], got.stderr
    assert sorted(str(p.relative_to(inst)) for p in inst.rglob("*")) == before  # nothing written


def _stored_run(root: Path) -> Path:
    """A judged run (the built-in demo's documents are not needed: `run` under JUDGE_SKIP writes them all)."""
    logs = root / "run1" / "logs"
    tests = root / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text('{"rubrics": [{"id": "a", "description": "d", "weight": 1}]}')
    (root / "app" / "output").mkdir(parents=True)
    got = _cli("run", "--tests-dir", str(tests), "--logs-dir", str(logs), "--app-dir", str(root / "app"),
               "--work-dir", str(root / "work"), env={"JUDGE_SKIP": "1"})
    result = logs / "verifier" / "result.json"
    assert result.is_file(), got.stderr
    return result


@pytest.mark.parametrize("name", JUDGE_FILE_NAMES)
def test_rescore_refuses_the_judges_own_file_names(tmp_path, name):
    result = _stored_run(tmp_path)
    before = {p.name: p.read_bytes() for p in result.parent.iterdir() if p.is_file()}
    got = _cli("rescore", str(result), "--name", name, "--force")
    assert got.returncode == 2, got.stderr
    assert f"--name '{name}'" in got.stderr or f"--name {name}" in got.stderr, got.stderr
    assert {p.name: p.read_bytes() for p in result.parent.iterdir() if p.is_file()} == before


def test_summarize_refuses_an_out_that_is_one_of_its_inputs(tmp_path):
    result = _stored_run(tmp_path)
    stored = result.read_bytes()
    for flag in ("--out", "--html"):
        args = ["--out", str(tmp_path / "s.json")] if flag == "--html" else []
        got = _cli("summarize", str(tmp_path / "run1"), *args, flag, str(result), "--force")
        assert got.returncode == 2, got.stderr
        assert "is one of the inputs" in got.stderr, got.stderr
        assert result.read_bytes() == stored


def test_batch_refuses_an_invalid_setting_that_changes_the_reward(tmp_path):
    inst = _instances(tmp_path)
    env = {"JUDGE_API_KEY": "sk-test-0123456789abcdef", "JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
           "JUDGE_GUARD": "penalise"}
    for command, extra in (("batch", []), ("calibrate", ["--report", str(tmp_path / "report.json")])):
        got = _cli(command, str(inst), "--out", str(tmp_path / f"o-{command}"), *extra, env=env)
        assert got.returncode == 2, got.stderr
        assert "JUDGE_GUARD='penalise'" in got.stderr and "refused" in got.stderr, got.stderr
        assert not (tmp_path / f"o-{command}" / "chat1").exists()


def test_batch_names_an_invalid_setting_that_changes_no_reward(tmp_path):
    inst = _instances(tmp_path)
    env = {"JUDGE_API_KEY": "sk-test-0123456789abcdef", "JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
           "JUDGE_DEADLINE": "soon", "JUDGE_MAX_TRIES": "1"}
    got = _cli("batch", str(inst), "--out", str(tmp_path / "o"), "--max-in-flight", "1", env=env)
    assert "JUDGE_DEADLINE='soon'" in got.stderr.splitlines()[0], got.stderr
