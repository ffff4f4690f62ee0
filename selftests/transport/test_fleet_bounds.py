"""Bounds of the fleet's shared limiter (user trial, defect 4) against a REAL redis-server: one
job with an absurd JUDGE_FLEET_RPM, an older job's state or an endpoint's huge ``Retry-After``
holds the fleet at most `transport.fleet.MAX_HOLD_SEC`; JUDGE_FLEET_RPM has the local limiter's
floor; a request the store holds past its time says that the shared limiter holds it (the
endpoint may never have refused anyone); a waiting job does not keep a hold alive."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from testkit import SIM_KEY, held_workflow_call, make_ctx, judge_agentic_alone

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.config.judge_config import CAPS, load_config
from cowork_judge.sim import OraclePolicy, SimServer
from cowork_judge.transport.fleet import IDLE_EXPIRY_SEC, KEY_PREFIX, MAX_HOLD_SEC, FleetLimiter
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.quota import Budget, Quota

WEEK_SEC = 7 * 24 * 3600.0
HOLDS = "the shared limiter (JUDGE_LIMITER_URL) holds the fleet's requests until"


def job(url: str, key: str = "bounds", **kw) -> FleetLimiter:
    return FleetLimiter(url=url, key=KEY_PREFIX + key, local=Limiter(rng=random.Random(1)), **kw)


def store(url: str):
    import redis

    return redis.Redis.from_url(url)


def ahead(client, key: str, field: str) -> float:
    """How far the stored `field` of `key` is ahead of the store's clock, seconds."""
    sec, usec = client.time()
    return float(client.hget(KEY_PREFIX + key, field)) - (sec + usec / 1e6)


def test_the_bound_is_the_cap_of_the_backoff_and_below_the_expiry():
    assert MAX_HOLD_SEC == CAPS["retry.backoff_max_sec"][0] and 3 * MAX_HOLD_SEC <= IDLE_EXPIRY_SEC


def test_store_only_settings_without_a_store_say_they_do_nothing():
    alone = load_config({"JUDGE_FLEET_RPM": "30", "JUDGE_LIMITER_KEY": "team-a"})
    assert alone.warnings == ["JUDGE_FLEET_RPM, JUDGE_LIMITER_KEY have no effect without JUDGE_LIMITER_URL (the fleet's "
                              "shared store): this run paces itself with its local limiter"]
    with_store = load_config({"JUDGE_FLEET_RPM": "30", "JUDGE_LIMITER_KEY": "team-a",
                              "JUDGE_LIMITER_URL": "redis://127.0.0.1:1/0"})
    assert with_store.warnings == [] and not load_config({}).warnings


def test_fleet_rpm_has_the_local_limiters_floor():
    store = {"JUDGE_LIMITER_URL": "redis://127.0.0.1:1/0"}
    loaded = load_config({"JUDGE_FLEET_RPM": "0.0001", **store})
    assert loaded.config.fleet_rpm == 3.0 and loaded.sources["fleet_rpm"] == "raised:JUDGE_FLEET_RPM"
    assert loaded.warnings == ["JUDGE_FLEET_RPM=0.0001 is below the floor 3 (one request per JUDGE_RETRY_BACKOFF_MAX=20 s, "
                               "the slowest pace any limiter of the run sets; a lower pace would hold every job of the "
                               "fleet); using 3"]
    slow = load_config({"JUDGE_FLEET_RPM": "0.5", "JUDGE_RETRY_BACKOFF_MAX": "120", **store})
    assert slow.config.fleet_rpm == 0.5 and slow.warnings == []  # one request per 2 min: at the floor of a 120 s cap
    assert load_config({"JUDGE_FLEET_RPM": "0.4", "JUDGE_RETRY_BACKOFF_MAX": "120"}).config.fleet_rpm == 0.5
    assert load_config({"JUDGE_FLEET_RPM": "500"}).config.fleet_rpm == 500
    assert load_config({"JUDGE_FLEET_RPM": "500", **store}).warnings == []
    assert load_config({"JUDGE_FLEET_RPM": "nan"}).config.fleet_rpm is None


def test_a_tiny_configured_pace_holds_the_fleet_one_backoff_at_most(redis_store):
    """A limiter built without the configuration (its JUDGE_FLEET_RPM unchecked) still paces at
    no less than one request per its backoff cap (20 s), and so writes no further ahead."""
    a, b = job(redis_store.url, fleet_rpm=0.0001), job(redis_store.url)
    client = store(redis_store.url)
    try:
        assert a.try_start()[0] is not None
        assert 0 < ahead(client, "bounds", "tat") <= 20.0 + 0.5
        ticket, wait = b.try_start()
        assert ticket is None and wait <= 20.0 + 0.5
        tpm = job(redis_store.url, key="tpm", fleet_tpm=1.0)
        tpm.quota.note_tokens(5000)  # 1 token/min at 5000 tokens a request: one request per 5 days, unless floored
        assert tpm.try_start()[0] is not None and ahead(client, "tpm", "tat") <= 20.0 + 0.5
        tpm.close()
    finally:
        a.close(), b.close(), client.close()


def test_a_state_held_past_the_bound_is_cut_back_and_never_kept_alive(redis_store):
    """A key another version's job left 7 days ahead (the user trial's poisoned store): the next
    job waits at most the bound, the stored values are cut back to it, and the waiting job
    does not refresh the key's expiry (a key found without one gets it)."""
    client = store(redis_store.url)
    lim = job(redis_store.url, key="poisoned")
    try:
        sec, _ = client.time()
        name = KEY_PREFIX + "poisoned"
        client.hset(name, mapping={"tat": f"{sec + WEEK_SEC:.6f}", "open_at": f"{sec + WEEK_SEC:.6f}", "ss": "0"})
        client.expire(name, 100)
        ticket, wait = lim.try_start()
        assert ticket is None and MAX_HOLD_SEC - 5 <= wait <= MAX_HOLD_SEC
        assert ahead(client, "poisoned", "tat") <= MAX_HOLD_SEC and ahead(client, "poisoned", "open_at") <= MAX_HOLD_SEC
        assert 0 < client.ttl(name) <= 100  # waiting extends nothing
        assert lim.held_past(time.monotonic() + MAX_HOLD_SEC - 10) and not lim.held_past(time.monotonic() + MAX_HOLD_SEC + 1)
        client.persist(name)
        assert lim.try_start()[0] is None and 0 < client.ttl(name) <= IDLE_EXPIRY_SEC
        assert HOLDS in (lim.holding() or "") and "its gate" in (lim.holding() or "")
    finally:
        lim.close(), client.close()


def test_an_endpoints_huge_ask_gates_the_fleet_for_the_bound_at_most(redis_store):
    a, b = job(redis_store.url), job(redis_store.url)
    client = store(redis_store.url)
    try:
        first = a.try_start()[0]
        assert first is not None
        a.rate_limited(first, 1e6, quota=Quota(requests=Budget(240.0, 0.0, 1.0)))  # "come back in 11 days"
        ticket, wait = b.try_start()
        assert ticket is None and MAX_HOLD_SEC - 5 <= wait <= MAX_HOLD_SEC
        assert ahead(client, "bounds", "open_at") <= MAX_HOLD_SEC
    finally:
        a.close(), b.close(), client.close()


ROWS = normalize_rubric([{"id": f"R{i}", "description": f"the report states fact {i}", "weight": 1}
                         for i in range(1, 3)]).criteria
ORACLE = OraclePolicy.from_dict({f"R{i}": {"hit": True} for i in range(1, 3)})


def test_a_request_the_store_holds_says_the_shared_limiter_holds_it(tmp_path, redis_store):
    """The fleet's pace holds every request 250 s (within the bound), past these calls' 5 s: the
    agentic rows and a workflow call fail ``rate_limit`` at once, sending nothing, with the
    store's words — not "the endpoint asked", which never refused anything."""

    client = store(redis_store.url)
    sec, _ = client.time()
    client.hset(KEY_PREFIX + "held", mapping={"tat": f"{sec + 250:.6f}", "ss": "0"})
    client.expire(KEY_PREFIX + "held", 600)
    client.close()
    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        ctx = make_ctx(tmp_path, {"report.md": "fact 1, fact 2"}, env={
            "JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": sim.url, "JUDGE_START_JITTER": "0", "JUDGE_BATCH": "1",
            "JUDGE_MAX_TRIES": "1", "JUDGE_RESPLIT": "0", "JUDGE_PER_TIMEOUT": "5", "JUDGE_LIMITER_URL": redis_store.url,
            "JUDGE_LIMITER_KEY": "held"})
        try:
            verdicts = judge_agentic_alone(ROWS, ctx)
            failed = held_workflow_call(ctx, 5.0)
        finally:
            ctx.limiter.close()
        assert len(sim.log) == 0
    assert ctx.limiter.mode == "shared"
    for v in verdicts.values():
        assert v.error_kind == "rate_limit" and HOLDS in v.reason and "its pace" in v.reason, v.reason
        assert "endpoint asked" not in v.reason and "s timeout; no request was sent" in v.reason
    message = str(failed)
    assert failed.kind == "rate_limit" and HOLDS in message and "endpoint asked" not in message, message


# --------------------------------------------------------------------------- the user trial's repro, two real runs


def _run(root: Path, name: str, tests: Path, sim: SimServer, store_url: str, **env: str) -> dict:
    job_dir = root / name
    (job_dir / "app" / "output").mkdir(parents=True)
    (job_dir / "app" / "output" / "report.md").write_text("fact 1, fact 2, fact 3, fact 4")
    (job_dir / "logs" / "agent").mkdir(parents=True)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    full.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_EVIDENCE="0",
                JUDGE_BATCH="1", JUDGE_CONCURRENCY="2", JUDGE_LIMITER_URL=store_url, JUDGE_LIMITER_KEY="trial",
                JUDGE_DEADLINE="120", PYTHONDONTWRITEBYTECODE="1", **env)
    argv = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(job_dir / "app"), "--logs-dir",
            str(job_dir / "logs"), "--tests-dir", str(tests), "--work-dir", str(job_dir / "work")]
    proc = subprocess.run(argv, env=full, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((job_dir / "logs" / "verifier" / "result.json").read_text())


def test_one_jobs_absurd_fleet_rpm_no_longer_poisons_the_next_job(tmp_path, redis_store):
    """User trial 04: a job with JUDGE_FLEET_RPM=0.0001 (at a 1 s backoff cap: floor 60/min),
    then an innocent job on the same key. Both judge every row; the first says it raised the value."""
    tests = tmp_path / "tests"
    tests.mkdir()
    rows = [{"id": f"R{i}", "description": f"The report states fact {i}.", "weight": 1} for i in range(1, 5)]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text("Write the report.\n")
    oracle = OraclePolicy.from_dict({r["id"]: {"hit": True, "reason": "fixed"} for r in rows})
    with SimServer(oracle, api_key=SIM_KEY, tool_rounds=0) as sim:
        first = _run(tmp_path, "job-1", tests, sim, redis_store.url, JUDGE_FLEET_RPM="0.0001", JUDGE_RETRY_BACKOFF_MAX="1")
        second = _run(tmp_path, "job-2", tests, sim, redis_store.url)
        refused = [e for e in sim.log.entries() if e.status != 200]
    assert first["extra_fields"]["judge_coverage"] == 1.0, first["results"]
    assert any(w.startswith("JUDGE_FLEET_RPM=0.0001 is below the floor 60") for w in first["details"]["warnings"])
    assert second["extra_fields"]["judge_coverage"] == 1.0 and second["task_score"] == 1.0, second["results"]
    assert refused == []  # the endpoint never refused anyone
