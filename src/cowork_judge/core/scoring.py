"""The one function that decides the score: rows + verdicts + policy → breakdown.

Pure: no I/O, no clock, no environment. The live run, `rescore` and the tests all call
`score`. Formula (SPEC §4)::

    W     = Σ w_i                    rows with w_i > 0 (hurdle rows with w > 0 included)
    E     = Σ w_i · lvl_i · gate_i   rows with w_i > 0, not hurdle (gate_i: every depends_on id met —
                                     a positive row hit, a hurdle or deduction judged and not hit)
          + Σ w_i · hit_i            rows with w_i < 0, not hurdle (deduction; ignores gates)
    fatal = any hurdle row with hit_i (as counted: see below)
    score_raw = E / W ;  score_normalized = 0 if fatal else clamp(E / W, 0, 1)

Unjudged rows count as ``hit=false`` except negative-polarity rows — deductions (w < 0)
and hurdles — which count as ``hit=true`` unless ``unjudged_negative='ignore'``: an
unjudged deduction deducts and an unjudged hurdle is fatal (SPEC §4, 0.2.0: a failed
hurdle block used to turn a fatal 0 into 1.0). A deliverable that breaks the judge must
not escape its penalties. A graded row's level is read by `verdicts.read_level` (a number
in [0, 1], float noise allowed) and snapped to the row's legal levels; a verdict without a
readable level falls back to its hit, and the row says so (``level_fallback``). A graded
row's hit (what its dependants' gates read) is ``level > 0``, or ``level ≥ pass_level``
when the row sets a pass bar; its credit is ``w · level`` either way. A verdict recorded
``grounded=false`` (its quote is not in the evidence, `core.grounding`) scores as the judge
said under ``ungrounded='keep'`` and with its credit withdrawn under ``'miss'`` (the
default): its hit inverted for the score and the gates, a graded row earning 0. Routing
fields never enter this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cowork_judge.core import scales
from cowork_judge.core.knobs import Effect, choice, integer, knob, number
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict, graded_hit, read_level


class ScoringError(ValueError):
    """The rubric yields no score (e.g. no positive weight even after the fallback)."""


class ScoringPolicy(BaseModel):
    """The knobs that shape the reward and its accounting (recorded in every result
    document as ``details.policy``, so a stored result can be re-scored exactly). The home
    of their defaults and meanings: the run's configuration nests it
    (`config.judge_config.JudgeConfig.scoring`)."""

    model_config = ConfigDict(frozen=True)

    reward_mode: Literal["continuous", "binary"] = knob(
        "continuous", env="JUDGE_REWARD_MODE", parse=choice("continuous", "binary"),
        effect=Effect.score("continuous or binary reward"), doc=(
        "JUDGE_REWARD_MODE: `continuous` (reward = score) or `binary` (1 if passed, else 0; warns)."))
    pass_threshold: float = knob(
        0.75, ge=0.0, le=1.0, env="JUDGE_PASS_THRESHOLD", parse=number(0, maximum=1),
        effect=Effect.score("the score that passes"), doc=(
        "JUDGE_PASS_THRESHOLD: the score that sets `extra_fields.passed` (and the binary reward)."))
    pass_compare: Literal["gte", "gt"] = knob(
        "gte", env="JUDGE_PASS_COMPARE", parse=choice("gte", "gt"), effect=Effect.score("≥ or > the threshold"), doc=(
        "JUDGE_PASS_COMPARE: how the score meets JUDGE_PASS_THRESHOLD: `gte` (≥) or `gt` (>), within 1e-9 "
        "(a float sum such as 0.7999999999999999 is on the bar 0.8: it passes `gte`, fails `gt`)."))
    unjudged_negative: Literal["deduct", "ignore"] = knob(
        "deduct", env="JUDGE_UNJUDGED_NEGATIVE", parse=choice("deduct", "ignore"),
        effect=Effect.score("what an unjudged deduction or hurdle counts as"), doc="JUDGE_UNJUDGED_NEGATIVE: deduct = an unjudged deduction still deducts and an unjudged "
            "hurdle is fatal; ignore = both count as misses.")
    systemic_fraction: float = knob(
        0.4, ge=0.0, le=1.0, env="JUDGE_SYSTEMIC_FRACTION", parse=number(0, maximum=1),
        effect=Effect.score("when unjudged rows make an exit_code"), doc=(
        "JUDGE_SYSTEMIC_FRACTION: unjudged fraction > F and count ≥ JUDGE_SYSTEMIC_MIN ⇒ systemic: `exit_code` set "
        "(a cut run, or an outage that applied a hurdle or deduction, is systemic whatever the share: docs/scoring.md)."))
    systemic_min: int = knob(
        2, ge=1, env="JUDGE_SYSTEMIC_MIN", parse=integer(1), effect=Effect.score("when unjudged rows make an exit_code"),
        doc=(
        "JUDGE_SYSTEMIC_MIN: the fewest unjudged rows that make a systemic failure by share (with "
        "JUDGE_SYSTEMIC_FRACTION); a cut run or an outage that applied a hurdle or deduction needs no count."))
    ungrounded: Literal["keep", "miss"] = knob(
        "miss", env="JUDGE_UNGROUNDED", parse=choice("keep", "miss"),
        effect=Effect.score("what a credited verdict whose quote is not in the evidence counts as (grounded is stored)"),
        doc=(
        "JUDGE_UNGROUNDED: how a credited verdict whose quote is not in the evidence text sent, after one re-ask "
        "(`grounded: false`, core.grounding), scores: `miss` = the credit is withdrawn (a positive row scores as a miss, "
        "a deduction deducts, a hurdle is fatal); `keep` = scored as the judge said."))


class RowScore(BaseModel):
    """How one row entered the score."""

    model_config = ConfigDict(frozen=True)

    id: str
    weight: float = Field(description="Effective weight (after the equal-weight fallback).")
    hit: bool | None = Field(description="Raw hit from the verdict (a graded row with pass_level: level ≥ pass_level); "
                             "None when unjudged.")
    judged: bool
    counted_hit: bool = Field(description="Hit as scored: the raw hit, or for an unjudged row the policy's answer "
                              "(hit for deductions and hurdles under unjudged_negative='deduct', else miss).")
    level: float | None = Field(description="Level used for a graded row, else None.")
    level_fallback: bool = Field(False, description="A graded row scored by its hit because its verdict carries no "
                                 "readable level (missing, NaN/inf, outside [0, 1]). Not set when the row's gate is closed "
                                 "(its level cannot matter) nor for a 'delivery' verdict (nothing was judged).")
    gate: bool = Field(description="Every depends_on id is met: a positive row's raw hit=true, a hurdle's or "
                       "deduction's raw hit=false (judged, its fault absent); a dangling or unjudged id ⇒ False.")
    contribution: float = Field(description="This row's term in E.")
    withdrawn: bool = Field(False, description="The verdict's credit was withdrawn: grounded=false under "
                            "ungrounded='miss' (the row scores as if the judge had not given it).")


class ScoreBreakdown(BaseModel):
    """Everything `score` decided, enough to explain and to re-derive the reward."""

    model_config = ConfigDict(frozen=True)

    rows: tuple[RowScore, ...]
    weight_total: float = Field(description="W: sum of positive effective weights.")
    earned: float = Field(description="E: weighted earned sum, deductions included.")
    weight_fallback: bool = Field(description="True when 0-weight rows were weighted 1.0.")
    fatal: bool = Field(description="A hurdle row counted as hit (judged hit, or unjudged under 'deduct').")
    score_raw: float = Field(description="E / W, unclipped.")
    score_normalized: float = Field(description="0 if fatal else clamp(E / W, 0, 1).")
    passed: bool
    reward: float


def credit_withdrawn(policy: ScoringPolicy, row: Any) -> bool:
    """Whether `policy` withdraws the credit of `row` (a `Verdict` or a `RowResult`: its
    ``judged``, ``hit`` and ``grounded``): a judged verdict whose quote was not found
    (``grounded=False``) under ``ungrounded='miss'`` scores as if the judge had not given it."""
    return policy.ungrounded == "miss" and row.grounded is False and bool(row.judged) and row.hit is not None


def effective_weights(criteria: Sequence[Criterion]) -> tuple[dict[str, float], bool]:
    """Weights as scored, with the GDPval-style equal-weight fallback.

    If no row has w > 0 and there is no hurdle row, every 0-weight row is weighted 1.0.
    With a hurdle row present there is no fallback (a hurdle must not become a bonus).

    Returns:
        (id → effective weight, whether the fallback applied).
    """
    weights = {c.id: c.weight for c in criteria}
    if any(w > 0 for w in weights.values()) or any(c.hurdle for c in criteria):
        return weights, False
    return {c.id: (1.0 if c.weight == 0 else c.weight) for c in criteria}, True


def unscorable_reason(criteria: Sequence[Criterion]) -> str | None:
    """Why the rubric can never produce a score (W = 0, no positive effective weight), or None when it can.

    Returns:
        None, or why the equal-weight fallback does not rescue it: a hurdle row turns it off (the ids
        named), or no row has weight 0 for it to weigh 1 (every row a deduction), or there are no rows.
    """
    weights, _ = effective_weights(criteria)
    if any(w > 0 for w in weights.values()):
        return None
    hurdles = [c.id for c in criteria if c.hurdle]
    if hurdles:
        return f"a hurdle row ({', '.join(hurdles[:3])}{', …' if len(hurdles) > 3 else ''}) turns off the equal-weight fallback"
    if not criteria:
        return "the rubric has no rows"
    return ("every row is a deduction (negative weight), so the equal-weight fallback has no weight-0 row to "
            "weigh 1")  # trial 11 F2: lint blamed a hurdle row that did not exist


def check_scorable(criteria: Sequence[Criterion]) -> None:
    """Raise `ScoringError` when the rubric can never produce a score (W = 0; `unscorable_reason` says why)."""
    reason = unscorable_reason(criteria)
    if reason is not None:
        raise ScoringError(f"the rubric has no positive weight (and the equal-weight fallback does not apply: {reason})")


def score(
    criteria: Sequence[Criterion],
    verdicts: Mapping[str, Verdict],
    policy: ScoringPolicy | None = None,
    *,
    judged_ok: bool = True,
    weights: tuple[dict[str, float], bool] | None = None,
) -> ScoreBreakdown:
    """Score one rollout.

    Args:
        criteria: normalized rows (order is kept in the breakdown).
        verdicts: id → verdict; a row without a verdict counts as unjudged.
        policy: reward mode, pass threshold/comparison, unjudged-negative policy.
        judged_ok: False when the run failed systemically: ``passed`` is then False and, in
            ``binary`` mode, the reward 0.0 whatever the score (a systemic run is never passed).
        weights: `effective_weights(criteria)` when the caller already has it.

    Returns:
        The breakdown; ``reward`` is ``score_normalized`` (continuous) or 1.0/0.0 (binary).

    Raises:
        ScoringError: no positive weight (W = 0).
    """
    policy = policy or ScoringPolicy()
    weight_of, fallback = weights if weights is not None else effective_weights(criteria)
    # Only rows of this rubric open a gate: a stray verdict (e.g. an old audit re-scored
    # against an edited rubric) must not satisfy a dangling dependency (fail closed, §4).
    # A graded row with a pass_level is hit by its bar (`verdicts.graded_hit`), here as in the router, so a
    # caller's unsettled verdict (human labels in calibrate, an edited stored document) gates the same way.
    by_id = {c.id: c for c in criteria}
    # JUDGE_UNGROUNDED=miss: a credited verdict without a quote found in the evidence scores (and gates) as not given
    withdrawn = {cid for cid, v in verdicts.items() if credit_withdrawn(policy, v)}
    raw_hit = {cid: ((not graded_hit(by_id[cid], v.hit, v.level)) if cid in withdrawn else graded_hit(by_id[cid], v.hit, v.level))
               if v.judged else None for cid, v in verdicts.items() if cid in by_id}
    # a dependency is met when a positive row is hit, a hurdle or deduction judged and NOT hit (trial 14 F3)
    met = {cid: by_id[cid].gate_met(hit) for cid, hit in raw_hit.items()}
    rows = [_row_score(crit, weight_of[crit.id], verdicts.get(crit.id), raw_hit, met, policy, withdrawn=crit.id in withdrawn)
            for crit in criteria]
    total = sum(r.weight for r in rows if r.weight > 0)
    earned = sum(r.contribution for r in rows)
    fatal = any(crit.hurdle and r.counted_hit for crit, r in zip(criteria, rows))
    if total <= 0:
        raise ScoringError("the rubric has no positive weight (and the equal-weight fallback does not apply)")
    raw = earned / total
    normalized = 0.0 if fatal else min(1.0, max(0.0, raw))
    # a systemic run is never passed: `passed` and the binary reward agree (trial 29 P-1)
    passed = judged_ok and meets_threshold(normalized, policy.pass_threshold, policy.pass_compare)
    reward = (1.0 if passed else 0.0) if policy.reward_mode == "binary" else normalized
    return ScoreBreakdown(rows=tuple(rows), weight_total=total, earned=earned, weight_fallback=fallback, fatal=fatal,
                          score_raw=raw, score_normalized=normalized, passed=passed, reward=reward)


PASS_TOLERANCE = scales.TIE_TOLERANCE
"""How far a score may sit below the pass threshold and still count as on it (1e-9, the
tolerance of level ties and pass bars, `scales.TIE_TOLERANCE`). Weights are decimals and the
score is a float sum: 4 of 5 rows of weight 0.3 give 0.7999999999999999, not 0.8 (trial 9
F11). The error of such a sum is ~1e-16 per row, far below 1e-9; any real gap between a
score and a bar (weights have a few decimals) is far above it."""


def meets_threshold(score: float, threshold: float, compare: Literal["gte", "gt"]) -> bool:
    """Whether `score` passes `threshold` (``extra_fields.passed``, the binary reward).

    Args:
        score: the normalized score in [0, 1].
        threshold: the pass threshold in [0, 1] (`ScoringPolicy.pass_threshold`).
        compare: ``gte`` (score ≥ threshold) or ``gt`` (score > threshold).

    Returns:
        ``gte``: ``score ≥ threshold − PASS_TOLERANCE``; ``gt``: ``score > threshold +
        PASS_TOLERANCE`` (a float sum equal to the threshold counts as equal both ways).
    """
    if compare == "gte":
        return score >= threshold - PASS_TOLERANCE
    return score > threshold + PASS_TOLERANCE


def _row_score(crit: Criterion, w: float, verdict: Verdict | None, raw_hit: Mapping[str, bool | None],
               met: Mapping[str, bool], policy: ScoringPolicy, *, withdrawn: bool) -> RowScore:
    """One row's part in the score (SPEC §4): whether it counts as hit (an unjudged negative
    row under ``deduct`` does), its gate (every dependency met, by `met`: a positive one's raw
    hit, a hurdle's or deduction's raw miss — `Criterion.gate_met`), its level
    (graded rows; a missing level falls back to hit) and its contribution ``w × level × gate``
    (a positive row), ``w × counted`` (a negative row), 0 (a hurdle, which makes the score
    fatal instead). `withdrawn`: a credited verdict without a grounded quote (scored as not given)."""
    judged = bool(verdict and verdict.judged and verdict.hit is not None)
    hit = raw_hit.get(crit.id) if judged else None
    gate = all(met.get(dep) is True for dep in crit.depends_on)
    level: float | None = None
    level_fallback = False
    contribution = 0.0
    if crit.hurdle or w < 0:  # negative polarity: unjudged counts as hit under "deduct"
        counted = bool(hit) if judged else policy.unjudged_negative == "deduct"
    else:  # a closed gate withholds the credit: the row is not hit as scored (its contribution is 0)
        counted = bool(hit) and gate
    if w > 0 and not crit.hurdle:  # a hurdle adds nothing: once hit it makes the score fatal (`score`)
        lvl = 1.0 if counted else 0.0
        if crit.graded and judged and verdict is not None and not withdrawn:
            read = read_level(verdict.level)
            if read is not None:
                level = scales.snap_level(read, crit.level_choices or (0.0, 1.0))
                lvl = level
            else:  # SPEC §4: a missing level falls back to hit (full / zero) and still scores
                level_fallback = gate and verdict.method != "delivery"
        contribution = w * lvl * (1.0 if gate else 0.0)
    elif w < 0 and not crit.hurdle:
        contribution = w * (1.0 if counted else 0.0)
    return RowScore(id=crit.id, weight=w, hit=hit, judged=judged, counted_hit=counted, level=level,
                    level_fallback=level_fallback, gate=gate, contribution=contribution, withdrawn=withdrawn)
