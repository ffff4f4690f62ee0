"""The run deadline end to end: a hanging endpoint never keeps the judge past
``JUDGE_DEADLINE`` + 5 s (process exit, documents written), rows judged before the
deadline score, the rest are unjudged ``deadline`` (SPEC §11).

Both runs share the 20 s deadline of the issue and run side by side. The bound is a
functional requirement, measured from the subprocess start (so it includes interpreter
start-up, which the deadline also counts: JUDGE_DEADLINE runs from process start).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import jsonschema
from testkit import ROLLOUTS, agentic_example

from cowork_judge.core.rubric import load_rubric
from cowork_judge.core.scoring import ScoringPolicy, score
from cowork_judge.core.verdicts import Verdict
from cowork_judge.sim import FaultPlan
from reliability.matrix import AGENTIC, BATCH, BLOCKS, N_ROWS, SCHEMA, oracle

DEADLINE_SEC = 20
BOUND_SEC = DEADLINE_SEC + 5
PER_TIMEOUT_SEC = 6
"""The partial run's per-call limit: the second block spends its budget (2 × 6 s) and its
2 rows one single call each (6 s) from about 12 s on, so the last block cannot start before
the deadline (with 3 s, 5 rows in blocks of 2 left it room to start)."""


def test_hanging_endpoint_ends_within_the_deadline(judge_run, tmp_path):
    answers = oracle()
    tests = agentic_example(tmp_path / "tests")
    every_request_hangs = dict(
        # JUDGE_PER_TIMEOUT stays 150 s: only cancellation ends the calls
        env={"JUDGE_DEADLINE": str(DEADLINE_SEC), "JUDGE_EVIDENCE": "0", "JUDGE_BATCH": str(BATCH)},
        sim={"faults": FaultPlan({"hang": 1.0}, hang_seconds=3600)},
    )
    first_block_then_hang = dict(
        env={"JUDGE_DEADLINE": str(DEADLINE_SEC), "JUDGE_EVIDENCE": "0", "JUDGE_PER_TIMEOUT": str(PER_TIMEOUT_SEC), "JUDGE_CONCURRENCY": "1",
             "JUDGE_RETRY_BACKOFF_MAX": "1", "JUDGE_BATCH": str(BATCH)},
        sim={"faults": FaultPlan({"hang": 1.0}, script=["ok", "ok"], hang_seconds=3600)},
    )
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda kw: judge_run(tests, ROLLOUTS / "deck", oracle=answers, timeout=60, **kw),
                             [every_request_hangs, first_block_then_hang]))
    for run in runs:
        settle = time.monotonic() + 5
        while run.sim.in_flight and time.monotonic() < settle:  # the server logs a hang once it sees the client gone
            time.sleep(0.05)
        assert run.seconds <= BOUND_SEC, f"the judge ran {run.seconds:.1f} s with JUDGE_DEADLINE={DEADLINE_SEC}"
        assert run.seconds >= DEADLINE_SEC - 1  # it did wait for the endpoint until the deadline
        jsonschema.validate(run.doc, SCHEMA)
        assert float(run.reward_text) == run.doc["task_score"]
        assert run.doc["exit_code"] == "judge:timeout" and run.doc["extra_fields"]["judge_error_kind"] == "deadline"
        assert run.sim.errors == []
        assert "Traceback" not in run.stderr

    hung, partial = runs
    ef = hung.doc["extra_fields"]
    agentic = {c.id for c in AGENTIC}
    assert {r["id"]: r["error_kind"] for r in hung.doc["results"] if r["id"] in agentic} == dict.fromkeys(agentic, "deadline")
    assert ef["judge_coverage"] == (N_ROWS - len(AGENTIC)) / N_ROWS
    assert ef["judge_calls"] == 2 == len(hung.sim.log)  # the two first-wave calls, cancelled at the deadline
    assert all(e.fault == "hang" and e.duration_s < DEADLINE_SEC + 1 for e in hung.sim.log)  # the client left

    # the first block was judged before the endpoint hung: its rows score as judged
    results = {r["id"]: r for r in partial.doc["results"]}
    first = {c.id for c in BLOCKS[0]}
    assert all(results[i]["judged"] and results[i]["hit"] == answers[i]["hit"] for i in first)
    later = [c.id for rows in BLOCKS[1:] for c in rows]
    assert {results[i]["error_kind"] for i in later} <= {"timeout", "deadline"}
    assert all(results[i]["error_kind"] == "deadline" for i in (c.id for c in BLOCKS[-1]))  # never started
    assert partial.doc["extra_fields"]["judge_coverage"] == (N_ROWS - len(later)) / N_ROWS
    # the second block timed out twice (its budget) and was then re-judged row by row until the deadline
    second = [e for e in partial.sim.log if e.row_ids == [c.id for c in BLOCKS[1]]]
    singles = [e for e in partial.sim.log if len(e.row_ids) == 1]
    assert len(second) == 2 and 1 <= len(singles) <= len(BLOCKS[1])
    assert all(e.duration_s < PER_TIMEOUT_SEC + 0.5 for e in [*second, *singles])  # each call cut at JUDGE_PER_TIMEOUT or the deadline
    # the reward is the score of exactly these verdicts (judged rows count, the rest per policy)
    criteria = load_rubric(tests / "rubric.json").criteria
    verdicts = {i: Verdict(id=i, hit=r["hit"], level=r["level"], judged=r["judged"], error_kind=r["error_kind"],
                           method=r["method"], reason=r["reason"]) for i, r in results.items()}
    assert partial.doc["task_score"] == score(criteria, verdicts, ScoringPolicy(), judged_ok=False).reward
