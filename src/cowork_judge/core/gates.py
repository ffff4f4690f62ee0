"""Gates across segments (SPEC §7.4): when a row need not be judged because of its
dependencies' verdicts. Pure.

Three rules: (1) only dependencies decided BEFORE a row's segment (or earlier in the
serial code segment) can short-circuit it — a workflow's internal dependencies are its
own business; (2) a dependency judged and not met ⇒ ``judged=true, hit=false``, reason
``[gate] …``, no call — a positive dependency is met when hit, a hurdle or deduction when NOT
hit (its fault absent: `Criterion.gate_met`, trial 14 F3); (3) a dependency not judged ⇒ unjudged ``dep_unjudged`` (distinct
from a miss). A dependency naming no row of the rubric (a typo) is a rubric fault, not a
miss: the row is unjudged ``dep_missing``, no call (trial 10 F1: as an unknown code method
is ``code_missing``, so coverage drops and the run is systemic: a rubric fault). Short-circuits apply only to rows whose score the gate decides (weight ≥ 0,
not hurdle): deductions and hurdles ignore gates in scoring, so they are always judged.
Only scoring decides the reward; gates save calls and keep the trace honest.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict, settle_hit


def pre_gate(row: Criterion, decided: Mapping[str, Verdict], known: Mapping[str, Criterion]) -> Verdict | None:
    """The short-circuit verdict of `row` from its already-decided dependencies, or None.

    Args:
        row: the row about to be judged.
        decided: verdicts reached so far (earlier segments, earlier code rows).
        known: every row of the rubric by id (a dependency naming no row leaves the row unjudged
            ``dep_missing``, its gate closed; a dependency's polarity says what meets it).
    """
    if row.hurdle or row.weight < 0 or not row.depends_on:
        return None
    dangling = [d for d in row.depends_on if d not in known]
    if dangling:
        return Verdict.unjudged(row.id, "dep_missing", f"depends_on names no row of the rubric: {', '.join(dangling)} "
                                "(a typo? lint-rubric D001)", method=row.judge_method, gate="closed")
    unmet = [d for d in row.depends_on if d in decided and decided[d].judged and decided[d].hit is not None
             and not known[d].gate_met(decided[d].hit)]
    if unmet:
        return Verdict(id=row.id, hit=False, judged=True, reason=f"[gate] {_closing(unmet, decided, known)}",
                       method=row.judge_method, gate="closed")
    unjudged = [d for d in row.depends_on if d in decided and not decided[d].judged]
    if unjudged:
        return Verdict.unjudged(row.id, "dep_unjudged", f"dependency {', '.join(unjudged)} was not judged",
                                method=row.judge_method, gate="closed")
    return None


def _closing(unmet: Sequence[str], decided: Mapping[str, Verdict], known: Mapping[str, Criterion]) -> str:
    """Why the dependencies `unmet` close a gate: `unmet_reason` for those judged on their own, and ``"X closed by
    its own gate (not judged on its own)"`` for those a gate of theirs closed (trial 39 P-1: a row gated on an
    ``openable`` check that was itself gated on a missing deck read "openable … judged and missed")."""
    chained = [d for d in unmet if decided[d].gate == "closed" and decided[d].reason.startswith("[gate]")]
    parts = [unmet_reason([known[d] for d in unmet if d not in chained])] if len(chained) < len(unmet) else []
    if chained:
        parts.append(f"{', '.join(chained)} closed by its own gate (not judged on its own)")
    return "; ".join(parts)


def unmet_reason(deps: Sequence[Criterion]) -> str:
    """Why the judged dependencies `deps` (each not met) close a gate, for a ``[gate]`` reason:
    positive rows ``"X, Y judged and missed"``; hurdles and deductions ``"H judged and hit (its
    fault is present)"``; both parts joined by ``"; "``."""
    missed = [d.id for d in deps if d.polarity == "positive"]
    faults = [d.id for d in deps if d.polarity == "negative"]
    parts = [f"{', '.join(missed)} judged and missed"] if missed else []
    if faults:
        parts.append(f"{', '.join(faults)} judged and hit (a hurdle or deduction: its fault is present)")
    return "; ".join(parts)


def settle_gated(
    rows: Sequence[Criterion], decided: Mapping[str, Verdict], known: Mapping[str, Criterion],
    *, into: MutableMapping[str, Verdict]
) -> list[Criterion]:
    """Put the short-circuit verdict of every gated row into `into`; return the rows to run.
    `known`: every row of the rubric by id (`pre_gate`)."""
    runnable = []
    for row in rows:
        gated = pre_gate(row, decided, known)
        if gated is None:
            runnable.append(row)
        else:
            into[row.id] = gated
    return runnable


def mark_open(row: Criterion, verdict: Verdict, decided: Mapping[str, Verdict], known: Mapping[str, Criterion]) -> Verdict:
    """`verdict` as the router records it: its hit read by the row's pass bar
    (`verdicts.settle_hit`: a graded row with ``pass_level`` is hit only at or above it, so
    its dependants' gates follow the bar), with ``gate="open"`` when every decided
    dependency of `row` is met (`Criterion.gate_met`: a positive one hit, a hurdle or
    deduction judged and not hit). `known`: every row of the rubric by id."""
    verdict = settle_hit(row, verdict)
    deps = [d for d in row.depends_on if d in decided and d in known]
    if deps and verdict.gate is None and all(known[d].gate_met(decided[d].hit if decided[d].judged else None) for d in deps):
        return verdict.model_copy(update={"gate": "open"})
    return verdict
