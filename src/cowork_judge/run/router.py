"""Router: code → workflow → agentic, strictly serially, one verdict per row (SPEC §7).

Each row goes to the segment its `judge_method` names, never to another one: a row meant
for code or a workflow that cannot run is unjudged with a specific `error_kind`, it is
not silently judged by the agent. Before a row runs, its dependencies that are already
decided (earlier segments, earlier code rows) are checked (§7.4):

1. only dependencies decided before the row's segment (or earlier in the serial code
   segment) can short-circuit it; a workflow's own internal dependencies are its business;
2. a dependency judged and missed ⇒ ``judged=true, hit=false``, reason ``[gate] …``, no call;
3. a dependency not judged ⇒ unjudged ``dep_unjudged`` (distinct from a miss).

Short-circuits apply only to rows whose score the gate decides (weight ≥ 0, not hurdle):
deductions and hurdles ignore gates in scoring, so they are always judged. Only scoring
decides the reward; the router saves calls and keeps the trace honest.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from cowork_judge.agentic import BACKEND_COST_MODELS, judge_agentic
from cowork_judge.agentic.workspace import workspace_rel
from cowork_judge.run.budgets import agentic_reserve, workflow_budget
from cowork_judge.code_methods import CODE_METHODS, param_errors
from cowork_judge.code_methods.decks import EnvironmentMissing
from cowork_judge.code_methods.files import ReadLimit
from cowork_judge.run.context import RunContext
from cowork_judge.core.failures import ErrorKind
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.workflow import WorkflowUnavailable, load

SEGMENTS = ("code", "workflow", "agentic")
WORKFLOW_GRACE_SEC = 5.0
"""Seconds the router waits past a workflow's budget before giving up on it, at most:
10 % of the budget (at least 0.5 s), so a short budget cannot be doubled by its grace."""
WORKFLOW_CANCEL_WAIT_SEC = 2.0
"""Seconds the router waits, after setting ``ctx["cancel"]``, for an overrunning workflow
to return before the agentic segment starts anyway."""


def route(criteria: Sequence[Criterion], ctx: RunContext) -> dict[str, Verdict]:
    """Judge every row by its method, segment by segment; exactly one verdict per row."""
    decided: dict[str, Verdict] = {}
    known = {c.id for c in criteria}
    code_rows = [c for c in criteria if c.judge_method == "code"]
    workflow_rows = [c for c in criteria if c.judge_method == "workflow"]
    agentic_rows = [c for c in criteria if c.judge_method == "agentic"]

    for row in code_rows:  # serial: earlier code rows gate later ones
        gated = _pre_gate(row, decided, known)
        decided[row.id] = gated or _mark_open(row, _guarded(row, "code_error", lambda r=row: run_code_row(r, ctx)), decided)
    _audit_segment(ctx, "code", code_rows, decided)
    _publish_artifacts(ctx)

    if workflow_rows:
        reserve = agentic_reserve(
            len(agentic_rows), batch=ctx.config.batch, concurrency=ctx.config.concurrency,
            cost=BACKEND_COST_MODELS.get(ctx.config.backend, BACKEND_COST_MODELS["openai"]),
        )
        budget = workflow_budget(ctx.deadline.remaining(), reserve, ctx.config.workflow_deadline_share)
        ctx.log.info("workflow segment: %d row(s), budget %.0f s (agentic reserve %.0f s)", len(workflow_rows), budget, reserve)
        decided.update(run_workflows(workflow_rows, ctx, decided, known, segment_end=time.monotonic() + budget))
        _audit_segment(ctx, "workflow", workflow_rows, decided)

    runnable = _settle_gated(agentic_rows, decided, known, into=decided)
    # gate-settled agentic rows cost no call but are verdicts all the same: in the audit
    # for re-scoring and for the watchdog's document if the run is cut off later
    _audit_segment(ctx, "agentic-gated", [r for r in agentic_rows if r.id in decided], decided)
    if runnable:
        try:
            judged = judge_agentic(runnable, ctx)
        except Exception as exc:  # a crashed backend loses only its own rows
            ctx.log.error("agentic segment failed: %s", ctx.redactor.text(f"{type(exc).__name__}: {exc}"))
            judged = {r.id: Verdict.unjudged(r.id, "backend_error", _summary(exc)) for r in runnable}
        for row in runnable:
            decided[row.id] = _mark_open(row, judged[row.id], decided)
    return {c.id: decided[c.id] for c in criteria}


# --------------------------------------------------------------------------- gates


def _pre_gate(row: Criterion, decided: dict[str, Verdict], known: set[str]) -> Verdict | None:
    """The short-circuit verdict of `row` from its already-decided dependencies, or None."""
    if row.hurdle or row.weight < 0 or not row.depends_on:
        return None
    dangling = [d for d in row.depends_on if d not in known]
    missed = [d for d in row.depends_on if d in decided and decided[d].judged and decided[d].hit is False]
    if dangling or missed:
        parts = ([f"{', '.join(missed)} judged and missed"] if missed else []) + (
            [f"{', '.join(dangling)} names no row"] if dangling else [])
        return Verdict(id=row.id, hit=False, judged=True, reason="[gate] " + "; ".join(parts), method=row.judge_method, gate="closed")
    unjudged = [d for d in row.depends_on if d in decided and not decided[d].judged]
    if unjudged:
        return Verdict.unjudged(row.id, "dep_unjudged", f"dependency {', '.join(unjudged)} was not judged",
                                method=row.judge_method, gate="closed")
    return None


def _settle_gated(
    rows: Sequence[Criterion], decided: dict[str, Verdict], known: set[str], *, into: dict[str, Verdict]
) -> list[Criterion]:
    """Put the short-circuit verdict of every gated row into `into`; return the rows to run."""
    runnable = []
    for row in rows:
        gated = _pre_gate(row, decided, known)
        if gated is None:
            runnable.append(row)
        else:
            into[row.id] = gated
    return runnable


def _mark_open(row: Criterion, verdict: Verdict, decided: dict[str, Verdict]) -> Verdict:
    deps = [d for d in row.depends_on if d in decided]
    if deps and verdict.gate is None and all(decided[d].hit is True for d in deps):
        return verdict.model_copy(update={"gate": "open"})
    return verdict


# --------------------------------------------------------------------------- code segment


def run_code_row(row: Criterion, ctx: RunContext) -> Verdict:
    """Run one `code` row's method in a worker with JUDGE_CODE_TIMEOUT.

    Unknown method ⇒ ``code_missing``; timeout ⇒ ``code_timeout`` (``deadline`` when the
    run deadline cut it); exception ⇒ ``code_error``; missing tool ⇒ ``render_env``.
    """
    name = row.code_method_name or ""
    method = CODE_METHODS.get(name)
    if method is None:
        known = ", ".join(sorted(CODE_METHODS))
        return Verdict.unjudged(row.id, "code_missing", f"unknown code method {name!r}; registered: {known}", method="code")
    bad = param_errors(method, row.code_method_params)
    if bad:
        return Verdict.unjudged(row.id, "code_error", f"code_method_params of {name}: {'; '.join(bad)}", method="code")
    remaining = ctx.deadline.remaining()
    if remaining <= 0:
        return Verdict.unjudged(row.id, "deadline", "JUDGE_DEADLINE reached before this row ran", method="code")
    timeout = min(ctx.config.code_timeout_sec, remaining)
    start = time.monotonic()
    outcome = _call_with_timeout(lambda: method(ctx, **row.code_method_params), timeout)
    seconds = round(time.monotonic() - start, 3)
    if outcome is None:
        kind: ErrorKind = "deadline" if ctx.deadline.passed() else "code_timeout"
        return Verdict.unjudged(row.id, kind, f"{name} ran past {timeout:.0f} s", method="code", seconds=seconds)
    value, exc = outcome
    if exc is not None:
        kind: ErrorKind = (
            "render_env" if isinstance(exc, EnvironmentMissing) else "over_limit" if isinstance(exc, ReadLimit)
            else "code_timeout" if isinstance(exc, TimeoutError) else "code_error")
        return Verdict.unjudged(row.id, kind, f"{name} failed: {_summary(exc)}", method="code", seconds=seconds)
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bool) and isinstance(value[2], dict)):
        return Verdict.unjudged(row.id, "code_error", f"{name} returned {type(value).__name__}, not (hit, reason, artifacts)",
                                method="code", seconds=seconds)
    hit, reason, artifacts = value
    ctx.artifacts.update(artifacts)
    return Verdict(id=row.id, hit=hit, judged=True, reason=str(reason), method="code", seconds=seconds)


def _call_with_timeout(fn: Any, timeout_sec: float, *, thread_name: str = "code-method") -> tuple[Any, BaseException | None] | None:
    """Run `fn` in a daemon thread; None on timeout (the thread is abandoned, never joined
    at exit), else ``(value, exception)``."""
    box: list[tuple[Any, BaseException | None]] = []

    def target() -> None:
        try:
            box.append((fn(), None))
        except BaseException as exc:  # reported as a value, never raised here
            box.append((None, exc))

    worker = threading.Thread(target=target, name=thread_name, daemon=True)
    worker.start()
    worker.join(timeout_sec)
    return box[0] if box else None


def _audit_segment(ctx: RunContext, name: str, rows: Sequence[Criterion], decided: dict[str, Verdict]) -> None:
    """Record a segment's verdicts in ``judge/<name>/verdicts.json`` (audit, re-scoring,
    and the watchdog's partial document if the run is cut off later)."""
    if rows:
        ctx.audit.write(f"{name}/verdicts", {r.id: decided[r.id].model_dump(mode="json") for r in rows if r.id in decided})


def _publish_artifacts(ctx: RunContext) -> None:
    """Write ``evidence/artifacts.json`` for agentic blocks (deck path relative to a block)."""
    if not ctx.artifacts:
        return
    doc = {k: v for k, v in ctx.artifacts.items() if isinstance(v, (str, int, float, bool)) or v is None}
    rel = ctx.artifacts.get("deck_rel")
    if rel:
        item = next((f for f in ctx.delivery.files if f.rel == rel), None)
        doc["deck_in_workspace"] = workspace_rel(item, ctx.delivery.files) if item else None
    ctx.paths.evidence_dir.mkdir(parents=True, exist_ok=True)
    (ctx.paths.evidence_dir / "artifacts.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- workflow segment


def run_workflows(
    rows: Sequence[Criterion], ctx: RunContext, decided: dict[str, Verdict], known: set[str], *, segment_end: float
) -> dict[str, Verdict]:
    """Run each named workflow on its rows (serially), isolating failures per workflow."""
    out: dict[str, Verdict] = {}
    names: list[str | None] = []
    for r in rows:
        if r.workflow_name not in names:
            names.append(r.workflow_name)
    for name in names:
        runnable = _settle_gated([r for r in rows if r.workflow_name == name], decided, known, into=out)
        if not runnable:
            continue
        try:
            module = load(name)
        except WorkflowUnavailable as exc:
            ctx.log.warning("workflow rows unjudged: %s", exc)
            out.update({r.id: Verdict.unjudged(r.id, "workflow_missing", str(exc), method="workflow") for r in runnable})
            continue
        budget = min(segment_end, ctx.deadline.at) - time.monotonic()
        results = _run_one_workflow(module, name or "", runnable, ctx, budget)
        for r in runnable:
            out[r.id] = _mark_open(r, results[r.id], decided)
    return out


def _run_one_workflow(module: Any, name: str, rows: list[Criterion], ctx: RunContext, budget_sec: float) -> dict[str, Verdict]:
    if budget_sec <= 0:
        kind: ErrorKind = "deadline" if ctx.deadline.passed() else "timeout"
        return {r.id: Verdict.unjudged(r.id, kind, "no time left for the workflow segment", method="workflow") for r in rows}
    wctx = {
        "paths": ctx.paths,
        "config": ctx.config,
        "workflow_config": dict(ctx.workflow_config.get(name, {}) or {}),
        "artifacts": ctx.artifacts,
        "evidence_dir": ctx.paths.evidence_dir,
        "delivery": ctx.delivery,
        "deadline": ctx.deadline,
        "log": ctx.log,
    }
    cancel, done = threading.Event(), threading.Event()
    wctx["cancel"] = cancel

    def call() -> Any:
        try:
            return module.run(list(rows), wctx, budget_sec)
        finally:
            done.set()

    grace = min(WORKFLOW_GRACE_SEC, max(0.5, 0.1 * budget_sec))  # a tight budget gets a tight grace
    wait = min(budget_sec + grace, max(0.1, ctx.deadline.remaining()))  # never past the deadline
    outcome = _call_with_timeout(call, wait, thread_name=f"workflow-{name}")
    if outcome is None:
        # a thread cannot be killed: ask the workflow to stop so that its requests do not
        # stack on the agentic segment's (§7.1), and say so when it does not listen
        cancel.set()
        if not done.wait(WORKFLOW_CANCEL_WAIT_SEC):
            ctx.log.warning("workflow %r ignored its cancel signal for %.0f s; it may still be sending requests "
                            "while the agentic segment runs", name, WORKFLOW_CANCEL_WAIT_SEC)
        kind = "deadline" if ctx.deadline.passed() else "timeout"
        return {r.id: Verdict.unjudged(r.id, kind, f"workflow {name!r} ran past its {budget_sec:.0f} s budget", method="workflow") for r in rows}
    value, exc = outcome
    if exc is not None:
        ctx.log.error("workflow %s failed: %s", name, _summary(exc))
        return {r.id: Verdict.unjudged(r.id, "workflow_error", f"workflow {name!r} failed: {_summary(exc)}", method="workflow") for r in rows}
    found: dict[str, Verdict] = {}
    ids = {r.id for r in rows}
    for item in value if isinstance(value, list) else []:
        try:
            verdict = item if isinstance(item, Verdict) else Verdict.model_validate(item)
        except Exception:
            continue
        if verdict.id in ids and verdict.id not in found:
            found[verdict.id] = verdict.model_copy(update={"method": "workflow"})
    return {
        r.id: found.get(r.id) or Verdict.unjudged(r.id, "workflow_error", f"workflow {name!r} returned no verdict for this row", method="workflow")
        for r in rows
    }


def _guarded(row: Criterion, kind: ErrorKind, fn: Any) -> Verdict:
    try:
        return fn()
    except Exception as exc:
        return Verdict.unjudged(row.id, kind, _summary(exc), method=row.judge_method)


def _summary(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
