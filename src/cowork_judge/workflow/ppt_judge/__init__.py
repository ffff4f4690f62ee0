"""``ppt_judge``: the visual axis of a slide deck, judged page by page (ABI 2, SPEC §9).

`run` judges the deck the code segment located (``ctx.artifacts.deck_path``) on the pages
the evidence layer rendered once for the whole run (``ctx.evidence_dir``); it renders
nothing itself. For every page × row it decides a cell: rows declared ``decided_by`` the
deterministic checks take their level from the findings, with no model call
(`decided`); every other cell is asked of the VLM through ``ctx.transport``, page first,
one call per page (``combined``), per page × group chunk (``grouped``) or per page × row
(``split``) (`schedule`), each call answering a grid level or N/A per row (`prompt`);
rows missing from a reply are asked again alone for that page. The cells of a row are
folded into its verdict by a power mean across pages (`aggregate`). See README.md beside
this file for the call count, the failure attribution and what the checks can see.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Any

from cowork_judge.core.failures import ErrorKind
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.workflow._contract import GRID_21, ModelCallFailed, WorkflowContext, level_row, unjudged_row

from . import prompt
from .aggregate import Board, Cell, aggregate_row
from .decided import PageChecks, read_rule
from .deck import DeckEvidence, DeckProblem, load_deck
from .schedule import Call, PageFirstPool, plan_calls
from .settings import read_settings, row_page_mean_p

REQUIRES_ABI = 2
DEFAULT_WORKERS = 4
"""Worker threads when the transport does not tell its in-flight limit (JUDGE_WORKFLOW_CONCURRENCY's default)."""
POOL_GRACE_SEC = 0.25
"""Seconds past the budget the workflow waits for calls in flight (the transport ends them
at the budget); under the runner's grace (at least 0.5 s, `workflow.runner`), so the
workflow returns its verdicts before the runner gives up on it."""
BUDGET_SLACK_SEC = 0.5
"""A call that failed this close to the budget's end failed for want of time."""


def run(criteria: list[Criterion], ctx: WorkflowContext, budget_sec: float) -> list[Verdict]:
    """Judge the visual rows on the located deck's pages; one verdict per row.

    Args:
        criteria: the ``ppt_judge`` rows, rubric order.
        ctx: the typed workflow context (settings, artifacts, evidence, transport…).
        budget_sec: seconds this workflow may use; pages not judged by then are left out
            of every row's aggregate ("N of M pages not judged").

    Returns:
        One verdict per row. Never raises for bad settings, evidence or replies.
    """
    budget_end = time.monotonic() + max(0.0, budget_sec)
    settings, warnings = read_settings(ctx.settings)
    rules, powers = {}, {}
    for c in criteria:
        rules[c.id], warn = read_rule(c.id, _decided_by(c))
        powers[c.id], warn_p = row_page_mean_p(c.page_mean_p, settings)
        warnings += [w for w in (warn, warn_p and f"row {c.id!r}: {warn_p}") if w]
        if not c.graded:
            warnings.append(f"row {c.id!r} is not graded: it scores its full weight when its page mean is above 0 "
                            "(give it 21-step grid levels, as gen-ppt-rubrics does)")
        elif not set(c.level_choices or ()) >= set(GRID_21):
            warnings.append(f"row {c.id!r}: its levels are not the 21-step grid; the engine snaps the page mean to "
                            f"{list(c.level_choices or ())}")
    for w in warnings:
        ctx.log.warning("ppt_judge: %s", w)
    ctx.audit.append("settings", {"settings": settings.as_dict(), "warnings": warnings,
                                  "decided_by_checks": {k: list(r.kinds) for k, r in rules.items() if r}})
    deck = load_deck(ctx.evidence_dir, ctx.artifacts, delivered_decks=_delivered_decks(ctx))
    if isinstance(deck, DeckProblem):
        ctx.audit.append("deck", {"problem": deck.reason, "deck_fault": deck.deck_fault, "kind": deck.kind})
        return [level_row(c.id, 0.0, f"[deck] {deck.reason}") if deck.deck_fault
                else unjudged_row(c.id, deck.kind or "render_env", deck.reason) for c in criteria]

    rows = {c.id: c for c in criteria}
    pages = {pg.number: pg for pg in deck.pages}
    board = Board(sorted([*pages, *deck.lost_pages]), rows)
    checks = PageChecks(deck.checks, deck.page_to_slide)
    vlm_rows: dict[int, list[str]] = {}
    for number in pages:
        for c in criteria:
            decision = checks.decide(rules[c.id], number) if rules[c.id] else None
            if decision is not None:
                board.set(number, c.id, Cell(level=decision.level, source="checks", reason=decision.reason))
            else:
                vlm_rows.setdefault(number, []).append(c.id)
    for number, why in deck.lost_pages.items():
        board.lose(number, rows, deck.lost_kind, f"the render did not produce this page: {why}")
    calls = plan_calls(vlm_rows, settings.mode, groups={c.id: c.workflow_group for c in criteria},
                       group_size=settings.group_size)
    workers = _in_flight_limit(ctx)
    ctx.audit.append("plan", {"deck": deck.source, "pages": sorted(pages), "lost_pages": sorted(deck.lost_pages),
                              "total_pages": deck.total_pages, "mode": settings.mode, "group_size": settings.group_size,
                              "calls_planned": len(calls), "workers": workers,
                              "cells_by_checks": sum(len(criteria) - len(vlm_rows.get(p, [])) for p in pages)})

    judge = _PageJudge(ctx, deck, rows, board, checks, budget_end)
    pool = PageFirstPool(workers, judge.call, judge.drop, judge.out_of_time, budget_end + POOL_GRACE_SEC)
    finished = pool.run(calls)
    board.close(pending_kind=judge.budget_kind(),
                pending_reason="the workflow's budget was spent while this page was being judged")
    ctx.audit.append("done", {"calls_started": pool.started, "finished": finished})

    verdicts = []
    refs = {pg.number: pg.image_rel for pg in deck.pages}
    for c in criteria:
        cells = board.row(c.id)
        verdicts.append(aggregate_row(c, cells, total_pages=deck.total_pages, p=powers[c.id], image_refs=refs))
        ctx.audit.append("cells", {"row": c.id, "cells": {str(p): _cell_view(x) for p, x in sorted(cells.items())}})
    return verdicts


class _PageJudge:
    """Runs one call: prompt, transport, reply, cells; resplits rows the reply left out."""

    def __init__(self, ctx: WorkflowContext, deck: DeckEvidence, rows: dict[str, Criterion], board: Board,
                 checks: PageChecks, budget_end: float) -> None:
        self.ctx, self.deck, self.rows, self.board, self.checks = ctx, deck, rows, board, checks
        self.pages = {pg.number: pg for pg in deck.pages}
        self.budget_end = budget_end
        self.seq = itertools.count(1_000_000)  # resplits sort after the planned calls of their page
        self.deck_rel = str(ctx.artifacts.get("deck_rel") or deck.source)

    def out_of_time(self) -> bool:
        """No further call may start: budget spent, deadline passed or cancel set."""
        now = time.monotonic()
        return self.ctx.cancel.is_set() or now >= self.budget_end or now >= self.ctx.deadline_at

    def budget_kind(self) -> ErrorKind:
        """``deadline`` once JUDGE_DEADLINE has passed, else ``timeout`` (the workflow's budget)."""
        return "deadline" if time.monotonic() >= self.ctx.deadline_at else "timeout"

    def drop(self, call: Call) -> None:
        """A call not made for want of time: its cells are lost to the budget."""
        self.board.lose(call.page, call.rows, self.budget_kind(), "the workflow's budget was spent before this page was judged")

    def call(self, call: Call) -> Sequence[Call]:
        """Judge `call`; returns the resplit calls for rows its reply left out. Never raises."""
        rows = [self.rows[r] for r in call.rows]
        page = self.pages[call.page]
        try:
            messages = prompt.messages(page, rows, total_pages=self.deck.total_pages, deck_rel=self.deck_rel,
                                       findings=self.checks.findings(call.page))
        except (OSError, ValueError) as exc:
            self.board.lose(call.page, call.rows, "render_env", f"page image unusable: {exc}")
            return ()
        try:
            reply = self.ctx.transport.complete(messages, label=call.label, response_format=prompt.response_format(rows))
        except ModelCallFailed as exc:
            kind = self._failure_kind(exc)
            self.board.lose(call.page, call.rows, kind, f"{exc.kind}: {exc}")
            return ()
        except Exception as exc:  # noqa: BLE001 - a transport bug must cost cells, not the workflow
            self.board.lose(call.page, call.rows, "vlm_error", f"{type(exc).__name__}: {exc}")
            return ()
        cells, step, problems = prompt.read_reply(reply.text, rows)
        self.ctx.audit.append("parsed", {"label": call.label, "step": step, "problems": problems[:10],
                                         "cells": {r: (self._cell_text(c)) for r, c in cells.items()}})
        for row_id, cell in cells.items():
            self.board.set(call.page, row_id, Cell(level=cell.level, na=cell.na, reason=cell.reason))
        missing = [r for r in call.rows if r not in cells]
        if not missing:
            return ()
        if call.phase or not self.ctx.resplit:  # already asked alone (or JUDGE_RESPLIT=0): give up on this cell
            self.board.lose(call.page, missing, "parse_error", f"the reply held no usable verdict ({step}): "
                                                               f"{'; '.join(problems[:2]) or 'row missing'}")
            return ()
        return [Call(call.page, 1, next(self.seq), (r,), f"row-{r}") for r in missing]

    def _failure_kind(self, exc: ModelCallFailed) -> ErrorKind:
        """Budget (``timeout``/``deadline``) when the call failed for want of time, else
        ``vlm_error`` (the call failed after the transport's retries)."""
        text = str(exc)
        if exc.kind == "deadline" or time.monotonic() >= self.ctx.deadline_at:
            return "deadline"
        if (self.ctx.cancel.is_set() or time.monotonic() >= self.budget_end - BUDGET_SLACK_SEC
                or "not made:" in text or "no time left" in text):
            return "timeout"
        return "vlm_error"

    @staticmethod
    def _cell_text(cell: prompt.PageCell) -> Any:
        return prompt.NA if cell.na else cell.level


def _cell_view(cell: Cell) -> Any:
    """A cell in the audit: its level, ``"N/A"`` or ``"lost:<kind>"``, and its source."""
    value = prompt.NA if cell.na else cell.level if cell.judged else f"lost:{cell.lost}"
    return {"value": value, "source": cell.source, "reason": cell.reason[:200]}


def _decided_by(c: Criterion) -> dict[str, Any]:
    """The row's ``decided_by`` routing field, as `decided.read_rule` takes it."""
    return {"decided_by": c.decided_by}


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
