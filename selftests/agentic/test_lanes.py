"""The blocks' in-flight lanes (`agentic.lanes`) and an attempt's clock (`agentic.attempt_clock`):
never more lanes held than JUDGE_CONCURRENCY, a block coming back from a wait served before
the blocks that have not started, no lane lost to a cancellation; an attempt's own time
paused while it waits in place. Orders are read from events, times from a scripted clock."""

from __future__ import annotations

import asyncio
import math

import pytest

from cowork_judge.agentic.attempt_clock import AttemptClock
from cowork_judge.agentic.lanes import Lanes


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_block_coming_back_is_served_before_the_blocks_that_have_not_started():
    async def scenario() -> list[str]:
        lanes = Lanes(1)
        order: list[str] = []
        await lanes.take()  # A works
        order.append("A")

        async def new(name: str) -> None:
            await lanes.take()
            order.append(name)

        b, c = asyncio.ensure_future(new("B")), asyncio.ensure_future(new("C"))
        await _settle()
        assert order == ["A"] and lanes.held == 1  # B and C queue
        lanes.give()  # A starts waiting out a refusal: its lane goes to B
        await _settle()
        assert order == ["A", "B"]
        back = asyncio.ensure_future(lanes.take(back=True))  # A's wait is over: it asks again, after C did
        await _settle()
        assert not back.done()
        lanes.give()  # B is done: A, not C
        await _settle()
        assert back.done() and order == ["A", "B"]
        order.append("A again")
        lanes.give()
        await asyncio.gather(b, c)
        lanes.give()
        assert order == ["A", "B", "A again", "C"] and lanes.free == 1 and lanes.most_held == 1
        return order

    asyncio.run(scenario())


def test_never_more_lanes_held_than_there_are():
    async def scenario() -> int:
        lanes = Lanes(2)
        held = 0
        most = 0

        async def block(n: int) -> None:
            nonlocal held, most
            await lanes.take()
            held += 1
            most = max(most, held)
            for _ in range(n % 3):  # some blocks wait out refusals: the lane goes elsewhere meanwhile
                held -= 1
                lanes.give()
                await asyncio.sleep(0)
                await lanes.take(back=True)
                held += 1
                most = max(most, held)
            await asyncio.sleep(0)
            held -= 1
            lanes.give()

        await asyncio.gather(*(block(n) for n in range(12)))
        assert lanes.free == 2 and lanes.most_held == 2
        return most

    assert asyncio.run(scenario()) == 2


def test_a_cancelled_wait_for_a_lane_loses_no_lane():
    async def scenario() -> None:
        lanes = Lanes(1)
        await lanes.take()
        queued = asyncio.ensure_future(lanes.take())
        await _settle()
        queued.cancel()  # cancelled while queued (the deadline): it leaves the queue
        await asyncio.gather(queued, return_exceptions=True)
        granted = asyncio.ensure_future(lanes.take())
        await _settle()
        lanes.give()  # handed to `granted`…
        granted.cancel()  # …which is cancelled before it runs: the lane is passed on, not lost
        await asyncio.gather(granted, return_exceptions=True)
        assert lanes.free == 1
        await lanes.take()
        lanes.give()
        assert lanes.free == 1

    asyncio.run(scenario())


def test_the_lane_of_a_block_is_given_back_once():
    async def scenario() -> None:
        lanes = Lanes(1)
        async with lanes.lane() as lane:
            assert lanes.free == 0
            await lane.wait(0)
            assert lane.holding and lanes.free == 0
        assert lanes.free == 1

    asyncio.run(scenario())


# --------------------------------------------------------------------------- the attempt's clock


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_the_attempt_clock_does_not_count_a_pause():
    clock = Clock()
    attempt = AttemptClock(5.0, clock=clock)
    assert attempt.ends_at == 105.0
    clock.t = 102.0  # two seconds of the model's time
    attempt.pause()  # a turn waits out a Retry-After…
    assert math.isinf(attempt.ends_at) and attempt.spent() == pytest.approx(2.0)
    clock.t = 130.0  # …for 28 s, the lane's wait included
    assert attempt.spent() == pytest.approx(2.0)
    attempt.resume()
    assert attempt.ends_at == pytest.approx(133.0)  # three seconds left, from now
    clock.t = 131.0
    assert attempt.spent() == pytest.approx(3.0)
    attempt.pause()
    attempt.pause()  # idempotent
    attempt.resume()
    attempt.resume()
    assert attempt.spent() == pytest.approx(3.0)


def test_an_attempt_that_waits_in_place_is_not_cut_off_and_one_that_hangs_is():
    async def waits(clock: AttemptClock) -> str:
        clock.pause()
        await asyncio.sleep(1.5)  # longer than its whole time limit, paused
        clock.resume()
        return "answered"

    async def scenario() -> None:
        attempt = AttemptClock(1.0)
        assert await attempt.run(waits(attempt)) == "answered"
        with pytest.raises(asyncio.TimeoutError):
            await AttemptClock(0.05).run(asyncio.sleep(3600))

    asyncio.run(scenario())
