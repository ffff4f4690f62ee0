"""The `workflow` segment's runner: each named workflow gets its typed context, its budget
and its isolation (SPEC §7, §9).

Workflows run one after another, each in a worker thread bounded by its budget plus a
short grace; past that the runner sets the workflow's ``cancel`` event (its transport
then refuses further calls) and moves on, so a workflow's requests never stack on the
agentic segment's (§7.1). A workflow that cannot be loaded, raises, overruns or leaves a
row out loses only its own rows, each unjudged with a specific kind. All workflows of a
run share one model transport (`workflow.caller.WorkflowCalls`): one in-flight
limit, one start jitter, over the run's one model-call path (`ctx.calls`), which the caller
holds open (`segment.judges.calls_opened`: the router); the segment opens no scope of its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from cowork_judge.core.classify import classify, summary
from cowork_judge.core.gates import mark_open, settle_gated
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.segment.segment_context import SegmentContext
from cowork_judge.segment.judges import Judge
from cowork_judge._util.threads import call_with_timeout
from cowork_judge.transport.attempts import ModelCalls
from cowork_judge.workflow.caller import WorkflowCalls
from cowork_judge.workflow import WorkflowUnavailable, load
from cowork_judge.workflow._contract import ModelCaller, SampledJudge, WorkflowContext, WorkflowSampling

WORKFLOW_GRACE_SEC = 5.0
"""Seconds the runner waits past a workflow's budget before giving up on it, at most:
10 % of the budget (at least 0.5 s), so a short budget cannot be doubled by its grace."""
WORKFLOW_CANCEL_WAIT_SEC = 2.0
"""Seconds the runner waits, after setting ``ctx.cancel``, for an overrunning workflow
to return before the agentic segment starts anyway."""


def judge_workflow_rows(
    rows: Sequence[Criterion], ctx: SegmentContext, decided: dict[str, Verdict], known: Mapping[str, Criterion], *, segment_end: float
) -> dict[str, Verdict]:
    """Run each named workflow on its rows (serially); exactly one verdict per row.

    Args:
        rows: the rubric's workflow rows, in rubric order.
        ctx: the segment's context (frozen; the code rows' artifacts included).
        decided: verdicts of earlier segments (gates, SPEC §7.4 rule 1).
        known: every row of the rubric by id.
        segment_end: monotonic time by which the segment must be done.
    """
    out: dict[str, Verdict] = {}
    names: list[str | None] = []
    for r in rows:
        if r.workflow.name not in names:
            names.append(r.workflow.name)
    shared: dict[str | None, WorkflowCalls] = {}  # the segment's transports, made on first use: the run's (None), each judge's
    for name in names:
        runnable = settle_gated([r for r in rows if r.workflow.name == name], decided, known, into=out)
        if not runnable:
            continue
        try:
            module = load(name)
        except WorkflowUnavailable as exc:
            ctx.log.warning("workflow rows unjudged: %s", exc)
            out.update({r.id: Verdict.unjudged(r.id, exc.kind, str(exc), method="workflow") for r in runnable})
            continue
        budget = min(segment_end, ctx.deadline.at) - time.monotonic()
        if budget > 0:
            results = _run_one(module, name or "", runnable, ctx, budget, shared)
        else:
            kind = classify(TimeoutError(), segment="workflow", deadline_passed=ctx.deadline.passed())
            results = {r.id: Verdict.unjudged(r.id, kind, "no time left for the workflow segment", method="workflow")
                       for r in runnable}
        for r in runnable:
            out[r.id] = mark_open(r, results[r.id], decided, known)
    return out


def workflow_calls(ctx: SegmentContext, judge: Judge | None = None) -> WorkflowCalls:
    """The run's shared workflow transport over the run's model-call path (``ctx.calls``;
    no connection is made until the first call); with `judge`, that judge's over its own
    path (its model named on every call when it shares an endpoint's path)."""
    settings = ctx.settings
    path = judge.path if judge is not None else ctx.calls
    if not isinstance(path, ModelCalls):  # the plan's judges hold the run's ModelCalls (run.judges)
        raise TypeError(f"a workflow calls over a ModelCalls path, not {type(path).__name__}")
    model = judge.model if judge is not None and judge.model != judge.path.model else None
    return WorkflowCalls(
        limit=settings.workflow_concurrency, jitter_sec=settings.workflow_start_jitter_sec,
        per_timeout_sec=settings.per_timeout_sec, retry=ctx.retry, stats=ctx.stats, deadline_at=ctx.deadline.at,
        redact=ctx.redactor.redact, rng=ctx.rng, log=ctx.log, calls=path, judge_model=model,
    )


def _callers(ctx: SegmentContext, name: str, audit: Any, *, cancel: threading.Event, budget_end: float,
             shared: dict[str | None, WorkflowCalls]) -> tuple[ModelCaller, WorkflowSampling | None]:
    """Workflow `name`'s model caller and its view of the run's sampling plan: the run's
    caller and None when the run is not sampled; else each judge's caller (the first judge's
    is the workflow's `transport`). One `WorkflowCalls` per judge (None: the run's) for the
    whole segment, in `shared`."""
    plan = ctx.sampling
    callers = []
    for judge in plan.judges if plan is not None else (None,):
        key = judge.name if judge is not None else None
        calls = shared.get(key) or shared.setdefault(key, workflow_calls(ctx, judge))
        callers.append(calls.caller(name, audit, cancel=cancel, budget_end=budget_end))
    if plan is None:
        return callers[0], None
    judges = tuple(SampledJudge(name=judge.name, transport=caller, weight=judge.weight, slug=judge.slug)
                   for judge, caller in zip(plan.judges, callers))
    return callers[0], WorkflowSampling(k=plan.k, adaptive=plan.adaptive, vote=plan.vote, judges=judges)


def _run_one(module: Any, name: str, rows: list[Criterion], ctx: SegmentContext, budget_sec: float,
             shared: dict[str | None, WorkflowCalls]) -> dict[str, Verdict]:
    """Run one workflow on its rows in a worker thread bounded by its budget (> 0 s); one verdict per row.
    `shared`: the segment's transports by judge name (None: the run's), made on first use."""
    cancel, done = threading.Event(), threading.Event()
    audit = ctx.audit.scoped(f"workflow-{name}")
    work_dir = ctx.paths.work_dir / "workflows" / name
    work_dir.mkdir(parents=True, exist_ok=True)
    budget_end = time.monotonic() + budget_sec
    transport, sampling = _callers(ctx, name, audit, cancel=cancel, budget_end=budget_end, shared=shared)
    wctx = WorkflowContext(
        name=name,
        settings=MappingProxyType(dict(ctx.workflow_config.get(name, {}) or {})),
        artifacts=MappingProxyType({**ctx.artifacts, **(ctx.deck.as_artifacts() if ctx.deck else {})}),
        evidence_dir=ctx.paths.evidence_dir,
        work_dir=work_dir,
        delivery=ctx.delivery,
        deadline_at=ctx.deadline.at,
        cancel=cancel,
        transport=transport,
        audit=audit,
        redact=ctx.redactor.redact,
        log=ctx.log,
        rng=ctx.rng,
        resplit=ctx.settings.resplit,
        assets_dir=ctx.paths.workflow_assets_dir(name),
        sampling=sampling,
    )

    def call() -> Any:
        try:
            return module.run(list(rows), wctx, budget_sec)
        finally:
            done.set()

    grace = min(WORKFLOW_GRACE_SEC, max(0.5, 0.1 * budget_sec))  # a tight budget gets a tight grace
    wait = min(budget_sec + grace, max(0.1, ctx.deadline.remaining()))  # never past the deadline
    outcome = call_with_timeout(call, wait, thread_name=f"workflow-{name}")
    if outcome is None:
        # a thread cannot be killed: ask the workflow to stop so that its requests do not
        # stack on the agentic segment's (§7.1), and say so when it does not listen
        cancel.set()
        if not done.wait(WORKFLOW_CANCEL_WAIT_SEC):
            ctx.log.warning("workflow %r ignored its cancel signal for %.0f s; it may still be sending requests "
                            "while the agentic segment runs", name, WORKFLOW_CANCEL_WAIT_SEC)
        kind = classify(TimeoutError(), segment="workflow", deadline_passed=ctx.deadline.passed())
        return {r.id: Verdict.unjudged(r.id, kind, f"workflow {name!r} ran past its {budget_sec:.0f} s budget", method="workflow")
                for r in rows}
    value, exc = outcome
    if exc is not None:
        kind = classify(exc, segment="workflow", deadline_passed=ctx.deadline.passed())
        ctx.log.error("workflow %s failed: %s", name, summary(exc))
        return {r.id: Verdict.unjudged(r.id, kind, f"workflow {name!r} failed: {summary(exc)}", method="workflow") for r in rows}
    found: dict[str, Verdict] = {}
    ids = {r.id for r in rows}
    for item in value if isinstance(value, list) else []:
        try:
            verdict = item if isinstance(item, Verdict) else Verdict.model_validate(item)
        except Exception:  # noqa: BLE001 - a malformed verdict is a missing one
            continue
        if verdict.id in ids and verdict.id not in found:
            found[verdict.id] = verdict.model_copy(update={"method": "workflow"})
    return {
        r.id: found.get(r.id) or Verdict.unjudged(r.id, "workflow_error", f"workflow {name!r} returned no verdict for this row",
                                                  method="workflow")
        for r in rows
    }
