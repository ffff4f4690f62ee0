"""The example instance judged by the real command line against a faulty simulator: the
cases of the fault matrix and what each one must produce (SPEC §11, §12, §20).

The runs judge the example's code and agentic rows (`testkit.agentic_example`: its
ppt_judge rows judge the rendered deck, which these runs do not build). The expectations
are derived from those rows (the agentic ones cut into blocks of ``JUDGE_BATCH`` = 2, so
that the example's 5 agentic rows make 3 blocks: both sides of the systemic threshold)
and from the simulator's protocol: a fault-free block attempt is two calls (one tool
turn, then the verdicts). Blocks run one at a time (``JUDGE_CONCURRENCY=1``) so a
scripted fault sequence hits known requests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from testkit import EXAMPLE_TESTS

from cowork_judge.agentic.scheduler import split_blocks
from cowork_judge.core.consequences import CONSEQUENCES
from cowork_judge.core.rubric import load_rubric
from cowork_judge.sim import FAULT_KINDS, FaultPlan

CRITERIA = [c for c in load_rubric(EXAMPLE_TESTS / "rubric.json").criteria if c.workflow.name != "ppt_judge"]
"""The rows of `testkit.agentic_example`: the example's code and agentic rows."""
AGENTIC = [c for c in CRITERIA if c.judge_method == "agentic"]
BATCH = 2
BLOCKS = [rows for _, rows in split_blocks(AGENTIC, BATCH)]
N_ROWS = len(CRITERIA)
CALLS_PER_ATTEMPT = 2
"""A successful attempt against the simulator: one tool turn, one verdict turn."""
BASE_CALLS = CALLS_PER_ATTEMPT * len(BLOCKS)
SCHEMA = json.loads(resources.files("cowork_judge").joinpath("schemas/result.schema.json").read_text())

BASE_ENV = {
    "JUDGE_CONCURRENCY": "1",
    "JUDGE_BATCH": str(BATCH),
    "JUDGE_PER_TIMEOUT": "5",  # generous for a passing attempt on a loaded machine; hang cases set their own
    "JUDGE_RETRY_BACKOFF_MAX": "1",
    "JUDGE_START_JITTER": "0",
    "JUDGE_EVIDENCE": "0",  # deck rendering is not what these runs measure
}
"""Small limits so the matrix is quick; backoff waits shortened only through the knob."""
HANG_PER_TIMEOUT = "2"
"""JUDGE_PER_TIMEOUT of the hang cases: each hung try costs this many seconds, and a
passing try must fit in it even on a loaded machine."""


def oracle() -> dict[str, dict[str, Any]]:
    """Fixed answers for the agentic rows (misses and levels mixed; no hurdle hit).

    Every reason is long, so a reply the simulator truncates in the middle of a verdict
    row (``truncated_json``) is always cut inside the reason, which comes before the row's
    hit and level (issue 37): that row has no verdict and is asked again.
    """
    out: dict[str, dict[str, Any]] = {}
    for i, c in enumerate(AGENTIC):
        reason = f"oracle answer for {c.id}: " + "the deck was read slide by slide and compared with the row. " * 2
        if c.hurdle:
            out[c.id] = {"hit": False, "reason": reason}
        elif c.weight < 0:
            out[c.id] = {"hit": True, "reason": reason}
        elif c.level_choices:
            out[c.id] = {"hit": True, "level": c.level_choices[len(c.level_choices) // 2], "reason": reason}
        else:
            out[c.id] = {"hit": i % 3 != 1, "reason": reason}
    return out


RATE_LIMIT_FAULTS = ("http_429", "quota_exceeded_text", "rate_text", "stream_rate_limit", "stream_disconnect")
API_ERROR_FAULTS = ("http_5xx", "stream_abort", "reset", "echo_key")
PARSE_FAULTS = ("malformed_json", "empty", "unknown_ids")


@dataclass(frozen=True)
class Expect:
    """What a case must produce."""

    unjudged: frozenset[str]
    """Ids of the rows left unjudged; each carries `error_kind`."""
    error_kind: str | None
    exit_code: str | None
    calls: int
    """HTTP requests = ``judge_calls``; -1: whatever the simulator counted (rate-drawn faults)."""
    same_reward: bool
    """The reward equals the fault-free reward."""

    @property
    def coverage(self) -> float:
        return (N_ROWS - len(self.unjudged)) / N_ROWS


@dataclass
class Case:
    name: str
    faults: FaultPlan
    expect: Expect
    env: dict[str, str] = field(default_factory=dict)

    def run_env(self) -> dict[str, str]:
        return {**BASE_ENV, **self.env}


NOTHING_LOST = frozenset()


def ids(blocks: list[list[Any]]) -> frozenset[str]:
    return frozenset(c.id for rows in blocks for c in rows)


def _systemic_exit(kind: str, unjudged: frozenset[str]) -> str | None:
    """The exit_code a run with `unjudged` rows of `kind` must carry (SPEC §11 defaults; docs/scoring.md
    "Systemic failure"): the share of rows (rule 1), a judge-side kind that applied a hurdle or a deduction
    under the default ``JUDGE_UNJUDGED_NEGATIVE=deduct`` (rule 3), or no model row answered (rule 4)."""
    consequence = CONSEQUENCES[kind]
    share = len(unjudged) / N_ROWS > 0.4 and len(unjudged) >= 2
    applied = consequence.judge_side and any(c.hurdle or c.weight < 0 for c in CRITERIA if c.id in unjudged)
    none_answered = (consequence.judge_side and consequence.systemic_exit_code != "judge:scorer_error"
                     and all(c.id in unjudged for c in CRITERIA if c.judge_method != "code"))
    return consequence.systemic_exit_code if share or applied or none_answered else None


def _kind_of(fault: str) -> str:
    for kinds, err in ((RATE_LIMIT_FAULTS, "rate_limit"), (API_ERROR_FAULTS, "api_error"), (PARSE_FAULTS, "parse_error")):
        if fault in kinds:
            return err
    return {"hang": "timeout", "insufficient_quota": "insufficient_quota"}[fault]


def _failing_block_calls(rows: list[Any], fault: str, tries: int, *, resplit: bool = True) -> int:
    """Requests a block makes when every request fails: its tries, then its resplit (a row
    alone gets one try of JUDGE_PER_TIMEOUT when it hangs; a row still rate limited stops
    the resplit)."""
    calls = tries
    if resplit and len(rows) > 1:
        if _kind_of(fault) == "rate_limit":
            calls += tries
        else:
            calls += len(rows) * (1 if fault == "hang" else tries)
    return calls


def _absorbed_then_failing(fault: str) -> Case:
    """The first block absorbs one fault (its first try fails, its retry passes), then every
    request fails: the other blocks fail for good after their tries and their resplit
    (``JUDGE_MAX_TRIES=2``). The first block keeps its fault-free verdicts; the rest is a
    systemic failure by the default threshold."""
    env = {"JUDGE_MAX_TRIES": "2"}
    if fault == "hang":
        # a block burns its budget (2 × JUDGE_PER_TIMEOUT) in two tries; resplit under hangs is
        # covered by the deadline test, so it is off here to keep the case short
        env.update(JUDGE_PER_TIMEOUT=HANG_PER_TIMEOUT, JUDGE_RESPLIT="0")
    resplit = fault != "hang"
    calls = 1 + CALLS_PER_ATTEMPT + sum(_failing_block_calls(rows, fault, 2, resplit=resplit) for rows in BLOCKS[1:])
    unjudged = ids(BLOCKS[1:])
    kind = _kind_of(fault)
    plan = FaultPlan({fault: 1.0}, script=[fault] + ["ok"] * CALLS_PER_ATTEMPT, hang_seconds=600)
    return Case(f"absorbed-then-failing:{fault}", plan, Expect(unjudged, kind, _systemic_exit(kind, unjudged), calls, False), env)


def _truncated(persistent: bool) -> Case:
    """Replies cut inside their 2nd verdict row (a single row's: inside its reason). The reason
    comes before the verdict (issue 37), so the cut row has no verdict yet: the parser salvages
    the rows written before it, and the cut row and the rest are re-judged alone. Persistent
    truncation cuts every re-ask of a single row inside its reason too: those rows end unjudged
    (`parse_error`), the first row of each block is kept."""
    if persistent:
        lost = frozenset(c.id for rows in BLOCKS for c in rows[1:]) | frozenset(rows[0].id for rows in BLOCKS if len(rows) == 1)
        return Case("persistent:truncated_json", FaultPlan({"truncated_json": 1.0}),
                    Expect(lost, "parse_error", _systemic_exit("parse_error", lost), -1, False))
    calls = BASE_CALLS - CALLS_PER_ATTEMPT + 1 + CALLS_PER_ATTEMPT * max(0, len(BLOCKS[0]) - 1)
    return Case("absorbed:truncated_json", FaultPlan(script=["truncated_json"]), Expect(NOTHING_LOST, None, None, calls, True))


def _last_block_fails(fault: str) -> Case:
    """Every block but the last is judged, then every request fails: a partial degradation below the
    share of rule 1 (exit_reason and coverage), systemic all the same when that block holds a hurdle or a
    deduction the outage applied (rule 3, `_systemic_exit`)."""
    env = {"JUDGE_MAX_TRIES": "1"}
    if fault == "hang":
        env["JUDGE_PER_TIMEOUT"] = HANG_PER_TIMEOUT
    ok_calls = BASE_CALLS - CALLS_PER_ATTEMPT
    unjudged = ids(BLOCKS[-1:])
    kind = _kind_of(fault)
    expect = Expect(unjudged, kind, _systemic_exit(kind, unjudged), ok_calls + _failing_block_calls(BLOCKS[-1], fault, 1), False)
    return Case(f"partial:{fault}", FaultPlan({fault: 1.0}, script=["ok"] * ok_calls), expect, env)


def _blocks_fail(failing: list[int]) -> Case:
    """Blocks with the given indexes fail for good (5xx), the others pass: which side of
    ``JUDGE_SYSTEMIC_FRACTION`` (0.4) the unjudged share falls on decides the exit_code."""
    script: list[str] = []
    for i, rows in enumerate(BLOCKS):
        script += ["http_5xx"] * _failing_block_calls(rows, "http_5xx", 1) if i in failing else ["ok"] * CALLS_PER_ATTEMPT
    unjudged = ids([BLOCKS[i] for i in failing])
    expect = Expect(unjudged, "api_error", _systemic_exit("api_error", unjudged), len(script), False)
    return Case(f"blocks-fail:{','.join(map(str, failing))}", FaultPlan(script=script), expect, {"JUDGE_MAX_TRIES": "1"})


def cases() -> list[Case]:
    """The whole matrix: every fault kind, absorbed and failing, plus the systemic boundary."""
    out = [Case("fault-free", FaultPlan(), Expect(NOTHING_LOST, None, None, BASE_CALLS, True))]
    failing = [k for k in FAULT_KINDS if k not in ("insufficient_quota", "truncated_json")]
    slowest_first = sorted(failing, key=lambda k: ({"timeout": 0, "rate_limit": 2}.get(_kind_of(k), 1), k))
    out += [_absorbed_then_failing(k) for k in slowest_first]
    out += [_truncated(persistent=False), _truncated(persistent=True)]
    # no credit: the very first call ends the whole run, whatever the rest would have said
    out.append(Case("persistent:insufficient_quota", FaultPlan({"insufficient_quota": 1.0}),
                    Expect(ids(BLOCKS), "insufficient_quota", "judge:api_error", 1, False)))
    # retries absorb transient faults by rate (seeded; blocks run one at a time): nothing lost
    out.append(Case("rate:http_429=0.3", FaultPlan({"http_429": 0.3}, seed=5), Expect(NOTHING_LOST, None, None, -1, True)))
    mixed = {"http_429": 0.1, "stream_rate_limit": 0.1, "http_5xx": 0.05, "reset": 0.05}
    out.append(Case("rate:mixed=0.3", FaultPlan(mixed, seed=2), Expect(NOTHING_LOST, None, None, -1, True)))
    # below and above JUDGE_SYSTEMIC_FRACTION: exit_reason only, or an exit_code too
    out += [_last_block_fails(k) for k in ("http_429", "hang")]
    out += [_blocks_fail([0]), _blocks_fail([0, len(BLOCKS) - 1])]
    return out
