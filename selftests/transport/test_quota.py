"""The endpoint's rate-limit headers (`transport.quota`): OpenAI's and Anthropic's forms read
into budgets, and what a reading means (the key's rate, LOW, the gap, capacity left)."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

from cowork_judge.transport.quota import Budget, KeyState, Quota, parse_duration, quota_of, read_quota


class Headers(dict):
    """Case-insensitive headers, as httpx's."""

    def __init__(self, items: dict[str, str]) -> None:
        super().__init__({k.lower(): v for k, v in items.items()})

    def get(self, key, default=None):  # type: ignore[override]
        return super().get(key.lower(), default)


@pytest.mark.parametrize("text, seconds", [("6m0s", 360.0), ("1s", 1.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5),
                                           ("0.5", 0.5), ("250us", 0.00025), ("7", 7.0)])
def test_durations_as_openai_writes_them(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "1x", "-1s", "s", "5m-3s", "nan"])
def test_unreadable_durations_are_none(text):
    assert parse_duration(text) is None


def test_openai_headers():
    q = read_quota(Headers({"X-RateLimit-Limit-Requests": "60", "x-ratelimit-remaining-requests": "59",
                            "x-ratelimit-reset-requests": "1s", "x-ratelimit-limit-tokens": "150000",
                            "x-ratelimit-remaining-tokens": "149984", "x-ratelimit-reset-tokens": "6m0s"}))
    assert q == Quota(requests=Budget(60.0, 59.0, 1.0), tokens=Budget(150000.0, 149984.0, 360.0))
    assert q.requests.per_sec == 1.0


def test_anthropic_headers_reset_is_a_time():
    soon = datetime.fromtimestamp(time.time() + 30.0, tz=timezone.utc).isoformat().replace("+00:00", "Z")
    q = read_quota(Headers({"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "49",
                            "anthropic-ratelimit-requests-reset": soon,
                            "anthropic-ratelimit-input-tokens-limit": "40000",
                            "anthropic-ratelimit-input-tokens-remaining": "39000",
                            "anthropic-ratelimit-input-tokens-reset": soon}))
    assert q is not None and q.requests.limit == 50 and q.requests.remaining == 49
    assert 25.0 < q.requests.reset_sec <= 30.0
    assert q.tokens.limit == 40000 and q.tokens.remaining == 39000


def test_anthropic_reset_against_a_server_whose_clock_is_far_off():
    """A container whose clock is off: the reply's own Date header is the reference."""
    server_now = datetime(2030, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    q = read_quota(Headers({"date": "Tue, 01 Jan 2030 12:00:00 GMT", "anthropic-ratelimit-requests-limit": "50",
                            "anthropic-ratelimit-requests-remaining": "10",
                            "anthropic-ratelimit-requests-reset": server_now.replace(second=12).isoformat()}))
    assert q is not None and q.requests.reset_sec == pytest.approx(12.0)


def test_no_rate_limit_headers_is_none_and_bad_values_are_ignored():
    assert read_quota(Headers({"content-type": "application/json"})) is None
    assert read_quota(None) is None
    assert read_quota(Headers({"x-ratelimit-remaining-requests": "many"})) is None
    q = read_quota(Headers({"x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "later"}))
    assert q == Quota(requests=Budget(None, 3.0, None))


def test_quota_of_an_exception_reads_its_response():
    class Response:
        headers = Headers({"x-ratelimit-remaining-requests": "0", "x-ratelimit-limit-requests": "240",
                           "x-ratelimit-reset-requests": "750ms"})

    class Refused(Exception):
        response = Response()

    assert quota_of(Refused()) == Quota(requests=Budget(240.0, 0.0, 0.75))
    assert quota_of(ValueError("no response")) is None


def test_reading_rate_low_and_gap():
    key = KeyState()
    r = key.read(Quota(requests=Budget(240.0, 3.0, 0.25)))
    assert r.rate == pytest.approx(4.0) and not r.low
    assert r.gap_sec == pytest.approx(0.25 / 4)  # what remains (3) spread over the reset, +1
    r = key.read(Quota(requests=Budget(240.0, 0.0, 1.0)))
    assert r.low and r.gap_sec == pytest.approx(1.0)  # none left: the whole reset
    assert key.capacity["requests"] == 3.0


def test_tokens_budget_in_requests_worth():
    key = KeyState()
    key.note_tokens(1000)
    r = key.read(Quota(tokens=Budget(60000.0, 2500.0, 2.0)))
    assert r.rate == pytest.approx(1.0)  # 1000 tokens/s ÷ 1000 tokens per request
    assert r.gap_sec == pytest.approx(2.0 / 3)  # 2 requests' worth left, +1


def test_capacity_left_tells_a_random_refusal_from_an_overdrawn_key():
    key = KeyState()
    key.read(Quota(requests=Budget(6000.0, 99.0, 0.01)))
    assert key.capacity_left(Quota(requests=Budget(6000.0, 95.0, 0.05)))
    assert not key.capacity_left(Quota(requests=Budget(6000.0, 0.0, 1.0)))  # the key's own limit
    assert not key.capacity_left(Quota(requests=Budget(6000.0, 10.0, 1.0)))  # under a quarter of what it held
    assert not key.capacity_left(Quota(requests=Budget(6000.0, 95.0, 0.05), tokens=Budget(1e5, 0.0, 3.0)))  # tokens spent
    assert not key.capacity_left(None) and not key.capacity_left(Quota())


def test_resets_as_an_epoch_time_or_a_timestamp():
    """LiteLLM documents its reset as "the time at which the rate limit will reset"."""
    epoch = Headers({"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": str(int(time.time()) + 20)})
    assert 18.0 <= read_quota(epoch).requests.reset_sec <= 21.0
    stamp = datetime.fromtimestamp(time.time() + 30.0, tz=timezone.utc).isoformat()
    assert 28.0 <= read_quota(Headers({"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": stamp})
                              ).requests.reset_sec <= 30.5
    far = Headers({"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "99999999999"})
    assert read_quota(far).requests.reset_sec == 24 * 3600.0
