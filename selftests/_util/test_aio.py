"""`aio.wait_for_quietly`: a cancelled or timed-out wait never leaves "Task exception was
never retrieved" (a traceback on the judge's stderr) when the inner task ends in an error
of its own — the HTTP client turning the cancellation into `APITimeoutError`."""

from __future__ import annotations

import asyncio
import gc
import sys

import pytest

from cowork_judge._util.aio import wait_for_quietly


class ClientTimeout(Exception):
    """Stands in for the openai client's APITimeoutError."""


async def request_that_fails_when_cancelled() -> str:
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        await asyncio.sleep(0)  # the client's cleanup
        raise ClientTimeout("Request timed out.") from None
    return "never"


def unretrieved_errors(waiter) -> list[dict]:
    """Run `waiter` (which cancels or times out a wait) and return what the loop reported."""
    seen: list[dict] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: seen.append(ctx))
        await waiter()
        await asyncio.sleep(0.05)
        gc.collect()
        await asyncio.sleep(0)

    asyncio.run(main())
    gc.collect()
    return seen


@pytest.mark.parametrize("wait", [wait_for_quietly, lambda aw, t: asyncio.wait_for(aw, timeout=t)], ids=["quietly", "asyncio"])
def test_a_cancelled_wait_leaves_no_unretrieved_error(wait):
    async def cancel_the_waiter() -> None:
        outer = asyncio.ensure_future(wait(request_that_fails_when_cancelled(), 3600))
        await asyncio.sleep(0.01)
        outer.cancel()
        with pytest.raises((asyncio.CancelledError, ClientTimeout)):
            await outer

    seen = unretrieved_errors(cancel_the_waiter)
    if wait is wait_for_quietly:
        assert seen == []
    elif sys.version_info < (3, 12):  # the defect being avoided: plain wait_for on 3.10 and 3.11
        assert [c.get("message") for c in seen] == ["Task exception was never retrieved"]


def test_results_errors_and_timeouts_still_reach_the_caller():
    async def ok() -> str:
        return "reply"

    async def boom() -> str:
        raise ClientTimeout("bad")

    async def main() -> None:
        assert await wait_for_quietly(ok(), 1) == "reply"
        with pytest.raises(ClientTimeout):
            await wait_for_quietly(boom(), 1)
        with pytest.raises(asyncio.TimeoutError):
            await wait_for_quietly(asyncio.sleep(5), 0.05)

    assert unretrieved_errors(main) == []
