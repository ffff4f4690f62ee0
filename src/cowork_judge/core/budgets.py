"""Time budgets of the segments (SPEC §7.6): reserve for agentic first, the rest to workflows.

Agentic cost is predictable (a declared cost model per backend), workflow cost is not
(it depends on the page count), so the reserve goes to the predictable side::

    blocks  = ceil(n_agentic / batch);  waves = ceil(blocks / concurrency)
    reserve = waves × (fixed + batch × per_row) × 2        (0 when there are no agentic rows)
    workflow_budget = max(remaining − reserve, 0.5 × remaining)
                    = share × remaining                     when JUDGE_WORKFLOW_DEADLINE_SHARE is set

The factor 2 is the same safety factor as the block budget (2 × JUDGE_PER_TIMEOUT).
Pure functions; all values in seconds. Each agentic backend declares its `CostModel` in
`config.backends`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class CostModel:
    """Expected seconds of one attempt: ``fixed_sec + rows × per_row_sec``.

    The router reserves the agentic budget from it (SPEC §7.6: codex declares about
    100 s fixed and 3 s per row, measured on the seed fleet).
    """

    fixed_sec: float
    per_row_sec: float

    def attempt_sec(self, rows: int) -> float:
        """Expected seconds for one attempt judging `rows` rows."""
        return self.fixed_sec + rows * self.per_row_sec


SAFETY_FACTOR = 2.0
FLOOR_SHARE = 0.5
"""The workflow segment always keeps at least half of the remaining time."""


def agentic_reserve(n_agentic: int, *, batch: int, concurrency: int, cost: CostModel) -> float:
    """Seconds to keep for the agentic segment; 0 when there are no agentic rows."""
    if n_agentic <= 0:
        return 0.0
    blocks = math.ceil(n_agentic / batch)
    waves = math.ceil(blocks / concurrency)
    return waves * cost.attempt_sec(batch) * SAFETY_FACTOR


def workflow_budget(remaining_sec: float, reserve_sec: float, share: float | None = None) -> float:
    """Seconds the workflow segment may use out of `remaining_sec`.

    Args:
        remaining_sec: time left in the run when the workflow segment starts.
        reserve_sec: `agentic_reserve`.
        share: explicit JUDGE_WORKFLOW_DEADLINE_SHARE in (0, 1], or None for adaptive.
    """
    remaining = max(0.0, remaining_sec)
    if share is not None:
        return share * remaining
    return max(remaining - reserve_sec, FLOOR_SHARE * remaining)
