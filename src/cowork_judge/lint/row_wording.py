"""Rows whose weight contradicts their wording, and model rows that can never score (trial 22 P-1).

- R026 (WARN): a positive, non-hurdle row read by a model whose description reads as a fault
  (`polarity.fault_cues`): "The answer claims that light travels instantly" with weight 2 pays the
  agent for the fault — a forgotten minus sign or a forgotten ``"hurdle": true``.
- R027 (WARN): a deduction (weight < 0, not hurdle) read by a model whose description reads as a
  requirement by the hurdle reading (`polarity.reads_as_requirement`, R020/R021): "The answer does
  not claim …" with weight -2 deducts from the answer that meets it.
- R028 (WARN): a row read by a model with weight 0 that is neither a hurdle nor a gate (named in
  another row's ``depends_on``): it is judged (a model call) and never moves the score. Not reported
  under the equal-weight fallback, where every weight-0 row counts (R016).

A code row is skipped: its method never reads the description (trial 19 P-5). Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.scoring import effective_weights
from cowork_judge.lint import polarity
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import Row, RubricDoc


def check(doc: RubricDoc) -> list[Finding]:
    """R026/R027/R028 for every model-read row the engine accepted, in row order; [] when the engine
    refuses the rubric (other checks report that)."""
    if doc.normalized is None:
        return []
    _, fallback = effective_weights(doc.normalized.criteria)
    gates = {dep for row in doc.rows if row.crit is not None for dep in row.crit.depends_on}
    out: list[Finding] = []
    for row in doc.rows:
        crit = row.crit
        if crit is None or not isinstance(row.raw, Mapping) or crit.hurdle or row.method == "code":
            continue
        out += _wording(doc, row, crit, dead=not fallback and crit.id not in gates)
    return out


def _wording(doc: RubricDoc, row: Row, crit: Criterion, *, dead: bool) -> Iterator[Finding]:
    text = crit.description
    if crit.weight > 0:
        cues = polarity.fault_cues(text)
        if cues:
            yield Finding("R026", doc.file, f"weight {crit.weight:g} on a row worded as a fault "
                                            f"({', '.join(repr(c) for c in cues[:3])}): the judge answers hit=true "
                                            "when the fault is present and the row PAYS for it; give it a negative "
                                            "weight (a deduction) or \"hurdle\": true with weight 0, or word it as "
                                            "the requirement", row=row.label, field="weight")
    elif crit.weight < 0:
        if polarity.reads_as_requirement(text):
            yield Finding("R027", doc.file, f"weight {crit.weight:g} on a row worded as a requirement: a deduction's "
                                            "hit=true means the fault is present, so the judge deducts from the "
                                            "answer that meets it; describe the fault (\"the answer claims …\", \"a "
                                            "slide shows placeholder text\") or give it a positive weight",
                          row=row.label, field="weight")
    elif dead:
        yield Finding("R028", doc.file, "weight 0 and neither a hurdle nor a gate (no row depends_on it): the row is "
                                        "judged (a model call) and never moves the score; give it a weight, make it "
                                        "a hurdle or a gate, or delete it", row=row.label, field="weight")


__all__ = ["check"]
