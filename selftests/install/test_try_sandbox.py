"""``cowork-judge try`` for real: the task's own test.sh in bubblewrap (and plainly), the judge installed from a
local index of this checkout's wheel (or one downloaded from ``--index-url``), the simulator as the endpoint.

The task is this repository's example (``task.toml`` and ``tests/`` at the root: 39 rows, ppt_judge's
rendered rows included); the dependency wheels come from the suite's cache (one download per machine),
the judge's venvs live in this module's own cache folder (the first run installs cold, later ones reuse it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import ROLLOUTS

from cowork_judge.install.local_index import PackageIndex
from cowork_judge.sim import DemoPolicy, SimServer
from install.harness import CACHE_ROOT, REPO

pytestmark = pytest.mark.slow

CLI = [sys.executable, "-m", "cowork_judge"]
DEMO_DECK_REWARD = 0.6067226890756303
"""The example deck judged by the simulator's demo policy (what ``cowork-judge demo`` prints)."""


@pytest.fixture(scope="module")
def cache(tmp_path_factory, sandbox_ready) -> Path:
    root = tmp_path_factory.mktemp("try-cache")
    (CACHE_ROOT / "wheels").mkdir(parents=True, exist_ok=True)
    (root / "wheels").symlink_to(CACHE_ROOT / "wheels")  # shared downloads, private venvs
    return root


def run_try(*args: str, cache: Path, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """``cowork-judge try ARGS`` in a child process; its folders go to a fresh ``--out`` under the cache unless given."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    full.update(COWORK_JUDGE_CACHE=str(cache), **(env or {}))
    if "--out" not in args:
        out = cache / "runs" / f"run{len(list((cache / 'runs').glob('run*'))) if (cache / 'runs').is_dir() else 0}"
        args = (*args, "--out", str(out))
    return subprocess.run([*CLI, "try", *args], env=full, capture_output=True, text=True, timeout=timeout)


def documents(proc: subprocess.CompletedProcess) -> Path:
    match = re.search(r"^documents \((.+)\):$", proc.stdout, flags=re.MULTILINE)
    assert match, proc.stdout[-3000:] + proc.stderr[-3000:]
    return Path(match.group(1))


def test_the_example_deck_in_the_sandbox_every_row_judged(cache, tmp_path):
    out = tmp_path / "out"
    proc = run_try(str(REPO), "--rollout", str(ROLLOUTS / "deck"), "--out", str(out), cache=cache)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "sandbox: bubblewrap" in proc.stdout and "built-in simulator" in proc.stdout
    assert f"reward: {DEMO_DECK_REWARD}" in proc.stdout and "coverage: 1.000 (39 of 39 rows judged)" in proc.stdout
    assert "the built-in simulator judged this run, not a model" in proc.stdout  # trial 14 P1-2: said where the reward is
    verifier = documents(proc)
    assert verifier == out / "logs" / "verifier"
    for name in ("reward.json", "result.json", "reward-details.json", "ctrf.json"):
        assert f"  {name}" in proc.stdout and (verifier / name).is_file()
    doc = json.loads((verifier / "result.json").read_text())
    assert doc["version_source"] == "injection" and doc["extra_fields"]["judge_coverage"] == 1.0
    caps = json.loads((verifier / "env_capabilities.json").read_text())
    assert caps["judge"]["index"].startswith("http://127.0.0.1:") and caps["pymupdf"]["available"] is True
    assert (out / "app" / "output" / "build_effective_agents.pptx").is_file()  # a copy; the rollout is untouched


def test_without_the_sandbox_it_says_so_and_gets_the_same_reward(cache):
    proc = run_try(str(REPO), "--rollout", str(ROLLOUTS / "deck"), "--no-sandbox", cache=cache)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "NOT SANDBOXED" in proc.stderr and "JUDGE_APP_DIR" in proc.stderr
    assert f"reward: {DEMO_DECK_REWARD}" in proc.stdout and "coverage: 1.000" in proc.stdout


def test_the_failure_path_exits_1_with_the_reason(cache):
    with SimServer(DemoPolicy(), api_key="sk-the-right-key-0123") as sim:
        proc = run_try(str(REPO), "--rollout", str(ROLLOUTS / "deck"), cache=cache,
                       env={"JUDGE_BASE_URL": sim.url, "JUDGE_API_KEY": "sk-a-wrong-key-4567", "JUDGE_EVIDENCE": "0",
                            "JUDGE_GUARD": "penalize", "JUDGE_SAMPLES": "3"})
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "JUDGE_BASE_URL=" in proc.stdout and "simulator" not in proc.stdout
    assert "did not finish cleanly" in proc.stderr and "test-sh.log" in proc.stderr
    doc = json.loads((documents(proc) / "result.json").read_text())
    assert doc["exit_code"] and doc["exit_code"] in proc.stderr
    # usertrial #14: the judge wrote this document and its reward itself (every row refused: api_error), so the
    # message must not call it the failure path's
    assert "the reward above is the judge's own" in proc.stderr and "failure path" not in proc.stderr
    # usertrial #6: the example task.toml passes neither: named, and the judge indeed ran without them
    assert "not passed by task.toml's [verifier.env]" in proc.stderr and "JUDGE_GUARD, JUDGE_SAMPLES" in proc.stderr
    assert doc["guard"]["mode"] == "flag" and "sampling" not in doc["details"]


def test_a_test_sh_that_leaves_no_reward_exits_1(cache, tmp_path):
    task = tmp_path / "task"
    shutil.copytree(REPO / "tests", task / "tests")
    shutil.copy2(REPO / "task.toml", task / "task.toml")
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho 'a test.sh that forgot the reward'\n")
    proc = run_try(str(task), "--rollout", str(ROLLOUTS / "empty"), cache=cache)
    assert proc.returncode == 1
    assert "test.sh left no reward" in proc.stderr and "RewardFileNotFoundError" in proc.stderr
    assert "a test.sh that forgot the reward" in (documents(proc) / "test-stdout.txt").read_text()


def test_the_judge_from_an_index(cache, judge_wheel, tmp_path):
    version = judge_wheel.name.split("-")[1]
    with PackageIndex(tmp_path / "index", [judge_wheel]) as index:
        proc = run_try(str(REPO), "--rollout", str(ROLLOUTS / "empty"), "--index-url", index.url, "--version", version,
                       "--cache-dir", str(cache), cache=cache)
        served = list(index.requests)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"cowork-judge {version} downloaded from {index.url}" in proc.stdout
    assert any(p.startswith("/simple/cowork-judge/") for p in served)
    doc = json.loads((documents(proc) / "result.json").read_text())
    assert doc["extra_fields"]["delivery_missing"] is True and doc["task_score"] == 0.0
