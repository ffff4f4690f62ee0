"""Cached-prefix token accounting: the 1024/128 rule, per-API usage fields, what is remembered."""

from __future__ import annotations

import json

import openai
import pytest
from conftest import post_raw, rows_block

from cowork_judge.sim import FaultPlan, PrefixCache, SimServer

ROWS = [{"id": "A1", "description": "growth"}]


def expected_cached(shared_chars: int) -> int:
    """OpenAI's rule over the simulator's estimate: floor to 128-token blocks, 0 under 1024."""
    tokens = (shared_chars // 512) * 128
    return tokens if tokens >= 1024 else 0


@pytest.mark.parametrize(
    ("shared", "expected"),
    [(0, 0), (4095, 0), (4096, 1024), (4607, 1024), (4608, 1152), (10_000, 2432)],
)
def test_prefix_cache_counts_whole_blocks_from_1024_tokens(shared, expected):
    cache = PrefixCache()
    base = "".join(chr(0x41 + (i * 7) % 26) for i in range(12_000))
    assert cache.lookup_and_store(base) == 0  # nothing seen yet
    probe = base[:shared] + "#" + base[shared + 1:]  # differs from character `shared` on
    assert cache.lookup(probe) == expected == expected_cached(shared)
    assert cache.lookup(base) == (12_000 // 512) * 128  # the whole stored prompt
    cache.clear()
    assert cache.lookup(base) == 0


def test_prefix_cache_matches_any_earlier_prompt_not_just_the_last():
    cache = PrefixCache()
    first, second = "a" * 6000, "b" * 6000
    cache.lookup_and_store(first)
    cache.lookup_and_store(second)
    assert cache.lookup("a" * 5200 + "zz") == expected_cached(5200) == 1280
    assert cache.lookup("ab" * 3000) == 0


def _messages(system: str, tail: str) -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": f"{tail}\n{rows_block(ROWS)}"}]


def test_chat_usage_reports_cached_tokens_of_the_shared_prefix(client):
    system = "You are a careful rubric judge. " * 200  # 6400 characters
    with SimServer() as sim, client(sim.url) as c:
        cold = c.chat.completions.create(model="m", messages=_messages(system, "first deliverable"))
        warm = c.chat.completions.create(model="m", messages=_messages(system, "second deliverable"))
        streamed = list(c.chat.completions.create(model="m", messages=_messages(system, "first deliverable"),
                                                  stream=True, stream_options={"include_usage": True}))
    assert cold.usage.prompt_tokens_details.cached_tokens == 0
    shared = len(system)  # "first ..." and "second ..." differ at their first character
    assert warm.usage.prompt_tokens_details.cached_tokens == expected_cached(shared) == 1536
    full = len(system) + len(f"first deliverable\n{rows_block(ROWS)}")
    assert streamed[-1].usage.prompt_tokens_details.cached_tokens == expected_cached(full)
    assert [e.cached_tokens for e in sim.log] == [0, 1536, expected_cached(full)]
    assert all(e.cached_tokens <= e.prompt_tokens for e in sim.log)


def test_responses_and_messages_report_it_in_their_own_fields():
    instructions = "Judge every row strictly and cite the evidence you used. " * 120
    body = {"instructions": instructions, "system": instructions, "max_tokens": 50,
            "input": f"deliverable {rows_block(ROWS)}",
            "messages": [{"role": "user", "content": f"deliverable {rows_block(ROWS)}"}]}
    with SimServer() as sim:
        post_raw(sim.url, "/responses", body)
        _, _, raw = post_raw(sim.url, "/responses", body)
        responses_usage = json.loads(raw)["usage"]
        _, _, raw = post_raw(sim.root_url, "/v1/messages", body)  # same serialized prompt as /responses
        messages_usage = json.loads(raw)["usage"]
    whole = expected_cached(len(instructions) + len(f"deliverable {rows_block(ROWS)}"))
    assert whole > 0 and responses_usage["input_tokens_details"]["cached_tokens"] == whole
    assert messages_usage["cache_read_input_tokens"] == whole
    assert messages_usage["input_tokens"] == sim.log[2].prompt_tokens - whole  # Anthropic: uncached part only
    assert [e.cached_tokens for e in sim.log] == [0, whole, whole]


def test_unanswered_requests_are_not_remembered_and_reset_forgets(client):
    system = "x" * 5000
    with SimServer(faults=FaultPlan(script=["http_429"])) as sim, client(sim.url) as c:
        with pytest.raises(openai.RateLimitError):
            c.chat.completions.create(model="m", messages=_messages(system, "a"))
        first = c.chat.completions.create(model="m", messages=_messages(system, "a"))
        second = c.chat.completions.create(model="m", messages=_messages(system, "a"))
        post_raw(sim.root_url, "/_sim/reset", {})
        third = c.chat.completions.create(model="m", messages=_messages(system, "a"))
    assert first.usage.prompt_tokens_details.cached_tokens == 0  # the 429 reached no model
    assert second.usage.prompt_tokens_details.cached_tokens == expected_cached(5000 + 1 + 1 + len(rows_block(ROWS)))
    assert third.usage.prompt_tokens_details.cached_tokens == 0
