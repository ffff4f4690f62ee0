"""Agreement statistics between a judge and human labels, with cluster-bootstrap intervals. Pure.

Binary agreement is read from a 2×2 confusion table with ``hit`` as the positive class and
the human label as the reference: ``tp`` both hit, ``fp`` judge hit / human miss, ``fn``
judge miss / human hit, ``tn`` both miss.

- accuracy (observed agreement) ``p_o = (tp + tn) / n``;
- Cohen's κ (Cohen 1960, "A coefficient of agreement for nominal scales"):
  ``(p_o − p_e) / (1 − p_e)`` with chance agreement from the two raters' marginals,
  ``p_e = ((tp + fp)(tp + fn) + (fn + tn)(fp + tn)) / n²``; undefined (None) when
  ``p_e = 1`` (both raters gave one and the same answer throughout);
- precision ``tp / (tp + fp)``, recall ``tp / (tp + fn)``, F1 ``2tp / (2tp + fp + fn)``
  (the harmonic mean of the two; van Rijsbergen 1979); None on a zero denominator;
- Spearman's rank correlation ρ (Spearman 1904) between two lists: Pearson's correlation
  of their ranks, tied values sharing their average rank; None when fewer than two pairs
  or a list is constant;
- mean absolute error and mean signed error (judge − human).

Intervals: a percentile cluster bootstrap (clusters = instances, so an instance's rows are
resampled together) on the fleet's counter-based draws (`fleet.stats.draw_indices`, the
same generator and percentile rule as ``summarize``): the same seed gives the same
intervals anywhere, and every statistic of one report is computed on the same draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cowork_judge.fleet.stats import draw_indices, percentile

T = TypeVar("T")


@dataclass(frozen=True)
class Confusion:
    """A 2×2 table of (judge, human) hit answers; ``a + b`` adds tables."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @classmethod
    def of(cls, pairs: Sequence[tuple[bool, bool]]) -> Confusion:
        """The table of ``(judge hit, human hit)`` pairs."""
        tp = sum(1 for j, h in pairs if j and h)
        fp = sum(1 for j, h in pairs if j and not h)
        fn = sum(1 for j, h in pairs if not j and h)
        return cls(tp, fp, fn, len(pairs) - tp - fp - fn)

    def __add__(self, other: Confusion) -> Confusion:
        return Confusion(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn)

    @property
    def n(self) -> int:
        """Number of paired answers."""
        return self.tp + self.fp + self.fn + self.tn

    def accuracy(self) -> float | None:
        """Observed agreement ``(tp + tn) / n``; None for an empty table."""
        return (self.tp + self.tn) / self.n if self.n else None

    def kappa(self) -> float | None:
        """Cohen's κ (module docstring); None for an empty table or when ``p_e = 1``."""
        n = self.n
        if not n:
            return None
        p_o = (self.tp + self.tn) / n
        p_e = ((self.tp + self.fp) * (self.tp + self.fn) + (self.fn + self.tn) * (self.fp + self.tn)) / (n * n)
        return None if p_e >= 1.0 else (p_o - p_e) / (1.0 - p_e)

    def precision(self) -> float | None:
        """``tp / (tp + fp)``: of the judge's hits, the share humans gave too."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    def recall(self) -> float | None:
        """``tp / (tp + fn)``: of the humans' hits, the share the judge found."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def f1(self) -> float | None:
        """``2tp / (2tp + fp + fn)``; None when there is no hit on either side."""
        d = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / d if d else None

    def as_dict(self) -> dict[str, Any]:
        """Counts and point statistics (rates of hits on each side included)."""
        n = self.n
        return {"n": n, "confusion": {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn},
                "accuracy": self.accuracy(), "kappa": self.kappa(), "precision": self.precision(),
                "recall": self.recall(), "f1": self.f1(),
                "judge_hit_rate": (self.tp + self.fp) / n if n else None,
                "human_hit_rate": (self.tp + self.fn) / n if n else None}


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return out


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; None with fewer than two pairs or a constant list."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    sxy = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = math.fsum((x - mx) ** 2 for x in xs)
    syy = math.fsum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's ρ: `pearson` of the average ranks (module docstring)."""
    return pearson(ranks(xs), ranks(ys)) if len(xs) == len(ys) else None


def mean_abs_error(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Mean of ``|x − y|``; None for empty lists."""
    return math.fsum(abs(x - y) for x, y in zip(xs, ys)) / len(xs) if xs else None


def mean_error(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Mean of ``x − y`` (the judge's bias when `xs` are its rewards); None for empty lists."""
    return math.fsum(x - y for x, y in zip(xs, ys)) / len(xs) if xs else None


def bootstrap(clusters: Sequence[T], statistics: dict[str, Callable[[list[T]], float | None]], *, draws: int, seed: int,
              confidence: float = 0.95) -> dict[str, tuple[float, float] | None]:
    """Percentile intervals of several statistics under the cluster bootstrap.

    Args:
        clusters: one item per cluster (an instance's rows and rewards).
        statistics: name → function of a resampled list of clusters (None = undefined on
            that draw; such draws are left out of that statistic).
        draws: number of draws (≥ 1); seed: ≥ 0; confidence: in (0, 1).

    Returns:
        name → ``(low, high)``, or None when no draw defined the statistic.

    Raises:
        ValueError: bad `draws`, `seed` or `confidence`.
    """
    if draws < 1 or not 0.0 < confidence < 1.0:
        raise ValueError("draws must be ≥ 1 and confidence in (0, 1)")
    k = len(clusters)
    values: dict[str, list[float]] = {name: [] for name in statistics}
    if k:
        for d in range(draws):
            sample = [clusters[i] for i in draw_indices(seed, d, k)]
            for name, fn in statistics.items():
                v = fn(sample)
                if v is not None:
                    values[name].append(v)
    tail = round((1.0 - confidence) / 2.0, 12)
    out: dict[str, tuple[float, float] | None] = {}
    for name, column in values.items():
        column.sort()
        out[name] = (percentile(column, tail), percentile(column, 1.0 - tail)) if column else None
    return out
