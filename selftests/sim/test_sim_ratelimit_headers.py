"""The simulator's rate-limit headers: OpenAI's ``x-ratelimit-*`` from its request and token
buckets on chat completions (streamed too, read by the real openai client from the raw
response) and responses, Anthropic's ``anthropic-ratelimit-*`` on /v1/messages, the token
bucket's own 429 (``--tpm``), random 429s that still show capacity left, and
``--no-ratelimit-headers``."""

from __future__ import annotations

import openai
import pytest
from conftest import post_raw

from cowork_judge.sim import FaultPlan, SimServer
from cowork_judge.sim.bucket import TokenBucket, go_duration
from cowork_judge.sim.cli import build_parser
from cowork_judge.transport.quota import read_quota


class Clock:
    def __init__(self) -> None:
        self.t = 10.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize("seconds, text", [(0.02, "20ms"), (0.2501, "251ms"), (1.0, "1s"), (1.5, "1.5s"), (360.0, "6m0s"),
                                           (61.25, "1m1.25s")])
def test_resets_are_written_as_openai_does(seconds, text):
    assert go_duration(seconds) == text


def test_bucket_state_and_cost():
    clock = Clock()
    bucket = TokenBucket(600, 10, clock=clock)
    assert bucket.take(4) == 0.0 and bucket.state() == (6.0, pytest.approx(0.4))
    assert bucket.take(8) == pytest.approx(0.2)  # 2 tokens short at 10/s
    bucket.give_back(3)
    assert bucket.state()[0] == 9.0


def test_streamed_chat_answer_carries_the_buckets_state(client, messages):
    with SimServer(rpm=240, tpm=60000, tool_rounds=0) as sim, client(sim.url) as c:
        stream = c.chat.completions.create(model="m", messages=messages(), stream=True)
        quota = read_quota(stream.response.headers)
        list(stream)
    assert quota is not None and quota.requests.limit == 240 and quota.requests.remaining == 3
    assert 0.2 < quota.requests.reset_sec <= 0.25  # one request back at 4/s
    assert quota.tokens.limit == 60000 and 0 < quota.tokens.remaining < 60000


def test_a_bucket_429_shows_nothing_left(client, messages):
    with SimServer(rpm=60, burst=1, tool_rounds=0) as sim, client(sim.url) as c:
        c.chat.completions.create(model="m", messages=messages())
        with pytest.raises(openai.RateLimitError) as info:
            c.chat.completions.create(model="m", messages=messages())
    headers = info.value.response.headers
    assert headers["x-ratelimit-remaining-requests"] == "0" and "retry-after-ms" in headers


def test_random_429s_still_show_capacity_left(client, messages):
    """A flaky gateway's refusal: the key is far from its limit, and its headers say so."""
    with SimServer(rpm=6000, faults=FaultPlan(script=["http_429"]), tool_rounds=0) as sim, client(sim.url) as c:
        with pytest.raises(openai.RateLimitError) as info:
            c.chat.completions.create(model="m", messages=messages())
    quota = read_quota(info.value.response.headers)
    assert quota is not None and quota.requests.remaining >= 90 and info.value.response.headers["retry-after"] == "1"


def test_the_token_bucket_refuses_with_its_own_429(messages):
    with SimServer(rpm=6000, tpm=100, tool_rounds=0) as sim:  # a prompt of ~100 tokens fits once
        body = {"model": "m", "messages": messages()}
        statuses = [post_raw(sim.url, "/chat/completions", body)[0] for _ in range(3)]
        faults = [e.fault for e in sim.log.entries()]
    assert statuses[0] == 200 and 429 in statuses and "tpm_limit" in faults and "rpm_limit" not in faults


def test_messages_send_anthropic_headers(messages):
    body = {"model": "m", "max_tokens": 100, "messages": messages()[1:]}
    with SimServer(rpm=120, tool_rounds=0) as sim:
        status, headers, _ = post_raw(sim.url, "/messages", body)
    assert status == 200 and not any(k.startswith("x-ratelimit") for k in headers)
    assert headers["anthropic-ratelimit-requests-limit"] == "120"
    assert headers["anthropic-ratelimit-requests-remaining"] == "1"
    quota = read_quota(headers)
    assert quota is not None and 0 < quota.requests.reset_sec <= 1.0


def test_responses_send_openai_headers(messages):
    body = {"model": "m", "input": messages()[1]["content"], "stream": True}
    with SimServer(rpm=120, tool_rounds=0) as sim:
        status, headers, _ = post_raw(sim.url, "/responses", body)
    assert status == 200 and headers["x-ratelimit-limit-requests"] == "120"


def test_no_headers_without_a_bucket_or_when_switched_off(messages):
    body = {"model": "m", "messages": messages()}
    for options in ({}, {"rpm": 240, "ratelimit_headers": False}):
        with SimServer(tool_rounds=0, **options) as sim:
            status, headers, _ = post_raw(sim.url, "/chat/completions", body)
        assert status == 200 and not [k for k in headers if "ratelimit" in k], options


def test_cli_options():
    args = build_parser().parse_args(["--rpm", "240", "--tpm", "90000", "--no-ratelimit-headers"])
    assert args.tpm == 90000 and args.no_ratelimit_headers
