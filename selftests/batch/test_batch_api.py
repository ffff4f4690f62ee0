"""Issue 37, Batch API: ``cowork-judge batch --batch-api`` sends the one-round-trip requests
through ``/v1/files`` + ``/v1/batches`` and gives exactly the live run's rewards at the batch
price; a kill -9 while it polls resumes without submitting any ``custom_id`` twice; what the
batch failed or let expire goes live or stays unjudged (``--batch-api-failed``).

Real ``python -m cowork_judge batch`` processes (the real openai client) against the simulator
over HTTP on 127.0.0.1, one oracle per instance (``--oracle-dir``: a batched request's
instance is read from its ``custom_id``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import SimServer
from cowork_judge.sim.batch_api import outcome_draw
from cowork_judge.sim.policies import OracleDirPolicy

LEVELS = (0.0, 0.5, 1.0)
PRICES = '{"sim-judge": {"input": 2.0, "output": 8.0}}'


def _instances(tmp_path: Path, n: int) -> tuple[Path, Path, dict[str, float]]:
    """n reference-answer instances (two model calls each: ANSWER and PROCESS), one oracle
    per instance, and the reward each oracle implies."""
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "A. B.",
              "steps": ["step A", "step B"], "response": f"We find x = {i + 2}y.", "collection": "alg"} for i in range(n)]
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst"), "--process"]) == 0
    oracles = tmp_path / "oracles"
    oracles.mkdir()
    expected = {}
    for i in range(n):
        answer = i % 2 == 0
        s1, s2 = LEVELS[i % 3], LEVELS[(i + 1) % 3]
        oracle = {"ANSWER": {"hit": answer, "level": 1 if answer else 0}, "PROCESS#s1": {"hit": s1 > 0, "level": s1},
                  "PROCESS#s2": {"hit": s2 > 0, "level": s2}}
        (oracles / f"alg-{i}.json").write_text(json.dumps(oracle))
        expected[f"alg-{i}"] = 0.3 * answer + 0.7 * (s1 + s2) / 2
    return tmp_path / "inst", oracles, expected


def _env(server: SimServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0",
               JUDGE_SEND_INSTANCE_ID="1", JUDGE_PRICES=PRICES, **extra)
    return env


def _cmd(instances: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "cowork_judge", "batch", str(instances), "--out", str(out), "--jobs", "3",
            "--max-in-flight", "6", "--draws", "0", "--batch-api-poll", "0.2", *extra]


def _results(out: Path, names) -> dict[str, dict]:
    return {n: json.loads((out / n / "logs" / "verifier" / "result.json").read_text()) for n in names}


def _compare_live_and_batch(tmp_path: Path, n: int) -> None:
    instances, oracles, expected = _instances(tmp_path, n)
    with SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY, batch_delay=0.5) as server:
        env = _env(server)
        live = subprocess.run(_cmd(instances, tmp_path / "live"), env=env, capture_output=True, text=True, timeout=600)
        assert live.returncode == 0, live.stderr
        live_calls = len(server.log)
        server.reset()
        done = subprocess.run(_cmd(instances, tmp_path / "batched", "--batch-api"), env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        entries = server.log.entries()
    live_docs, batch_docs = _results(tmp_path / "live", expected), _results(tmp_path / "batched", expected)
    assert {n: d["task_score"] for n, d in batch_docs.items()} == {n: d["task_score"] for n, d in live_docs.items()}
    assert {n: d["task_score"] for n, d in batch_docs.items()} == pytest.approx(expected)
    # every model request of the batched run went through the batch: none live
    assert [e.endpoint for e in entries] == ["batch"] * live_calls
    assert len({e.custom_id for e in entries}) == live_calls
    assert {e.instance for e in entries} == set(expected)  # the oracle found each request's instance from its custom_id
    for name in expected:  # the batch price: half the live price (JUDGE_PRICES names no "sim-judge@batch")
        live_cost, batch_cost = live_docs[name]["judge_cost"], batch_docs[name]["judge_cost"]
        assert set(batch_cost["models"]) == {"sim-judge@batch"}
        assert batch_docs[name]["judge_cost_usd"] == pytest.approx(live_docs[name]["judge_cost_usd"] / 2, abs=1e-8)
        assert batch_cost["models"]["sim-judge@batch"]["calls"] == live_cost["models"]["sim-judge"]["calls"]
    summary = json.loads((tmp_path / "batched" / "batch.json").read_text())
    assert summary["not_complete"] == [] and sum(summary["states"].values()) == n


def test_batch_api_gives_the_live_rewards_at_half_the_price(tmp_path):
    _compare_live_and_batch(tmp_path, 6)


@pytest.mark.slow
def test_batch_api_on_50_instances_gives_the_live_rewards(tmp_path):
    _compare_live_and_batch(tmp_path, 50)


def test_a_kill_during_polling_resumes_without_submitting_twice(tmp_path):
    """kill -9 while the batch polls (the batch stays in_progress 3 s); the resumed batch polls
    the batch it had and submits no custom_id again; the rewards are the oracle's."""
    instances, oracles, expected = _instances(tmp_path, 4)
    with SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY, batch_delay=3.0) as server:
        env = _env(server)
        out = tmp_path / "runs"
        proc = subprocess.Popen(_cmd(instances, out, "--batch-api"), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        ends = time.monotonic() + 120
        while proc.poll() is None and not server.batch_api.submitted and time.monotonic() < ends:
            time.sleep(0.05)
        time.sleep(0.5)
        assert proc.poll() is None, proc.communicate()[1]
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        state = json.loads((out / "batch-api" / "state.json").read_text())
        assert len(state["batches"]) == 1 and not state["batches"][0]["downloaded"]
        first = list(server.batch_api.submitted)
        done = subprocess.run(_cmd(instances, out, "--batch-api"), env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        submitted = [cid for _, cid in server.batch_api.submitted]
        live = [e for e in server.log.entries() if e.endpoint != "batch"]
    assert server.batch_api.submitted == first  # the resume submitted nothing
    assert max(Counter(submitted).values()) == 1 and len(submitted) == 2 * len(expected)
    assert live == []
    assert {n: d["task_score"] for n, d in _results(out, expected).items()} == pytest.approx(expected)


@pytest.mark.parametrize("failed", ["live", "unjudged"])
def test_failed_and_expired_requests_go_live_or_stay_unjudged(tmp_path, failed):
    instances, oracles, expected = _instances(tmp_path, 6)
    with SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY, batch_fail=0.25, batch_expire=0.25, seed=7) as server:
        out = tmp_path / "runs"
        done = subprocess.run(_cmd(instances, out, "--batch-api", "--batch-api-failed", failed), env=_env(server),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        batched = [e for e in server.log.entries() if e.endpoint == "batch"]
        live = [e for e in server.log.entries() if e.endpoint != "batch"]
        lost = [cid for _, cid in server.batch_api.submitted if outcome_draw(7, cid) < 0.5]
    assert lost and len(batched) == 2 * len(expected) - len(lost)
    docs = _results(out, expected)
    if failed == "live":
        assert len(live) == len(lost)  # each failed or expired request asked once more, live
        assert {n: d["task_score"] for n, d in docs.items()} == pytest.approx(expected)
    else:
        assert live == []
        unjudged = [v for d in docs.values() for v in d["results"] if not v["judged"]]
        assert len(unjudged) == len(lost) and {v["error_kind"] for v in unjudged} == {"request_rejected"}
        assert all("the batch API did not answer" in v["reason"] for v in unjudged)
        judged = [v for d in docs.values() for v in d["results"] if v["judged"]]
        assert len(judged) == len(batched)


def test_calibrate_out_with_the_batch_api(tmp_path):
    """``calibrate --out --batch-api`` judges through the batch: every request is a batched one
    and the agreement with the labels is the live run's (all correct)."""
    instances, oracles, expected = _instances(tmp_path, 3)
    for name in expected:
        (instances / name / "oracle.json").write_text((oracles / f"{name}.json").read_text())
    with SimServer(OracleDirPolicy(oracles), api_key=SIM_KEY) as server:
        done = subprocess.run([sys.executable, "-m", "cowork_judge", "calibrate", str(instances), "--out",
                               str(tmp_path / "runs"), "--report", str(tmp_path / "cal.json"), "--draws", "0",
                               "--batch-api", "--batch-api-poll", "0.2"], env=_env(server), capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        endpoints = {e.endpoint for e in server.log.entries()}
    assert endpoints == {"batch"}
    assert json.loads((tmp_path / "cal.json").read_text())["agreement"]["accuracy"] == 1.0
    assert {n: d["task_score"] for n, d in _results(tmp_path / "runs", expected).items()} == pytest.approx(expected)


def _agentic_instances(tmp_path: Path, n: int) -> Path:
    root = tmp_path / "agentic"
    for i in range(n):
        tests = root / f"t{i}" / "tests"
        tests.mkdir(parents=True)
        rows = [{"id": "title", "description": "the report has a title", "weight": 1},
                {"id": "sum", "description": f"the report states the sum {i + 3}", "weight": 2}]
        (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
        app = root / f"t{i}" / "rollout" / "app" / "output"
        app.mkdir(parents=True)
        (app / "report.md").write_text(f"# Report {i}\n\nThe sum is {i + 3}.\n")
    return root


@pytest.mark.parametrize("max_turns", ["1", "16"])
def test_agentic_blocks_are_batched_only_when_they_are_one_round_trip(tmp_path, max_turns):
    """JUDGE_MAX_TURNS=1: an agentic block is one request with its evidence inline (no tools):
    batched. More turns: the block's first turn offers tools and each turn waits on the tool
    results of the one before, so the block stays live (and nothing is submitted)."""
    instances = _agentic_instances(tmp_path, 3)
    with SimServer(api_key=SIM_KEY) as server:
        env = _env(server, JUDGE_MAX_TURNS=max_turns)
        live = subprocess.run(_cmd(instances, tmp_path / "live"), env=env, capture_output=True, text=True, timeout=300)
        assert live.returncode == 0, live.stderr
        live_calls = len(server.log)
        server.reset()
        done = subprocess.run(_cmd(instances, tmp_path / "batched", "--batch-api"), env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        endpoints = Counter(e.endpoint for e in server.log.entries())
    names = [f"t{i}" for i in range(3)]
    live_docs, batch_docs = _results(tmp_path / "live", names), _results(tmp_path / "batched", names)
    assert {n: d["task_score"] for n, d in batch_docs.items()} == {n: d["task_score"] for n, d in live_docs.items()}
    assert all(d["extra_fields"]["judge_coverage"] == 1.0 for d in batch_docs.values())
    if max_turns == "1":
        assert endpoints == {"batch": live_calls}
    else:
        assert endpoints == {"chat": live_calls} and not server.batch_api.submitted


def test_a_second_round_batches_the_requests_that_depend_on_the_first_answers(tmp_path):
    """A quote not found in the text is asked again with the reason (a second round trip whose
    prompt holds the first answer): with one round it goes live, with ``--batch-api-rounds 2``
    it goes into a second batch; the rewards are the live run's either way."""
    from cowork_judge.sim.policies import OraclePolicy
    from cowork_judge.sim.quotes import Fabricate

    instances = _agentic_instances(tmp_path, 3)
    oracle = tmp_path / "oracle.json"  # every row missed: --fabricate 1 turns each into a hit quoting no text
    oracle.write_text(json.dumps({"title": {"hit": False}, "sum": {"hit": False}}))
    counts, rewards, docs = {}, {}, {}
    for label, extra in (("live", ()), ("one", ("--batch-api",)), ("two", ("--batch-api", "--batch-api-rounds", "2"))):
        with SimServer(OraclePolicy.from_file(oracle), api_key=SIM_KEY, fabricate=Fabricate(1.0, 3)) as server:
            done = subprocess.run(_cmd(instances, tmp_path / label, *extra), env=_env(server, JUDGE_MAX_TURNS="1"),
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr
            counts[label] = Counter(e.endpoint for e in server.log.entries())
            docs[label] = _results(tmp_path / label, ["t0", "t1", "t2"])
            rewards[label] = {n: d["task_score"] for n, d in docs[label].items()}
    asked = counts["live"]["chat"]
    reasks = asked - 3  # one block per instance, then its re-asks
    assert reasks > 0, counts
    assert counts["one"] == {"batch": 3, "chat": reasks}
    assert counts["two"] == {"batch": asked}
    assert rewards["one"] == rewards["live"] == rewards["two"]
    for name, live in docs["live"].items():  # every call counted and priced: none hidden behind the verdict cache
        two = docs["two"][name]
        assert two["extra_fields"]["judge_calls"] == live["extra_fields"]["judge_calls"]
        assert set(two["judge_cost"]["models"]) == {"sim-judge@batch"}
        assert two["judge_cost_usd"] == pytest.approx(live["judge_cost_usd"] / 2, abs=1e-8)
