"""Assemble the result document from the parts of a run (pure: no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cowork_judge import ABI, __version__
from cowork_judge.run.config import JudgeConfig
from cowork_judge.core.coverage import CoverageReport, account
from cowork_judge.run.delivery import Delivery
from cowork_judge.core.failures import ErrorKind, ExitCode
from cowork_judge.core.result import (
    DeliveryDetails,
    Details,
    ExtraFields,
    ResultDocument,
    RowResult,
)
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.scoring import ScoreBreakdown, effective_weights
from cowork_judge.core.verdicts import Verdict


def delivery_details(delivery: Delivery | None) -> DeliveryDetails:
    """The `details.delivery` block."""
    if delivery is None:
        return DeliveryDetails(files=[], missing=False, from_chat=False, stray=[])
    return DeliveryDetails(
        files=[f.rel for f in delivery.files],
        missing=delivery.missing,
        from_chat=delivery.from_chat,
        stray=[f"{s.rel} ({s.reason})" for s in delivery.stray],
        ignored=[f"{s.rel} ({s.reason})" for s in delivery.ignored],
        final_message_source=delivery.final_message_source,
    )


def criteria_docs(criteria: Sequence[Criterion], verdicts: Mapping[str, Verdict]) -> list[dict[str, Any]]:
    """`criteria[]`: normalized rows with derived fields and the judge's raw level."""
    out = []
    for c in criteria:
        row = c.model_dump(mode="json")
        v = verdicts.get(c.id)
        row["level_raw"] = v.level_raw if v is not None else None
        out.append(row)
    return out


def row_results(criteria: Sequence[Criterion], verdicts: Mapping[str, Verdict], breakdown: ScoreBreakdown | None) -> list[RowResult]:
    """`results[]`: each row's verdict and its part in the score."""
    terms = {r.id: r for r in breakdown.rows} if breakdown else {}
    weights, _ = effective_weights(criteria)
    out = []
    for c in criteria:
        v = verdicts.get(c.id) or Verdict.unjudged(c.id, "api_error", "no verdict was produced")
        term = terms.get(c.id)
        out.append(
            RowResult(
                id=c.id,
                hit=v.hit if v.judged else None,
                level=term.level if term else v.level,
                judged=v.judged,
                reason=v.reason,
                method=v.method,
                error_kind=v.error_kind,
                gate=("open" if term.gate else "closed") if term and c.depends_on else v.gate,  # as scored
                weight=term.weight if term else weights.get(c.id, c.weight),
                contribution=(term.contribution + 0.0) if term else 0.0,  # + 0.0 turns -0.0 into 0.0
                attempts=v.attempts,
                seconds=v.seconds,
                evidence=list(v.evidence),
            )
        )
    return out


def build_document(
    *,
    config: JudgeConfig,
    criteria: Sequence[Criterion],
    verdicts: Mapping[str, Verdict],
    breakdown: ScoreBreakdown | None,
    coverage: CoverageReport,
    delivery: Delivery | None,
    seconds: float,
    calls: int,
    tokens: int,
    evidence_pages: int = 0,
    exit_code: ExitCode | None = None,
    exit_reason: str | None = None,
    status: str | None = None,
    warnings: Sequence[str] = (),
    instruction_source: str | None = None,
    evidence: dict[str, Any] | None = None,
) -> ResultDocument:
    """The result document of a run; `exit_code` overrides the coverage-derived one."""
    code = exit_code if exit_code is not None else coverage.exit_code
    reason = exit_reason if exit_reason is not None else coverage.exit_reason
    skipped = status == "skipped"
    if breakdown is not None:
        task_score: float | None = breakdown.reward
    else:
        task_score = None if skipped else 0.0
    extra = ExtraFields(
        passed=bool(breakdown.passed) if breakdown else False,
        judge_coverage=coverage.coverage if criteria else 0.0,
        judge_unjudged=coverage.unjudged,
        judge_degraded=coverage.degraded or code is not None,
        judge_error_kind=coverage.error_kind,
        judge_seconds=round(seconds, 3),
        judge_evidence_pages=evidence_pages,
        judge_methods=coverage.methods,
        judge_coverage_by_method=coverage.coverage_by_method,
        judge_unjudged_weight_frac=coverage.unjudged_weight_frac,
        judge_called=calls > 0,
        delivery_missing=bool(delivery and delivery.missing),
        delivery_from_chat=bool(delivery and delivery.from_chat),
        judge_calls=calls,
        judge_tokens=tokens,
    )
    return ResultDocument(
        status=status or ("error" if code else "success"),
        exit_code=code,
        exit_reason=reason,
        task_score=task_score,
        score_raw=breakdown.score_raw if breakdown else None,
        score_normalized=breakdown.score_normalized if breakdown else None,
        fatal=bool(breakdown and breakdown.fatal),
        metric_id=config.metric_id,
        version=__version__,
        abi=ABI,
        requested_version=config.requested_version,
        version_source=config.version_source,
        judge_backend=config.backend,
        judge_model=config.model,
        results=row_results(criteria, verdicts, breakdown),
        criteria=criteria_docs(criteria, verdicts),
        details=Details(
            delivery=delivery_details(delivery),
            weight_total=breakdown.weight_total if breakdown else None,
            earned=breakdown.earned if breakdown else None,
            weight_fallback=bool(breakdown and breakdown.weight_fallback),
            instruction_source=instruction_source,
            warnings=list(warnings),
            evidence=evidence or {},
        ),
        extra_fields=extra,
    )


def failed_document(
    *,
    config: JudgeConfig,
    criteria: Sequence[Criterion],
    error_kind: ErrorKind | None,
    exit_code: ExitCode,
    exit_reason: str,
    delivery: Delivery | None,
    seconds: float,
    calls: int = 0,
    tokens: int = 0,
    warnings: Sequence[str] = (),
) -> ResultDocument:
    """A run that produced no score: reward 0, every row unjudged with `error_kind`."""
    verdicts = {c.id: Verdict.unjudged(c.id, error_kind, exit_reason, method=_method(c)) for c in criteria} if error_kind else {}
    coverage = account(criteria, verdicts, systemic_fraction=1.0, systemic_min=1) if criteria else _empty_coverage(error_kind)
    return build_document(
        config=config,
        criteria=criteria,
        verdicts=verdicts,
        breakdown=None,
        coverage=coverage,
        delivery=delivery,
        seconds=seconds,
        calls=calls,
        tokens=tokens,
        exit_code=exit_code,
        exit_reason=exit_reason,
        warnings=warnings,
    )


def _method(c: Criterion) -> Any:
    return c.judge_method


def _empty_coverage(error_kind: str | None) -> CoverageReport:
    return CoverageReport(
        coverage=0.0,
        unjudged=0,
        degraded=True,
        error_kind=error_kind,
        methods={},
        coverage_by_method={},
        unjudged_weight_frac=0.0,
        systemic=True,
        exit_code=None,
        exit_reason=None,
    )
