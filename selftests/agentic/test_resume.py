"""A block attempt that fails on a model call is resumed by the next attempt: the call is
re-sent, the turns already answered are not (checked at the simulator)."""

from __future__ import annotations

from testkit import SIM_KEY, make_ctx, judge_agentic_alone

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

ROWS = normalize_rubric([{"id": "R1", "description": "the report states fact 1", "weight": 1},
                         {"id": "R2", "description": "the report states fact 2", "weight": 1}]).criteria
ORACLE = OraclePolicy.from_dict({"R1": {"hit": True}, "R2": {"hit": False}})


def judge(tmp_path, script):
    env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_START_JITTER": "0", "JUDGE_RETRY_BACKOFF_MAX": "1"}
    with SimServer(ORACLE, api_key=SIM_KEY, faults=FaultPlan(script=script), tool_rounds=1) as sim:
        ctx = make_ctx(tmp_path, {"report.md": "fact 1"}, env={**env, "JUDGE_BASE_URL": sim.url})
        verdicts = judge_agentic_alone(ROWS, ctx)
        return verdicts, [(e.kind, e.fault) for e in sorted(sim.log.entries(), key=lambda e: e.seq)]


def test_a_rate_limited_verdict_turn_is_resent_alone(tmp_path):
    verdicts, calls = judge(tmp_path, ["ok", "http_429"])
    assert {k: v.hit for k, v in verdicts.items()} == {"R1": True, "R2": False}
    # tool turn, the verdict turn refused, the verdict turn again: the tool turn is not repeated
    assert calls == [("tool", None), ("fault", "http_429"), ("final", None)]
    # re-sent in place: a refusal at admission is not a failed attempt (issue 29; it was 2)
    assert all(v.attempts == 1 for v in verdicts.values())


def test_an_unusable_reply_starts_the_next_attempt_afresh(tmp_path):
    verdicts, calls = judge(tmp_path, ["ok", "malformed_json"])
    assert all(v.judged for v in verdicts.values())
    assert calls == [("tool", None), ("fault", "malformed_json"), ("tool", None), ("final", None)]
