"""Gates across segments (SPEC §7.4): when a row need not be judged because of its
dependencies' verdicts. Pure.

Three rules: (1) only dependencies decided BEFORE a row's segment (or earlier in the
serial code segment) can short-circuit it — a workflow's internal dependencies are its
own business; (2) a dependency judged and missed ⇒ ``judged=true, hit=false``, reason
``[gate] …``, no call; (3) a dependency not judged ⇒ unjudged ``dep_unjudged`` (distinct
from a miss). A dependency naming no row of the rubric (a typo) is a rubric fault, not a
miss: the row is unjudged ``dep_missing``, no call (trial 10 F1: as an unknown code method
is ``code_missing``, so coverage drops and the run is degraded). Short-circuits apply only to rows whose score the gate decides (weight ≥ 0,
not hurdle): deductions and hurdles ignore gates in scoring, so they are always judged.
Only scoring decides the reward; gates save calls and keep the trace honest.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, MutableMapping, Sequence

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict, settle_hit


def pre_gate(row: Criterion, decided: Mapping[str, Verdict], known: Collection[str]) -> Verdict | None:
    """The short-circuit verdict of `row` from its already-decided dependencies, or None.

    Args:
        row: the row about to be judged.
        decided: verdicts reached so far (earlier segments, earlier code rows).
        known: every row id of the rubric (a dependency naming no row leaves the row unjudged
            ``dep_missing``, its gate closed).
    """
    if row.hurdle or row.weight < 0 or not row.depends_on:
        return None
    dangling = [d for d in row.depends_on if d not in known]
    if dangling:
        return Verdict.unjudged(row.id, "dep_missing", f"depends_on names no row of the rubric: {', '.join(dangling)} "
                                "(a typo? lint-rubric D001)", method=row.judge_method, gate="closed")
    missed = [d for d in row.depends_on if d in decided and decided[d].judged and decided[d].hit is False]
    if missed:
        return Verdict(id=row.id, hit=False, judged=True, reason=f"[gate] {', '.join(missed)} judged and missed",
                       method=row.judge_method, gate="closed")
    unjudged = [d for d in row.depends_on if d in decided and not decided[d].judged]
    if unjudged:
        return Verdict.unjudged(row.id, "dep_unjudged", f"dependency {', '.join(unjudged)} was not judged",
                                method=row.judge_method, gate="closed")
    return None


def settle_gated(
    rows: Sequence[Criterion], decided: Mapping[str, Verdict], known: Collection[str], *, into: MutableMapping[str, Verdict]
) -> list[Criterion]:
    """Put the short-circuit verdict of every gated row into `into`; return the rows to run."""
    runnable = []
    for row in rows:
        gated = pre_gate(row, decided, known)
        if gated is None:
            runnable.append(row)
        else:
            into[row.id] = gated
    return runnable


def mark_open(row: Criterion, verdict: Verdict, decided: Mapping[str, Verdict]) -> Verdict:
    """`verdict` as the router records it: its hit read by the row's pass bar
    (`verdicts.settle_hit`: a graded row with ``pass_level`` is hit only at or above it, so
    its dependants' gates follow the bar), with ``gate="open"`` when every decided
    dependency of `row` was hit."""
    verdict = settle_hit(row, verdict)
    deps = [d for d in row.depends_on if d in decided]
    if deps and verdict.gate is None and all(decided[d].hit is True for d in deps):
        return verdict.model_copy(update={"gate": "open"})
    return verdict
