"""A real Harbor 0.26 run: the oracle agent, a tiny deck task whose tests/test.sh is our template
(written by ``cowork-judge init``), the judge installed from the local index, the simulator as
the endpoint, and the container commands run in bubblewrap by ``harbor_env/bwrap_env.py``.

Harbor needs Python >= 3.12 and lives in its own venv: ``$HARBOR_BIN`` or ``.venv-harbor/bin/harbor``
(``.ci/run`` creates it). Skipped with the reason when it is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from run.test_e2e import AGENTIC_REWARD, DECK_ORACLE
from testkit import SIM_KEY, agentic_example

from cowork_judge import __version__
from cowork_judge.commands import main as cli
from cowork_judge.sim import OraclePolicy, SimServer
from install.harness import REPO

pytestmark = pytest.mark.slow

HARBOR = Path(os.environ.get("HARBOR_BIN") or REPO / ".venv-harbor" / "bin" / "harbor")
ENV_DIR = Path(__file__).with_name("harbor_env")

TASK_TOML = '''\
version = "1.0"

[metadata]
difficulty = "easy"  # a tiny deck task for the integration test

[verifier]
{mode}
[agent]
timeout_sec = 300.0

[environment]
build_timeout_sec = 60.0
workdir = "/app"
'''

SOLVE = '''\
#!/bin/bash
set -eu
mkdir -p /app/output /logs/agent
cp /solution/build_effective_agents.pptx /app/output/
cp /solution/trajectory.json /logs/agent/trajectory.json
'''


@pytest.fixture(scope="module")
def harbor() -> Path:
    if not HARBOR.is_file():
        pytest.skip(f"harbor is not installed at {HARBOR} (set HARBOR_BIN; .ci/run installs it under Python 3.12)")
    return HARBOR


def make_task(root: Path, name: str, *, separate: bool, index_url: str) -> Path:
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    (task / "instruction.md").write_text("Build a deck about effective agents and save it in /app/output.\n")
    (task / "task.toml").write_text(TASK_TOML.format(mode='environment_mode = "separate"\n' if separate else ""))
    agentic_example(task / "tests")  # the example's code and agentic rows: these runs do not render decks
    sol = task / "solution"
    sol.mkdir()
    (sol / "solve.sh").write_text(SOLVE)
    shutil.copy2(REPO / "examples/rollouts/deck/app/output/build_effective_agents.pptx", sol)
    shutil.copy2(REPO / "examples/rollouts/deck/logs/agent/trajectory.json", sol)
    assert cli(["init", str(task), "--extras", "pptx"]) == 0
    # hermetic: the dependencies come from the same local index, pip's own config is ignored
    text = (task / "task.toml").read_text().replace(
        "[verifier.env]\n", f'[verifier.env]\nPIP_INDEX_URL = "{index_url}"\nPIP_CONFIG_FILE = "/dev/null"\nJUDGE_EVIDENCE = "0"\n', 1)
    (task / "task.toml").write_text(text)
    return task


def harbor_run(harbor: Path, task: Path, jobs: Path, judge_home: Path, env: dict[str, str]) -> dict:
    """Run one trial; return its result.json."""
    cmd = [str(harbor), "run", "-p", str(task), "-a", "oracle", "-e", "bwrap_env:BwrapEnvironment",
           "--ek", f"judge_home={judge_home}", "--ek", f"base_dir={jobs}", "-o", str(jobs), "-y"]
    full_env = {**os.environ, "PYTHONPATH": str(ENV_DIR), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env}
    proc = subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=1200)
    results = [p for p in jobs.rglob("result.json") if (p.parent / "verifier").is_dir() or "verifier_result" in p.read_text()]
    trial = [p for p in results if "trial" in json.loads(p.read_text()).get("trial_name", "") or "task_name" in json.loads(p.read_text())]
    assert trial, f"no trial result under {jobs}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    return json.loads(trial[0].read_text()) | {"_dir": str(trial[0].parent)}


@pytest.fixture(scope="module")
def runs(harbor, tmp_path_factory, package_index, judge_home):
    server = SimServer(OraclePolicy.from_dict(DECK_ORACLE), api_key=SIM_KEY).start()
    root = tmp_path_factory.mktemp("harbor")
    env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim-judge", "JUDGE_START_JITTER": "0",
           "COWORK_JUDGE_VERSION": __version__, "COWORK_JUDGE_VERSION_SOURCE": "injection", "COWORK_WHEEL_URL": package_index.url}
    out = {}
    try:
        for name, separate, extra in (("shared", False, {}), ("separate", True, {}), ("skip", False, {"JUDGE_SKIP": "1"})):
            task = make_task(root / "tasks", f"deck-{name}", separate=separate, index_url=package_index.url)
            out[name] = harbor_run(harbor, task, root / f"jobs-{name}", judge_home, {**env, **extra})
    finally:
        server.stop()
    return out


def test_shared_verifier_gets_the_reward(runs):
    result = runs["shared"]
    assert result.get("exception_info") is None, result.get("exception_info")
    assert result["verifier_result"]["rewards"] == {"reward": pytest.approx(AGENTIC_REWARD, abs=1e-12)}
    doc = json.loads((Path(result["_dir"]) / "verifier" / "result.json").read_text())
    assert doc["version_source"] == "injection" and doc["requested_version"] == __version__


def test_separate_verifier_sees_the_artifacts_and_gets_the_same_reward(runs):
    result = runs["separate"]
    assert result.get("exception_info") is None, result.get("exception_info")
    assert result["verifier_result"]["rewards"] == {"reward": pytest.approx(AGENTIC_REWARD, abs=1e-12)}


def test_judge_skip_is_an_error_that_leaves_the_mean(runs):
    result = runs["skip"]
    assert result.get("verifier_result") is None
    info = result["exception_info"]
    assert info["exception_type"] == "VerifierOutputParseError", info
    assert "reward.txt" in info["exception_message"]
