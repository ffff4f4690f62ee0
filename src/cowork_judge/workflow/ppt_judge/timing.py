"""Budget bookkeeping shared by the two axes: may a call still start, and why a call failed.

A workflow call can fail for want of time in two ways: the workflow's own budget
(``timeout``: the router's share of the run for this workflow) or the run's
``JUDGE_DEADLINE`` (``deadline``); a call refused for rate limiting until its tries ran
out keeps the transport's kind (``rate_limit``, ``insufficient_quota``: a fleet that masks
rate-limited rows must see them); any other failure after the transport's retries is the
endpoint's (``vlm_error``). The distinction reaches ``judge_error_kind``.
"""

from __future__ import annotations

import time

from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.workflow._contract import ModelCallFailed, WorkflowContext

BUDGET_SLACK_SEC = 0.5
"""A call that failed this close to the budget's end failed for want of time."""


def out_of_time(ctx: WorkflowContext, budget_end: float) -> bool:
    """No further call may start: budget spent, deadline passed or cancel set."""
    now = time.monotonic()
    return ctx.cancel.is_set() or now >= budget_end or now >= ctx.deadline_at


def budget_kind(ctx: WorkflowContext) -> ErrorKind:
    """``deadline`` once JUDGE_DEADLINE has passed, else ``timeout`` (the workflow's budget)."""
    return "deadline" if time.monotonic() >= ctx.deadline_at else "timeout"


RATE_KINDS: frozenset[str] = frozenset({"rate_limit", "insufficient_quota"})
"""Transport kinds a lost call keeps (the endpoint refused it; its vision model never answered)."""


def failure_kind(ctx: WorkflowContext, exc: ModelCallFailed, budget_end: float) -> ErrorKind:
    """Budget (``timeout``/``deadline``) when the call failed for want of time; the
    transport's kind when the endpoint refused it for rate limiting (`RATE_KINDS`); else
    ``vlm_error`` (the call failed after the transport's retries)."""
    text = str(exc)
    if exc.kind == "deadline" or time.monotonic() >= ctx.deadline_at:
        return "deadline"
    if (ctx.cancel.is_set() or time.monotonic() >= budget_end - BUDGET_SLACK_SEC
            or "not made:" in text or "no time left" in text):
        return "timeout"
    if exc.kind in RATE_KINDS:
        return exc.kind
    return "vlm_error"
