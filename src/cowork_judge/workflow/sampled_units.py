"""Sampling a workflow's single-ask unit, one unit at a time (issue 28).

`ask_unit` asks one unit — a ``ppt_judge`` content pass, an ``answer_match`` decision —
through each judge of `WorkflowSampling` in turn: `first_round` times, then (adaptive)
again while its answer could still change (`core.sampling.settled`), at most k times, and
never once the workflow is out of time (the samples that came back are kept). The unit's
own code makes each ask (``ask(judge, n)``) and says what it answered as a `Sample`; this
module only decides how often. Units are asked in the workflow's own thread pool, so
several units' samples are in flight at once; a unit's own samples go one after another.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from cowork_judge.core.sampling import Sample, Scale, settled
from cowork_judge.workflow._contract import SampledJudge, WorkflowSampling

T = TypeVar("T")


def ask_unit(sampling: WorkflowSampling, scale: Scale, ask: Callable[[SampledJudge, int], tuple[Sample, T]], *,
             may_ask: Callable[[], bool]) -> list[tuple[Sample, T]]:
    """Every (sample, what the ask returned) of one unit, judge by judge, in asking order.

    Args:
        sampling: the judges, k and the mode.
        scale: how the unit's answers are read (ties, levels).
        ask: makes the n-th (1-based) ask of the unit through one judge; must not raise
            (a failed ask is a `Sample` with its ``error_kind``).
        may_ask: False once no further ask may start (budget, deadline, cancel); the first
            ask of each judge is always made (the unit's own code then loses it as usual).
    """
    out: list[tuple[Sample, T]] = []
    for judge in sampling.judges:
        mine: list[Sample] = []
        asked = 0
        while asked < sampling.k:
            if asked >= sampling.first_round and settled(mine, asked, sampling.k, scale):
                break
            if asked and not may_ask():
                break
            asked += 1
            sample, value = ask(judge, asked)
            mine.append(sample)
            out.append((sample, value))
    return out


def label(base: str, judge: SampledJudge, n: int, *, panel: bool) -> str:
    """The audit label of the n-th sample of a call: ``base#s2``, or ``base#j1-mini-s2`` in a panel."""
    return f"{base}#{judge.slug}-s{n}" if panel else f"{base}#s{n}"


__all__ = ["ask_unit", "label"]
