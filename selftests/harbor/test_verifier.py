"""`cowork_judge.harbor:RubricVerifier` with a real Harbor ``Task`` (Harbor's own Python runs `harbor_checks.py`):
a multi-step task's step settings, ``JUDGE_SKIP`` raising as test.sh mode's ``SKIPPED`` does, and an environment
that fails under the verifier giving the error reward (issue 36). The real ``harbor run`` is
``selftests/install/test_harbor_host.py``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS, agentic_example

REPO = Path(__file__).resolve().parents[2]
HARBOR_PYTHON = Path(os.environ["HARBOR_BIN"]).parent / "python" if os.environ.get("HARBOR_BIN") \
    else REPO / ".venv-harbor" / "bin" / "python"


@pytest.fixture(scope="module")
def checks(tmp_path_factory) -> dict:
    if not HARBOR_PYTHON.is_file():
        pytest.skip(f"Harbor's Python is not at {HARBOR_PYTHON} (set HARBOR_BIN)")
    work = tmp_path_factory.mktemp("verifier")
    tests = agentic_example(work / "tests-src")
    assert EXAMPLE_TESTS.is_dir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    env["PYTHONPATH"] = str(REPO / "src")
    proc = subprocess.run([str(HARBOR_PYTHON), str(Path(__file__).with_name("harbor_checks.py")), str(work), str(tests)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_step_is_judged_with_its_own_tests_timeout_and_env(checks):
    ok = checks["ok"]
    assert ok["sources"] == ["tests", "steps/draft/tests"]
    assert ok["timeout"] == 50.0
    assert ok["env"] == {"JUDGE_MODEL": "step-model", "JUDGE_SKIP": "1"}


def test_judge_skip_raises_as_test_sh_modes_skipped(checks):
    ok = checks["ok"]
    assert ok["raised"].startswith("SkippedReward"), ok
    assert "reward.json" not in ok["files"] and "result.json" in ok["files"], ok["files"]
    assert ok["result"]["status"] == "skipped", ok["result"]["status"]
    assert all(c["env"] is None for c in ok["commands"])  # nothing of the judge's settings reaches the sandbox


def test_an_environment_failure_is_the_error_reward(checks):
    fail = checks["fail"]
    assert fail["rewards"] == {"reward": 0.0}
    doc = fail["result"]
    assert doc["status"] == "error" and doc["exit_code"] == "judge:scorer_error"
    assert "stand-in environment failure" in doc["exit_reason"]
