"""Which hurdle rows zeroed a reward, and the one sentence that says so.

`fatal_rows` reads a result document as JSON (``criteria`` and ``results``); `zeroed_sentence`
is the wording the report page and ``cowork-judge try`` share (trial 17 P-2), so a reward of 0
is named by its hurdle wherever it is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def fatal_rows(doc: Mapping[str, Any]) -> list[str]:
    """Ids of the hurdle rows counted as hit in a parsed ``result.json`` (`doc`): each made the run fatal.

    A row counts as hit by its ``counted_hit`` (the policy's answer for an unjudged row), else by its
    ``hit``. Malformed parts (not a list, not an object) are skipped, never raised on.
    """
    criteria = doc.get("criteria")
    results = doc.get("results")
    hurdles = {str(c.get("id")) for c in criteria if isinstance(c, dict) and c.get("hurdle")} \
        if isinstance(criteria, list) else set()
    out = []
    for row in results if isinstance(results, list) else []:
        if not isinstance(row, dict) or str(row.get("id")) not in hurdles:
            continue
        counted = row.get("counted_hit")
        if counted is True or (counted is None and row.get("hit") is True):
            out.append(str(row.get("id")))
    return out


def zeroed_sentence(rows: Sequence[str], *, nothing_delivered: bool = False) -> str:
    """``A hurdle zeroed the reward: row H-X counted as hit, so the reward is 0 whatever the rows earned``
    (plain text; "rows …" for several, "not recorded" for none). `nothing_delivered` (the result's
    ``delivery_missing``): the rows were decided without a model and a hurdle counts as hit on an empty
    delivery, which the sentence says (trial 22 P-4: it read as if the row's check had fired)."""
    names = ", ".join(rows) or "not recorded"
    why = (" because nothing was delivered (no check ran: an empty delivery is the violation, "
           "docs/result-document.md)") if nothing_delivered else ""
    return (f"A hurdle zeroed the reward: row{'s' if len(rows) > 1 else ''} {names} counted as hit{why}, so the reward "
            "is 0 whatever the rows earned")


__all__ = ["fatal_rows", "zeroed_sentence"]
