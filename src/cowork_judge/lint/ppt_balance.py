"""A013 (trial 17 P-3): the visual : content balance ``gen-ppt-rubrics`` recorded no longer matches the weights.

``gen-ppt-rubrics`` scales the visual rows to a ratio (1 by default) and records it in
``metadata.gen_ppt_rubrics.balance`` (`cowork_judge.workflow.ppt_judge.balance`). An edit of a
content or own row's weight afterwards (or ``--content`` with new checks) moves the ratio; the judge
scores what is written, so the deck's look then weighs more (or less) than the author chose. A rubric
without the record is not checked (it was never balanced, or predates the record).
"""

from __future__ import annotations

from typing import Any

from cowork_judge.lint.codes import Finding

TOLERANCE = 0.01
"""Relative difference between the measured and the recorded ratio that is still the same balance: the
generator rounds weights to 3 decimals (< 0.1 % off), and a difference under 1 % moves no reward visibly."""


def check(doc: Any) -> list[Finding]:
    """A013 for a `lint.document.RubricDoc` whose recorded balance (`recorded_balance`) differs from Σ visual :
    Σ content measured on its rows by more than `TOLERANCE` (relative). [] without a record, without visual rows
    or without content weight (then there is no ratio to measure)."""
    from cowork_judge.workflow.ppt_judge.balance import METADATA_KEY, RECORD_KEY, recorded_balance, visual_and_content

    recorded = recorded_balance(doc.raw)
    if recorded is None:
        return []
    visual, content = visual_and_content([r.raw for r in doc.rows])
    if visual <= 0 or content <= 0:
        return []
    measured = visual / content
    if abs(measured / recorded - 1) <= TOLERANCE:
        return []
    return [Finding("A013", doc.file, f"visual : content weight is {measured:.3g} ({visual:g} : {content:g}), but "
                                      f"gen-ppt-rubrics balanced it to {recorded:g} ({METADATA_KEY}.{RECORD_KEY}.balance): "
                                      "a weight was edited since, so the deck's look weighs "
                                      f"{'more' if measured > recorded else 'less'} than was chosen; run "
                                      "`cowork-judge gen-ppt-rubrics <task>` again to re-balance the visual rows "
                                      "(--balance R to choose another ratio, --no-balance to drop the promise)",
                    field=f"{METADATA_KEY}.{RECORD_KEY}.balance")]


__all__ = ["TOLERANCE", "check"]
