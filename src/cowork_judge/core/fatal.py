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


def unjudged_kinds(doc: Mapping[str, Any]) -> dict[str, str]:
    """Row id → ``error_kind`` of each row of a parsed ``result.json`` (`doc`) with ``judged: false``
    ("unjudged" when the kind is missing); malformed parts are skipped, never raised on."""
    results = doc.get("results")
    return {str(r.get("id")): str(r.get("error_kind") or "unjudged")
            for r in (results if isinstance(results, list) else []) if isinstance(r, dict) and r.get("judged") is False}


def zeroed_sentence(rows: Sequence[str], *, nothing_delivered: bool = False,
                    unjudged: Mapping[str, str] | None = None) -> str:
    """``A hurdle zeroed the reward: row H-X counted as hit, so the reward is 0 whatever the rows earned``
    (plain text; "rows …" for several, "not recorded" for none). `nothing_delivered` (the result's
    ``delivery_missing``): the rows were decided without a model and a hurdle counts as hit on an empty
    delivery, which the sentence says (trial 22 P-4: it read as if the row's check had fired).
    `unjudged` (row id → ``error_kind``, `unjudged_kinds`): a hurdle row in it was never judged and counts
    as hit by the policy, which the sentence says instead (trial 32 P-5: it read as a found fault)."""
    kinds = {} if nothing_delivered else {r: (unjudged or {})[r] for r in rows if r in (unjudged or {})}
    found = [r for r in rows if r not in kinds]
    names = ", ".join(found) or ("" if kinds else "not recorded")
    why = (" because nothing was delivered (no check ran: an empty delivery is the violation, "
           "docs/result-document.md)") if nothing_delivered else ""
    parts = [f"row{'s' if len(found) > 1 else ''} {names} counted as hit{why}"] if names else []
    parts += [f"row {r} was not judged (error_kind {k}) and counts as hit (JUDGE_UNJUDGED_NEGATIVE=deduct)"
              for r, k in kinds.items()]
    return f"A hurdle zeroed the reward: {'; '.join(parts)}, so the reward is 0 whatever the rows earned"


__all__ = ["fatal_rows", "unjudged_kinds", "zeroed_sentence"]
