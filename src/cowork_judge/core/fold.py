"""The one fold: criteria + verdicts + scoring policy + run facts → the result document.

Pure: no I/O, no clock, no configuration. Every path that ends a run goes through
`fold`: the live run, "nothing delivered", a run that failed before judging (bad rubric,
no credentials, unreadable answer, internal error), a skipped run, the watchdog's
document when the run is cut off, and `rescore`. A written ``result.json`` folds back to
itself (`facts_of` + `fold`), which is how re-scoring without model calls stays exact.

Order inside (house style item 3): complete the verdicts (a row without one is unjudged
``no_verdict``), account for coverage, score (unless the run failed or was skipped),
then lay out the document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from cowork_judge.core import scales
from cowork_judge.core.caps import cap_text
from cowork_judge.core.consequences import CONSEQUENCES, Consequence
from cowork_judge.core.cost import JudgeCost
from cowork_judge.core.coverage import CoverageReport, account
from cowork_judge.core.error_kinds import ErrorKind, ExitCode
from cowork_judge.core.identity import RunIdentity
from cowork_judge.core.result import (
    QUOTE_CAP_CHARS,
    REASON_CAP_CHARS,
    DeliveryDetails,
    Details,
    ExtraFields,
    ResultDocument,
    RowResult,
    result_level_raw,
)
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampling import SamplingLoss, SamplingRecord, judge_coverage, sampling_loss, weighted_agreement
from cowork_judge.core.scoring import RowScore, ScoreBreakdown, ScoringPolicy, effective_weights, score
from cowork_judge.core.verdicts import Verdict, read_level
from cowork_judge.core.findings import GuardReport

NO_VERDICT_REASON = "no verdict was produced for this row"


class RunFailure(BaseModel):
    """A run that produced no score: the exit code and one-line reason to record."""

    model_config = ConfigDict(frozen=True)

    exit_code: ExitCode
    exit_reason: str


class RunFacts(BaseModel):
    """Everything about a run that is not a verdict: identity, delivery, cost, notes.

    Attributes:
        failure: set when the run could not score (no score is computed, reward 0).
        skipped: JUDGE_SKIP: no score, reward ``SKIPPED``.
        exit_note: appended to the coverage's `exit_reason` (or used alone when coverage
            has none): "nothing delivered", why the watchdog ended the run, …
    """

    model_config = ConfigDict(frozen=True)

    identity: RunIdentity
    delivery: DeliveryDetails | None = None
    seconds: float = Field(0.0, ge=0, description="Wall seconds of the run.")
    calls: int = Field(0, ge=0, description="Model HTTP calls (retries included).")
    tokens: int = Field(0, ge=0, description="Tokens reported by the endpoint.")
    evidence_pages: int = Field(0, ge=0)
    evidence: dict[str, Any] = Field(default_factory=dict, description="Compact evidence summary.")
    warnings: tuple[str, ...] = ()
    instruction_source: str | None = None
    failure: RunFailure | None = None
    skipped: bool = False
    exit_note: str | None = None
    fingerprint: dict[str, Any] | None = Field(None, description="run.fingerprint.verdict_fingerprint of the run.")
    run_id: str | None = Field(None, description="The judging run's random id (`uuid.uuid4().hex`; the engine "
                               "makes it, the fold only copies it: the core stays deterministic).")
    interrupted: bool = Field(False, description="A signal ended the run before every row was judged.")
    settings_invalid: tuple[str, ...] = Field((), description="Environment variables of settings that change the verdicts "
                                              "or the reward whose invalid value fell back to the default "
                                              "(config.effects.invalid_reward_settings).")
    guard: GuardReport | None = Field(None, description="The guard's report (None: the run ended before the guard read "
                                      "anything).")
    sampling: SamplingRecord | None = Field(None, description="How the run sampled (None: every row asked once by one judge).")
    cost: JudgeCost | None = Field(None, description="Tokens and dollars per model (None: JUDGE_PRICES not set).")


GUARD_PENALTY_REASON = "JUDGE_GUARD=penalize: the guard flagged text addressed to the evaluator ({kinds}); reward set to 0"


def apply_guard(report: GuardReport | None, task_score: float | None, *, scored: bool = True) -> tuple[GuardReport, float | None]:
    """The guard's report as the document records it, and the reward after the guard's policy.

    Under ``penalize`` a flagged sample that has a score gets reward 0.0 (``penalized``
    with the reason) when the flag is confirmed (`GuardReport.confirmation`: a row scored better
    with the flagged text than with it masked, or the flag could not be tested; a report
    without a confirmation record — a stored ``flag`` run rescored — counts as confirmed, as
    before issue 35); its rows, raw and normalized score stay as judged (scored, not
    masked: the attempt is the agent's doing). Other modes and runs without a score
    (`scored` False: failed, skipped) leave the reward alone.
    """
    report = report or GuardReport()
    confirmed = report.confirmation is None or report.confirmation.confirmed
    penalize = report.mode == "penalize" and report.flagged and confirmed and scored and task_score is not None
    if penalize:
        reason = GUARD_PENALTY_REASON.format(kinds=", ".join(report.kinds))
        if report.confirmation is not None:
            c = report.confirmation
            reason += (f" (confirmed: row(s) {', '.join(c.rows_changed)} scored better with the flagged text than with it "
                       "masked)" if c.rows_changed else f" ({c.error})" if c.error else "")
        report = report.model_copy(update={"penalized": True, "reason": reason})
        return report, 0.0
    if report.penalized:
        report = report.model_copy(update={"penalized": False, "reason": None})
    return report, task_score


def all_unjudged(criteria: Sequence[Criterion], kind: ErrorKind, reason: str) -> dict[str, Verdict]:
    """One unjudged verdict of `kind` per row (a run that failed before judging)."""
    return {c.id: Verdict.unjudged(c.id, kind, reason, method=c.judge_method) for c in criteria}


NO_DELIVERY_REASON = "[no delivery] nothing was delivered (no output files and no final message)"
"""The reason of every row of a run with nothing delivered when output/ held nothing (`run.collect.no_delivery_reason`)."""
HURDLE_ON_NO_DELIVERY = ": a hurdle counts as hit (fatal) on an empty delivery, since nothing was delivered that could clear it"
"""What a hurdle row's reason adds to the run's ``[no delivery]`` reason (`nothing_delivered`)."""


def nothing_delivered(criteria: Sequence[Criterion], reason: str = NO_DELIVERY_REASON) -> dict[str, Verdict]:
    """The verdicts of a run with nothing delivered, decided without a model (reward 0, SPEC §6).

    A positive row is a miss and a deduction is not hit (nothing was delivered that could hold the fault it
    names); a hurdle row is hit, so the run is `fatal` (an empty delivery is the condition a hurdle names, and
    no delivery can clear it). The live run (`engine.judge.nothing_delivered_verdicts`) and ``rescore --rubric``
    of a stored nothing-delivered document (trial 11 F11) both decide the rows here, so the two agree.

    Args:
        criteria: the rubric's rows.
        reason: the run's ``[no delivery] …`` reason (`run.collect.no_delivery_reason`); a hurdle row's reason
            adds `HURDLE_ON_NO_DELIVERY`.

    Returns:
        row id → a judged `Verdict` (method ``delivery``) for every row of `criteria`.
    """
    return {c.id: Verdict(id=c.id, hit=c.hurdle, judged=True, reason=reason + HURDLE_ON_NO_DELIVERY if c.hurdle else reason,
                          method="delivery") for c in criteria}


def fold(
    criteria: Sequence[Criterion],
    verdicts: Mapping[str, Verdict],
    policy: ScoringPolicy,
    facts: RunFacts,
    *,
    table: Mapping[str, Consequence] = CONSEQUENCES,
) -> ResultDocument:
    """Turn one run's verdicts into its result document.

    Args:
        criteria: normalized rows, in rubric order (may be empty for a run that failed
            before the rubric was read).
        verdicts: id → verdict; ids of no row are ignored, a row without a verdict is
            unjudged ``no_verdict``.
        policy: reward mode, pass threshold, unjudged-negative rule, systemic thresholds.
        facts: identity, delivery, timings, call counts, failure/skip/notes.
        table: the failure table whose ``systemic_exit_code`` column picks the exit code.

    Returns:
        The document; ``status`` is ``skipped`` when skipped, else ``error`` exactly when
        an ``exit_code`` is set.

    Raises:
        ScoringError: the rubric has no positive weight (callers check it at load).
    """
    criteria = tuple(criteria)
    complete = {c.id: verdicts.get(c.id) or Verdict.unjudged(c.id, "no_verdict", NO_VERDICT_REASON, method=c.judge_method)
                for c in criteria}
    weights = effective_weights(criteria)
    coverage = account(criteria, complete, policy, weights=weights, table=table)
    breakdown: ScoreBreakdown | None = None
    if criteria and facts.failure is None and not facts.skipped:
        breakdown = score(criteria, complete, policy, judged_ok=not coverage.systemic, weights=weights)
    if facts.failure is not None:
        code: ExitCode | None = facts.failure.exit_code
        reason: str | None = facts.failure.exit_reason
    else:
        code = coverage.exit_code
        reason = "; ".join(r for r in (coverage.exit_reason, facts.exit_note) if r) or None
    if breakdown is not None:
        task_score: float | None = breakdown.reward
    else:
        task_score = None if facts.skipped else 0.0
    guard, task_score = apply_guard(facts.guard, task_score, scored=breakdown is not None)
    identity = facts.identity
    results = _row_results(criteria, complete, breakdown, weights[0])
    return ResultDocument(
        status="skipped" if facts.skipped else ("error" if code else "success"),
        exit_code=code,
        exit_reason=reason,
        task_score=task_score,
        score_raw=breakdown.score_raw if breakdown else None,
        score_normalized=breakdown.score_normalized if breakdown else None,
        fatal=bool(breakdown and breakdown.fatal),
        metric_id=identity.metric_id,
        version=identity.version,
        abi=identity.abi,
        requested_version=identity.requested_version,
        version_source=identity.version_source,
        judge_backend=identity.judge_backend,
        judge_model=identity.judge_model,
        results=results,
        criteria=_criteria_docs(criteria, complete),
        details=_details(criteria, results, coverage, breakdown, policy, facts),
        extra_fields=_extra_fields(criteria, coverage, breakdown, facts, code, penalized=guard.penalized),
        guard=guard,
        judge_agreement=weighted_agreement([(r.agreement, r.weight) for r in results]) if facts.sampling else None,
        judge_cost_usd=facts.cost.usd if facts.cost is not None else None,
        judge_cost=facts.cost,
    )


def _details(criteria: tuple[Criterion, ...], results: list[RowResult], coverage: CoverageReport,
             breakdown: ScoreBreakdown | None, policy: ScoringPolicy, facts: RunFacts) -> Details:
    """The document's ``details``: the delivery, the weights earned (None without a score),
    the warnings (the run's and those the rows imply), the evidence, the policy, the
    fingerprint and the sampling record."""
    return Details(
        delivery=facts.delivery or DeliveryDetails(files=[], missing=False, from_chat=False, stray=[]),
        weight_total=breakdown.weight_total if breakdown else None,
        earned=breakdown.earned if breakdown else None,
        weight_fallback=bool(breakdown and breakdown.weight_fallback),
        instruction_source=facts.instruction_source,
        warnings=[*facts.warnings, *derived_warnings(criteria, results, policy, lost=coverage.lost)],
        evidence=dict(facts.evidence),
        policy=policy,
        fingerprint=dict(facts.fingerprint) if facts.fingerprint is not None else None,
        run_id=facts.run_id,
        interrupted=facts.interrupted,
        settings_invalid=list(facts.settings_invalid),
        sampling=_sampling(facts.sampling, results, coverage),
    )


def _extra_fields(criteria: tuple[Criterion, ...], coverage: CoverageReport, breakdown: ScoreBreakdown | None,
                  facts: RunFacts, code: ExitCode | None, *, penalized: bool = False) -> ExtraFields:
    delivery = facts.delivery
    return ExtraFields(
        # a run with an exit code (status error) is never passed, whatever its score (trial 29 P-1)
        passed=bool(breakdown.passed) and not penalized and code is None if breakdown else False,
        judge_coverage=coverage.coverage if criteria else 0.0,
        judge_unjudged=coverage.unjudged,
        judge_degraded=coverage.degraded or code is not None,
        judge_error_kind=coverage.error_kind,
        judge_seconds=round(facts.seconds, 3),
        judge_evidence_pages=facts.evidence_pages,
        judge_methods=coverage.methods,
        judge_coverage_by_method=coverage.coverage_by_method,
        judge_unjudged_weight_frac=coverage.unjudged_weight_frac,
        judge_called=facts.calls > 0,
        # the agent's failure only: a run that could not read the delivery (exit_code set) is the judge's (trial 5, F5)
        delivery_missing=bool(delivery and delivery.missing) and code is None,
        delivery_from_chat=bool(delivery and delivery.from_chat),
        judge_calls=facts.calls,
        judge_tokens=facts.tokens,
    )


_CRITERIA = TypeAdapter(list[Criterion])


def _criteria_docs(criteria: tuple[Criterion, ...], verdicts: Mapping[str, Verdict]) -> list[dict[str, Any]]:
    """`criteria[]`: normalized rows with derived fields and the judge's raw level (dumped
    in one call: a 5,000-row rubric must fold in well under a second)."""
    out: list[dict[str, Any]] = _CRITERIA.dump_python(list(criteria), mode="json")
    for row, c in zip(out, criteria):
        row["level_raw"] = result_level_raw(verdicts[c.id].level_raw)
    return out


def _row_results(criteria: tuple[Criterion, ...], verdicts: Mapping[str, Verdict], breakdown: ScoreBreakdown | None,
                 weights: Mapping[str, float]) -> list[RowResult]:
    """`results[]`: each row's verdict and its part in the score (gate as scored)."""
    terms = {r.id: r for r in breakdown.rows} if breakdown else {}
    by_id = {c.id: c for c in criteria}
    out = []
    for c in criteria:
        v = verdicts[c.id]
        term = terms.get(c.id)
        out.append(
            RowResult(
                id=c.id,
                hit=v.hit if v.judged else None,
                level=term.level if term and not term.withdrawn else v.level,
                level_fallback=bool(term and term.level_fallback),
                level_raw=result_level_raw(v.level_raw),
                judged=v.judged,
                reason=cap_text(_gate_reason(c, v, term, terms, by_id), REASON_CAP_CHARS),
                method=v.method,
                error_kind=v.error_kind,
                gate=("open" if term.gate else "closed") if term and c.depends_on else v.gate,
                weight=term.weight if term else weights.get(c.id, c.weight),
                counted_hit=term.counted_hit if term else None,
                contribution=(term.contribution + 0.0) if term else 0.0,  # + 0.0 turns -0.0 into 0.0
                attempts=v.attempts,
                seconds=v.seconds,
                evidence=list(v.evidence),
                pages_below=dict(v.pages_below) if v.pages_below is not None else None,
                aggregate=v.aggregate,
                cached=v.cached,
                samples=list(v.samples) if v.samples is not None else None,
                agreement=v.agreement,
                quote=cap_text(v.quote, QUOTE_CAP_CHARS) if v.quote is not None else None,
                grounded=v.grounded,
                grounding=v.grounding,
            )
        )
    return out


WITHDRAWN_NOTE = ("[ungrounded] credit withdrawn (JUDGE_UNGROUNDED=miss: its quote was not found in the evidence "
                  "text, so the row scores as if the judge had not given it); the judge said: ")
"""The start of the reason `results[]` records for a row whose credit the grounding check
withdrew (`scoring.credit_withdrawn`); `stored_run` takes it off again (trial 12, F3)."""


def judge_reason(stored: RowResult) -> str:
    """The judge's own reason of a stored row: its reason without `WITHDRAWN_NOTE` (added by
    `fold` for a withdrawn row), so a re-fold under another policy does not keep the note."""
    if stored.grounded is False and stored.reason.startswith(WITHDRAWN_NOTE):
        return stored.reason[len(WITHDRAWN_NOTE):]
    return stored.reason


def _gate_reason(row: Criterion, verdict: Verdict, term: RowScore | None, terms: Mapping[str, RowScore],
                 rows: Mapping[str, Criterion]) -> str:
    """The reason `results[]` records: the verdict's, prefixed with `WITHDRAWN_NOTE` when the
    grounding check withdrew its credit, or with ``[gate]`` naming the dependencies not hit
    (a withdrawn one says so) when the row was judged hit (same block, a cycle) but its gate
    closed at scoring, so its credit is withheld (SPEC §7.4: the reward follows the gate formula).
    `rows`: the rubric's rows by id (a hurdle or deduction closes the gate by being hit)."""
    if term is not None and term.withdrawn:
        return WITHDRAWN_NOTE + verdict.reason
    would_earn = term is not None and (term.hit is True or (term.level or 0.0) > 0.0)
    if (term is None or term.gate or not verdict.judged or not would_earn or row.hurdle or term.weight < 0
            or verdict.reason.startswith("[gate]")):
        return verdict.reason
    parts = []
    for dep in row.depends_on:
        dep_term = terms.get(dep)
        if dep_term is None:
            parts.append(f"{dep} names no row")
        elif dep_term.withdrawn:
            parts.append(f"{dep}'s credit was withdrawn (ungrounded, JUDGE_UNGROUNDED=miss)")
        elif dep_term.hit is None:
            parts.append(f"{dep} was not judged")
        elif dep in rows and rows[dep].polarity == "negative" and dep_term.hit is True:
            parts.append(f"{dep} was judged and hit (a hurdle or deduction: its fault is present)")
        elif dep_term.hit is False and (dep not in rows or rows[dep].polarity == "positive"):
            parts.append(f"{dep} was judged and missed")
    return f"[gate] credit withheld: {'; '.join(parts) or 'a dependency was not hit'} (the judge said: {verdict.reason})"


def _sampling(record: SamplingRecord | None, results: Sequence[RowResult], coverage: CoverageReport) -> SamplingRecord | None:
    """The run's sampling record with each judge's coverage and the lost answers derived from the rows."""
    if record is None:
        return None
    shares = judge_coverage([r.samples for r in results], [j.name for j in record.judges])
    return record.model_copy(update={"coverage": shares, "lost": coverage.lost})


def derived_warnings(criteria: Sequence[Criterion], results: Sequence[RowResult], policy: ScoringPolicy, *,
                     lost: SamplingLoss | None = None) -> list[str]:
    """Every warning `fold` derives from the result rows: `score_warnings`, then one line
    when sampled rows kept fewer answers than they asked for (`sampling_warnings`; `lost`: the
    run's `SamplingLoss` when the caller has it, else derived from the rows)."""
    return [*score_warnings(criteria, results, policy), *sampling_warnings(results, lost)]


def sampling_warnings(results: Sequence[RowResult], lost: SamplingLoss | None = None) -> list[str]:
    """One line when some judged rows kept fewer answers than were asked for: how many rows,
    the error kinds of the lost samples (the rows keep what the other samples said), and one
    line per panel judge that did not answer every sampled row (`core.sampling.sampling_loss`;
    the document is ``judge_degraded``)."""
    if lost is None:
        lost = sampling_loss([(r.judged, r.samples) for r in results if r.samples])
    if not lost.rows:
        return []
    listed = ", ".join(f"{k} {n}" for k, n in lost.error_kinds.items())
    out = [f"sampling: {lost.rows} judged row(s) kept fewer answers than were asked for ({listed} sample(s) did not come "
           "back); each keeps what its other samples said, and the run is judge_degraded (details.sampling.lost)"]
    judges = list(dict.fromkeys(s.judge for r in results for s in r.samples or ()))
    if len(judges) > 1:
        for name, share in judge_coverage([r.samples for r in results], judges).items():
            if share < 1.0:
                out.append(f"sampling: judge {name!r} answered {share:.0%} of the sampled rows; the other judges' "
                           "verdicts stand (details.sampling.coverage)")
    return out


def score_warnings(criteria: Sequence[Criterion], results: Sequence[RowResult], policy: ScoringPolicy) -> list[str]:
    """Warnings the score itself calls for, derived from the result rows (so a stored
    document re-derives them exactly; `fold` appends them to the run's warnings).

    First one line when the rubric has no positive weight and the equal-weight fallback
    (SPEC §4) weighed its 0-weight rows 1 (``details.weight_fallback``): weight 0 otherwise
    means "no contribution", so a rubric that meant it must not change its score silently.
    Then one line per row: a hurdle row that was not judged but counts as hit (fatal) by the
    policy; a graded row scored by its hit because its level could not be read
    (``level_fallback``), with what the judge wrote (JSON, at most 40 characters).
    """
    by_id = {c.id: c for c in criteria}
    out = []
    if criteria and effective_weights(criteria)[1]:
        equal = sum(1 for c in criteria if c.weight == 0)
        out.append(f"no row has a positive weight: the equal-weight fallback weighed each of the {equal} row(s) of "
                   "weight 0 as 1, so the score is their mean (docs/rubric.md); lint-rubric reports it as R016")
    for r in results:
        crit = by_id.get(r.id)
        if crit is not None and crit.hurdle and not r.judged and r.counted_hit:
            out.append(f"hurdle row {r.id!r} was not judged ({r.error_kind}) and counts as hit under "
                       f"JUDGE_UNJUDGED_NEGATIVE={policy.unjudged_negative}: the task scores 0")
        if r.level_fallback:
            out.append(_fallback_warning(r, crit))
    ungrounded = [r.id for r in results if r.grounded is False]
    if ungrounded:
        scored = ("their credit withdrawn (scored as not given)" if policy.ungrounded == "miss"
                  else "scored as the judge said")
        out.append(f"grounding: {len(ungrounded)} credited row(s) carry no quote found in the evidence text after one "
                   f"re-ask ({', '.join(ungrounded[:5])}{', …' if len(ungrounded) > 5 else ''}); "
                   f"JUDGE_UNGROUNDED={policy.ungrounded}: {scored}")
    return out


def _fallback_warning(r: RowResult, crit: Criterion | None) -> str:
    """The warning of a graded row scored by its hit (``level_fallback``), saying what happened:
    the judge gave no level, a level that is not a fraction in [0, 1], or a readable level its
    own ``hit:false`` contradicts (a level above 0, or at or above the row's pass_level), which
    is scored as a miss (docs/scoring.md)."""
    read = read_level(r.level_raw)
    passing = read is not None and (crit is None or crit.level_choices is None
                                    or crit.hit_at(scales.snap_level(read, crit.level_choices)))
    if passing and r.hit is False:
        bar = crit.pass_level if crit is not None else None
        where = f"at or above the row's pass_level {scales.format_level(bar)}" if bar is not None else "above 0"
        return (f"graded row {r.id!r}: the judge said hit:false but gave level {_short_json(r.level_raw)} ({where}); "
                "the two contradict each other, so the row is scored as a miss (no credit)")
    credit = f"scored by hit ({'full' if r.hit else 'no'} credit)"
    if read is not None:  # readable, yet the verdict holds no level (a hand-made or edited verdict)
        return f"graded row {r.id!r}: the verdict holds no level (level_raw {_short_json(r.level_raw)}); {credit}"
    said = "no level" if r.level_raw is None else f"level {_short_json(r.level_raw)}, not a fraction in [0, 1]"
    return f"graded row {r.id!r}: the judge gave {said}; {credit}"


def _short_json(value: Any, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fallback_document(identity: RunIdentity) -> ResultDocument:
    """The document of a run that failed before judging anything, exit fields blank: the
    template of the last-resort writer (``schemas/fallback-result.json``).

    Its exit code is a placeholder that the writer always replaces.
    """
    failure = RunFailure(exit_code="judge:scorer_error", exit_reason="")
    return fold((), {}, ScoringPolicy(), RunFacts(identity=identity, failure=failure))


# --------------------------------------------------------------------------- reading a document back


def stored_run(doc: ResultDocument) -> tuple[tuple[Criterion, ...], dict[str, Verdict], ScoringPolicy, RunFacts]:
    """The inputs a written document was folded from: criteria, verdicts, policy, facts.

    ``fold(*stored_run(doc))`` reproduces `doc` (the parity `rescore` rests on). A
    document written before the policy was recorded gets the default policy.

    Raises:
        pydantic.ValidationError: a stored row is not a valid criterion.
    """
    raw_levels: dict[str, Any] = {}
    criteria = []
    for row in doc.criteria:
        data = dict(row)
        raw_levels[str(data.get("id"))] = data.pop("level_raw", None)
        criteria.append(Criterion.model_validate(data))
    verdicts = {  # level_raw: results[] since 0.2.0, criteria[] before
        r.id: Verdict(id=r.id, hit=r.hit, level=r.level, level_raw=r.level_raw if r.level_raw is not None else raw_levels.get(r.id),
                      reason=judge_reason(r), method=r.method,
                      judged=r.judged, error_kind=r.error_kind, gate=r.gate, attempts=r.attempts, seconds=r.seconds,
                      evidence=list(r.evidence), pages_below=r.pages_below, aggregate=r.aggregate,
                      samples=tuple(r.samples) if r.samples is not None else None, agreement=r.agreement,
                      quote=r.quote, grounded=r.grounded, grounding=r.grounding, cached=r.cached)
        for r in doc.results
    }
    identity = RunIdentity(metric_id=doc.metric_id, requested_version=doc.requested_version, version_source=doc.version_source,
                           judge_backend=doc.judge_backend, judge_model=doc.judge_model, version=doc.version, abi=doc.abi)
    ef = doc.extra_fields
    policy = doc.details.policy or ScoringPolicy()
    failure = RunFailure(exit_code=doc.exit_code, exit_reason=doc.exit_reason or "") if (
        doc.exit_code is not None and doc.score_raw is None and doc.status == "error") else None
    note = None
    if failure is None and doc.exit_reason:  # what the run added to the coverage's own reason
        own = account(criteria, verdicts, policy)
        note = run_note(doc.exit_reason, (own.exit_reason, own.unjudged_reason, *own.former_reasons))
    warnings = list(doc.details.warnings)
    derived = derived_warnings(criteria, doc.results, policy)  # fold adds these again
    if derived and warnings[-len(derived):] == derived:
        warnings = warnings[: -len(derived)]
    facts = RunFacts(
        identity=identity, delivery=doc.details.delivery, seconds=ef.judge_seconds, calls=ef.judge_calls, tokens=ef.judge_tokens,
        evidence_pages=ef.judge_evidence_pages, evidence=doc.details.evidence, warnings=tuple(warnings),
        instruction_source=doc.details.instruction_source, failure=failure, skipped=doc.status == "skipped", exit_note=note,
        fingerprint=doc.details.fingerprint, run_id=doc.details.run_id, interrupted=doc.details.interrupted,
        guard=doc.guard, sampling=doc.details.sampling, cost=doc.judge_cost,
    )
    return tuple(criteria), verdicts, policy, facts


def run_note(stored: str, own: Sequence[str | None]) -> str | None:
    """What a run added to its coverage's reason in a stored `exit_reason` (``"the judge was stopped
    by SIGTERM"``), None when nothing. `own`: the reasons the coverage may have written, tried in
    order — today's, then the plain ``"N of M rows not judged (kind)"`` a document written under an
    older systemic rule holds (before trial 14 a cut with one row carried no ``systemic …`` prefix), then
    the forms that named one kind for rows of several (before trial 23, `CoverageReport.former_reasons`).
    A stored reason that starts with none of them is kept whole."""
    for reason in own:
        if not reason:
            continue
        if stored == reason:
            return None
        if stored.startswith(reason + "; "):
            return stored[len(reason) + 2:]
    return stored
