"""``cowork-judge sim --flip RATE``: each row's answer flipped independently per request (issue 28).

The counts are checked against binomial bounds (at least 5 standard deviations wide, so a
correct flipper fails them with probability below 1e-6 for any seed), never exact counts."""

from __future__ import annotations

import json
import math

import pytest
from conftest import ROWS

from cowork_judge.sim import OraclePolicy, SimServer
from cowork_judge.sim.cli import _configure, build_parser, main
from cowork_judge.sim.policies import FLIP_REASON, RequestFlip

ROW = {"id": "A1", "description": "The report states quarterly revenue growth", "type": "binary"}


def within(count: int, n: int, p: float, z: float = 5.0) -> bool:
    """`count` of `n` Bernoulli(p) draws lies within z standard deviations of n·p."""
    return abs(count - n * p) <= z * math.sqrt(n * p * (1 - p)) + 1


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.3])
def test_flips_per_request_follow_the_binomial(rate):
    flip = RequestFlip(rate, seed=11)
    n = 4000
    draws = [flip.draw(ROW, instance=None, page=None) for _ in range(n)]
    assert within(sum(draws), n, rate)
    pairs = sum(a and b for a, b in zip(draws[::2], draws[1::2]))  # consecutive asks of one row: independent
    assert within(pairs, n // 2, rate * rate)
    other = [flip.draw({**ROW, "id": "B"}, instance=None, page=None) for _ in range(n)]
    both = sum(a and b for a, b in zip(draws, other))  # rows are independent of each other
    assert within(both, n, rate * rate)


def test_the_same_seed_and_order_give_the_same_flips_and_another_seed_others():
    def run(seed: int) -> list[bool]:
        flip = RequestFlip(0.3, seed=seed)
        return [flip.draw(r, instance=i, page=p) for _ in range(50) for r in (ROW, {**ROW, "id": "B"})
                for i in (None, "inst") for p in (None, 3)]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_pages_and_instances_draw_on_their_own():
    flip = RequestFlip(0.5, seed=2)
    a = [flip.draw(ROW, instance="x", page=1) for _ in range(64)]
    b = [flip.draw(ROW, instance="x", page=2) for _ in range(64)]
    c = [flip.draw(ROW, instance="y", page=1) for _ in range(64)]
    assert a != b and a != c


def test_rate_and_seed_are_checked():
    for rate, seed in ((1.5, 0), (-0.1, 0), (0.2, -1)):
        with pytest.raises(ValueError):
            RequestFlip(rate, seed)
    assert build_parser().parse_args(["--flip", "0.2", "--seed", "4"]).flip == 0.2
    assert _configure(build_parser().parse_args(["--flip", "0.2", "--seed", "4"])).flip.seed == 4
    assert main(["--flip", "1.5"]) == 2


def test_over_http_each_request_flips_rows_independently_and_logs_them(client, messages):
    oracle = OraclePolicy.from_dict({"A1": {"hit": True}, "A2": {"hit": True, "level": 1.0}, "N1": {"hit": False, "na": True}})
    n, rate = 300, 0.25
    flipped = {"A1": 0, "A2": 0, "N1": 0}
    with SimServer(oracle, flip=RequestFlip(rate, seed=9)) as sim, client(sim.url) as c:
        for _ in range(n):
            reply = c.chat.completions.create(model="m", messages=messages())
            verdicts = {v["id"]: v for v in json.loads(reply.choices[0].message.content)["verdicts"]}
            for rid, v in verdicts.items():
                truth = oracle.answers[rid]
                if v["hit"] != truth["hit"]:
                    flipped[rid] += 1
                    assert v["reason"].startswith(FLIP_REASON)
                    if rid == "A2":
                        assert v["level"] == 0  # a graded row flips to the other end of its levels
        logged = sum(len(e.flipped) for e in sim.log.entries())
    assert within(flipped["A1"], n, rate) and within(flipped["A2"], n, rate)
    assert flipped["N1"] == 0  # an N/A answer is never flipped
    assert logged == flipped["A1"] + flipped["A2"]
    assert ROWS[0]["id"] == "A1"
