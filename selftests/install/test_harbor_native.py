"""The task author's path on a task exactly as ``harbor init`` (Harbor 0.26) writes it (issue 26), in ONE Harbor job:

``harbor init`` (separate verifier, ``tests/Dockerfile``) → the rubric → ``cowork-judge init`` (no
``--force``) → ``harbor lint`` (clean of the verifier rules) → a real ``harbor run`` through the
bubblewrap environment (``harbor_env/bwrap_env.py``, which now applies the Dockerfile's
``COPY . /tests/``) → a one-row rubric edit → ``harbor jobs regrade`` with the verdict cache:
Harbor's delta, and model calls for the edited row only.

The rubric is the example's code and agentic rows (`testkit.agentic_example`): the sandbox's
package index carries the ``pptx`` extra only, so ppt_judge's rendered rows are not judged here.
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
SOLVE = """#!/bin/bash
set -eu
mkdir -p /app/output /logs/agent
cp /solution/build_effective_agents.pptx /app/output/
cp /solution/trajectory.json /logs/agent/trajectory.json
"""
VERIFIER_RULES = ("verifier-runtime-install", "verifier-network-download")


def harbor(*args: str, env: dict[str, str], cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ENV_DIR), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env}
    return subprocess.run([str(HARBOR), *args], env=full, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def trial_results(jobs: Path) -> list[dict]:
    out = []
    for path in jobs.rglob("result.json"):
        doc = json.loads(path.read_text())
        if "verifier_result" in doc and "task_name" in doc:
            out.append(doc | {"_dir": str(path.parent)})
    return out


@pytest.fixture(scope="module")
def journey(tmp_path_factory, package_index, judge_home):
    if not HARBOR.is_file():
        pytest.skip(f"harbor is not installed at {HARBOR} (set HARBOR_BIN; .ci/run installs it under Python 3.12)")
    root = tmp_path_factory.mktemp("native")
    proc = harbor("init", "acme/deck", "-t", "-o", str(root), env={}, cwd=root, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    task = root / "deck"
    assert (task / "tests" / "Dockerfile").is_file()  # Harbor's separate-verifier stub: item 5's case
    example = agentic_example(root / "example")
    for item in example.iterdir():
        if item.name != "test.sh":
            shutil.copy2(item, task / "tests" / item.name)
    (task / "instruction.md").write_text("Build a deck about effective agents and save it in /app/output.\n")
    (task / "solution" / "solve.sh").write_text(SOLVE)
    shutil.copy2(REPO / "examples/rollouts/deck/app/output/build_effective_agents.pptx", task / "solution")
    shutil.copy2(REPO / "examples/rollouts/deck/logs/agent/trajectory.json", task / "solution")
    assert cli(["init", str(task)]) == 0  # no --force after harbor init
    text = (task / "task.toml").read_text().replace("[verifier.env]\n", (
        f'[verifier.env]\nPIP_INDEX_URL = "{package_index.url}"\nPIP_CONFIG_FILE = "/dev/null"\nJUDGE_EVIDENCE = "0"\n'
        'JUDGE_VERDICT_CACHE = "/opt/cowork-judge/verdict-cache"\n'), 1)
    (task / "task.toml").write_text(text)
    lint = harbor("lint", str(task), "--json", env={}, cwd=root, timeout=120)

    server = SimServer(OraclePolicy.from_dict(DECK_ORACLE), api_key=SIM_KEY).start()
    env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim-judge", "JUDGE_START_JITTER": "0",
           "JUDGE_WORKFLOW_START_JITTER": "0", "COWORK_JUDGE_VERSION": __version__, "COWORK_JUDGE_VERSION_SOURCE": "injection",
           "COWORK_WHEEL_URL": package_index.url, "BWRAP_ENV_JUDGE_HOME": str(judge_home), "BWRAP_ENV_BASE": str(root)}
    try:
        run = harbor("run", "-p", str(task), "-a", "oracle", "-e", "bwrap_env:BwrapEnvironment", "-o", str(root / "jobs"), "-y",
                     env=env, cwd=root)
        first = trial_results(root / "jobs")
        calls_run = [rid for e in server.log.entries() for rid in e.row_ids]
        rubric = task / "tests" / "rubric.json"
        doc = json.loads(rubric.read_text())
        edited = next(r for r in doc["rubrics"] if r.get("judge_method", "agentic") == "agentic" and not r.get("hurdle"))
        edited["description"] = edited["description"] + " (rewritten: the wording of this row alone changed)"
        rubric.write_text(json.dumps(doc, indent=2))
        before = len(server.log.entries())
        job_dir = next(p for p in (root / "jobs").iterdir() if p.is_dir())
        regrade = harbor("jobs", "regrade", str(job_dir), "-p", str(task), "-e", "bwrap_env:BwrapEnvironment",
                         "-o", str(root / "regraded"), env=env, cwd=root)
        calls_regrade = [rid for e in server.log.entries()[before:] for rid in e.row_ids]
        second = trial_results(root / "regraded")
    finally:
        server.stop()
    return {"task": task, "lint": lint, "run": run, "first": first, "regrade": regrade, "second": second,
            "calls_run": calls_run, "calls_regrade": calls_regrade, "edited": edited["id"]}


def test_harbor_lint_is_clean_of_the_verifier_rules(journey):
    proc = journey["lint"]
    findings = json.loads(proc.stdout) if proc.stdout.strip().startswith("[") else []
    assert proc.stdout.strip().startswith("["), proc.stdout + proc.stderr
    assert not [f for f in findings if f.get("rule") in VERIFIER_RULES], findings


def test_the_default_harbor_init_task_gets_its_reward_through_the_sandbox(journey):
    (result,) = journey["first"] or [None]
    assert result is not None, journey["run"].stdout[-3000:] + journey["run"].stderr[-3000:]
    assert result.get("exception_info") is None, result.get("exception_info")
    assert result["verifier_result"]["rewards"] == {"reward": pytest.approx(AGENTIC_REWARD, abs=1e-12)}
    verifier = Path(result["_dir"]) / "verifier"
    doc = json.loads((verifier / "result.json").read_text())
    assert doc["extra_fields"]["judge_coverage"] == 1.0
    ctrf = json.loads((verifier / "ctrf.json").read_text())
    assert len(ctrf["results"]["tests"]) == len(doc["results"])


def test_regrade_after_a_one_row_edit_asks_only_that_row(journey):
    (result,) = journey["second"] or [None]
    assert result is not None, journey["regrade"].stdout[-3000:] + journey["regrade"].stderr[-3000:]
    assert result.get("exception_info") is None, result.get("exception_info")
    assert set(journey["calls_run"]) > {journey["edited"]}
    assert set(journey["calls_regrade"]) == {journey["edited"]}  # the verdict cache answered the rest
    doc = json.loads((Path(result["_dir"]) / "verifier" / "result.json").read_text())
    cached = {r["id"] for r in doc["results"] if r["cached"]}
    assert journey["edited"] not in cached and cached
    out = journey["regrade"].stdout + journey["regrade"].stderr
    assert "reward" in out.lower(), out[-2000:]  # Harbor prints the regrade's delta
