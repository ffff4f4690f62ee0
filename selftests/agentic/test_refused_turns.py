"""A turn the endpoint refuses at admission (HTTP 429) is re-sent in place — the same
attempt, the same conversation — through the run's one retry loop; a RANDOM refusal (its
own rate-limit headers show capacity left) waits its ``Retry-After`` without the herd's
spread, and its block lends its lane to another block meanwhile (issue 29). The real
``openai`` client against the simulator; orders and counts are read at the simulator,
waits from the policy's own draws: nothing is timed."""

from __future__ import annotations

import random

from testkit import SIM_KEY, make_ctx, judge_agentic_alone

from cowork_judge.core.retry import RANDOM_REFUSAL_JITTER, RetryPolicy
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

ROWS = normalize_rubric([{"id": "R1", "description": "the report states fact 1", "weight": 1},
                         {"id": "R2", "description": "the report states fact 2", "weight": 1}]).criteria
ORACLE = OraclePolicy.from_dict({"R1": {"hit": True}, "R2": {"hit": False}})
HITS = {"R1": True, "R2": False}


def judge(tmp_path, faults: FaultPlan, *, rpm: float | None = None, tool_rounds: int = 1, **knobs: str):
    env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_START_JITTER": "0", "JUDGE_RETRY_BACKOFF_MAX": "2", **knobs}
    with SimServer(ORACLE, api_key=SIM_KEY, faults=faults, tool_rounds=tool_rounds, rpm=rpm) as sim:
        ctx = make_ctx(tmp_path, {"report.md": "fact 1"}, env={**env, "JUDGE_BASE_URL": sim.url})
        verdicts = judge_agentic_alone(ROWS, ctx)
        entries = sorted(sim.log.entries(), key=lambda e: e.seq)
        return verdicts, entries, ctx


def audit(ctx, name: str) -> list[dict]:
    import json

    path = ctx.paths.audit_dir / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


# --------------------------------------------------------------------------- 1: in place


def test_refused_turns_are_re_sent_in_place_and_cost_no_attempt(tmp_path):
    """Seeded random 429s (seed 51 refuses the 1st, 3rd and 5th request) over a three-turn
    conversation, JUDGE_MAX_TRIES=2, no resplit: each refused turn is re-sent in the same
    attempt and the block is judged in ONE attempt. Before, each refusal failed an attempt
    of the block: the second refusal used up its tries and both rows were lost."""
    draws = random.Random(51)
    assert [draws.random() < 0.5 for _ in range(6)] == [True, False, True, False, True, False]  # the plan's draws
    verdicts, entries, ctx = judge(tmp_path, FaultPlan({"http_429": 0.5}, seed=51), tool_rounds=2,
                                   JUDGE_MAX_TRIES="2", JUDGE_RESPLIT="0", JUDGE_BATCH="2")
    assert {k: v.hit for k, v in verdicts.items()} == HITS
    assert all(v.judged and v.attempts == 1 for v in verdicts.values())
    assert [(e.kind, e.fault) for e in entries] == [("fault", "http_429"), ("tool", None), ("fault", "http_429"),
                                                   ("tool", None), ("fault", "http_429"), ("final", None)]
    assert ctx.stats.by_kind == {"rate_limit": 3}  # each refusal counted once
    records = audit(ctx, "block-01/attempt-1")
    failed = [r for r in records if "failed" in r]
    assert [(r["turn"], r["send"], r["failed"]) for r in failed] == [(1, 1, "rate_limit"), (2, 1, "rate_limit"),
                                                                     (3, 1, "rate_limit")]
    assert [r["turn"] for r in records if "reply" in r] == [1, 2, 3]  # one conversation: every turn answered once
    assert not (ctx.paths.audit_dir / "block-01" / "attempt-2.jsonl").exists()


def test_a_turn_refused_more_than_its_tries_ends_the_block_once(tmp_path):
    """Every request refused, JUDGE_MAX_TRIES=3, no resplit: the first turn is sent three
    times, then the block ends (rate_limit) — no further block attempt re-sends it three
    times more, and each refusal is counted once."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan({"http_429": 1.0}), JUDGE_MAX_TRIES="3", JUDGE_RESPLIT="0",
                                   JUDGE_BATCH="2")
    assert len(entries) == 3 and ctx.stats.by_kind == {"rate_limit": 3}
    assert all(v.error_kind == "rate_limit" and v.attempts == 1 for v in verdicts.values())
    assert verdicts["R1"].reason.startswith("rate_limit after 3 send(s) of turn 1 in attempt 1:")


def test_a_turn_whose_tries_only_random_refusals_used_up_fails_its_attempt_not_its_block(tmp_path):
    """Headers show capacity left (a 6000/min bucket), JUDGE_MAX_TRIES=2, no resplit: the
    verdict turn is refused twice at random — its sends are used up by bad luck, not by the
    key's limit — so attempt 1 fails and attempt 2 goes on from that turn (the conversation
    is resumed): both rows judged in two attempts, no resplit, each refusal counted once."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["ok", "http_429", "http_429"]), rpm=6000,
                                   JUDGE_MAX_TRIES="2", JUDGE_RESPLIT="0", JUDGE_BATCH="2")
    assert {k: v.hit for k, v in verdicts.items()} == HITS
    assert all(v.judged and v.attempts == 2 for v in verdicts.values())
    assert [(e.kind, e.fault) for e in entries] == [("tool", None), ("fault", "http_429"), ("fault", "http_429"),
                                                   ("final", None)]
    assert ctx.stats.by_kind == {"rate_limit": 2} and ctx.limiter.random_refusals == 2


def test_refusals_that_only_look_random_end_the_block_after_one_more_attempt(tmp_path):
    """Every request after the tool turn refused, headers still showing capacity (a stale
    bucket, a gateway's own concurrency limit): the block goes on once (LUCK_PER_LOOP), then
    ends — 2 × JUDGE_MAX_TRIES sends of the turn, not JUDGE_MAX_TRIES²."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["ok"] + ["http_429"] * 12), rpm=6000,
                                   JUDGE_MAX_TRIES="3", JUDGE_RESPLIT="0", JUDGE_BATCH="2")
    assert all(v.error_kind == "rate_limit" and v.attempts == 2 for v in verdicts.values())
    assert [e.kind for e in entries] == ["tool"] + ["fault"] * 6
    assert ctx.stats.by_kind == {"rate_limit": 6}


def test_the_same_refusals_without_headers_end_the_block(tmp_path):
    """The same script without rate-limit headers: nothing says the refusals are random (the
    key may be spent), so the used-up sends end the block, as before: rate_limit, one attempt."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["ok", "http_429", "http_429"]), JUDGE_MAX_TRIES="2",
                                   JUDGE_RESPLIT="0", JUDGE_BATCH="2")
    assert all(v.error_kind == "rate_limit" and v.attempts == 1 for v in verdicts.values())
    assert [e.kind for e in entries] == ["tool", "fault", "fault"]


def test_the_wait_in_place_is_not_attempt_time(tmp_path):
    """A turn refused three times waits three Retry-After of 1 s inside its attempt, whose
    own time is 1.5 s (JUDGE_PER_TIMEOUT): the waits pause the attempt's clock, so the
    attempt is not cut off as a timeout (the model answers at once)."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["ok", "http_429", "http_429", "http_429"]),
                                   JUDGE_PER_TIMEOUT="1.5", JUDGE_RETRY_BACKOFF_MAX="1", JUDGE_BATCH="2")
    assert all(v.judged and v.attempts == 1 for v in verdicts.values())
    assert [e.kind for e in entries] == ["tool", "fault", "fault", "fault", "final"]
    assert ctx.stats.by_kind == {"rate_limit": 3}
    assert entries[-1].start_s - entries[1].end_s >= 3 * 1.0 - 0.05  # the three asks were honoured


def test_other_failures_stay_with_the_block_loop(tmp_path):
    """A 5xx on the verdict turn fails the attempt (the failure table retries it after 1 s);
    the next attempt resumes the conversation at that turn."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["ok", "http_5xx"]), JUDGE_BATCH="2")
    assert {k: v.hit for k, v in verdicts.items()} == HITS and all(v.attempts == 2 for v in verdicts.values())
    assert [(e.kind, e.fault) for e in entries] == [("tool", None), ("fault", "http_5xx"), ("final", None)]
    assert ctx.stats.by_kind == {"api_error": 1}


# --------------------------------------------------------------------------- 2: a random refusal's wait


def _spy_waits(monkeypatch) -> list[tuple[bool, float]]:
    seen: list[tuple[bool, float]] = []
    real = RetryPolicy.wait_sec

    def spy(self, kind, backoffs, rng, asked_sec=None, *, herd=True):
        wait = real(self, kind, backoffs, rng, asked_sec, herd=herd)
        seen.append((herd, wait))
        return wait

    monkeypatch.setattr(RetryPolicy, "wait_sec", spy)
    return seen


def test_a_random_refusal_waits_its_retry_after_and_at_most_a_small_jitter(tmp_path, monkeypatch):
    """Replies carry the headers of a bucket that never refuses (6000/min): the fault plan's
    429s show capacity left, so the limiter judges them random and each retry waits the
    server's 1 s plus at most 5 % — not the herd's up-to-50 %, doubling."""
    seen = _spy_waits(monkeypatch)
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["http_429", "http_429", "ok", "http_429"]), rpm=6000,
                                   JUDGE_BATCH="2")
    assert {k: v.hit for k, v in verdicts.items()} == HITS
    assert [herd for herd, _ in seen] == [False, False, False]
    assert all(1.0 <= wait <= 1.0 * (1 + RANDOM_REFUSAL_JITTER) for _, wait in seen)
    assert ctx.limiter.random_refusals == 3 and ctx.limiter.events == 0
    assert all(r.get("random_refusal") is True for r in audit(ctx, "block-01/attempt-1") if "failed" in r)


def test_a_refusal_without_headers_keeps_the_herds_spread(tmp_path, monkeypatch):
    """No rate-limit headers: nothing tells the refusal from the key's limit, so its wait
    keeps the upward spread (a seeded draw above 1 s + 5 % shows it is drawn from it)."""
    seen = _spy_waits(monkeypatch)
    verdicts, _, ctx = judge(tmp_path, FaultPlan(script=["http_429"]), JUDGE_BATCH="2")
    assert all(v.judged for v in verdicts.values())
    assert [herd for herd, _ in seen] == [True]
    assert ctx.limiter.random_refusals == 0
    draws = [RetryPolicy(backoff_max_sec=2.0).wait_sec("rate_limit", 1, random.Random(s), 1.0) for s in range(50)]
    assert max(draws) > 1.0 * (1 + RANDOM_REFUSAL_JITTER)


# --------------------------------------------------------------------------- 3: the lane


def test_a_block_waiting_out_a_random_refusal_lends_its_lane(tmp_path):
    """JUDGE_CONCURRENCY=1, one row a block. block-01's first request is refused at random:
    while it waits, block-02 is judged in the lane; block-01 then takes a lane back. Never
    more than one request in flight."""
    verdicts, entries, ctx = judge(tmp_path, FaultPlan(script=["http_429"]), rpm=6000, JUDGE_CONCURRENCY="1",
                                   JUDGE_BATCH="1")
    assert {k: v.hit for k, v in verdicts.items()} == HITS
    assert [(e.kind, e.row_ids) for e in entries] == [("fault", ["R1"]), ("tool", ["R2"]), ("final", ["R2"]),
                                                     ("tool", ["R1"]), ("final", ["R1"])]
    assert max(sum(1 for o in entries if o.start_s < e.end_s and e.start_s < o.end_s) for e in entries) == 1


def test_a_refusal_that_may_be_the_keys_limit_keeps_the_lane(tmp_path):
    """The same refusal without headers: the block keeps its lane (the lane slows a run
    whose key may be spent), so block-02 waits for block-01."""
    verdicts, entries, _ = judge(tmp_path, FaultPlan(script=["http_429"]), JUDGE_CONCURRENCY="1", JUDGE_BATCH="1")
    assert all(v.judged for v in verdicts.values())
    assert [(e.kind, e.row_ids) for e in entries] == [("fault", ["R1"]), ("tool", ["R1"]), ("final", ["R1"]),
                                                     ("tool", ["R2"]), ("final", ["R2"])]


# --------------------------------------------------------------------------- the cap under random refusals


def test_requests_in_flight_never_exceed_judge_concurrency_under_random_refusals(tmp_path):
    """Issue 39, item 23: ``bench/peers.py`` was reported once at 6 requests in flight with the
    default JUDGE_CONCURRENCY=2 under 30 % random 429s. Blocks that wait out a random refusal
    lend their lane and take one back BEFORE they send again, so requests in flight never
    exceed JUDGE_CONCURRENCY: 16 rows in 8 blocks, seeded 30 % random 429s (a 6000/min bucket:
    capacity left), 40 ms per answer, the real client; the peak is read at the simulator
    (``RequestLog.max_in_flight``, every request from its arrival to its answer)."""
    from cowork_judge.sim import LatencyModel

    rows = normalize_rubric([{"id": f"R{i:02d}", "description": f"the report states fact {i}", "weight": 1}
                             for i in range(1, 17)]).criteria
    oracle = OraclePolicy.from_dict({r.id: {"hit": i % 3 != 0} for i, r in enumerate(rows)})
    for concurrency, seed in ((2, 1), (3, 4)):
        env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_START_JITTER": "0", "JUDGE_BATCH": "2",
               "JUDGE_CONCURRENCY": str(concurrency), "JUDGE_RETRY_BACKOFF_MAX": "2"}
        with SimServer(oracle, api_key=SIM_KEY, faults=FaultPlan({"http_429": 0.3}, seed=seed), rpm=6000,
                       latency=LatencyModel.uniform(40)) as sim:
            ctx = make_ctx(tmp_path / f"c{concurrency}", {"report.md": "facts"}, env={**env, "JUDGE_BASE_URL": sim.url})
            verdicts = judge_agentic_alone(rows, ctx)
            refused = sim.log.count(fault="http_429")
            peak = sim.log.max_in_flight()
        assert all(v.judged for v in verdicts.values()), {k: v.reason for k, v in verdicts.items() if not v.judged}
        assert refused >= 3, refused  # random refusals happened, and their blocks lent their lanes
        assert ctx.limiter.random_refusals >= 3  # judged random: capacity left in their own headers
        assert 2 <= peak <= concurrency, (concurrency, peak)  # blocks ran side by side, never past the setting
