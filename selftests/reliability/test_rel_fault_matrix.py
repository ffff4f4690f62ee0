"""Fault matrix: the example instance through ``cowork-judge run`` for every fault kind.

For each case (see `matrix.cases`): a reward file and a schema-valid result document
exist; coverage, ``judge_error_kind``, ``exit_code`` and the number of model calls are
exactly what the injected faults imply; ``judge_calls`` equals the HTTP requests the
simulator received (failed ones included); faults that retries absorb leave the
fault-free reward. Cases run six at a time (each is its own process and simulator; most
of a case's time is retry waiting).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import jsonschema
import pytest
from testkit import ROLLOUTS, agentic_example

from reliability.matrix import AGENTIC, BASE_CALLS, BLOCKS, SCHEMA, Case, cases, oracle

EXTRA_KEYS = {
    "passed", "judge_coverage", "judge_unjudged", "judge_degraded", "judge_error_kind", "judge_seconds",
    "judge_evidence_pages", "judge_methods", "judge_coverage_by_method", "judge_unjudged_weight_frac",
    "judge_called", "delivery_missing", "delivery_from_chat", "judge_calls", "judge_tokens",
}


def observe(case: Case, run) -> dict:
    """Everything the matrix asserts about one finished run."""
    reward = float(run.reward_text)
    doc = run.doc
    jsonschema.validate(doc, SCHEMA)
    ef = doc["extra_fields"]
    assert set(ef) == EXTRA_KEYS and math.isfinite(reward) and reward == doc["task_score"]
    return {
        "coverage": round(ef["judge_coverage"], 6),
        "error_kind": ef["judge_error_kind"],
        "exit_code": doc["exit_code"],
        "status": doc["status"],
        "exit_reason_set": doc["exit_reason"] is not None,
        "calls": ef["judge_calls"],
        "http_requests": len(run.sim.log),
        "reward": reward,
        "verdicts": {r["id"]: (r["judged"], r["hit"], r["level"], r["error_kind"]) for r in doc["results"]},
    }


def expected(case: Case, got: dict, baseline: dict) -> dict:
    e = case.expect
    calls = got["http_requests"] if e.calls < 0 else e.calls
    want = {
        "coverage": round(e.coverage, 6),
        "error_kind": e.error_kind,
        "exit_code": e.exit_code,
        "status": "error" if e.exit_code else "success",
        "exit_reason_set": e.coverage < 1.0,
        "calls": calls,
        "http_requests": calls,
        "reward": baseline["reward"] if e.same_reward else got["reward"],
        "verdicts": got["verdicts"],
    }
    # exactly the expected rows are unjudged, with the kind the injected fault implies; a
    # judged row carries exactly its fault-free verdict (faults never change a verdict)
    want["verdicts"] = {rid: (False, None, None, e.error_kind) if rid in e.unjudged else baseline["verdicts"][rid]
                        for rid in got["verdicts"]}
    return want


@pytest.fixture(scope="module")
def matrix_cases() -> list[Case]:
    return cases()


def test_fault_matrix(judge_run, matrix_cases, tmp_path):
    answers = oracle()
    tests = agentic_example(tmp_path / "tests")

    def one(case: Case):
        run = judge_run(tests, ROLLOUTS / "deck", oracle=answers, env=case.run_env(),
                        sim={"faults": case.faults}, timeout=90)
        assert run.sim.errors == [], f"{case.name}: simulator errors"
        return case.name, observe(case, run)

    with ThreadPoolExecutor(max_workers=6) as pool:
        got = dict(pool.map(one, matrix_cases))
    baseline = got["fault-free"]
    assert baseline["coverage"] == 1.0 and baseline["calls"] == BASE_CALLS
    assert all(v[0] for v in baseline["verdicts"].values())  # precondition: the code gates pass, every row is judged
    want = {c.name: expected(c, got[c.name], baseline) for c in matrix_cases}
    summary = {name: {k: v for k, v in obs.items() if k != "verdicts"} for name, obs in got.items()}
    wanted = {name: {k: v for k, v in obs.items() if k != "verdicts"} for name, obs in want.items()}
    assert summary == wanted
    assert {n: g["verdicts"] for n, g in got.items()} == {n: w["verdicts"] for n, w in want.items()}


def test_matrix_covers_every_fault_kind(matrix_cases):
    from cowork_judge.sim import FAULT_KINDS

    absorbed = {c.name.split(":", 1)[1] for c in matrix_cases if c.name.startswith("absorbed")}
    failing = {c.name.split(":", 1)[1] for c in matrix_cases if c.name.startswith(("absorbed-then-failing:", "persistent:"))}
    assert failing == set(FAULT_KINDS)
    assert absorbed == set(FAULT_KINDS) - {"insufficient_quota"}  # no credit is never absorbed
    assert len(AGENTIC) >= 5 and len(BLOCKS) >= 3  # enough rows and blocks for both sides of the systemic threshold
