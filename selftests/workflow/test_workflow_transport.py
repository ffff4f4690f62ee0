"""The workflow context's model transport (ABI 2): every workflow call is counted, audited,
redacted, held to ONE in-flight limit for the whole run, jittered at the start, retried by
the failure table, and cut off by the cancel event — measured at the simulator."""

from __future__ import annotations

import json
import logging
import random
import shutil
import threading
import time

import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS

from cowork_judge.core.retry import RetryPolicy
from cowork_judge.sim import FaultPlan, LatencyModel, OraclePolicy, SimServer
from cowork_judge.transport.stats import CallStats
from cowork_judge.workflow.caller import WorkflowCalls
from cowork_judge.workflow._contract import ModelCallFailed

KEY = "sk-workflow-transport-test-key-42"


def write_tests(tmp_path, rubric):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps(rubric))
    shutil.copy(EXAMPLE_TESTS / "judge_instruction.md", tests)
    return tests


def max_in_flight(entries) -> int:
    events = sorted([(e.start_s, 1) for e in entries] + [(e.end_s, -1) for e in entries], key=lambda x: (x[0], x[1]))
    peak = now = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def test_the_stubs_model_calls_are_counted_audited_and_limited(judge_run, tmp_path):
    rubric = {
        "workflow_config": {"stub": {"ask": ["W-ASK"], "parallel": 6, "hits": {"W-HIT": True}}},
        "rubrics": [
            {"id": "W-ASK", "description": "the deck has a title slide", "weight": 2, "judge_method": "workflow", "workflow_name": "stub"},
            {"id": "W-HIT", "description": "scripted", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"},
            {"id": "A1", "description": "explains agents", "weight": 1},
        ],
    }
    oracle = {"W-ASK": {"hit": True, "reason": "slide 1"}, "A1": {"hit": False}}
    run = judge_run(write_tests(tmp_path, rubric), ROLLOUTS / "deck", oracle=oracle,
                    env={"JUDGE_WORKFLOW_CONCURRENCY": "2", "JUDGE_WORKFLOW_START_JITTER": "0"},
                    sim={"latency": LatencyModel.uniform(300.0)})
    v = run.verdicts
    assert v["W-ASK"]["judged"] and v["W-ASK"]["hit"] is True and v["W-ASK"]["method"] == "workflow"
    assert v["W-HIT"]["hit"] is True and v["A1"]["hit"] is False
    workflow_requests = [e for e in run.sim.log.entries() if e.row_ids == ["W-ASK"]]
    assert len(workflow_requests) == 6
    assert max_in_flight(workflow_requests) == 2  # 6 threads, one limit of 2 over all of them
    ef = run.doc["extra_fields"]
    assert ef["judge_calls"] == len(run.sim.log) == 6 + 2  # + the agentic block's tool turn and answer
    assert ef["judge_tokens"] > 0
    audit = run.verifier / "judge" / "workflow-stub"
    calls = [json.loads(line) for line in (audit / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 6 and all("W-ASK" in json.dumps(c["request"]) and c["reply"] for c in calls)
    parsed = json.loads((audit / "parsed.jsonl").read_text().splitlines()[0])
    assert parsed["hits"] == {"W-ASK": True}
    assert KEY not in (audit / "calls.jsonl").read_text()


def test_an_abi_2_workflow_needs_credentials_like_any_model_row(judge_run, tmp_path):
    rubric = {"workflow_config": {"stub": {"ask": ["W"]}},
              "rubrics": [{"id": "W", "description": "x", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"}]}
    run = judge_run(write_tests(tmp_path, rubric), ROLLOUTS / "deck", sim=False)
    assert run.doc["exit_code"] == "judge:no_credential" and run.verdicts["W"]["error_kind"] == "no_credential"


def calls_against(server: SimServer, *, limit=2, jitter=0.0, tries=3, stats=None, deadline_in=60.0) -> WorkflowCalls:
    return WorkflowCalls(api_key=KEY, base_url=server.url, model="sim", limit=limit, jitter_sec=jitter, per_timeout_sec=5.0,
                         retry=RetryPolicy(max_tries=tries, backoff_max_sec=1.0), stats=stats or CallStats(),
                         deadline_at=time.monotonic() + deadline_in, redact=lambda s: s.replace(KEY, "[REDACTED]"),
                         rng=random.Random(3), log=logging.getLogger("test"))


class Audit:
    def __init__(self):
        self.records = []

    def append(self, name, record):
        self.records.append((name, record))


MESSAGES = [{"role": "user", "content": 'judge <rubric_rows>[{"id": "R1", "description": "x", "type": "binary"}]</rubric_rows>'}]


def test_a_rate_limited_call_is_retried_by_the_failure_table():
    server = SimServer(OraclePolicy({"R1": {"hit": True}}), faults=FaultPlan(script=["http_429", "ok"]), api_key=KEY).start()
    calls = None
    try:
        stats, audit = CallStats(), Audit()
        calls = calls_against(server, stats=stats)
        reply = calls.caller("w", audit, cancel=threading.Event(), budget_end=time.monotonic() + 30).complete(MESSAGES, label="p1")
    finally:
        if calls is not None:
            calls.close()
        server.stop()
    assert json.loads(reply.text)["verdicts"][0]["hit"] is True and reply.attempts == 2
    assert stats.calls == 2 and stats.by_kind == {"rate_limit": 1}
    assert [r.get("failed") for _, r in audit.records] == ["rate_limit", None]


def test_a_permanent_failure_is_not_retried_and_cancel_stops_calls():
    server = SimServer(OraclePolicy({}), faults=FaultPlan({"insufficient_quota": 1.0}), api_key=KEY).start()
    calls = None
    try:
        calls = calls_against(server, tries=5)
        caller = calls.caller("w", Audit(), cancel=threading.Event(), budget_end=time.monotonic() + 30)
        with pytest.raises(ModelCallFailed) as failed:
            caller.complete(MESSAGES, label="p1")
        assert failed.value.kind == "insufficient_quota" and len(server.log) == 1
        cancel = threading.Event()
        cancel.set()
        with pytest.raises(ModelCallFailed) as cut:
            calls.caller("w", Audit(), cancel=cancel, budget_end=time.monotonic() + 30).complete(MESSAGES, label="p2")
        assert cut.value.kind == "timeout" and len(server.log) == 1  # no request was sent
    finally:
        if calls is not None:
            calls.close()
        server.stop()


def test_the_first_wave_waits_its_start_jitter():
    server = SimServer(OraclePolicy({"R1": {"hit": True}}), api_key=KEY).start()
    calls = None
    try:
        calls = calls_against(server, limit=2, jitter=1.5)
        caller = calls.caller("w", Audit(), cancel=threading.Event(), budget_end=time.monotonic() + 30)
        t0 = time.monotonic()
        threads = [threading.Thread(target=caller.complete, args=(MESSAGES,), kwargs={"label": f"p{i}"}) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        if calls is not None:
            calls.close()
        server.stop()
    starts = sorted(e.start_s - t0 for e in server.log.entries())
    rng = random.Random(3)
    delays = sorted(rng.uniform(0, 1.5) for _ in range(2))
    assert len(starts) == 4
    assert starts[0] >= delays[0] - 0.05  # the first wave slept its draws while holding the slots
    assert max(starts) < 1.5 + 1.0  # later calls did not wait a jitter of their own


def test_a_hung_call_is_a_timeout_and_is_retried():
    """The per-attempt limit cuts a hanging request; the failure is `timeout` (retried), on
    every supported Python (3.10's concurrent.futures.TimeoutError is not the builtin one)."""
    server = SimServer(OraclePolicy({"R1": {"hit": True}}), faults=FaultPlan(script=["hang", "ok"], hang_seconds=30),
                       api_key=KEY).start()
    try:
        stats, audit = CallStats(), Audit()
        calls = WorkflowCalls(api_key=KEY, base_url=server.url, model="sim", limit=1, jitter_sec=0, per_timeout_sec=1.0,
                              retry=RetryPolicy(max_tries=3, backoff_max_sec=1.0), stats=stats,
                              deadline_at=time.monotonic() + 60, redact=lambda s: s, rng=random.Random(1),
                              log=logging.getLogger("test"))
        reply = calls.caller("w", audit, cancel=threading.Event(), budget_end=time.monotonic() + 30).complete(MESSAGES, label="p")
        calls.close()
    finally:
        server.stop()
    assert reply.attempts == 2 and stats.by_kind == {"timeout": 1}
    assert [r.get("failed") for _, r in audit.records] == ["timeout", None]
