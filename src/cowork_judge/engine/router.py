"""Router: code → workflow → agentic, strictly serially, one verdict per row (SPEC §7).

Each row goes to the segment its `judge_method` names, never to another one: a row meant
for code or a workflow that cannot run is unjudged with a specific `error_kind`, it is
not silently judged by the agent. Before a row runs, its dependencies that are already
decided are checked with the gate rules of `cowork_judge.core.gates` (§7.4). The
segments' entries: `code_methods.code_rows.judge_code_row`,
`workflow.runner.judge_workflow_rows`, `agentic.dispatch.judge_agentic`. Only scoring
decides the reward; the router saves calls and keeps the trace honest.

Importing the router loads no model client: the agentic backend (and ``openai``) is
imported only when agentic rows run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from cowork_judge.agentic.workspace import workspace_rel
from cowork_judge.code_methods.code_rows import CodeOutcome, judge_code_row
from cowork_judge.core.budgets import agentic_reserve, workflow_budget
from cowork_judge.core.classify import classify, summary
from cowork_judge.core.gates import mark_open, pre_gate, settle_gated
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.config.backends import backend_spec
from cowork_judge.run.context import RunContext

SEGMENTS = ("code", "workflow", "agentic")


class _Cache:
    """The run's use of the verdict cache (`run.verdict_cache`): keys per row, lookups, stores."""

    def __init__(self, ctx: RunContext, criteria: Sequence[Criterion]) -> None:
        from pathlib import Path

        from cowork_judge import ABI, __version__
        from cowork_judge.run import verdict_cache as vc

        self.store = vc.VerdictCache(Path(ctx.config.verdict_cache_dir or "."))
        files = [(f.rel, Path(f.path)) for f in ctx.delivery.files]
        deliverable = vc.deliverable_digest(files, ctx.delivery.final_message)
        with_trajectory = deliverable  # rows judged on the trajectory: its digest too (read only when there are some)
        if any(r.judge_method == "workflow" and r.workflow.name in vc.TRAJECTORY_WORKFLOWS for r in criteria):
            with_trajectory = vc.deliverable_digest(files, ctx.delivery.final_message,
                                                    trajectory=vc.file_digest(ctx.paths.agent_dir / "trajectory.json"))
        settings: dict[str | None, dict[str, Any]] = {}
        self.keys: dict[str, str] = {}
        for row in criteria:
            if row.judge_method not in vc.CACHED_METHODS:
                continue
            name = row.workflow.name if row.judge_method == "workflow" else None
            if name not in settings:
                assets = vc.folder_digest(ctx.paths.workflow_assets_dir(name)) if name else "none"
                settings[name] = vc.judge_settings(ctx.config, instruction=ctx.instruction, task_prompt=ctx.task_prompt,
                                                   workflow=ctx.workflow_config.get(name) if name else None, assets=assets)
            digest = with_trajectory if name in vc.TRAJECTORY_WORKFLOWS else deliverable
            self.keys[row.id] = vc.verdict_key(deliverable=digest, row=vc.row_fields(row), judge=settings[name],
                                               version=f"{__version__}/abi{ABI}")

    def split(self, rows: Sequence[Criterion]) -> tuple[list[Criterion], dict[str, Verdict]]:
        """(rows to judge, row id → cached verdict)."""
        todo, hits = [], {}
        for row in rows:
            hit = self.store.get(self.keys[row.id], row.id) if row.id in self.keys else None
            if hit is None:
                todo.append(row)
            else:
                hits[row.id] = hit
        return todo, hits

    def keep(self, rows: Sequence[Criterion], decided: dict[str, Verdict]) -> None:
        for row in rows:
            if row.id in self.keys and row.id in decided:
                self.store.put(self.keys[row.id], decided[row.id])


def route(criteria: Sequence[Criterion], ctx: RunContext) -> dict[str, Verdict]:
    """Judge every row by its method, segment by segment; exactly one verdict per row.

    Each segment (each code row) gets a frozen context built from the run's state as it is
    then (`RunContext.segment`); what a code row returns is merged into that state
    (`_merge`) before the next row runs. `ctx.artifacts` and ``ctx.delivery.notes`` hold the
    merged outcomes when this returns."""
    decided: dict[str, Verdict] = {}
    known = {c.id for c in criteria}
    code_rows = [c for c in criteria if c.judge_method == "code"]
    workflow_rows = [c for c in criteria if c.judge_method == "workflow"]
    agentic_rows = [c for c in criteria if c.judge_method == "agentic"]

    for row in code_rows:  # serial: earlier code rows gate later ones, and see their artifacts
        gated = pre_gate(row, decided, known)
        if gated is not None:
            decided[row.id] = gated
            continue
        outcome = judge_code_row(row, ctx.segment())
        decided[row.id] = mark_open(row, outcome.verdict, decided)
        _merge(ctx, outcome)
    _audit_segment(ctx, "code", code_rows, decided)
    _publish_artifacts(ctx)

    cache = _Cache(ctx, criteria) if ctx.config.verdict_cache_dir else None
    if workflow_rows:
        from cowork_judge.workflow.runner import judge_workflow_rows

        todo, hits = cache.split(workflow_rows) if cache else (list(workflow_rows), {})
        if todo:
            # JUDGE_SAMPLES asks each agentic row up to k times: reserve time for k asks (a panel's judges run side by side)
            reserve = agentic_reserve(len(agentic_rows) * ctx.config.samples, batch=ctx.config.batch,
                                      concurrency=ctx.config.concurrency,
                                      cost=backend_spec(ctx.config.backend).cost)
            budget = workflow_budget(ctx.deadline.remaining(), reserve, ctx.config.workflow_deadline_share)
            ctx.log.info("workflow segment: %d row(s), budget %.0f s (agentic reserve %.0f s)", len(todo), budget, reserve)
            decided.update(judge_workflow_rows(todo, ctx.segment(), decided, known, segment_end=time.monotonic() + budget))
        for row in workflow_rows:  # cached verdicts pass this run's gates like judged ones
            if row.id in hits:
                decided[row.id] = pre_gate(row, decided, known) or mark_open(row, hits[row.id], decided)
        if cache:
            cache.keep(todo, decided)
        _audit_segment(ctx, "workflow", workflow_rows, decided)

    runnable = settle_gated(agentic_rows, decided, known, into=decided)
    if cache and runnable:
        runnable, hits = cache.split(runnable)
        for row in agentic_rows:
            if row.id in hits:
                decided[row.id] = mark_open(row, hits[row.id], decided)
    # gate-settled agentic rows cost no call but are verdicts all the same: in the audit
    # for re-scoring and for the watchdog's document if the run is cut off later
    _audit_segment(ctx, "agentic-gated", [r for r in agentic_rows if r.id in decided], decided)
    if runnable:
        from cowork_judge.agentic.dispatch import judge_agentic

        try:
            judged = judge_agentic(runnable, ctx.segment())
        except Exception as exc:  # a crashed backend loses only its own rows
            kind = classify(exc, segment="backend", deadline_passed=ctx.deadline.passed())
            ctx.log.error("agentic segment failed: %s", ctx.redactor.text(summary(exc)))
            judged = {r.id: Verdict.unjudged(r.id, kind, ctx.redactor.text(summary(exc))) for r in runnable}
        for row in runnable:
            decided[row.id] = mark_open(row, judged[row.id], decided)
        if cache:
            cache.keep(runnable, decided)
    if cache:
        ctx.log.info("verdict cache %s: %d verdict(s) reused (%s), %d stored", ctx.config.verdict_cache_dir,
                     len(cache.store.hits), ", ".join(cache.store.hits[:20]) or "none", cache.store.stored)
    return {c.id: decided[c.id] for c in criteria}


def _merge(ctx: RunContext, outcome: CodeOutcome) -> None:
    """Merge one code row's outcome into the run's state: its artifacts for the rows and
    segments after it, its notes into the delivery's (the result's warnings)."""
    if outcome.deck is not None:
        ctx.deck = outcome.deck
    ctx.artifacts.update(outcome.artifacts)
    if outcome.notes:
        ctx.delivery = ctx.delivery.model_copy(update={"notes": [*ctx.delivery.notes, *outcome.notes]})


def _audit_segment(ctx: RunContext, name: str, rows: Sequence[Criterion], decided: dict[str, Verdict]) -> None:
    """Record a segment's verdicts in ``judge/<name>/verdicts.json`` (audit, re-scoring,
    and the watchdog's partial document if the run is cut off later)."""
    if rows:
        ctx.audit.write(f"{name}/verdicts", {r.id: decided[r.id].model_dump(mode="json") for r in rows if r.id in decided})


def _publish_artifacts(ctx: RunContext) -> None:
    """Write ``evidence/artifacts.json`` for agentic blocks (deck path relative to a block)."""
    if not ctx.artifacts and ctx.deck is None:
        return
    doc = {k: v for k, v in ctx.artifacts.items() if isinstance(v, (str, int, float, bool)) or v is None}
    if ctx.deck is not None:
        doc.update(ctx.deck.as_artifacts())
    if ctx.deck is not None and ctx.deck.rel:
        item = next((f for f in ctx.delivery.files if f.rel == ctx.deck.rel), None)
        doc["deck_in_workspace"] = workspace_rel(item, ctx.delivery.files) if item else None
    ctx.paths.evidence_dir.mkdir(parents=True, exist_ok=True)
    (ctx.paths.evidence_dir / "artifacts.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
