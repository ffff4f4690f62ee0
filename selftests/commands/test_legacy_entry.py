"""The original cowork-judge 1.3.x's entry point and settings (issue 34).

``python -m cowork_judge <tests>`` (or ``TASK_DIR`` and no argument) with ``VERIFIER_LOG_DIR``,
``OUTPUT_DIR``… judges the rollout where 1.3.x would have read and written (the real module
entry in a subprocess, against the simulator over HTTP); each setting without a counterpart
gets a warning that says what happens instead; a folder this layout cannot honour is a usage
error, never a reward written where nobody reads it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.commands.legacy_entry import LegacySettingError, looks_like_legacy_call, translate

REPO = Path(__file__).resolve().parents[2]
HB = REPO / "examples" / "healthbench-bbd759b4"


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", JUDGE_START_JITTER="0", JUDGE_WORKFLOW_START_JITTER="0", **extra)
    return env


@pytest.fixture(scope="module")
def sim():
    from cowork_judge.sim import DemoPolicy, SimServer

    with SimServer(DemoPolicy()) as server:
        yield server


def _rollout(tmp: Path) -> tuple[Path, Path]:
    logs = tmp / "logs"
    shutil.copytree(HB / "rollout" / "logs" / "agent", logs / "agent")
    (tmp / "app" / "output").mkdir(parents=True)
    return logs / "verifier", tmp / "app" / "output"


@pytest.mark.parametrize("by", ["argument", "TASK_DIR"])
def test_python_m_cowork_judge_tests_judges_where_1_3_x_wrote(tmp_path, sim, by):
    verifier, output = _rollout(tmp_path)
    env = _clean_env(JUDGE_BASE_URL=sim.url, JUDGE_API_KEY="sim-key", JUDGE_MODEL="simulated-judge",
                     VERIFIER_LOG_DIR=str(verifier), OUTPUT_DIR=str(output), JUDGE_WORK_DIR=str(tmp_path / "work"),
                     INPUT_FILES_DIR=str(tmp_path / "inputs"))
    args = [str(HB / "tests")] if by == "argument" else []
    if by == "TASK_DIR":
        env["TASK_DIR"] = str(HB / "tests")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "1.3.x's default was 'codex'" in proc.stderr and "INPUT_FILES_DIR has no counterpart" in proc.stderr
    assert "JUDGE_PER_TIMEOUT is unset: 150 s" in proc.stderr
    reward = float((verifier / "reward.txt").read_text())
    result = json.loads((verifier / "result.json").read_text())
    msg = json.loads((verifier / "reward_exit_message.json").read_text())
    assert result["task_score"] == reward == result["reward"] and result["extra_fields"]["judge_coverage"] == 1.0
    assert msg["exit_code"] is None and msg["extra_fields"]["rubrics_total_num"] == len(result["results"]) > 0
    golden = json.loads((REPO / "selftests" / "golden" / "examples" / "healthbench" / "result.json").read_text())
    assert reward == golden["task_score"]  # the same reward `cowork-judge demo --rollout healthbench` pins


def test_a_verifier_dir_this_layout_cannot_write_is_a_usage_error(tmp_path):
    env = _clean_env(VERIFIER_LOG_DIR=str(tmp_path / "elsewhere"))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", str(HB / "tests")], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "must be named 'verifier'" in proc.stderr
    assert not (tmp_path / "elsewhere").exists()


def test_commands_still_win_and_a_bare_call_still_prints_usage(tmp_path):
    assert not looks_like_legacy_call(["run"], {}) and not looks_like_legacy_call([], {})
    assert looks_like_legacy_call([str(tmp_path)], {}) and looks_like_legacy_call([], {"TASK_DIR": "/x"})
    proc = subprocess.run([sys.executable, "-m", "cowork_judge"], env=_clean_env(), capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 2 and "python -m cowork_judge <tests-dir>" in proc.stderr


def test_each_setting_is_translated_or_warned_about(tmp_path):
    codex_dir = tmp_path / "bin"
    codex_dir.mkdir()
    env = {"VERIFIER_LOG_DIR": "/l/verifier", "OUTPUT_DIR": "/a/output", "JUDGE_BACKEND": "claude",
           "CLAUDE_JUDGE_MODEL": "opus", "CODEX_BIN": str(codex_dir / "codex"), "CLAUDE_BIN": "/opt/x/claude-1.0",
           "PATH": "/usr/bin", "JUDGE_NO_AGENT_TOOLS": "1", "JUDGE_CODEX_USE_CHAT_SHIM": "1", "JUDGE_SAVE_TRAJECTORY": "1",
           "AGENT_TRAJECTORY": "/somewhere/traj.json", "JUDGE_PER_TIMEOUT": "300"}
    argv, notes = translate([str(tmp_path)], env)
    assert argv == ["--tests-dir", str(tmp_path.resolve()), "--logs-dir", "/l", "--app-dir", "/a"]
    assert env["JUDGE_MODEL"] == "opus" and env["PATH"] == f"{codex_dir}{os.pathsep}/usr/bin"
    text = "\n".join(notes)
    for needle in ("CLAUDE_BIN=/opt/x/claude-1.0 is not used", "JUDGE_NO_AGENT_TOOLS has no counterpart",
                   "Responses API only", "AGENT_TRAJECTORY=/somewhere/traj.json has no counterpart",
                   "JUDGE_SAVE_TRAJECTORY: nothing to do"):
        assert needle in text, needle
    assert "JUDGE_PER_TIMEOUT is unset" not in text and "JUDGE_BACKEND is unset" not in text
    with pytest.raises(LegacySettingError, match="must be named 'output'"):
        translate([str(tmp_path)], {"OUTPUT_DIR": "/app/out"})
    with pytest.raises(LegacySettingError, match="no such folder"):
        translate([str(tmp_path / "nope")], {})
