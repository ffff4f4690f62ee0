"""``ppt_judge``: a slide deck's content and visual quality (ABI 2, SPEC §9).

`run` judges the deck the code segment located (``ctx.deck``) on the pages
and the slide text the evidence layer built once for the whole run (``ctx.evidence_dir``);
it renders nothing itself. Its rows are of two axes:

- **content** (`content`): rows whose ``workflow_group`` is ``type1`` (does the deck
  cover X: pass A on the slide text, pass B on page images) or ``type2`` (is X stated
  correctly: routed to the pages its paired type1 found, ground truth inlined), with their
  checks in the instance's ``tests/workflow_assets/ppt_judge/task_check_dir`` (`assets`);
- **visual** (`visual`): every other row, judged page by page (checks-decided cells,
  VLM cells by mode, power mean across pages — a low one for critical rows — snapped down).

Content runs first, visual second, on one budget: a content row is lost whole when the
budget runs out, a visual row only loses pages, so the shortage falls on the axis that
degrades gracefully. See README.md beside this file for the call counts, the asset format
and the failure attribution.
"""

from __future__ import annotations

import time
from typing import Any

from cowork_judge.core import grounding
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.workflow._contract import GRID_21, WorkflowContext, level_row, unjudged_row

from .assets import TaskChecks, content_kind, load_task_checks
from .content import judge_content, problem_verdicts
from .decided import read_rule
from .deck import DeckProblem, load_deck
from .settings import is_critical, read_settings, row_page_mean_p
from .visual import POOL_GRACE_SEC, judge_visual

REQUIRES_ABI = 2
REQUIRES_EXTRAS = ("workflow",)
"""pip extras of cowork-judge this workflow needs (PyMuPDF reads the rendered pages; `install.extras`)."""
DEFAULT_WORKERS = 4
"""Worker threads when the transport does not tell its in-flight limit (JUDGE_WORKFLOW_CONCURRENCY's default)."""


def _with_checklist_groups(criteria: list[Criterion], ctx: WorkflowContext) -> list[Criterion]:
    """`criteria` with a ``workflow_group`` given to each row that has none and whose id the
    instance's task_check_dir declares (`TaskChecks.group_of`: the original 1.3.x's rule);
    the same list when no row lacks a group."""
    if all(c.workflow.group is not None for c in criteria):
        return criteria
    checks = load_task_checks(ctx.assets_dir)
    out = []
    for c in criteria:
        kind = checks.group_of(c.id, c.workflow.group) if c.workflow.group is None else None
        out.append(c.model_copy(update={"workflow": c.workflow.model_copy(update={"group": kind})}) if kind else c)
    return out


def run(criteria: list[Criterion], ctx: WorkflowContext, budget_sec: float) -> list[Verdict]:
    """Judge the content rows, then the visual rows, on the located deck; one verdict per row.

    Args:
        criteria: the ``ppt_judge`` rows, rubric order.
        ctx: the typed workflow context (settings, artifacts, evidence, assets, transport…).
        budget_sec: seconds this workflow may use; content rows still open then are
            unjudged whole, visual pages not judged are left out of their rows' aggregate.

    Returns:
        One verdict per row, in `criteria` order. Never raises for bad settings, assets,
        evidence or replies.
    """
    budget_end = time.monotonic() + max(0.0, budget_sec)
    settings, warnings = read_settings(ctx.settings)
    criteria = _with_checklist_groups(criteria, ctx)
    content_rows = [c for c in criteria if content_kind(c.workflow.group)]
    visual_rows = [c for c in criteria if not content_kind(c.workflow.group)]
    rules, powers, critical = {}, {}, {}
    for c in visual_rows:
        rules[c.id], warn = read_rule(c.id, _decided_by(c))
        critical[c.id] = is_critical(c.tag)
        powers[c.id], warn_p = row_page_mean_p(c.workflow.page_mean_p, settings, critical=critical[c.id])
        warnings += [w for w in (warn, warn_p and f"row {c.id!r}: {warn_p}") if w]
        if not c.graded:
            warnings.append(f"row {c.id!r} is not graded: it scores its full weight when its page mean is above 0 "
                            "(give it 21-step grid levels, as gen-ppt-rubrics does)")
        elif not set(c.level_choices or ()) >= set(GRID_21):
            warnings.append(f"row {c.id!r}: its levels are not the 21-step grid; the engine snaps the page mean to "
                            f"the nearest of {list(c.level_choices or ())}, so a mean below 1 may score as 1 "
                            "(give it the grid's levels, as gen-ppt-rubrics does)")
    checks = load_task_checks(ctx.assets_dir) if content_rows else TaskChecks(folder=ctx.work_dir)
    if content_rows:
        unusable = {c.id: why for c in content_rows
                    if (why := checks.why_unusable(c.id, content_kind(c.workflow.group) or "type1"))}
        warnings += [f"content row {rid!r} cannot be judged (asset_broken): {why}" for rid, why in unusable.items()]
    for w in warnings:
        ctx.log.warning("ppt_judge: %s", w)
    ctx.audit.append("settings", {"settings": settings.as_dict(), "warnings": warnings,
                                  "decided_by_checks": {k: list(r.kinds) for k, r in rules.items() if r},
                                  "content_rows": [c.id for c in content_rows], "visual_rows": len(visual_rows),
                                  "asset_problems": [p.__dict__ for p in checks.problems[:50]]})
    deck = load_deck(ctx.evidence_dir, ctx.deck, delivered_decks=_delivered_decks(ctx))
    if isinstance(deck, DeckProblem):
        ctx.audit.append("deck", {"problem": deck.reason, "deck_fault": deck.deck_fault, "kind": deck.kind})
        out = problem_verdicts(content_rows, checks, deck_fault=deck.deck_fault, kind=deck.kind, reason=deck.reason)
        for c in visual_rows:
            out[c.id] = (level_row(c.id, 0.0, f"[deck] {deck.reason}") if deck.deck_fault
                         else unjudged_row(c.id, deck.kind or "render_env", deck.reason))
        return [out[c.id] for c in criteria]

    workers = _in_flight_limit(ctx)
    verdicts: dict[str, Verdict] = {}
    if content_rows:  # first: a content row is lost whole when the budget runs out (module docstring)
        verdicts.update(judge_content(content_rows, ctx, deck, checks, budget_end=budget_end, workers=workers,
                                      wait_until=budget_end + POOL_GRACE_SEC))
    if visual_rows:
        verdicts.update({v.id: v for v in judge_visual(visual_rows, ctx, deck, settings, rules=rules, powers=powers,
                                                        budget_end=budget_end, workers=workers, critical=critical)})
    # a credited verdict decided on page images (visual rows, pass B, type2) has no text quote to check: it says so;
    # pass A (slide text) set its own grounding
    pending = {k: v for k, v in verdicts.items() if v.grounding is None}
    verdicts.update(grounding.ground(criteria, pending, None, exempt=grounding.EXEMPT_PAGES))
    return [verdicts[c.id] for c in criteria]


def _decided_by(c: Criterion) -> dict[str, Any]:
    """The row's ``decided_by`` routing field, as `decided.read_rule` takes it."""
    return {"decided_by": c.workflow.decided_by}


def _delivered_decks(ctx: WorkflowContext) -> list[str]:
    """Output-relative paths of deck-like deliverables (deck suffixes of the evidence layer)."""
    from cowork_judge.evidence.build import is_deck

    files = getattr(ctx.delivery, "files", None) or []
    return [str(f.rel) for f in files if is_deck(str(getattr(f, "rel", "")))]


def _in_flight_limit(ctx: WorkflowContext) -> int:
    """The run's in-flight limit (JUDGE_WORKFLOW_CONCURRENCY) as the transport knows it; the
    pool runs that many workers so calls never queue out of page order at the transport."""
    limit = getattr(ctx.transport, "limit", None)  # `ModelCaller.limit` (a test double may lack it)
    return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1 else DEFAULT_WORKERS
