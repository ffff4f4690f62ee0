"""Deterministic cluster bootstrap: percentile confidence intervals of ratio statistics.

Pure: no I/O, no clock, no global random state. Every statistic is a ratio of sums over
clusters (a task's rollouts form one cluster), ``Σ num_c / Σ den_c``: a mean reward is
``Σ quantized rewards / Σ documents``, a hit rate ``Σ hits / Σ judged rows``. One draw
resamples the k clusters with replacement (Efron & Tibshirani 1993, ch. 13; the cluster
("case") bootstrap of Davison & Hinkley 1997, §3.8) and evaluates every statistic on the
same draw, so the intervals of one summary are paired.

How many clusters an interval needs (`MIN_CLUSTERS`, the one rule of ``summarize``,
``batch``'s summary and ``calibrate``): a statistic to which fewer clusters contribute gets
no interval, and the output says why (`interval_note`).

Exactness and determinism. Numerators and denominators are integers (real values are
quantized by `quantize` to multiples of 2⁻²⁴ first), draws come from a counter-based
generator (SplitMix64 finalizer, Steele, Lea & Flood 2014, indices by Lemire's
multiply-shift) rather than a stateful one, and each draw value is one correctly rounded
integer division. So the pure-Python path and the NumPy path (used when NumPy is
importable, for speed) give bit-identical intervals on every platform; a test proves it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Union

SCALE = 1 << 24
"""Quantization step of real values (2⁻²⁴ ≈ 6e-8): far below any reported digit."""
MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
"""SplitMix64 increment (the golden ratio in 64 bits)."""
MIX1, MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
"""SplitMix64 finalizer multipliers."""
EXACT_FLOAT = 1 << 53
"""Integers below this are exact in float64 (and so are sums staying below it)."""
CHUNK_ELEMENTS = 1 << 20
"""NumPy path: at most this many drawn indices are held at once (8 MiB of uint64)."""

Counts = Union[Sequence[int], Mapping[int, int]]
MIN_CLUSTERS = 5
"""Fewest clusters (tasks for ``summarize``, instances for ``calibrate``) that must contribute to
a statistic for it to get an interval. A percentile bootstrap over 2-4 clusters resamples a
handful of distinct values: over 3 documents its "interval" is little more than their min and
max, far narrower than the uncertainty (DevAI tags drawn from 2 instances came out tight).
Below this, no interval is given and the output says why (`interval_note`)."""


def quantize(value: float) -> int:
    """`value` as an integer number of 2⁻²⁴ steps (``round(value · 2²⁴)``)."""
    return round(value * SCALE)


@dataclass(frozen=True)
class RatioStat:
    """A statistic ``Σ_c num[c] / Σ_c den[c]`` over clusters ``c`` in ``0..k-1``.

    Attributes:
        num, den: integers per cluster, dense (a sequence of length k) or sparse (a
            mapping cluster → value; absent clusters count 0). ``den`` must be ≥ 0.
        scale: the statistic is divided by this power of two (`SCALE` when `num` holds
            quantized values), which is exact in floating point.
    """

    num: Counts
    den: Counts
    scale: int = 1


def contributing(stat: RatioStat) -> int:
    """How many clusters contribute to `stat`: those with a positive denominator."""
    values = stat.den.values() if isinstance(stat.den, Mapping) else stat.den
    return sum(1 for v in values if v > 0)


def interval_note(clusters: int, unit: str = "cluster(s)") -> str | None:
    """Why a statistic gets no interval, or None when it may have one (`MIN_CLUSTERS`).

    Args:
        clusters: clusters contributing to the statistic.
        unit: what a cluster is, plural form (``"instance(s)"``, ``"task(s)"``).
    """
    if clusters >= MIN_CLUSTERS:
        return None
    return f"no interval: {clusters} {unit} contribute, fewer than the minimum of {MIN_CLUSTERS}"


def mix64(z: int) -> int:
    """SplitMix64 finalizer of a 64-bit integer."""
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def draw_indices(seed: int, draw: int, k: int) -> list[int]:
    """The k cluster indices of draw number `draw` (0-based), each in ``[0, k)``.

    Index j is ``((mix64(base + (draw·k + j + 1)·GAMMA mod 2⁶⁴) >> 32) · k) >> 32`` with
    ``base = mix64(seed)``: a pure function of (seed, draw, j, k), reproducible anywhere.

    Raises:
        ValueError: `seed` is negative or `k` ≥ 2³¹.
    """
    _check(seed, k)
    base = mix64(seed)
    start = draw * k + 1
    return [((mix64((base + (start + j) * GAMMA) & MASK64) >> 32) * k) >> 32 for j in range(k)]


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (position ``(n−1)·q``; NumPy's
    default ``linear`` method, Hyndman & Fan 1996 type 7) of an ascending sequence."""
    pos = (len(sorted_values) - 1) * q
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_ci(stats: Sequence[RatioStat], k: int, *, draws: int, seed: int, confidence: float = 0.95,
                 backend: Literal["auto", "numpy", "python"] = "auto") -> list[tuple[float, float] | None]:
    """Percentile intervals of `stats` under the cluster bootstrap.

    Args:
        stats: the statistics, all evaluated on the same draws.
        k: number of clusters.
        draws: number of bootstrap draws (≥ 1).
        seed: non-negative integer; the same seed gives the same intervals.
        confidence: two-sided level, e.g. 0.95 → the 2.5th and 97.5th percentiles (tail
            ``round((1 − confidence) / 2, 12)``).
        backend: ``auto`` uses NumPy when importable; both give identical results.

    Returns:
        One ``(low, high)`` per statistic, or None when no draw had a positive
        denominator (e.g. k = 0). Draws whose denominator is 0 are left out.

    Raises:
        ValueError: bad `draws`, `seed`, `k` or `confidence`.
    """
    if draws < 1 or not 0.0 < confidence < 1.0:
        raise ValueError("draws must be ≥ 1 and confidence in (0, 1)")
    _check(seed, k)
    if k == 0 or not stats:
        return [None] * len(stats)
    values = _draw_values_numpy(stats, k, draws, seed, backend) if backend != "python" else None
    if values is None:
        values = _draw_values_python(stats, k, draws, seed)
    tail = round((1.0 - confidence) / 2.0, 12)  # 0.95 → exactly 0.025, not 0.025000000000000022
    out: list[tuple[float, float] | None] = []
    for stat, column in zip(stats, values):
        ordered = sorted(column)
        if not ordered:
            out.append(None)
            continue
        out.append((percentile(ordered, tail) / stat.scale, percentile(ordered, 1.0 - tail) / stat.scale))
    return out


def _check(seed: int, k: int) -> None:
    if seed < 0 or k < 0 or k >= 1 << 31:
        raise ValueError("seed must be ≥ 0 and 0 ≤ k < 2**31")


def _dense(counts: Counts, k: int) -> list[int]:
    if isinstance(counts, Mapping):
        out = [0] * k
        for c, v in counts.items():
            out[c] = v
        return out
    return list(counts)


def _draw_values_python(stats: Sequence[RatioStat], k: int, draws: int, seed: int) -> list[list[float]]:
    sparse = [(_items(s.num, k), _items(s.den, k)) for s in stats]
    values: list[list[float]] = [[] for _ in stats]
    for d in range(draws):
        weight = [0] * k
        for i in draw_indices(seed, d, k):
            weight[i] += 1
        for column, (num, den) in zip(values, sparse):
            total = sum(weight[c] * v for c, v in den)
            if total > 0:
                column.append(sum(weight[c] * v for c, v in num) / total)
    return values


def _items(counts: Counts, k: int) -> list[tuple[int, int]]:
    pairs = counts.items() if isinstance(counts, Mapping) else enumerate(counts)
    return [(c, v) for c, v in pairs if v]


def _draw_values_numpy(stats: Sequence[RatioStat], k: int, draws: int, seed: int, backend: str) -> list[list[float]] | None:
    """The NumPy path, or None when NumPy is missing (``auto``) or the sums could leave
    the exact range of int64 (then the pure path runs)."""
    try:
        import numpy as np
    except ImportError:
        if backend == "numpy":
            raise
        return None
    rows = [_dense(s.num, k) for s in stats] + [_dense(s.den, k) for s in stats]
    bound = max((abs(v) for row in rows for v in row), default=0) * k  # ≥ every partial sum of a draw
    if bound >= 1 << 62:
        return None
    dtype = np.float64 if bound < EXACT_FLOAT else np.int64  # integer-valued floats sum exactly below 2^53
    matrix = np.array(rows, dtype=np.int64).astype(dtype).T  # k × 2m
    del rows
    m = len(stats)
    values: list[list[float]] = [[] for _ in stats]
    base = np.uint64(mix64(seed))
    step = max(1, CHUNK_ELEMENTS // k)
    with np.errstate(over="ignore"):
        for d0 in range(0, draws, step):
            nd = min(step, draws - d0)
            counter = np.arange(d0 * k + 1, (d0 + nd) * k + 1, dtype=np.uint64)
            z = base + counter * np.uint64(GAMMA)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
            z = z ^ (z >> np.uint64(31))
            idx = ((z >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32)
            flat = idx.astype(np.int64) + np.repeat(np.arange(nd, dtype=np.int64) * k, k)
            weight = np.bincount(flat, minlength=nd * k).reshape(nd, k).astype(dtype)
            sums = weight @ matrix  # nd × 2m, exact integers
            for row in sums.tolist():
                for j in range(m):
                    den = int(row[m + j])
                    if den > 0:
                        values[j].append(int(row[j]) / den)
    return values
