"""``answer_match`` row checks: a reference code can never decide (trial 17 P-10).

M013 (WARN): an answer row whose reference part starts with a number but does not parse as
a number with an optional unit (``"8.3 furlongs"``, ``"5 m/s north"``). The run then sends
every rollout to the model (a call per rollout, a reward that may vary between runs) where
the author most likely expected a code decision. The parts and the parser are the run's own
(`workflow.answer_match.rows.read_spec`, `workflow.answer_match.quantity.parse_quantity`), so
lint and run agree. Rows whose settings the run refuses are left to the run (unjudged
``asset_broken``); process rows have no reference.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import Row, RubricDoc

WORKFLOW = "answer_match"


def check(doc: RubricDoc) -> list[Finding]:
    """M013 for every reference part of every ``answer_match`` answer row that starts with a
    number and that code cannot read as one; [] for any other rubric."""
    out: list[Finding] = []
    for row in doc.rows:
        if isinstance(row.raw, Mapping) and row.method == "workflow" and row.get("workflow_name") == WORKFLOW:
            out += _undecidable(doc, row)
    return out


def _undecidable(doc: RubricDoc, row: Row) -> Iterator[Finding]:
    from cowork_judge.workflow.answer_match.quantity import parse_quantity, starts_with_number
    from cowork_judge.workflow.answer_match.rows import RowConfigError, read_spec

    try:
        spec = read_spec(row.fields, {})
    except RowConfigError:
        return
    for part in spec.parts:
        if part and starts_with_number(part) and parse_quantity(part) is None:
            yield Finding("M013", doc.file, f"answer_match reference {part!r:.60} starts with a number but code cannot "
                                            "read it as a number with a unit: code never decides this row, every "
                                            "rollout goes to the model (a call each, a reward that may vary). Write the "
                                            "unit as a symbol or a unit name code knows (docs/answer-match.md), or "
                                            "leave the unit out", row=row.label, field=WORKFLOW)
