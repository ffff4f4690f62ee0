"""Verdicts of sampled rows: single-ask verdicts → `Sample` records → one verdict. Pure.

The segments ask a unit once per sample (their single-ask units, unchanged); this module
turns what came back into the row's verdict (`fold_row`) by the rules of `core.sampling`,
and re-reduces a stored verdict's samples under another panel vote (`revote`, for
``rescore --samples-vote``). The verdict a row keeps is a real answer: the first sample
that says what the reduction says (its reason, level and evidence), with every sample and
the agreement attached. A row whose later samples did not come back keeps what the
others said; it is unjudged only when no sample answered (then with the first failure's
kind and reason).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampling import (
    Answer,
    Sample,
    Scale,
    Vote,
    agreement,
    cap_reason,
    reduce_unit,
    representative,
    value_of,
)
from cowork_judge.core.verdicts import Verdict


def sample_of(verdict: Verdict, judge: str, *, page: int | None = None, part: str | None = None,
              na: bool = False) -> Sample:
    """The `Sample` record of one single-ask verdict of `judge` (an unjudged verdict is a
    sample that did not come back, with its error kind)."""
    if not verdict.judged or verdict.hit is None:
        return Sample(judge=judge, error_kind=verdict.error_kind or "no_verdict", reason=cap_reason(verdict.reason),
                      page=page, part=part)
    return Sample(judge=judge, hit=verdict.hit, level=verdict.level, na=na, page=page, part=part,
                  reason=cap_reason(verdict.reason))


def _agrees(sample: Sample, answer: Answer, scale: Scale) -> bool:
    if answer.na or sample.na:
        return answer.na == sample.na
    target = answer.level if scale.graded and answer.level is not None else (1.0 if answer.hit else 0.0)
    return value_of(sample, scale) == target


def fold_row(row: Criterion, asked: Sequence[tuple[Sample, Verdict]], *, weights: Mapping[str, float] | None = None,
             how: Vote = "majority") -> Verdict:
    """A row's verdict from every (sample, the single-ask verdict it came from) pair.

    Args:
        row: the rubric row (its polarity and levels decide ties and medians).
        asked: the samples in the order they were asked (first judge's first sample first).
        weights: judge name → weight (``weighted`` votes); missing judges weigh 1.
        how: the panel vote (`core.sampling.vote`).

    Returns:
        The representative verdict (see the module docstring) with ``samples`` (every one,
        lost ones included), ``agreement`` and the attempts and seconds of all samples.

    Raises:
        ValueError: `asked` is empty.
    """
    if not asked:
        raise ValueError(f"row {row.id!r}: no samples to fold")
    samples = tuple(s for s, _ in asked)
    scale = Scale.of(row)
    answer = reduce_unit(samples, scale, weights or {}, how)
    extra = {"samples": samples, "attempts": sum(v.attempts for _, v in asked),
             "seconds": round(sum(v.seconds for _, v in asked), 3)}
    if not answer.answered:
        return asked[0][1].model_copy(update={**extra, "agreement": None})
    index = representative(samples, answer, scale)
    assert index is not None
    base = asked[index][1]
    if not _agrees(samples[index], answer, scale):  # no sample says it (a unanimous minimum of hit-only samples)
        base = _with_answer(base, answer, scale)
    return base.model_copy(update={**extra, "agreement": agreement(samples, answer, scale)})


def _with_answer(verdict: Verdict, answer: Answer, scale: Scale) -> Verdict:
    if scale.graded:
        return verdict.model_copy(update={"hit": answer.hit, "level": answer.level, "level_raw": answer.level})
    return verdict.model_copy(update={"hit": answer.hit, "level": None})


def whole_row(samples: Sequence[Sample]) -> bool:
    """True when every sample answered the whole row (no page, no pass): only such rows can
    be re-voted from their stored samples alone (a page row's verdict folds page cells with
    the row's power mean and its checks-decided pages, which a sample does not carry)."""
    return all(s.page is None and s.part is None for s in samples)


def revote(verdict: Verdict, row: Criterion, *, weights: Mapping[str, float] | None = None, how: Vote = "majority") -> Verdict:
    """`verdict` with its stored samples reduced again under vote `how`, no model call.

    Rows without samples, with page or pass samples (`whole_row`), or with no answered
    sample are returned unchanged. When the new reduction says something else, the
    verdict takes the hit, level and reason of the first sample that says it (suffixed
    ``[re-voted …]``); its agreement is recomputed either way.
    """
    samples = verdict.samples
    if not samples or not whole_row(samples) or not verdict.judged:
        return verdict
    scale = Scale.of(row)
    answer = reduce_unit(samples, scale, weights or {}, how)
    if not answer.answered:
        return verdict
    update: dict[str, object] = {"agreement": agreement(samples, answer, scale)}
    said = verdict.hit if not scale.graded else (verdict.level if verdict.level is not None else None)
    target = answer.hit if not scale.graded else answer.level
    if said != target and not (scale.graded and verdict.level is None and value_of(
            Sample(judge="", hit=verdict.hit), scale) == answer.level):
        index = representative(samples, answer, scale)
        reason = samples[index].reason if index is not None else ""
        update.update({"hit": answer.hit, "level": answer.level if scale.graded else None,
                       "level_raw": answer.level if scale.graded else None,
                       "reason": f"{reason} [re-voted from {len(samples)} stored samples by {how}]".strip()})
    return verdict.model_copy(update=update)


def unit_agreements(values: Sequence[float | None]) -> float | None:
    """A row's agreement from its units' (page cells', passes') agreements: their mean, units
    without one left out; None when none has one."""
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 6) if known else None


__all__ = ["fold_row", "revote", "sample_of", "unit_agreements", "whole_row"]
