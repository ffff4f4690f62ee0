"""Load: the shared token bucket (429 + Retry-After), max_in_flight and per-endpoint counts."""

from __future__ import annotations

import threading
import time

import openai
import pytest
from conftest import post_raw, rows_block

from cowork_judge.sim import LatencyModel, LogEntry, RequestLog, SimServer, TokenBucket
from cowork_judge.sim.bucket import default_burst, retry_headers


class FakeClock:
    """A clock that moves only when told (seconds)."""

    def __init__(self) -> None:
        self.now_s = 100.0

    def __call__(self) -> float:
        return self.now_s


def test_bucket_refills_at_rpm_over_60_and_reports_the_wait():
    clock = FakeClock()
    bucket = TokenBucket(60, 2, clock=clock)  # 1 token per second, 2 at most
    assert [bucket.take(), bucket.take()] == [0.0, 0.0]
    assert bucket.take() == pytest.approx(1.0)
    clock.now_s += 0.25
    assert bucket.take() == pytest.approx(0.75)  # refused requests take nothing
    clock.now_s += 0.75
    assert bucket.take() == 0.0 and bucket.take() == pytest.approx(1.0)
    clock.now_s += 60
    assert bucket.available() == 2.0  # never more than the burst


def test_retry_headers_round_up_and_default_burst():
    assert retry_headers(0.75) == {"retry-after": "1", "retry-after-ms": "750"}
    assert retry_headers(1.0001) == {"retry-after": "2", "retry-after-ms": "1001"}
    assert retry_headers(2.0) == {"retry-after": "2", "retry-after-ms": "2000"}
    assert [default_burst(r) for r in (1, 30, 60, 61, 600)] == [1, 1, 1, 2, 10]
    for bad in ({"rpm": 0}, {"rpm": -5}, {"rpm": float("nan")}, {"rpm": 60, "burst": 0}, {"rpm": 60, "burst": 1.5}):
        with pytest.raises(ValueError):
            TokenBucket(**bad)
    with pytest.raises(ValueError, match="burst needs rpm"):
        SimServer(burst=3)


def test_server_429_when_empty_is_deterministic_with_the_clock(client, messages):
    clock = FakeClock()
    with SimServer(rpm=30, burst=2, clock=clock) as sim, client(sim.url) as c:  # 0.5 token per second
        c.chat.completions.create(model="m", messages=messages())
        c.chat.completions.create(model="m", messages=messages())
        with pytest.raises(openai.RateLimitError) as info:
            c.chat.completions.create(model="m", messages=messages())
        first = info.value
        clock.now_s += 1.5
        with pytest.raises(openai.RateLimitError) as info:
            c.chat.completions.create(model="m", messages=messages())
        clock.now_s += 0.5
        c.chat.completions.create(model="m", messages=messages())
    assert first.response.headers["retry-after"] == "2" and first.response.headers["retry-after-ms"] == "2000"
    assert first.code == "rate_limit_exceeded" and "Please try again in 2.000s" in first.message
    assert info.value.response.headers["retry-after"] == "1" and info.value.response.headers["retry-after-ms"] == "500"
    assert [(e.status, e.fault, e.retry_after_ms) for e in sim.log] == [
        (200, None, None), (200, None, None), (429, "rpm_limit", 2000), (429, "rpm_limit", 500), (200, None, None)]
    assert sim.log.count(fault="rpm_limit") == 2 and sim.log[2].kind == "fault"


def test_bucket_is_shared_by_every_endpoint_in_its_own_error_shape(messages):
    clock = FakeClock()
    body = {"messages": messages(), "input": f"judge {rows_block([{'id': 'A1'}])}", "max_tokens": 10}
    with SimServer(rpm=60, burst=1, clock=clock) as sim:
        assert post_raw(sim.url, "/chat/completions", body)[0] == 200
        status, head, raw = post_raw(sim.root_url, "/v1/messages", body)
        assert status == 429 and b'"rate_limit_error"' in raw and head["retry-after-ms"] == "1000"
        status, head, raw = post_raw(sim.url, "/responses", body)
        assert status == 429 and b'"rate_limit_exceeded"' in raw and head["retry-after"] == "1"
    assert [(e.endpoint, e.status) for e in sim.log] == [("chat", 200), ("messages", 429), ("responses", 429)]


def test_openai_client_honours_retry_after_ms_from_the_bucket(messages):
    with SimServer(rpm=600, burst=1) as sim:  # one token every 0.1 s
        client = openai.OpenAI(base_url=sim.url, api_key="k", max_retries=3, timeout=5)
        try:
            t0 = time.monotonic()
            for _ in range(3):
                client.chat.completions.create(model="m", messages=messages())
            elapsed = time.monotonic() - t0
        finally:
            client.close()
    limited = [e for e in sim.log if e.fault == "rpm_limit"]
    assert limited and all(0 < e.retry_after_ms <= 100 for e in limited)
    assert sim.log.count(kind="final") == 3 and elapsed >= 0.15  # two refills of 0.1 s (less what was left)


def _entry(seq: int, start_s: float, end_s: float, endpoint: str = "chat") -> LogEntry:
    return LogEntry(seq=seq, start_s=start_s, end_s=end_s, kind="final", endpoint=endpoint)


def test_max_in_flight_counts_overlaps_with_half_open_intervals():
    log = RequestLog()
    assert log.max_in_flight() == 0
    for entry in (_entry(1, 0, 2), _entry(2, 1, 3, "messages"), _entry(3, 2, 4), _entry(4, 2.5, 2.6, "messages")):
        log.append(entry)
    assert log.max_in_flight() == 3  # at 2.5: #2, #3 and #4 (#1 ended at 2.0, exactly when #3 began)
    assert log.max_in_flight("messages") == 2 and log.max_in_flight("chat") == 1
    assert log.counts_by_endpoint() == {"chat": 2, "messages": 2}
    assert log.count(endpoint="messages") == 2 and log.count(kind="final", endpoint="responses") == 0


def test_concurrent_clients_are_seen_as_concurrent_and_a_limit_holds(client, messages):
    latency = LatencyModel.uniform(300)

    def run(sim: SimServer, limit: threading.Semaphore | None) -> None:
        ready = threading.Barrier(6)

        def call() -> None:
            with client(sim.url) as c:
                ready.wait(10)  # every client is built before any request goes out
                if limit is None:
                    c.chat.completions.create(model="m", messages=messages())
                    return
                with limit:
                    c.chat.completions.create(model="m", messages=messages())

        threads = [threading.Thread(target=call) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(15)

    with SimServer(latency=latency) as sim:
        run(sim, None)
        assert len(sim.log) == 6 and sim.log.max_in_flight() == 6
        sim.reset()
        run(sim, threading.Semaphore(2))
    assert len(sim.log) == 6 and sim.log.max_in_flight() == 2  # end_s precedes the answer's last byte
    assert sim.log.counts_by_endpoint() == {"chat": 6}
