"""The fleet's shared limiter (`transport.fleet.FleetLimiter`) against a REAL redis-server:
two limiters on one key stand for two jobs of a fleet. What one learns holds the other;
a store that is missing, dies or never answers hands the run to the local limiter with a
warning, within the store's short timeout."""

from __future__ import annotations

import random
import re
import sys
import threading
import time

import pytest
from redis_store import SilentServer

from cowork_judge.transport.fleet import KEY_PREFIX, FleetLimiter, FleetTicket, limiter_key, open_limiter
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.quota import Budget, Quota

SECRET = "s3cret-store-pass-0042"


def job(url: str, key: str = "test-fleet", **kw) -> FleetLimiter:
    return FleetLimiter(url=url, key=KEY_PREFIX + key, local=Limiter(rng=random.Random(1)), **kw)


def take(lim: FleetLimiter, within_sec: float = 20.0) -> FleetTicket:
    """A ticket, waiting what the limiter says (bounded, so a broken limiter fails the test)."""
    ticket = lim.acquire_blocking(threading.Event(), time.monotonic() + within_sec)
    assert ticket is not None
    return ticket  # type: ignore[return-value]


def test_the_key_is_a_digest_never_the_api_key():
    key = limiter_key("https://api.example/v1/", "gpt-x", "sk-very-secret-key-123")
    assert key.startswith(KEY_PREFIX) and "sk-very" not in key and "example" not in key
    assert key == limiter_key("https://api.example/v1", "gpt-x", "sk-very-secret-key-123")  # trailing slash
    assert key != limiter_key("https://api.example/v1", "gpt-y", "sk-very-secret-key-123")
    assert key != limiter_key("https://api.example/v1", "gpt-x", "sk-another-key-4567")
    assert limiter_key("u", "m", "k", "team-a") == KEY_PREFIX + "team-a"


def test_unset_url_is_todays_local_limiter():
    assert type(open_limiter(url=None, base_url="u", model="m", api_key="k", key_override=None, fleet_rpm=None,
                             fleet_tpm=None, backoff_max_sec=20, lease_sec=300)) is Limiter


def test_a_refusal_one_job_meets_gates_the_other(redis_store):
    a, b = job(redis_store.url), job(redis_store.url)
    try:
        first, second = take(a), take(b)  # slow start: two in flight on a new key
        t0 = time.monotonic()
        a.rate_limited(first, 3.0, quota=Quota(requests=Budget(240.0, 0.0, 1.0)))
        ticket, wait = b.try_start()
        assert ticket is None and wait > 1.0  # the other job waits the ask it never saw
        assert b.held_past(t0 + 1.0)
        b.answered(second)
        assert a.mode == b.mode == "shared" and not a.warnings
    finally:
        a.close(), b.close()


def test_the_fleet_paces_at_the_keys_rate_from_its_headers(redis_store):
    """One answer of job A carries `limit 60/min`: job B, which has read no header, is then
    spaced at 1/(0.95 · 1 request/s) by the store."""
    a, b = job(redis_store.url), job(redis_store.url)
    try:
        t = take(a)
        a.answered(t, Quota(requests=Budget(60.0, 50.0, 10.0)))
        take(b)
        ticket, wait = b.try_start()
        assert ticket is None and 0.5 < wait <= 1.0 / 0.95 + 0.05
    finally:
        a.close(), b.close()


def test_configured_fleet_rpm_paces_from_the_first_request(redis_store):
    a, b = job(redis_store.url, fleet_rpm=30.0), job(redis_store.url, fleet_rpm=30.0)
    try:
        take(a)
        ticket, wait = b.try_start()
        assert ticket is None and 1.0 < wait <= 2.0  # one request per 2 s, for the fleet
    finally:
        a.close(), b.close()


def test_random_refusals_do_not_gate_the_fleet(redis_store):
    a, b = job(redis_store.url), job(redis_store.url)
    try:
        t = take(a)
        a.answered(t, Quota(requests=Budget(6000.0, 99.0, 0.01)))
        for _ in range(4):
            t = take(a)
            assert a.rate_limited(t, 1.0, quota=Quota(requests=Budget(6000.0, 97.0, 0.03))) is False
        assert a.random_refusals == 4
        assert not b.held_past(time.monotonic() + 0.5)
    finally:
        a.close(), b.close()


def test_leases_of_a_killed_job_expire(redis_store):
    """Two tickets fill a new key's window; their holder "dies" (never settles): the slots come
    back when the leases expire."""
    dead, alive = job(redis_store.url, lease_sec=1.0), job(redis_store.url)
    try:
        take(dead), take(dead)
        ticket, wait = alive.try_start()
        assert ticket is None  # the fleet's window is full
        take(alive, within_sec=30.0)  # the dead job's leases expired
    finally:
        dead.close(), alive.close()


def test_a_password_and_the_url_never_reach_a_warning_or_repr(tmp_path):
    from redis_store import REDIS_SERVER, RedisStore

    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    pytest.importorskip("redis")
    store = RedisStore(tmp_path / "redis", password=SECRET)
    try:
        lim = job(store.url)
        take(lim)
        assert lim.mode == "shared" and SECRET not in repr(lim)
        wrong = job(store.url.replace(SECRET, "wrong-password-999"))
        assert wrong.try_start()[0] is not None and wrong.mode == "local"  # refused by the store: the local limiter
        assert "wrong-password-999" not in " ".join(wrong.warnings) and "***@" in wrong.warnings[0]
        lim.close(), wrong.close()
    finally:
        store.stop()


def test_a_tls_store_with_a_password_is_shared_and_a_certificate_it_cannot_trust_falls_back(tmp_path):
    """``rediss://`` with a password against a real TLS-only redis-server: two jobs share its
    state (one's 429 gate holds the other); a URL that does not trust the server's
    self-signed certificate cannot connect, so that job falls back to the local limiter with a
    warning that names the store without its password."""
    from redis_store import OPENSSL, REDIS_SERVER, RedisStore

    if REDIS_SERVER is None or OPENSSL is None:
        pytest.skip("redis-server or openssl is not installed (.ci/run installs both)")
    pytest.importorskip("redis")
    store = RedisStore(tmp_path / "redis", password=SECRET, tls=True)
    assert store.url.startswith("rediss://")
    try:
        a, b = job(store.url), job(store.url)
        first, second = take(a), take(b)  # slow start: two in flight on a new key
        a.rate_limited(first, 5.0, quota=Quota(requests=Budget(240.0, 0.0, 1.0)))  # a's 429: Retry-After 5, spent
        ticket, wait = b.try_start()
        assert ticket is None and wait > 3.0  # b is held by what a learned, through the TLS store
        b.answered(second)
        assert a.mode == b.mode == "shared" and not a.warnings and not b.warnings
        untrusted = job(store.url.split("?")[0])  # no ssl_ca_certs: the self-signed certificate is refused
        assert untrusted.try_start()[0] is not None and untrusted.mode == "local"
        said = " ".join(untrusted.warnings)
        assert "local limiter" in said and SECRET not in said and "rediss://***@127.0.0.1" in said
        a.close(), b.close(), untrusted.close()
    finally:
        store.stop()


def test_a_password_the_url_does_not_encode_leaks_no_piece():
    """A password with an unencoded ``@ : / ? # %`` breaks the URL: the redis client's own
    error quotes the piece it choked on (``Port could not be cast to integer value as
    'w%rd'``), too short for the redactor (a user trial). The fallback's warning now says the
    same words whatever the password — nothing of it — and what to encode."""
    pytest.importorskip("redis")
    said = []
    for password in ("p@ss:w%rd/Zq#9?x", "Pw?x7", "Abc#Hunter3Secret"):
        lim = job(f"redis://:{password}@127.0.0.1:1/0")
        assert lim.try_start()[0] is not None and lim.mode == "local"
        said.append(" ".join(lim.warnings))
    assert len(set(said)) == 1, said  # nothing in it depends on the password
    assert "redis://***@127.0.0.1:1/0" in said[0] and "percent-encode" in said[0] and "local limiter" in said[0]
    assert not re.search(r"w%rd|'Pw'|'Abc'", said[0])


def test_a_store_that_dies_mid_run_hands_over_to_the_local_limiter(redis_store):
    lim = job(redis_store.url)
    t = take(lim)
    redis_store.kill()
    lim.answered(t)  # the settlement fails: fallback, once
    assert lim.mode == "local" and len(lim.warnings) == 1 and "local limiter" in lim.warnings[0]
    t2 = take(lim)
    assert not isinstance(t2, FleetTicket)
    lim.answered(t2)
    take(lim)
    assert len(lim.warnings) == 1
    lim.close()


def test_a_store_that_never_answers_costs_one_timeout():
    pytest.importorskip("redis")
    silent = SilentServer()
    try:
        lim = FleetLimiter(url=silent.url, key="k", local=Limiter(), timeout_sec=0.5)
        t0 = time.monotonic()
        ticket, wait = lim.try_start()
        spent = time.monotonic() - t0
        assert ticket is not None and lim.mode == "local" and "Timeout" in lim.warnings[0]
        assert spent < 30.0  # bounded by the socket timeout (0.5 s), whatever the machine's load
        lim.close()
    finally:
        silent.close()


def test_no_redis_library_falls_back_with_a_warning(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)  # import redis → ImportError
    lim = FleetLimiter(url="redis://127.0.0.1:1/0", key="k", local=Limiter())
    ticket, _ = lim.try_start()
    assert ticket is not None and lim.mode == "local" and "fleet-redis" in lim.warnings[0]


def test_an_unreachable_store_at_start(tmp_path):
    pytest.importorskip("redis")
    from redis_store import free_port

    lim = FleetLimiter(url=f"redis://127.0.0.1:{free_port()}/0", key="k", local=Limiter())
    assert lim.try_start()[0] is not None and lim.mode == "local" and "ConnectionError" in lim.warnings[0]
