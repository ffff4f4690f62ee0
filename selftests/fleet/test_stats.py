"""The cluster bootstrap: exact intervals recomputed here from the documented algorithm,
NumPy and pure-Python paths bit-identical, seeds reproducible."""

from __future__ import annotations

import math
import random

import pytest

from cowork_judge.fleet.stats import SCALE, RatioStat, bootstrap_ci, draw_indices, percentile, quantize

M64 = 2**64 - 1


def reference_indices(seed: int, draw: int, k: int) -> list[int]:
    """The generator as the docstring states it, written out independently."""

    def finalize(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)

    base = finalize(seed)
    out = []
    for j in range(k):
        z = finalize((base + (draw * k + j + 1) * 0x9E3779B97F4A7C15) % 2**64)
        out.append(((z >> 32) * k) >> 32)
    return out


def reference_ci(num: list[int], den: list[int], *, draws: int, seed: int, scale: int = 1) -> tuple[float, float]:
    """Resample clusters, ratio of sums per draw, type-7 percentiles at 2.5 % and 97.5 %."""
    k = len(num)
    values = []
    for d in range(draws):
        picks = reference_indices(seed, d, k)
        n, m = sum(num[i] for i in picks), sum(den[i] for i in picks)
        if m:
            values.append(n / m)
    values.sort()

    def q(p: float) -> float:
        pos = (len(values) - 1) * p
        lo = math.floor(pos)
        hi = min(lo + 1, len(values) - 1)
        return values[lo] + (values[hi] - values[lo]) * (pos - lo)

    return q(0.025) / scale, q(0.975) / scale


def test_draw_indices_follow_the_documented_generator():
    for seed, draw, k in ((0, 0, 1), (0, 0, 7), (7, 3, 10), (123456789, 999, 33)):
        got = draw_indices(seed, draw, k)
        assert got == reference_indices(seed, draw, k)
        assert all(0 <= i < k for i in got)


def test_a_small_clustered_bootstrap_gives_exactly_the_independently_computed_interval():
    # 4 tasks with 3, 1, 2, 2 rollouts: rewards per rollout, clustered by task.
    rewards = {"t1": [1.0, 0.5, 0.75], "t2": [0.0], "t3": [0.25, 0.25], "t4": [1.0, 0.0]}
    num = [sum(quantize(r) for r in rs) for rs in rewards.values()]
    den = [len(rs) for rs in rewards.values()]
    expected = reference_ci(num, den, draws=200, seed=11, scale=SCALE)
    for backend in ("python", "numpy"):
        got = bootstrap_ci([RatioStat(num, den, scale=SCALE)], 4, draws=200, seed=11, backend=backend)
        assert got == [expected]
    assert expected[0] < 3.75 / 8 < expected[1]  # the plain mean lies inside


def test_numpy_and_python_paths_are_bit_identical_on_many_statistics():
    pytest.importorskip("numpy")
    rng = random.Random(5)
    k = 57
    stats = [RatioStat([quantize(rng.random()) * rng.randint(0, 3) for _ in range(k)], [rng.randint(0, 3) for _ in range(k)],
                       scale=SCALE),
             RatioStat({c: rng.randint(0, 4) for c in range(0, k, 3)}, {c: 4 for c in range(0, k, 3)}),
             RatioStat({5: 1}, {5: 1, 6: 2})]
    a = bootstrap_ci(stats, k, draws=300, seed=2, backend="python")
    b = bootstrap_ci(stats, k, draws=300, seed=2, backend="numpy")
    assert a == b and all(x is not None for x in a)


def test_seed_reproducible_and_seed_sensitive():
    num, den = [quantize(x / 10) for x in range(10)], [1] * 10
    stat = [RatioStat(num, den, scale=SCALE)]
    assert bootstrap_ci(stat, 10, draws=100, seed=1) == bootstrap_ci(stat, 10, draws=100, seed=1)
    assert bootstrap_ci(stat, 10, draws=100, seed=1) != bootstrap_ci(stat, 10, draws=100, seed=2)


def test_degenerate_inputs():
    assert bootstrap_ci([RatioStat([], [])], 0, draws=10, seed=0) == [None]
    assert bootstrap_ci([RatioStat([0, 0], [0, 0])], 2, draws=10, seed=0) == [None]  # no draw has a denominator
    assert bootstrap_ci([RatioStat([3], [4])], 1, draws=10, seed=0) == [(0.75, 0.75)]  # one cluster: no spread
    with pytest.raises(ValueError):
        bootstrap_ci([RatioStat([1], [1])], 1, draws=0, seed=0)
    with pytest.raises(ValueError):
        bootstrap_ci([RatioStat([1], [1])], 1, draws=10, seed=-1)


def test_percentile_is_type_7():
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.025) == pytest.approx(1.075)
    assert percentile([5.0], 0.975) == 5.0


def test_quantize_is_exact_on_dyadic_values():
    assert quantize(0.5) == SCALE // 2 and quantize(1.0) == SCALE and quantize(0.0) == 0
