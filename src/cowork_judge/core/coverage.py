"""Coverage accounting: how much of the rubric was judged, and is the failure systemic?

Pure. Every degradation leaves a trace (SPEC §11, §12): coverage, the unjudged count and
positive-weight share, per-method statistics, and the real cause (`judge_error_kind`).
Above the systemic threshold an `exit_code` is set; below it only `exit_reason`.

Coverage counts rows (judged rows / all rows, as SPEC §11's systemic rule and §7's
per-method coverage do). A sampled run (JUDGE_SAMPLES, JUDGE_PANEL) can also judge a row on
fewer answers than it asked for — a sample that did not come back, a panel judge whose
endpoint was down: the row is judged, so coverage stays, but the run is *degraded*
(`CoverageReport.degraded`, ``judge_degraded``) with the lost answers' cause as
``judge_error_kind`` when no row is unjudged, and `exit_reason` says so
(`core.sampling.sampling_loss`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from cowork_judge.core.consequences import CONSEQUENCES, Consequence
from cowork_judge.core.error_kinds import ErrorKind, ExitCode
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampling import SamplingLoss, sampling_loss
from cowork_judge.core.scoring import ScoringPolicy, effective_weights
from cowork_judge.core.verdicts import Verdict


class MethodStats(BaseModel):
    """Rows of one judge method: how many, how many judged, their coverage in [0, 1]."""

    n: int
    judged: int
    coverage: float


class CoverageReport(BaseModel):
    """The coverage fields of a result document, derived from verdicts alone."""

    coverage: float = Field(description="Judged rows / all rows, in [0, 1].")
    unjudged: int
    degraded: bool = Field(description="At least one row was not judged, or a judged row kept fewer answers than were "
                           "asked for (a sample or a panel judge lost: `lost`).")
    error_kind: ErrorKind | None = Field(description="The real cause of the unjudged rows; with none, of the lost answers.")
    methods: dict[str, MethodStats]
    coverage_by_method: dict[str, float]
    unjudged_weight_frac: float = Field(description="Unjudged share of the positive weight, in [0, 1].")
    systemic: bool
    exit_code: ExitCode | None
    exit_reason: str | None
    unjudged_reason: str | None = Field(None, description="The plain ``\"N of M rows not judged (kind n, …)\"`` part of "
                                        "`exit_reason` (None with no unjudged row): what a document written under an "
                                        "older systemic rule holds in its place (`core.fold.stored_run`).")
    former_reasons: tuple[str, ...] = Field((), description="The `exit_reason` and the plain part as written before "
                                            "trial 23 (one kind named for rows of several kinds; empty with one kind): "
                                            "what an older document holds in their place (`core.fold.stored_run`).")
    lost: SamplingLoss = Field(default_factory=SamplingLoss, description="Answers the judged rows asked for and did not "
                               "get (sampled runs only; empty otherwise).")


def account(
    criteria: Sequence[Criterion],
    verdicts: Mapping[str, Verdict],
    policy: ScoringPolicy | None = None,
    *,
    weights: tuple[dict[str, float], bool] | None = None,
    table: Mapping[str, Consequence] = CONSEQUENCES,
) -> CoverageReport:
    """Account for coverage and decide whether the failure is systemic.

    Systemic (`_systemic`): unjudged fraction > ``policy.systemic_fraction`` AND unjudged count ≥
    ``policy.systemic_min`` (SPEC §11); or any row unjudged ``interrupted``/``deadline`` (a cut
    run, whatever the count); or, under ``unjudged_negative='deduct'``, a hurdle or deduction
    unjudged for a judge-side kind (the judge's failure lowered the reward). The cause is
    ``interrupted``/``deadline`` whenever the run was cut off (never overridden); otherwise the most frequent specific kind,
    ``dep_unjudged`` only when no other kind exists. A row without a verdict counts as
    ``no_verdict``. The exit code of a systemic failure is the ``systemic_exit_code``
    column of `table` for the cause (else the most frequent kind that has one).

    Args:
        weights: `effective_weights(criteria)` when the caller already has it.
    """
    policy = policy or ScoringPolicy()
    n = len(criteria)
    unjudged_rows = [c for c in criteria if not _judged(verdicts.get(c.id))]
    unjudged = len(unjudged_rows)
    weights_by_id, _ = weights if weights is not None else effective_weights(criteria)
    positive_total = sum(w for w in weights_by_id.values() if w > 0)
    unjudged_positive = sum(weights_by_id[c.id] for c in unjudged_rows if weights_by_id[c.id] > 0)
    methods: dict[str, MethodStats] = {}
    for method in sorted({c.judge_method for c in criteria}):
        rows = [c for c in criteria if c.judge_method == method]
        judged = sum(1 for c in rows if _judged(verdicts.get(c.id)))
        methods[method] = MethodStats(n=len(rows), judged=judged, coverage=judged / len(rows))
    row_kinds = complete_kinds(unjudged_rows, verdicts)
    kinds: Counter[ErrorKind] = Counter(row_kinds.values())
    error_kind = _cause(kinds)
    sampled = (v for v in (verdicts.get(c.id) for c in criteria) if v is not None and v.samples)
    lost = sampling_loss([(_judged(v), v.samples) for v in sampled])
    systemic, why = _systemic(criteria, row_kinds, weights_by_id, policy, table)
    exit_code = _exit_code(kinds, error_kind, table) if unjudged and systemic else None
    plain = unjudged_phrase(n, kinds, error_kind) if unjudged else None
    exit_reason = _exit_reason(plain, systemic, why, loss_reason(lost, n) if lost.rows else None)
    former = f"{unjudged} of {n} rows not judged ({error_kind})" if len(kinds) > 1 else None  # before trial 23 P-2
    return CoverageReport(
        coverage=(n - unjudged) / n if n else 1.0,
        unjudged=unjudged,
        degraded=unjudged > 0 or lost.rows > 0,
        error_kind=error_kind or _cause(Counter(lost.error_kinds)),
        lost=lost,
        methods=methods,
        coverage_by_method={m: s.coverage for m, s in methods.items()},
        unjudged_weight_frac=(unjudged_positive / positive_total) if positive_total > 0 else 0.0,
        systemic=systemic,
        exit_code=exit_code,
        exit_reason=exit_reason,
        unjudged_reason=plain,
        former_reasons=(_exit_reason(former, systemic, why, loss_reason(lost, n) if lost.rows else None) or "",
                        former) if former else (),
    )


def unjudged_phrase(n: int, kinds: Counter[ErrorKind], cause: ErrorKind | None) -> str:
    """``"5 of 7 rows not judged (code_error 1, dep_unjudged 4)"``: the unjudged rows of all `n` and their
    kinds (`kinds`: error kind → rows), each counted, `cause` (the run's ``judge_error_kind``, the kind whose
    exit code `_exit_code` tries first) first, then the most frequent (ties by name). One kind is named alone:
    ``"1 of 4 rows not judged (code_error)"`` (trial 23 P-2: a single name hid the other kinds)."""
    unjudged = sum(kinds.values())
    if len(kinds) <= 1:
        return f"{unjudged} of {n} rows not judged ({cause or next(iter(kinds), 'no_verdict')})"
    order = sorted(kinds, key=lambda k: (k != cause, -kinds[k], k))
    return f"{unjudged} of {n} rows not judged ({', '.join(f'{k} {kinds[k]}' for k in order)})"


def _exit_reason(plain: str | None, systemic: bool, why: str | None, loss: str | None) -> str | None:
    """The `exit_reason`: the unjudged rows' `plain` phrase (with the systemic prefix and the rule's `why`
    when `systemic`), then the lost answers' `loss`, joined by ``"; "``; None when neither."""
    reason = ("systemic judge failure: " + plain + (f": {why}" if why else "")) if plain and systemic else plain
    return "; ".join(r for r in (reason, loss) if r) or None


def loss_reason(lost: SamplingLoss, n: int) -> str:
    """The `exit_reason` part of a run whose judged rows lost answers: ``"3 of 4 rows judged on
    fewer answers than asked for (api_error 9 sample(s) lost); judge 'beta' gave no answer on 3 row(s)"``."""
    kinds = ", ".join(f"{k} {c}" for k, c in lost.error_kinds.items())
    text = f"{lost.rows} of {n} rows judged on fewer answers than asked for ({kinds} sample(s) lost)"
    judges = "; ".join(f"judge {name!r} gave no answer on {rows} row(s)" for name, rows in lost.judges.items())
    return f"{text}; {judges}" if judges else text


CUT_KINDS: tuple[ErrorKind, ...] = ("interrupted", "deadline")
"""Kinds of a row the judge did not reach because the run was cut (a signal, JUDGE_DEADLINE)."""


def complete_kinds(rows: Sequence[Criterion], verdicts: Mapping[str, Verdict]) -> dict[str, ErrorKind]:
    """Row id → the error kind of each of `rows` (unjudged rows), ``no_verdict`` for a row without one."""
    return {c.id: (v.error_kind if v is not None and v.error_kind else "no_verdict")
            for c in rows for v in [verdicts.get(c.id)]}


def _systemic(criteria: Sequence[Criterion], unjudged: Mapping[str, ErrorKind], weights: Mapping[str, float],
              policy: ScoringPolicy, table: Mapping[str, Consequence]) -> tuple[bool, str | None]:
    """Whether the unjudged rows make a systemic failure, and the reason when a rule other than the
    share of rows decided it. Five rules, any one suffices (docs/scoring.md "Systemic failure"):

    1. share: unjudged rows / all rows > ``systemic_fraction`` and ≥ ``systemic_min`` rows;
    2. cut: any row unjudged ``interrupted`` or ``deadline`` (the judge could not finish the run);
    4. no model answered: every row that is not a code row is unjudged for an endpoint outage
       (`is_endpoint_outage`): what was scored is the code rows alone;
    3. judge-side penalty: under ``unjudged_negative='deduct'``, a negative row (hurdle or negative
       weight) unjudged for a judge-side kind (`Consequence.judge_side`: an outage of the endpoint, or the
       task's own rubric, assets or environment broken): the judge's failure lowered the reward;
    5. rubric fault: any row (a positive row too) unjudged for a kind `Consequence.rubric_fault` marks (an unknown
       code method, parameters its method refuses, a dangling ``depends_on``), or `Consequence.env_fault` marks (the
       verifier lacks the judge extras: ``extras_missing``): every rollout's reward is wrong alike.
    """
    if not unjudged:
        return False, None
    faulty = [c.id for c in criteria if c.id in unjudged and unjudged[c.id] in table and table[unjudged[c.id]].rubric_fault]
    unequipped = [c.id for c in criteria if c.id in unjudged and unjudged[c.id] in table and table[unjudged[c.id]].env_fault]
    n = len(criteria)
    if len(unjudged) / n > policy.systemic_fraction and len(unjudged) >= policy.systemic_min:
        return True, None
    if any(kind in CUT_KINDS for kind in unjudged.values()):
        return True, None
    applied = [c.id for c in criteria if c.id in unjudged and (c.hurdle or weights[c.id] < 0)
               and is_judge_side(unjudged[c.id], table)] if policy.unjudged_negative == "deduct" else []
    if applied:
        return True, (f"the judge's failure applied {len(applied)} negative row(s) ({', '.join(applied)}) "
                      f"under JUDGE_UNJUDGED_NEGATIVE=deduct")
    if faulty:  # trial 19 P-4: a rubric typo lowers every rollout's reward alike
        return True, (f"the rubric cannot be judged as written: {len(faulty)} row(s) ({', '.join(faulty)}) "
                      "unjudged for the rubric's own fault, the same on every rollout; fix the rubric (lint-rubric names it)")
    if unequipped:  # trial 23 P-1: init ran before the rubric was written
        return True, (f"the verifier lacks the judge extras: {len(unequipped)} row(s) ({', '.join(unequipped)}) unjudged "
                      "extras_missing, the same on every rollout; run `cowork-judge init <task>` again (after every rubric edit)")
    asked = [c.id for c in criteria if c.judge_method != "code"]
    if asked and all(i in unjudged and is_endpoint_outage(unjudged[i], table) for i in asked):
        return True, "no row that needs a model was judged: the endpoint answered none"  # trial 15 P-10
    return False, None


def is_endpoint_outage(kind: ErrorKind, table: Mapping[str, Consequence]) -> bool:
    """Whether `kind` is a failure of the judge's endpoint (down, overloaded, out of credit, no credential): a
    judge-side kind (`Consequence.judge_side`) whose systemic exit code is not the scorer's."""
    return bool(kind in table and table[kind].judge_side and table[kind].systemic_exit_code != "judge:scorer_error")


def is_judge_side(kind: ErrorKind, table: Mapping[str, Consequence]) -> bool:
    """Whether `kind` is a failure of the judge's side, never the deliverable's (`Consequence.judge_side`: an
    endpoint outage, or the task's own rubric, assets or environment broken); unknown kinds are not."""
    return bool(kind in table and table[kind].judge_side)


def _judged(verdict: Verdict | None) -> bool:
    return bool(verdict and verdict.judged and verdict.hit is not None)


def _cause(kinds: Counter[ErrorKind]) -> ErrorKind | None:
    if not kinds:
        return None
    for cut in CUT_KINDS:  # a cut-off run names the cut, not what it interrupted (§7.7)
        if cut in kinds:
            return cut
    specific = Counter({k: n for k, n in kinds.items() if k != "dep_unjudged"})
    pool = specific or kinds
    # most frequent; ties broken by name so the result is deterministic
    return min(pool.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _exit_code(kinds: Counter[ErrorKind], cause: ErrorKind | None, table: Mapping[str, Consequence]) -> ExitCode:
    """The cause's exit code, else the most frequent kind's; rows unjudged for reasons
    that name no transport failure (e.g. ``not_applicable`` only) ⇒ ``judge:scorer_error``."""
    for kind in [cause, *sorted(kinds, key=lambda k: -kinds[k])]:
        code = table[kind].systemic_exit_code if kind and kind in table else None
        if code:
            return code
    return "judge:scorer_error"
