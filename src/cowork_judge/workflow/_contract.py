"""The workflow contract (ABI 1): what a workflow receives, returns, and may use.

A workflow package ``cowork_judge.workflow.<name>`` declares ``REQUIRES_ABI`` and a
function ``run(criteria, ctx, budget_sec) -> list[Verdict]``:

- ``criteria``: the workflow's rows (normalized `Criterion` objects), in rubric order;
- ``ctx``: a dict with the keys of `WORKFLOW_CTX_KEYS` (paths, artifacts from code methods,
  ``workflow_config``, deadline, …);
- ``budget_sec``: seconds it may use; the router waits a grace period more, then sets
  ``ctx["cancel"]`` (a `threading.Event`): a workflow checks it between requests (or
  waits on it instead of sleeping) and returns, so that its requests never overlap the
  agentic segment's.

It returns one verdict per row (build them with `hit_row`, `level_row`, `unjudged_row`,
`gate_row`); rows it leaves out become unjudged ``workflow_error`` sentinels. Helpers:
`power_mean`, `snap_to_grid` (the 21-step grid), `backoff_seconds`, `apply_na_policy`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from cowork_judge.core.failures import ErrorKind
from cowork_judge.transport.chat import backoff_seconds
from cowork_judge.core.scales import snap_level
from cowork_judge.core.verdicts import Verdict

GRID_21: tuple[float, ...] = tuple(round(i / 20, 2) for i in range(21))
"""The 21-step level grid 0, 0.05, …, 1 used by visual workflows (values equal float("0.05"))."""

WORKFLOW_CTX_KEYS = (
    "paths",  # RunPaths
    "config",  # JudgeConfig
    "workflow_config",  # rubric.json → workflow_config.<name> (dict)
    "artifacts",  # code-segment artifacts: deck_path, deck_kind, deck_rel, …
    "evidence_dir",  # Path: shared evidence (pages/ lands here and reaches agentic blocks)
    "delivery",  # Delivery
    "deadline",  # Deadline (monotonic)
    "log",  # logging.Logger
    "cancel",  # threading.Event: set when the budget (+ grace) is spent — stop sending requests and return
)
"""Keys of the ``ctx`` dict a workflow receives (part of the ABI)."""


def hit_row(row_id: str, hit: bool, reason: str, *, evidence: Sequence[str] = ()) -> Verdict:
    """A judged binary verdict."""
    return Verdict(id=row_id, hit=hit, reason=reason, method="workflow", judged=True, evidence=list(evidence))


def level_row(row_id: str, level: float, reason: str, *, evidence: Sequence[str] = ()) -> Verdict:
    """A judged graded verdict; `level` is snapped to `GRID_21` (hit = level > 0).

    A level that is not a finite number (NaN, ±inf, None) is no judgement: the row comes
    back unjudged ``workflow_error`` rather than snapped to a level nobody gave.
    """
    if not isinstance(level, (int, float)) or isinstance(level, bool) or not math.isfinite(level):
        return Verdict.unjudged(row_id, "workflow_error", f"the workflow gave no finite level ({level!r}): {reason}",
                                method="workflow")
    snapped = snap_to_grid(level)
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
    return (sum(v**p for v in values) / n) ** (1.0 / p)


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
    "GRID_21", "WORKFLOW_CTX_KEYS", "hit_row", "level_row", "unjudged_row", "gate_row",
    "power_mean", "snap_to_grid", "backoff_seconds", "apply_na_policy",
]
