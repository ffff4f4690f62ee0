"""The visual axis: every visual row judged page by page, cells folded by a power mean.

For every page × row a cell is decided: rows declared ``decided_by`` the deterministic
checks take their level from the findings with no model call (`decided`); every other
cell is asked of the VLM through ``ctx.transport``, page first, one call per page
(``combined``), per page × group chunk (``grouped``) or per page × row (``split``)
(`schedule`), each call answering a grid level or N/A per row (`prompt`); rows missing
from a reply are asked again alone for that page. The cells of a row are folded into its
verdict by a power mean across pages, snapped down to the grid (`aggregate`). A budget that runs out loses the last
pages of every row, never a whole row that has a judged page.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampled import unit_agreements
from cowork_judge.core.verdicts import Verdict
from cowork_judge.workflow._contract import ModelCallFailed, WorkflowContext

from . import prompt, timing
from .aggregate import Board, Cell, TiedFinding, aggregate_row
from .decided import CheckRule, PageChecks
from .sampled_cells import CellSamples, run_sampled
from .deck import DeckEvidence
from .schedule import Call, PageFirstPool, plan_calls
from .settings import PptSettings

POOL_GRACE_SEC = 0.25
"""Seconds past the budget the workflow waits for calls in flight (the transport ends them
at the budget); under the runner's grace (at least 0.5 s, `workflow.runner`), so the
workflow returns its verdicts before the runner gives up on it."""


def judge_visual(criteria: Sequence[Criterion], ctx: WorkflowContext, deck: DeckEvidence, settings: PptSettings, *,
                 rules: Mapping[str, CheckRule | None], powers: Mapping[str, float], budget_end: float,
                 workers: int, critical: Mapping[str, bool] | None = None) -> list[Verdict]:
    """Judge the visual rows on the deck's pages; one verdict per row, in `criteria` order.

    Args:
        criteria: the visual rows.
        ctx: the workflow context.
        deck: the located deck's pages and findings.
        settings: the validated ``workflow_config.ppt_judge``.
        rules: row id → its ``decided_by`` rule (None: judged by the VLM).
        powers: row id → its power-mean exponent.
        budget_end: monotonic time after which no call starts (the pages left are lost).
        workers: pool threads (the run's in-flight limit).
        critical: row id → the row is critical (recorded in its aggregate).
    """
    rows = {c.id: c for c in criteria}
    pages = {pg.number: pg for pg in deck.pages}
    board = Board(sorted([*pages, *deck.lost_pages]), rows)
    checks = PageChecks(deck.checks, deck.page_to_slide)
    vlm_rows: dict[int, list[str]] = {}
    tied: dict[str, list[TiedFinding]] = {}
    for number in pages:
        for c in criteria:
            rule = rules.get(c.id)
            decision = checks.decide(rule, number, textless=pages[number].textless) if rule else None
            if rule:
                deciding = {id(f) for f in decision.findings} if decision is not None else set()
                tied.setdefault(c.id, []).extend(TiedFinding(number, f, id(f) in deciding)
                                                 for f in checks.findings(number) if f.check in rule.kinds)
            if decision is not None:
                board.set(number, c.id, Cell(level=None if decision.na else decision.level, na=decision.na,
                                             source="checks", reason=decision.reason))
            else:
                vlm_rows.setdefault(number, []).append(c.id)
    for number, why in deck.lost_pages.items():
        board.lose(number, rows, deck.lost_kind, f"the render did not produce this page: {why}")
    calls = plan_calls(vlm_rows, settings.mode, groups={c.id: c.workflow.group for c in criteria},
                       group_size=settings.group_size)
    ctx.audit.append("plan", {"deck": deck.source, "pages": sorted(pages), "lost_pages": sorted(deck.lost_pages),
                              "total_pages": deck.total_pages, "mode": settings.mode, "group_size": settings.group_size,
                              "calls_planned": len(calls), "workers": workers,
                              "cells_by_checks": sum(len(criteria) - len(vlm_rows.get(p, [])) for p in pages)})

    sampled: dict[str, CellSamples] = {}
    if ctx.sampling is not None:  # JUDGE_SAMPLES > 1 / JUDGE_PANEL: rounds of the same single-ask unit
        sampled, started, finished = run_sampled(
            ctx, lambda jctx, jboard: _PageJudge(jctx, deck, rows, jboard, checks, budget_end), board, calls, vlm_rows,
            settings, budget_end=budget_end, workers=workers, wait_until=budget_end + POOL_GRACE_SEC)
    else:
        judge = _PageJudge(ctx, deck, rows, board, checks, budget_end)
        pool = PageFirstPool(workers, judge.call, judge.drop, judge.out_of_time, budget_end + POOL_GRACE_SEC)
        finished = pool.run(calls)
        started = pool.started
    board.close(pending_kind=timing.budget_kind(ctx),
                pending_reason="the workflow's budget was spent while this page was being judged")
    ctx.audit.append("done", {"axis": "visual", "calls_started": started, "finished": finished})

    verdicts = []
    refs = {pg.number: pg.image_rel for pg in deck.pages}
    for c in criteria:
        cells = board.row(c.id)
        verdict = aggregate_row(c, cells, total_pages=deck.total_pages, p=powers[c.id], image_refs=refs,
                                critical=bool((critical or {}).get(c.id)), findings=tied.get(c.id, ()))
        if c.id in sampled:  # every page cell's samples, and the cells' mean agreement
            verdict = verdict.model_copy(update={"samples": tuple(sampled[c.id].samples),
                                                 "agreement": unit_agreements(sampled[c.id].agreements)})
        verdicts.append(verdict)
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
        self.deck_rel = str((ctx.deck.rel if ctx.deck else None) or deck.source)

    def out_of_time(self) -> bool:
        """No further call may start: budget spent, deadline passed or cancel set."""
        return timing.out_of_time(self.ctx, self.budget_end)

    def drop(self, call: Call) -> None:
        """A call not made for want of time: its cells are lost to the budget."""
        self.board.lose(call.page, call.rows, timing.budget_kind(self.ctx),
                        "the workflow's budget was spent before this page was judged")

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
            kind: ErrorKind = timing.failure_kind(self.ctx, exc, self.budget_end)
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

    @staticmethod
    def _cell_text(cell: prompt.PageCell) -> Any:
        return prompt.NA if cell.na else cell.level


def _cell_view(cell: Cell) -> Any:
    """A cell in the audit: its level, ``"N/A"`` or ``"lost:<kind>"``, and its source."""
    value = prompt.NA if cell.na else cell.level if cell.judged else f"lost:{cell.lost}"
    return {"value": value, "source": cell.source, "reason": cell.reason[:200]}
