"""Issue 39, trial 2 leftovers: a JUDGE_MODEL the caller set is what the built-in simulator is
asked for and what the result records, never silently "simulated-judge"."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def demo(tmp_path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    return subprocess.run([sys.executable, "-m", "cowork_judge", "demo", "--rollout", "chat", "--logs-dir", str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=180, env={**base, **env})


def test_the_simulator_answers_as_the_judge_model_the_caller_set_and_the_result_records_it(tmp_path):
    proc = demo(tmp_path, JUDGE_MODEL="foo")
    assert proc.returncode == 0, proc.stderr
    assert ("(simulated judge, no model: it answers as your JUDGE_MODEL='foo', which the result records as judge_model)"
            in proc.stdout), proc.stdout
    doc = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    assert doc["judge_model"] == "foo"
    assert "simulated-judge" not in (tmp_path / "logs" / "verifier" / "result.json").read_text()


def test_without_judge_model_the_simulator_is_named_as_itself(tmp_path):
    proc = demo(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "(simulated judge, no model)" in proc.stdout
    assert json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())["judge_model"] == "simulated-judge"
