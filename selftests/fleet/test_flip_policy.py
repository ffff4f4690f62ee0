"""The simulator policies calibration relies on (``sim/policies.py``): `FlipPolicy` disagrees
with the labels at a known rate; `RoutedPolicy` serves per-instance labels behind one endpoint."""

from __future__ import annotations

import math

import pytest

from cowork_judge.sim.policies import FLIP_REASON, FlipPolicy, OraclePolicy, RoutedPolicy

ROWS = [{"id": f"R{i:04d}", "description": f"requirement {i}", "type": "binary"} for i in range(4000)]
BASE = OraclePolicy({r["id"]: {"hit": i % 3 == 0} for i, r in enumerate(ROWS)})


def test_rate_zero_and_one():
    assert FlipPolicy(BASE, 0.0).verdicts(ROWS, "") == BASE.verdicts(ROWS, "")
    flipped = FlipPolicy(BASE, 1.0).verdicts(ROWS, "")
    assert all(f["hit"] != b["hit"] and f["reason"].startswith(FLIP_REASON) for f, b in zip(flipped, BASE.verdicts(ROWS, "")))


@pytest.mark.parametrize("rate", [0.1, 0.3])
def test_flips_are_binomial_and_stable(rate):
    policy = FlipPolicy(BASE, rate, seed=7)
    first = [v["hit"] for v in policy.verdicts(ROWS, "")]
    assert first == [v["hit"] for v in policy.verdicts(ROWS, "a different context")]  # the same answer every time
    flips = sum(a != b["hit"] for a, b in zip(first, BASE.verdicts(ROWS, "")))
    n = len(ROWS)
    assert abs(flips - n * rate) <= 4 * math.sqrt(n * rate * (1 - rate))
    other = FlipPolicy(BASE, rate, seed=8)
    assert [v["hit"] for v in other.verdicts(ROWS, "")] != first  # another seed, another subset


def test_graded_rows_flip_to_the_other_end_and_na_is_kept():
    rows = [{"id": "g", "description": "d", "type": "gradient", "level_choices": [0, 0.5, 1]}, {"id": "n", "description": "e"}]
    base = OraclePolicy({"g": {"hit": True, "level": 0.5}, "n": {"hit": True, "na": True}})
    [g, n] = FlipPolicy(base, 1.0).verdicts(rows, "")
    assert g["hit"] is False and g["level"] == 0 and n == base.verdicts(rows, "")[1]


def test_routed_policy():
    a, b = OraclePolicy({"R00": {"hit": True}}), OraclePolicy({"R00": {"hit": False, "reason": "b"}})
    routed = RoutedPolicy([("# Task: foo", a), ("# Task: foo-2", b)])
    rows = [{"id": "R00"}]
    assert routed.verdicts(rows, "…# Task: foo\n…")[0]["hit"] is True
    assert routed.verdicts(rows, "…# Task: foo-2\n…")[0]["reason"] == "b"  # the longest marker wins
    assert routed.verdicts(rows, "nothing")[0]["reason"] == "not in oracle"
    with pytest.raises(ValueError, match="distinct"):
        RoutedPolicy([("x", a), ("x", b)])
