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

import time
from collections.abc import Iterable, Mapping, Sequence

from cowork_judge.code_methods.code_rows import judge_code_rows
from cowork_judge.core.classify import classify, summary
from cowork_judge.core.gates import mark_open, pre_gate, settle_gated
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.run.context import RunContext
from cowork_judge.run.verdict_cache import RunCache
from cowork_judge.segment.judges import calls_opened

SEGMENTS = ("code", "workflow", "agentic")


def route(criteria: Sequence[Criterion], ctx: RunContext, cache: RunCache | None = None) -> dict[str, Verdict]:
    """Judge every row by its method, segment by segment; exactly one verdict per row.

    The run's state goes down twice, each time as one frozen segment context
    (`RunContext.segment`): once to the code segment, which carries its rows' artifacts from
    row to row itself and returns its outcome once (`code_methods.code_rows.CodeSegment`),
    which the router merges into the run's state; then, built from that state, to the
    workflow and the agentic segments. Every segment's verdicts are merged once into the
    audit and the verdict cache. `ctx.deck`, `ctx.artifacts` and ``ctx.delivery.notes`` hold
    the code rows' outcome when this returns.

    `cache` is the run's verdict cache (`run.verdict_cache.RunCache.of`: its keys built by the
    caller from this context and `criteria`; None when ``JUDGE_VERDICT_CACHE`` is off): each model
    segment looks its rows up before it runs and stores what it judged when it ends."""
    known = {c.id: c for c in criteria}
    code_rows, workflow_rows, agentic_rows = ([c for c in criteria if c.judge_method == m] for m in SEGMENTS)
    decided = route_code_rows(code_rows, ctx, {}, known)
    assert ctx.calls is not None  # RunContext makes it
    # the model segments' clients, held open for both (closed when the outermost scope ends: the engine's
    # when it holds one, else this one); the segments open none of their own
    with calls_opened(ctx.calls, ctx.sampling):
        seg = ctx.segment()  # the one context of the model segments: the run's state after the code rows

        if workflow_rows:
            todo, hits = cache.split(workflow_rows) if cache else (list(workflow_rows), {})
            if todo:
                from cowork_judge.workflow.runner import judge_workflow_rows

                budget, reserve = ctx.workflow_budget(len(agentic_rows))
                ctx.log.info("workflow segment: %d row(s), budget %.0f s (agentic reserve %.0f s)", len(todo), budget, reserve)
                decided.update(judge_workflow_rows(todo, seg, decided, known, segment_end=time.monotonic() + budget))
            for row in workflow_rows:  # cached verdicts pass this run's gates like judged ones
                if row.id in hits:
                    decided[row.id] = pre_gate(row, decided, known) or mark_open(row, hits[row.id], decided, known)
            if cache:
                cache.keep(todo, decided)
            ctx.audit.write_json("workflow/verdicts", _audited(workflow_rows, decided))

        runnable = settle_gated(agentic_rows, decided, known, into=decided)
        if ctx.extras_blind and runnable:  # trial 23 P-1: they would see no slide text and no page image
            blind = ctx.extras_blind
            reason = blind_reason(blind, known.values(), ctx.task_prompt)
            decided.update({r.id: mark_open(r, Verdict.unjudged(r.id, "extras_missing", reason), decided, known)
                            for r in runnable})
            runnable = []
        if cache and runnable:
            runnable, hits = cache.split(runnable)
            for row in agentic_rows:
                if row.id in hits:
                    decided[row.id] = mark_open(row, hits[row.id], decided, known)
        # gate-settled agentic rows cost no call but are verdicts all the same: in the audit
        # for re-scoring and for the watchdog's document if the run is cut off later
        gated = [r for r in agentic_rows if r.id in decided]
        if gated:
            ctx.audit.write_json("agentic-gated/verdicts", _audited(gated, decided))
        if runnable:
            from cowork_judge.agentic.dispatch import judge_agentic

            try:
                judged = judge_agentic(runnable, seg)
            except Exception as exc:  # a crashed backend loses only its own rows
                kind = classify(exc, segment="backend", deadline_passed=ctx.deadline.passed())
                ctx.log.error("agentic segment failed: %s", ctx.redactor.redact(summary(exc)))
                judged = {r.id: Verdict.unjudged(r.id, kind, ctx.redactor.redact(summary(exc))) for r in runnable}
            for row in runnable:
                decided[row.id] = mark_open(row, judged[row.id], decided, known)
            if cache:
                cache.keep(runnable, decided)
        if cache:
            ctx.log.info("verdict cache %s: %d verdict(s) reused (%s), %d stored", ctx.config.verdict_cache_dir,
                         len(cache.store.hits), ", ".join(cache.store.hits[:20]) or "none", cache.store.stored)
    return {c.id: decided[c.id] for c in criteria}


def blind_reason(cause: str, criteria: Iterable[Criterion], task_prompt: str) -> str:
    """The reason of an agentic row left unjudged because no delivered deck could be read: the judge's extras are
    missing (`cause`, the evidence step's error). The fix is the run's warning's (trial 38 P-3: "run init again" was
    said where init picks no deck extras for the rubric, `evidence_step.init_picks_deck_extras`: add a locate_deck
    row first)."""
    from cowork_judge.engine.evidence_step import READING_FIX, READING_FIX_NO_DECK_ROW, init_picks_deck_extras

    fix = READING_FIX if init_picks_deck_extras(criteria, task_prompt) else READING_FIX_NO_DECK_ROW
    return f"not judged: the delivered deck could not be read ({cause[:200]}): {fix}"


def route_code_rows(code_rows: Sequence[Criterion], ctx: RunContext, decided: Mapping[str, Verdict],
                    known: Mapping[str, Criterion]) -> dict[str, Verdict]:
    """The code segment of a run (`judge_code_rows`: serial, earlier rows gate later ones), its outcome
    merged into `ctx` once (deck, artifacts, ``ctx.delivery.notes``) and audited (``judge/code/``).

    `decided`: verdicts reached before it (the gates' dependencies: `engine.judge` hands in the
    nothing-delivered verdicts of the rows a chat-only run with JUDGE_CHAT_FALLBACK off does not judge);
    `known`: every row of the rubric by id. Returns row id → verdict of the code rows."""
    code = judge_code_rows(code_rows, ctx.segment(), decided, known)
    ctx.deck = code.deck  # the code segment's outcome, merged once
    ctx.artifacts.update(code.artifacts)
    if code.notes:
        ctx.delivery = ctx.delivery.model_copy(update={"notes": [*ctx.delivery.notes, *code.notes]})
    verdicts = dict(code.verdicts)
    if code_rows:
        ctx.audit.write_json("code/verdicts", _audited(code_rows, verdicts))
    return verdicts


def _audited(rows: Sequence[Criterion], decided: dict[str, Verdict]) -> dict[str, object]:
    """A segment's verdicts as its audit file ``judge/<segment>/verdicts.json`` records them (audit,
    re-scoring, and the watchdog's partial document if the run is cut off later): row id → verdict."""
    return {r.id: decided[r.id].model_dump(mode="json") for r in rows if r.id in decided}
