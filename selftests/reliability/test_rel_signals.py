"""A supervisor's SIGTERM (or Ctrl-C) mid-run still leaves a reward file and a result
document: rows judged so far keep their verdicts, the rest are unjudged ``interrupted``,
and the process exits 128 + signum without a traceback (SPEC §12 "every exit path")."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import jsonschema
import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS, SIM_KEY, agentic_example

from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer
from reliability.matrix import AGENTIC, BATCH, BLOCKS, SCHEMA, oracle


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_mid_run_writes_the_documents(tmp_path, signum):
    shutil.copytree(ROLLOUTS / "deck" / "app", tmp_path / "app")
    shutil.copytree(ROLLOUTS / "deck" / "logs", tmp_path / "logs")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    # block-01 is answered (a tool turn and a verdict), every later request hangs
    faults = FaultPlan(rates={"hang": 1.0}, script=["ok", "ok"], hang_seconds=120)
    with SimServer(OraclePolicy.from_dict(oracle()), api_key=SIM_KEY, faults=faults) as sim:
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_CONCURRENCY="1",
                   JUDGE_DEADLINE="600", JUDGE_EVIDENCE="0", JUDGE_BATCH=str(BATCH), PYTHONDONTWRITEBYTECODE="1")
        proc = subprocess.Popen(
            [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(tmp_path / "app"), "--logs-dir",
             str(tmp_path / "logs"), "--tests-dir", str(agentic_example(tmp_path / "tests")), "--work-dir",
             str(tmp_path / "work")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first_block = tmp_path / "logs" / "verifier" / "judge" / "block-01" / "verdicts.json"
            for _ in range(600):  # wait (≤ 60 s) until block-01 is judged; block-02's request then hangs
                if first_block.exists() or proc.poll() is not None:
                    break
                time.sleep(0.1)
            assert first_block.exists(), "the run never judged its first block"
            time.sleep(1.0)
            proc.send_signal(signum)
            _, stderr = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 128 + signum
    assert "Traceback" not in stderr and "never retrieved" not in stderr
    verifier = tmp_path / "logs" / "verifier"
    doc = json.loads((verifier / "result.json").read_text())
    jsonschema.validate(doc, SCHEMA)
    assert float((verifier / "reward.txt").read_text()) == doc["task_score"]
    results = {r["id"]: r for r in doc["results"]}
    first = [c.id for c in BLOCKS[0]]
    assert all(results[i]["judged"] for i in first)  # answered before the signal: kept
    rest = [c.id for c in AGENTIC if c.id not in first]
    assert rest and all(results[i]["error_kind"] == "interrupted" for i in rest)
    assert doc["extra_fields"]["judge_error_kind"] == "interrupted" and doc["exit_code"] == "judge:timeout"
    assert signal.Signals(signum).name in doc["exit_reason"]


def test_sigterm_while_the_run_is_still_starting_writes_the_documents(tmp_path):
    shutil.copytree(ROLLOUTS / "deck" / "app", tmp_path / "app")
    shutil.copytree(ROLLOUTS / "deck" / "logs", tmp_path / "logs")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL="http://127.0.0.1:9/v1", JUDGE_EVIDENCE="0", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(tmp_path / "app"), "--logs-dir",
         str(tmp_path / "logs"), "--tests-dir", str(EXAMPLE_TESTS), "--work-dir", str(tmp_path / "work")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # inside the imports: the early capture is installed, the run's own handlers and
        # watchdog are not yet (on a loaded machine a fixed sleep could land before either)
        _wait_until_caught(proc.pid, signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 143, stderr
    doc = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["exit_code"] == "judge:timeout" and "SIGTERM" in doc["exit_reason"]
    assert (tmp_path / "logs" / "verifier" / "reward.txt").read_text().strip() == str(doc["task_score"])


def _wait_until_caught(pid: int, signum: int, timeout_sec: float = 30.0) -> None:
    """Poll /proc until process `pid` has a handler for `signum` (the SigCgt mask)."""
    deadline = time.monotonic() + timeout_sec
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status") as fh:
                status = fh.read()
        except OSError:
            break
        caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
        if caught & (1 << (signum - 1)):
            return
        time.sleep(0.001)
    pytest.fail(f"process {pid} never installed a handler for signal {signum}")
