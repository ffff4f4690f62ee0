"""The scoring core: golden vectors, the policy grid, gates, hurdles, fallback, snapping."""

from __future__ import annotations

import json
import math

import pytest

from cowork_judge.authoring.importers import paperbench
from cowork_judge.core.rubric import ROUTING_FIELDS, normalize_rubric
from cowork_judge.core.scales import snap_level
from cowork_judge.core.scoring import ScoringError, ScoringPolicy, check_scorable, score
from cowork_judge.core.verdicts import Verdict


def rows(*raw: dict) -> tuple:
    return normalize_rubric(list(raw)).criteria


def hit(row_id: str, value: bool, level: float | None = None) -> Verdict:
    return Verdict(id=row_id, hit=value, level=level, judged=True)


def unjudged(row_id: str) -> Verdict:
    return Verdict.unjudged(row_id, "timeout", "no answer")


def verdicts(*vs: Verdict) -> dict[str, Verdict]:
    return {v.id: v for v in vs}


# --------------------------------------------------------------------------- golden vectors


def test_healthbench_golden_vector():
    crit = rows(*({"id": f"h{i}", "criterion": f"c{i}", "points": p} for i, p in enumerate([7, 5, 10, -6])))
    out = score(crit, verdicts(hit("h0", True), hit("h1", False), hit("h2", True), hit("h3", True)))
    assert out.score_raw == pytest.approx(0.5, abs=1e-12)
    assert out.reward == pytest.approx(0.5, abs=1e-12)
    assert out.weight_total == 22 and out.earned == 11


@pytest.mark.parametrize("name", ["semantic-self-consistency.json", "stay-on-topic-with-classifier-free-guidance.json"])
def test_paperbench_tree_reproduces_root_score(fixtures_dir, name):
    tree = json.loads((fixtures_dir / "paperbench" / name).read_text())
    flat = paperbench.flatten(tree)
    crit = normalize_rubric(flat).criteria
    vs = {r["id"]: Verdict(id=r["id"], hit=r["paperbench_score"] >= 0.5, judged=True) for r in flat}
    assert all(r["paperbench_score"] in (0.0, 1.0) for r in flat)
    out = score(crit, vs)
    assert math.isclose(out.weight_total, 1.0, abs_tol=1e-12)
    assert abs(out.score_raw - tree["score"]) < 1e-9
    assert abs(out.reward - tree["score"]) < 1e-9


def test_clawgym_level_table_equals_plain_mean():
    table = {"0": "none", "0.25": "a little", "0.5": "half", "0.75": "most", "1": "all"}
    crit = normalize_rubric({"items": [{"id": f"c{i}", "criterion": f"q{i}", "scores": table} for i in range(5)]}).criteria
    levels = [1.0, 0.75, 0.25, 0.5, 0.0]
    out = score(crit, {f"c{i}": hit(f"c{i}", lv > 0, lv) for i, lv in enumerate(levels)})
    assert out.weight_fallback is True
    assert out.reward == pytest.approx(sum(levels) / len(levels), abs=1e-12)
    assert all(c.type == "gradient" and c.level_choices == (0.0, 0.25, 0.5, 0.75, 1.0) for c in crit)


# --------------------------------------------------------------------------- the grid

# policy × weight sign × verdict state → contribution of the single row under test, next to a
# +10 anchor row that always hits (so W = 10 + max(w, 0)).
GRID = [
    # weight, hurdle, verdict, unjudged_negative, expected E, expected fatal, expected counted_hit
    (4, False, "hit", "deduct", 14, False, True),
    (4, False, "miss", "deduct", 10, False, False),
    (4, False, "unjudged", "deduct", 10, False, False),
    (4, False, "unjudged", "ignore", 10, False, False),
    (-4, False, "hit", "deduct", 6, False, True),
    (-4, False, "miss", "deduct", 10, False, False),
    (-4, False, "unjudged", "deduct", 6, False, True),  # outage must not raise rewards
    (-4, False, "unjudged", "ignore", 10, False, False),
    (0, True, "hit", "deduct", 10, True, True),
    (0, True, "miss", "deduct", 10, False, False),
    # SPEC §4 changed for 0.2.0: an unjudged hurdle is fatal under "deduct" (it used to be
    # "not fatal", which let a failed hurdle block turn a fatal 0 into 1.0), a miss under "ignore"
    (0, True, "unjudged", "deduct", 10, True, True),
    (0, True, "unjudged", "ignore", 10, False, False),
    (0, True, "no verdict", "deduct", 10, True, True),
    (3, True, "hit", "deduct", 10, True, True),  # hurdle with w > 0: in W, never in E
    (3, True, "miss", "deduct", 10, False, False),
    (3, True, "unjudged", "deduct", 10, True, True),
    (3, True, "unjudged", "ignore", 10, False, False),
    (-2, True, "hit", "deduct", 10, True, True),  # hurdle never deducts
    (-2, True, "unjudged", "deduct", 10, True, True),
    (-2, True, "unjudged", "ignore", 10, False, False),
]


@pytest.mark.parametrize("weight,hurdle,state,policy,expected_e,fatal,counted", GRID)
def test_policy_grid(weight, hurdle, state, policy, expected_e, fatal, counted):
    crit = rows({"id": "anchor", "description": "a", "weight": 10}, {"id": "x", "description": "x", "weight": weight, "hurdle": hurdle})
    v = {"hit": [hit("x", True)], "miss": [hit("x", False)], "unjudged": [unjudged("x")], "no verdict": []}[state]
    out = score(crit, verdicts(hit("anchor", True), *v), ScoringPolicy(unjudged_negative=policy))
    w_total = 10 + max(weight, 0)
    assert out.earned == pytest.approx(expected_e)
    assert out.weight_total == pytest.approx(w_total)
    assert out.fatal is fatal
    assert out.rows[1].counted_hit is counted
    assert out.score_raw == pytest.approx(expected_e / w_total)
    assert out.reward == (0.0 if fatal else pytest.approx(min(1, max(0, expected_e / w_total))))


def test_a_failed_hurdle_block_cannot_turn_a_fatal_zero_into_full_marks():
    """The reported case: every content row hits, the hurdle's block failed (timeout)."""
    crit = rows(*({"id": f"c{i}", "description": "c", "weight": 1} for i in range(3)),
                {"id": "h", "description": "the deliverable is missing", "weight": 0, "hurdle": True})
    vs = verdicts(*(hit(f"c{i}", True) for i in range(3)), unjudged("h"))
    assert score(crit, vs).reward == 0.0 and score(crit, vs).fatal
    ignored = score(crit, vs, ScoringPolicy(unjudged_negative="ignore"))
    assert ignored.reward == 1.0 and not ignored.fatal


def test_missing_verdict_counts_as_unjudged():
    crit = rows({"id": "a", "description": "a", "weight": 2}, {"id": "n", "description": "n", "weight": -1})
    out = score(crit, {})
    assert out.earned == -1 and out.reward == 0.0 and out.score_raw == -0.5


def test_deductions_clamp_at_zero_and_keep_raw():
    crit = rows({"id": "a", "description": "a", "weight": 1}, {"id": "n", "description": "n", "weight": -5})
    out = score(crit, verdicts(hit("a", True), hit("n", True)))
    assert out.score_raw == -4.0 and out.score_normalized == 0.0


# --------------------------------------------------------------------------- gates


def test_gate_uses_raw_hit_of_dependency_and_is_not_transitive():
    crit = rows(
        {"id": "a", "description": "a", "weight": 1},
        {"id": "b", "description": "b", "weight": 1, "depends_on": ["a"]},
        {"id": "c", "description": "c", "weight": 1, "depends_on": ["b"]},  # not closed over "a"
    )
    out = score(crit, verdicts(hit("a", False), hit("b", True), hit("c", True)))
    by_id = {r.id: r for r in out.rows}
    assert by_id["b"].gate is False and by_id["b"].contribution == 0
    assert by_id["c"].gate is True and by_id["c"].contribution == 1  # raw hit of b
    assert out.weight_total == 3  # gated rows keep their weight in W


def test_dangling_dependency_closes_the_gate():
    crit = rows({"id": "a", "description": "a", "weight": 1, "depends_on": ["ghost"]}, {"id": "b", "description": "b", "weight": 1})
    out = score(crit, verdicts(hit("a", True), hit("b", True)))
    assert out.reward == 0.5
    # a stray verdict for the missing id (an old audit re-scored against an edited rubric)
    # does not open the gate
    out = score(crit, verdicts(hit("a", True), hit("b", True), hit("ghost", True)))
    assert out.reward == 0.5


def test_unjudged_dependency_closes_the_gate():
    crit = rows({"id": "a", "description": "a", "weight": 1}, {"id": "b", "description": "b", "weight": 1, "depends_on": ["a"]})
    out = score(crit, verdicts(unjudged("a"), hit("b", True)))
    assert out.reward == 0.0


def test_deductions_ignore_gates():
    crit = rows({"id": "a", "description": "a", "weight": 2}, {"id": "n", "description": "n", "weight": -1, "depends_on": ["a"]})
    out = score(crit, verdicts(hit("a", False), hit("n", True)))
    assert out.earned == -1


# --------------------------------------------------------------------------- fallback


def test_zero_weight_fallback_without_hurdle():
    crit = rows({"id": "a", "description": "a"}, {"id": "b", "description": "b", "weight": 0})
    out = score(crit, verdicts(hit("a", True), hit("b", False)))
    assert out.weight_fallback and out.reward == 0.5


def test_no_fallback_with_hurdle_is_scorer_error():
    crit = rows({"id": "a", "description": "a", "weight": 0}, {"id": "h", "description": "missing file", "weight": 0, "hurdle": True})
    with pytest.raises(ScoringError):
        check_scorable(crit)
    with pytest.raises(ScoringError):
        score(crit, verdicts(hit("a", True), hit("h", False)))


def test_only_negative_weights_is_scorer_error():
    crit = rows({"id": "n", "description": "n", "weight": -3})
    with pytest.raises(ScoringError):
        score(crit, {})


# --------------------------------------------------------------------------- gradient


GRADIENT = {"id": "g", "description": "g", "weight": 4, "type": "gradient", "levels": {"0": "-", "0.5": "-", "1": "-"}}


@pytest.mark.parametrize(
    "level,expected",
    [(0.5, 2.0), (0.74, 2.0), (0.75, 2.0), (0.76, 4.0), (0.25, 0.0), (0.26, 2.0), (1.0, 4.0), (None, 4.0)],
)
def test_gradient_snapping_ties_to_lower(level, expected):
    out = score(rows(GRADIENT), verdicts(hit("g", True, level)))
    assert out.earned == pytest.approx(expected)


def test_gradient_missing_level_falls_back_to_hit():
    assert score(rows(GRADIENT), verdicts(hit("g", False))).earned == 0
    assert score(rows(GRADIENT), verdicts(hit("g", True))).earned == 4


@pytest.mark.parametrize(
    "choices,value,expected",
    [  # decimal midpoints whose binary distances are not equal: the tie must still go low
        ((0.0, 0.3, 0.6, 1.0), 0.8, 0.6),
        ((0.0, 0.5, 0.6, 1.0), 0.55, 0.5),
        (tuple(i / 10 for i in range(11)), 0.55, 0.5),
        (tuple(i / 10 for i in range(11)), 0.65, 0.6),
        (tuple(i / 20 for i in range(21)), 0.275, 0.25),
        (tuple(i / 20 for i in range(21)), 0.925, 0.9),
        ((0.0, 0.3, 0.6, 1.0), 0.8000001, 1.0),  # a real (if small) preference still wins
    ],
)
def test_decimal_ties_snap_low_despite_float_error(choices, value, expected):
    assert snap_level(value, choices) == expected


def test_every_decimal_midpoint_of_a_tenths_table_snaps_low():
    choices = tuple(i / 10 for i in range(11))
    for i in range(10):
        assert snap_level((2 * i + 1) / 20, choices) == choices[i]


def test_snapping_twice_is_identity():
    choices = (0.0, 0.25, 0.5, 0.75, 1.0)
    for x in [i / 100 for i in range(-20, 121)]:
        once = snap_level(x, choices)
        assert snap_level(once, choices) == once


def test_hurdle_and_negative_rows_ignore_levels():
    crit = rows(
        {"id": "a", "description": "a", "weight": 1},
        {**GRADIENT, "id": "neg", "weight": -2},
        {**GRADIENT, "id": "hur", "weight": 0, "hurdle": True},
    )
    assert crit[1].level_choices is None and crit[2].level_choices is None
    out = score(crit, verdicts(hit("a", True), hit("neg", True, 0.5), hit("hur", False, 1.0)))
    assert out.earned == -1  # full deduction, level ignored
    assert out.fatal is False


# --------------------------------------------------------------------------- reward modes


@pytest.mark.parametrize(
    "mode,compare,threshold,e,expected_reward,expected_passed",
    [
        ("continuous", "gte", 0.75, 3, 0.75, True),
        ("continuous", "gt", 0.75, 3, 0.75, False),
        ("binary", "gte", 0.75, 3, 1.0, True),
        ("binary", "gt", 0.75, 3, 0.0, False),
        ("binary", "gte", 0.75, 2, 0.0, False),
        ("continuous", "gte", 0.9, 2, 0.5, False),  # the threshold never changes a continuous reward
    ],
)
def test_reward_modes(mode, compare, threshold, e, expected_reward, expected_passed):
    crit = rows(*({"id": f"r{i}", "description": "r", "weight": 1} for i in range(4)))
    vs = {f"r{i}": hit(f"r{i}", i < e) for i in range(4)}
    out = score(crit, vs, ScoringPolicy(reward_mode=mode, pass_compare=compare, pass_threshold=threshold))
    assert out.reward == expected_reward and out.passed is expected_passed


def test_binary_mode_needs_a_healthy_run():
    crit = rows({"id": "a", "description": "a", "weight": 1})
    out = score(crit, verdicts(hit("a", True)), ScoringPolicy(reward_mode="binary"), judged_ok=False)
    assert out.passed is False and out.reward == 0.0  # a systemic run is never passed (trial 29 P-1)


# --------------------------------------------------------------------------- routing fields


def test_routing_fields_never_change_the_score_output():
    base = [
        {"id": "a", "description": "a", "weight": 3},
        {**GRADIENT, "id": "g", "depends_on": ["a"]},
        {"id": "n", "description": "n", "weight": -1},
        {"id": "h", "description": "the file is missing", "weight": 0, "hurdle": True},
    ]
    routed = [
        {**base[0], "judge_method": "code", "code_method_name": "file_exists", "code_method_params": {"glob": "*.pptx"}},
        {**base[1], "judge_method": "workflow", "workflow_name": "ppt_judge", "workflow_group": "layout", "na_policy": "pass",
         "page_mean_p": 2.0, "decided_by": {"checks": ["text_overflow"]}},
        {**base[2], "judge_method": "agentic"},
        {**base[3], "judge_method": "bogus"},
    ]
    vs = verdicts(hit("a", True), hit("g", True, 0.5), unjudged("n"), hit("h", False))
    plain = score(normalize_rubric(base).criteria, vs).model_dump_json()
    with_routing = score(normalize_rubric(routed).criteria, vs).model_dump_json()
    assert plain == with_routing
    assert set(ROUTING_FIELDS) <= {k for r in routed for k in r}
