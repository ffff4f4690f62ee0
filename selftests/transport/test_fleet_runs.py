"""Judge runs (the real command line, several processes at once, as a fleet is) with
JUDGE_LIMITER_URL: a store killed while the jobs run, and a store that never answers. Every
job writes its reward, judges every row and says in its result that it fell back; the
store's password reaches no document and no log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from redis_store import SilentServer
from testkit import SIM_KEY

from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

ROWS = 16
PASSWORD = "fleet-store-pass-7781"


def instance(root: Path) -> dict[str, dict[str, object]]:
    tests = root / "tests"
    tests.mkdir(parents=True)
    rows = [{"id": f"R{i:02d}", "description": f"The report states fact {i}.", "weight": 1} for i in range(1, ROWS + 1)]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text("Write the report.\n")
    return {r["id"]: {"hit": i % 3 != 0, "reason": "fixed"} for i, r in enumerate(rows)}


def launch(root: Path, name: str, sim: SimServer, store_url: str, **env: str) -> subprocess.Popen[bytes]:
    job = root / name
    (job / "app" / "output").mkdir(parents=True)
    (job / "app" / "output" / "report.md").write_text("\n".join(f"fact {i}" for i in range(1, ROWS + 1)))
    (job / "logs" / "agent").mkdir(parents=True)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    full.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_MODEL=name, JUDGE_START_JITTER="0",
                JUDGE_EVIDENCE="0", JUDGE_BATCH="2", JUDGE_CONCURRENCY="2", JUDGE_LIMITER_URL=store_url,
                JUDGE_LIMITER_KEY="test-fleet", PYTHONDONTWRITEBYTECODE="1", **env)
    argv = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(job / "app"), "--logs-dir", str(job / "logs"),
            "--tests-dir", str(root / "tests"), "--work-dir", str(job / "work")]
    return subprocess.Popen(argv, env=full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def outcome(root: Path, name: str) -> tuple[dict, str]:
    verifier = root / name / "logs" / "verifier"
    assert (verifier / "reward.txt").is_file(), f"{name} wrote no reward"
    return json.loads((verifier / "result.json").read_text()), (verifier / "judge.log").read_text()


@pytest.mark.slow
def test_a_store_killed_while_the_jobs_run(tmp_path, redis_store):
    """Three jobs share a store; once every job has sent a request the store is killed. Each
    job still has blocks to judge, so each meets the dead store: it goes on with the local
    limiter, judges every row and its result says so."""
    answers = instance(tmp_path)
    names = [f"job-{k}" for k in range(1, 4)]
    with SimServer(OraclePolicy.from_dict(answers), api_key=SIM_KEY, latency=LatencyModel.uniform(400.0),
                   tool_rounds=0) as sim:
        procs = [launch(tmp_path, name, sim, redis_store.url) for name in names]
        try:
            deadline = time.monotonic() + 300.0
            while {e.model for e in sim.log.entries()} < set(names):  # every job is under way
                assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "a job ended before its first request"
                time.sleep(0.05)
            redis_store.kill()
            for p in procs:
                assert p.wait(timeout=600) == 0
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    for name in names:
        doc, log = outcome(tmp_path, name)
        assert doc["extra_fields"]["judge_coverage"] == 1.0 and doc["extra_fields"]["judge_unjudged"] == 0
        warned = [w for w in doc["details"]["warnings"] if "shared store" in w]
        assert len(warned) == 1 and "local limiter" in warned[0], doc["details"]["warnings"]
        assert "limiter: the fleet's shared store" in log


def test_a_store_that_never_answers_costs_a_run_nothing_but_a_warning(tmp_path):
    """A TCP server that accepts and says nothing, behind a password URL: the run falls back
    after the store's socket timeout, judges every row, and neither its result nor its log
    holds the password."""
    pytest.importorskip("redis")
    answers = instance(tmp_path)
    silent = SilentServer()
    try:
        with SimServer(OraclePolicy.from_dict(answers), api_key=SIM_KEY, tool_rounds=0) as sim:
            proc = launch(tmp_path, "job-1", sim, f"redis://:{PASSWORD}@127.0.0.1:{silent.port}/0",
                          JUDGE_DEADLINE="120")
            assert proc.wait(timeout=300) == 0
    finally:
        silent.close()
    doc, log = outcome(tmp_path, "job-1")
    assert doc["extra_fields"]["judge_coverage"] == 1.0
    assert any("shared store" in w and "Timeout" in w for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    everything = json.dumps(doc) + log + "".join(p.read_text(errors="replace") for p in (tmp_path / "job-1").rglob("*")
                                                 if p.is_file())
    assert PASSWORD not in everything and "***@127.0.0.1" in everything


def test_a_run_over_a_tls_store_with_a_password(tmp_path):
    """A real run with ``JUDGE_LIMITER_URL=rediss://:<password>@…?ssl_ca_certs=…`` against a
    TLS-only redis-server: every request's ticket comes from the store (its key holds the
    run's state afterwards), no fallback warning, every row judged, and the password is in
    no file the run wrote."""
    from redis_store import OPENSSL, REDIS_SERVER, RedisStore

    if REDIS_SERVER is None or OPENSSL is None:
        pytest.skip("redis-server or openssl is not installed (.ci/run installs both)")
    redis = pytest.importorskip("redis")
    answers = instance(tmp_path)
    store = RedisStore(tmp_path / "redis", password=PASSWORD, tls=True)
    try:
        with SimServer(OraclePolicy.from_dict(answers), api_key=SIM_KEY, tool_rounds=0) as sim:
            proc = launch(tmp_path, "job-1", sim, store.url)
            assert proc.wait(timeout=300) == 0
        keys = redis.Redis.from_url(store.url).keys("*")
    finally:
        store.stop()
    doc, log = outcome(tmp_path, "job-1")
    assert doc["extra_fields"]["judge_coverage"] == 1.0 and doc["extra_fields"]["judge_unjudged"] == 0
    assert not [w for w in doc["details"]["warnings"] if "shared store" in w], doc["details"]["warnings"]
    assert f"limiter: the fleet's shared store at 127.0.0.1:{store.port} (rediss://***@127.0.0.1" in log  # as dialled
    assert any(b"test-fleet" in k for k in keys), keys  # JUDGE_LIMITER_KEY's state lives in the TLS store
    everything = json.dumps(doc) + log + "".join(p.read_text(errors="replace") for p in (tmp_path / "job-1").rglob("*")
                                                 if p.is_file())
    assert PASSWORD not in everything


def test_config_masks_the_stores_password(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env.update(JUDGE_LIMITER_URL=f"rediss://:{PASSWORD}@store.example:6380/2", JUDGE_FLEET_RPM="500")
    out = subprocess.run([sys.executable, "-m", "cowork_judge", "config", "--json"], env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    assert PASSWORD not in out.stdout + out.stderr
    values = json.loads(out.stdout)["values"]
    assert values["limiter_url"] == "rediss://***@store.example:6380/2" and values["fleet_rpm"] == 500
    env["JUDGE_LIMITER_URL"] = f"http://user:{PASSWORD}@nowhere"
    out = subprocess.run([sys.executable, "-m", "cowork_judge", "config", "--json"], env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    assert PASSWORD not in out.stdout + out.stderr and "JUDGE_LIMITER_URL" in out.stdout


def test_a_run_whose_store_url_misreads_its_password_lands_on_no_store(tmp_path):
    """Issue 39, item 3, as a fleet job meets it: the password ``x@127.0.0.1:<A>/y`` written
    unencoded in JUDGE_LIMITER_URL for store B made the redis client dial store A (password
    ``x``), where the job's state landed with no word said. The run now refuses the URL at its
    start: every row judged with its local limiter, one warning naming B as written and none
    of the password, and neither store holds a key."""
    from redis_store import REDIS_SERVER, RedisStore

    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    redis = pytest.importorskip("redis")
    answers = instance(tmp_path)
    a = RedisStore(tmp_path / "a", password="x")
    password = f"x@127.0.0.1:{a.port}/y"
    b = RedisStore(tmp_path / "b", password=password)
    try:
        with SimServer(OraclePolicy.from_dict(answers), api_key=SIM_KEY, tool_rounds=0) as sim:
            proc = launch(tmp_path, "job-1", sim, f"redis://:{password}@127.0.0.1:{b.port}/0")
            assert proc.wait(timeout=300) == 0
        landed = redis.Redis(port=a.port, password="x").keys("*") + redis.Redis(port=b.port, password=password).keys("*")
    finally:
        a.stop(), b.stop()
    doc, log = outcome(tmp_path, "job-1")
    assert landed == [] and doc["extra_fields"]["judge_coverage"] == 1.0
    said = [w for w in doc["details"]["warnings"] if w.startswith("JUDGE_LIMITER_URL")]
    assert len(said) == 1 and f"written after its last '@': 127.0.0.1:{b.port}" in said[0], doc["details"]["warnings"]
    assert any(w.startswith("JUDGE_LIMITER_KEY has no effect without JUDGE_LIMITER_URL, which was refused")
               for w in doc["details"]["warnings"])
    assert "local limiter" in said[0] and "shared store at" not in log
    everything = json.dumps(doc) + log
    assert "/y" not in everything.replace("/y@", "") and f":{a.port}" not in everything
