"""The workflow contract (ABI 2): what a workflow receives, returns, and may use.

A workflow package ``cowork_judge.workflow.<name>`` declares ``REQUIRES_ABI = 2`` and a
function ``run(criteria, ctx, budget_sec) -> list[Verdict]``; it may declare the pip extras
of cowork-judge it needs as ``REQUIRES_EXTRAS = ("workflow",)`` (read by `cowork-judge init`
and lint M012 through `cowork_judge.install.extras`; absent means none):

- ``criteria``: the workflow's rows (normalized `Criterion` objects), in rubric order; the
  per-row settings a workflow reads are the row's workflow part, ``c.workflow`` (a
  `core.rubric.WorkflowRoute`: ``name``, ``group``, ``na_policy``, ``page_mean_p``, ``decided_by``);
- ``ctx``: a `WorkflowContext` — settings from ``rubric.json → workflow_config.<name>``,
  the code segment's artifacts (the located deck), the shared evidence folder, the
  instance's asset folder of the workflow (``assets_dir``, added within ABI 2 with a
  default, so workflows that do not read it are unaffected), the delivery, the run deadline, a cancel event, an audit log, and THE model transport
  (`ModelCaller`) through which every model call must go: it enforces the run's global
  in-flight limit (``JUDGE_WORKFLOW_CONCURRENCY``, one limit over all workflow calls,
  however many threads a workflow uses), the start jitter
  (``JUDGE_WORKFLOW_START_JITTER``), the retry policy of the failure table, the call and
  token statistics of the result, the redacted audit of every prompt and reply, and the
  cancel event;
- ``budget_sec``: seconds it may use; the router waits a grace period more, then sets
  ``ctx.cancel``: a workflow checks it between requests (the transport refuses new calls
  once it is set) and returns, so its requests never overlap the agentic segment's.

It returns one verdict per row (build them with `hit_row`, `level_row`, `unjudged_row`,
`gate_row`); rows it leaves out become unjudged ``workflow_error`` sentinels. Helpers:
`power_mean`, `snap_to_grid` (the 21-step grid), `apply_na_policy`.

ABI history: 1 passed ``ctx`` as a dict with no transport; 2 (this) passes the typed
context. The loader accepts what ``cowork_judge.ABI_COMPAT`` lists; a workflow declaring
another ABI has its rows unjudged ``workflow_missing``.
"""

from __future__ import annotations

import logging
import math
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.transport.calls import AuditSink, ModelCaller, ModelCallFailed, ModelReply
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.sampling import Vote
from cowork_judge.core.scales import snap_level
from cowork_judge.core.verdicts import Verdict, read_level
from cowork_judge.segment.delivery import Delivery, LocatedDeck

GRID_21: tuple[float, ...] = tuple(round(i / 20, 2) for i in range(21))
"""The 21-step level grid 0, 0.05, …, 1 used by visual workflows (values equal float("0.05"))."""


@dataclass(frozen=True)
class SampledJudge:
    """One judge a workflow samples (JUDGE_SAMPLES, JUDGE_PANEL; issue 28).

    Attributes:
        name: how its samples are recorded (`core.sampling.Sample.judge`).
        transport: its model transport (every call of this judge must use it).
        weight: its weight in a ``weighted`` panel vote.
        slug: a file-name-safe form of `name` for audit labels.
    """

    name: str
    transport: ModelCaller
    weight: float = 1.0
    slug: str = ""


@dataclass(frozen=True)
class WorkflowSampling:
    """How a workflow asks each of its units (a page cell, a content pass, a decision):
    up to `k` times per judge, adaptively (`first_round` asks, then only units whose answer
    could still change, `core.sampling.settled`) or `k` times, reduced per judge and voted
    across judges by `vote` (`core.sampling`). Given only when the run samples; None in
    `WorkflowContext.sampling` means: ask once, through ``transport``.
    """

    k: int
    adaptive: bool
    vote: Vote
    judges: tuple[SampledJudge, ...]

    @property
    def first_round(self) -> int:
        """Asks every unit gets before the adaptive rule decides (2, at most k; k when fixed)."""
        return min(self.k, 2) if self.adaptive else self.k

    @property
    def weights(self) -> dict[str, float]:
        """Judge name → weight."""
        return {j.name: j.weight for j in self.judges}


@dataclass(frozen=True)
class WorkflowContext:
    """What a workflow may read and use (ABI 2).

    Attributes:
        name: the workflow's name.
        settings: ``rubric.json → workflow_config.<name>`` (a plain dict; validate it).
        artifacts: the code segment's artifacts (``deck_path``, ``deck_kind``, ``deck_rel``…);
            read the located deck through `deck`.
        evidence_dir: the shared evidence folder (``pages/`` written here reaches agentic blocks).
        work_dir: a private scratch folder of this workflow.
        delivery: the deliverables and final message (`cowork_judge.segment.delivery.Delivery`).
        deadline_at: monotonic time (seconds) of the run's JUDGE_DEADLINE.
        cancel: set when the budget (+ grace) is spent or the run is ending.
        transport: the model transport every model call must use.
        audit: the workflow's audit log.
        redact: removes secrets from a text (use it on agent-produced text put in prompts).
        log: the run's logger.
        rng: the run's random source (seeded in tests).
        resplit: JUDGE_RESPLIT: a workflow may re-ask, alone, what a failed or partial
            reply left out (ppt_judge: rows missing from a page's reply).
        assets_dir: the instance's per-instance assets of this workflow
            (``tests/workflow_assets/<name>/``; it may not exist); None when the caller
            has no instance (a unit test). Read it, never write it.
        sampling: the judges and how often to ask them (JUDGE_SAMPLES > 1, JUDGE_PANEL;
            added within ABI 2 with a default): None = ask each unit once through
            `transport`. A workflow that ignores it is asked once per unit (by the first
            judge, whose transport `transport` then is).
    """

    name: str
    settings: Mapping[str, Any]
    artifacts: Mapping[str, Any]
    evidence_dir: Path
    work_dir: Path
    delivery: Delivery
    deadline_at: float
    cancel: threading.Event
    transport: ModelCaller
    audit: AuditSink
    redact: Callable[[str], str] = str
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("cowork_judge"))
    rng: random.Random = field(default_factory=random.Random)
    resplit: bool = True
    assets_dir: Path | None = None
    sampling: WorkflowSampling | None = None

    @property
    def deck(self) -> LocatedDeck | None:
        """The deck the code segment located, typed (read from `artifacts`, where ABI 2 names it);
        None when no deck was located."""
        return LocatedDeck.from_artifacts(self.artifacts)


def hit_row(row_id: str, hit: bool, reason: str, *, evidence: Sequence[str] = ()) -> Verdict:
    """A judged binary verdict."""
    return Verdict(id=row_id, hit=hit, reason=reason, method="workflow", judged=True, evidence=list(evidence))


def level_row(row_id: str, level: float, reason: str, *, evidence: Sequence[str] = ()) -> Verdict:
    """A judged graded verdict; `level` is snapped to `GRID_21` (hit = level > 0).

    A level the engine cannot read (`core.verdicts.read_level`: NaN, ±inf, None, a value
    outside [0, 1] such as 7 or 75) is no judgement: the row comes back unjudged
    ``workflow_error`` rather than snapped to a level nobody gave.
    """
    value = read_level(level)
    if value is None or isinstance(level, str):
        return Verdict.unjudged(row_id, "workflow_error", f"the workflow gave no usable level ({level!r}): {reason}",
                                method="workflow")
    snapped = snap_to_grid(value)
    return Verdict(id=row_id, hit=snapped > 0, level=snapped, level_raw=level, reason=reason, method="workflow",
                   judged=True, evidence=list(evidence))


def unjudged_row(row_id: str, error_kind: ErrorKind, reason: str) -> Verdict:
    """A not-judged verdict with a specific error kind (vlm_error, render_env, …)."""
    return Verdict.unjudged(row_id, error_kind, reason, method="workflow")


def gate_row(row_id: str, dependency: str) -> Verdict:
    """A deterministic short-circuit: the row's dependency was judged and missed (SPEC §7.4)."""
    return Verdict(id=row_id, hit=False, reason=f"[gate] {dependency} was judged and missed", method="workflow",
                   judged=True, gate="closed")


def power_mean(values: Sequence[float], p: float) -> float:
    """Power mean ``(Σ x^p / n)^(1/p)`` of values in [0, 1].

    p = 1 is the arithmetic mean, p → 0 the geometric mean (used at p = 0), p < 1 leans
    toward the worst pages. A zero value with p ≤ 0 gives 0.

    Raises:
        ValueError: empty `values` or a value outside [0, 1].
    """
    if not values:
        raise ValueError("power_mean of no values")
    if any(not (0.0 <= v <= 1.0) for v in values):
        raise ValueError("power_mean expects values in [0, 1]")
    n = len(values)
    if p == 0:
        if any(v == 0 for v in values):
            return 0.0
        return math.exp(sum(math.log(v) for v in values) / n)
    if p < 0 and any(v == 0 for v in values):
        return 0.0
    mean: float = (sum(v**p for v in values) / n) ** (1.0 / p)  # values in [0, 1]: a real power
    return mean


def snap_to_grid(x: float, grid: Sequence[float] = GRID_21) -> float:
    """Nearest grid value, ties to the lower one; snapping twice is the identity.

    The same rule as the engine's level snapping (`scales.snap_level`, SPEC §4), so a
    snapped workflow level survives the engine unchanged. `grid` ascending.
    """
    return snap_level(x, grid)


def apply_na_policy(page_levels: Sequence[float | None], policy: str | None, *, p: float = 1.0) -> float | None:
    """Aggregate per-page levels (None = N/A on that page) across pages.

    Returns the power mean of the judged pages; when every page is N/A: ``pass`` → 1.0,
    ``fail`` → 0.0, ``unjudged`` (default) → None (the row stays unjudged).
    """
    judged = [v for v in page_levels if v is not None]
    if judged:
        return power_mean(judged, p)
    return {"pass": 1.0, "fail": 0.0}.get(policy or "unjudged")


__all__ = [
    "GRID_21", "ModelReply", "ModelCallFailed", "ModelCaller", "AuditSink", "SampledJudge", "WorkflowContext",
    "WorkflowSampling",
    "hit_row", "level_row", "unjudged_row", "gate_row", "power_mean", "snap_to_grid", "apply_na_policy",
]
