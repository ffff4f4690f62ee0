"""The `stub` workflow: the smallest complete workflow, for tests and as a template.

It judges nothing itself: verdicts come from ``workflow_config.stub`` in rubric.json::

    {"stub": {"levels": {"W1": 0.55}, "hits": {"W2": true}, "na": ["W3"],
              "raise": false, "sleep_sec": 0}}

``levels`` are snapped to the 21-step grid; ``na`` rows go through `apply_na_policy`;
rows mentioned nowhere are left out (the router fills them in). ``raise`` and
``sleep_sec`` exist to exercise the router's failure isolation and budget.
"""

from __future__ import annotations

import time
from typing import Any

from cowork_judge.workflow._contract import apply_na_policy, hit_row, level_row, unjudged_row

REQUIRES_ABI = 1


def run(criteria: list[Any], ctx: dict[str, Any], budget_sec: float) -> list[Any]:
    """Return the configured verdicts (see module docstring)."""
    config = ctx.get("workflow_config") or {}
    if config.get("raise"):
        raise RuntimeError("stub workflow asked to raise")
    sleep = float(config.get("sleep_sec", 0) or 0)
    if sleep:
        time.sleep(min(sleep, budget_sec + 5))
    levels = config.get("levels", {})
    hits = config.get("hits", {})
    na = set(config.get("na", []))
    out = []
    for c in criteria:
        if c.id in na:
            value = apply_na_policy([None], c.na_policy)
            out.append(unjudged_row(c.id, "not_applicable", "all pages N/A") if value is None else level_row(c.id, value, f"all pages N/A → {c.na_policy}"))
        elif c.id in levels:
            out.append(level_row(c.id, float(levels[c.id]), "stub level"))
        elif c.id in hits:
            out.append(hit_row(c.id, bool(hits[c.id]), "stub hit"))
    return out
