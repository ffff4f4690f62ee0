"""The retry policy of SPEC §11 as tables: failure classification, consequences, backoff."""

from __future__ import annotations

import asyncio
import random

import openai
import pytest
from reliability.sdk_errors import REQUEST, status_error, stream_error

from cowork_judge.core.classify import classify
from cowork_judge.core.consequences import CONSEQUENCES, consequence
from cowork_judge.core.error_kinds import ERROR_KINDS
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.transport.chat import StreamIncomplete

ECHOED_PROMPT = "x" * 3000 + " the deliverable discusses API rate limits and quota exceeded errors"

CLASSIFICATION = [
    # rate limiting: HTTP 429 …
    ("429 rate_limit_exceeded", status_error(429, "Rate limit reached for requests", code="rate_limit_exceeded"), "rate_limit"),
    ("429 without body words", status_error(429, "Too Many Requests"), "rate_limit"),
    # … messages without a 429, whatever the status (a full window, not a bad request)
    ("400 'Request rate increased too quickly'", status_error(400, "Request rate increased too quickly, please slow down",
                                                             err_type="invalid_request_error"), "rate_limit"),
    ("400 'quota exceeded'", status_error(400, "quota exceeded for this key: the window is full"), "rate_limit"),
    ("500 'quota exceeded'", status_error(500, "quota exceeded for this key", err_type="server_error"), "rate_limit"),
    ("403 'rate limit'", status_error(403, "Organization rate limit hit"), "rate_limit"),
    ("503 'throttled'", status_error(503, "Request throttled by upstream"), "rate_limit"),
    # … and errors inside a 200 SSE stream, or a stream that just ends
    ("in-stream rate limit", stream_error("Request rate increased too quickly, the stream was stopped",
                                          code="rate_limit_exceeded", err_type="rate_limit_error"), "rate_limit"),
    ("in-stream generic error", stream_error("An error occurred during streaming", err_type="server_error"), "rate_limit"),
    ("stream ended without finish_reason", StreamIncomplete("stream disconnected before completion"), "rate_limit"),
    # no credit: give up at once (wins over 429 and over stream errors)
    ("429 insufficient_quota", status_error(429, "You exceeded your current quota, please check your plan and billing details.",
                                            code="insufficient_quota", err_type="insufficient_quota"), "insufficient_quota"),
    ("429 insufficient quota message only", status_error(429, "You exceeded your current quota, please check your plan"),
     "insufficient_quota"),
    ("in-stream insufficient_quota", stream_error("no credit left", code="insufficient_quota"), "insufficient_quota"),
    ("402 insufficient balance", status_error(402, "Insufficient balance on this account"), "insufficient_quota"),
    # timeouts: the client's and ours
    ("SDK timeout", openai.APITimeoutError(request=REQUEST), "timeout"),
    ("asyncio timeout", asyncio.TimeoutError(), "timeout"),
    ("builtin timeout", TimeoutError(), "timeout"),
    # transient: 5xx, connection errors, anything unexpected
    ("502", status_error(502, "Bad gateway: upstream model server unavailable", err_type="server_error"), "api_error"),
    ("503", status_error(503, "The server is overloaded or not ready yet."), "api_error"),
    ("connection reset", openai.APIConnectionError(request=REQUEST), "api_error"),
    ("408", status_error(408, "Request timeout"), "api_error"),
    ("409", status_error(409, "Conflict"), "api_error"),
    ("unexpected exception", ValueError("boom"), "api_error"),
    # permanent 4xx: retrying cannot help
    ("400 context length", status_error(400, "This model's maximum context length is 128000 tokens",
                                        code="context_length_exceeded"), "request_rejected"),
    ("401", status_error(401, "Incorrect API key provided", code="invalid_api_key"), "request_rejected"),
    ("404 model", status_error(404, "The model `gpt-9` does not exist", code="model_not_found"), "request_rejected"),
    ("422", status_error(422, "Unprocessable entity"), "request_rejected"),
    ("400 echoing the prompt", status_error(400, "Invalid request", code="invalid_value", echo=ECHOED_PROMPT), "request_rejected"),
]


@pytest.mark.parametrize(("exc", "kind"), [(e, k) for _, e, k in CLASSIFICATION], ids=[n for n, _, _ in CLASSIFICATION])
def test_classify(exc, kind):
    assert classify(exc) == kind


def test_consequence_table_of_transport_kinds():
    columns = ("retry", "backoff", "systemic_exit_code", "resplit", "stops_run")
    table = {k: tuple(getattr(consequence(k), c) for c in columns)
             for k in ("rate_limit", "insufficient_quota", "timeout", "api_error", "request_rejected", "parse_error", "deadline")}
    assert table == {
        "rate_limit": (True, True, "judge:api_error", True, False),
        "insufficient_quota": (False, False, "judge:api_error", False, True),
        "timeout": (True, False, "judge:timeout", True, False),
        "api_error": (True, False, "judge:api_error", True, False),
        "request_rejected": (False, False, "judge:api_error", False, False),
        "parse_error": (True, False, "judge:api_error", True, False),
        "deadline": (False, False, "judge:timeout", False, False),
    }
    assert [k for k, c in CONSEQUENCES.items() if c.stops_run] == ["insufficient_quota"]
    assert set(CONSEQUENCES) == set(ERROR_KINDS)
    assert [k for k, c in CONSEQUENCES.items() if c.backoff] == ["rate_limit"]  # only rate limiting backs off


def test_backoff_sequence_with_a_seeded_rng():
    rng = random.Random(20)
    got = [RetryPolicy(backoff_max_sec=20.0).wait_sec("rate_limit", n, rng) for n in range(1, 7)]
    uppers = [2.0, 6.0, 18.0, 20.0, 20.0, 20.0]  # min(20, 2·3^(n−1))
    reference = random.Random(20)
    assert got == [reference.uniform(1.0, u) for u in uppers]
    assert all(1.0 <= g <= u for g, u in zip(got, uppers, strict=True))


@pytest.mark.parametrize(("backoff_max", "uppers"), [(20.0, [2, 6, 18, 20]), (5.0, [2, 5, 5, 5]), (1.0, [1, 1, 1, 1])])
def test_backoff_upper_bounds_follow_the_knob(backoff_max, uppers):
    for n, upper in enumerate(uppers, start=1):
        draws = [RetryPolicy(backoff_max_sec=backoff_max).wait_sec("rate_limit", n, random.Random(seed)) for seed in range(200)]
        assert 1.0 <= min(draws) and max(draws) <= upper
        if upper > 1:
            assert max(draws) > upper - 0.5 * (upper - 1)  # the whole window is used, not just its start


@pytest.mark.parametrize("kind", ["timeout", "api_error", "parse_error"])
def test_other_transient_failures_retry_after_one_second(kind):
    rng = random.Random(1)
    state = rng.getstate()
    assert [RetryPolicy(backoff_max_sec=20.0).wait_sec(kind, n, rng) for n in (1, 3, 6)] == [1.0, 1.0, 1.0]
    assert rng.getstate() == state  # no random draw: nothing to jitter
