"""``JUDGE_LIMITER_URL`` read once (`transport.store_url`), against REAL redis-servers (issue 39,
item 3): a password with an unencoded ``@ : / ? #`` made the redis client dial another store
than the one written — ``localhost:6379``, or a host and port out of the password — where the
fleet's keys landed silently, while the warnings named the URL's host. Such a URL is now
refused (config and limiter alike) before anything is dialled, with words that name none of
the password; an accepted one reaches exactly the host and port written, and the warning of a
store that fails names the address dialled."""

from __future__ import annotations

import random

import pytest

from cowork_judge.config.judge_config import load_config
from cowork_judge.transport.fleet import KEY_PREFIX, FleetLimiter
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.store_url import UnparsableStoreUrl, store_address


def job(url: str) -> FleetLimiter:
    return FleetLimiter(url=url, key=KEY_PREFIX + "store-url-test", local=Limiter(rng=random.Random(1)))


def keys(port: int, password: str | None = None) -> list[bytes]:
    """Every key of the store on 127.0.0.1:`port` (read with a client made from keywords, no URL)."""
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, password=password, socket_timeout=5)
    try:
        return list(client.keys("*"))
    finally:
        client.close()


@pytest.fixture
def stores(tmp_path):
    """Two real redis-servers: `a`, where a misread URL would land, and `b` (its password set later)."""
    from redis_store import REDIS_SERVER, RedisStore

    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    pytest.importorskip("redis", reason="the fleet-redis extra is not installed")
    made: list[RedisStore] = []

    def start(name: str, password: str | None = None) -> RedisStore:
        store = RedisStore(tmp_path / name, password=password)
        made.append(store)
        return store

    yield start
    for store in made:
        store.stop()


@pytest.mark.parametrize("url, dialled", [
    ("redis://127.0.0.1:6390/0", "127.0.0.1:6390"),
    ("redis://:p@ss@127.0.0.1:6390/0", "127.0.0.1:6390"),  # an "@" alone: the client reads the last one too
    ("redis://:p:ss@127.0.0.1:6390/0", "127.0.0.1:6390"),
    ("redis://user:pw@Store.Example", "store.example:6379"),
    ("rediss://:pw@[::1]:6390/0?ssl_ca_certs=/etc/ca@x/ca.pem", "[::1]:6390"),
    ("unix:///run/redis.sock?db=1", "unix:/run/redis.sock"),
])
def test_a_url_that_reads_as_written_is_accepted(url, dialled):
    assert store_address(url).dialled == dialled


@pytest.mark.parametrize("url", [
    "redis://:p@ss:w/rd?#@127.0.0.1:6390",  # the issue's URL: the client reads host "ss", port "w"
    "redis://:#x@127.0.0.1:6390/0",  # dialled localhost:6379
    "redis://:6391#x@127.0.0.1:6390/0",  # dialled localhost:6391
    "redis://:x@127.0.0.1:6391/y@127.0.0.1:6390/0",  # dialled 127.0.0.1:6391 with the password "x"
    "redis://:?x@127.0.0.1:6390/0",
    "redis://:a/b@127.0.0.1:6390/0",
    "redis://:pw@127.0.0.1:6390/zz",  # a path that is no database number (the client ignores it)
    "redis://:pw@127.0.0.1:99999/0",
    "http://127.0.0.1:6390",
])
def test_a_url_the_client_would_read_as_another_store_is_refused(url):
    with pytest.raises(UnparsableStoreUrl) as refused:
        store_address(url)
    said = str(refused.value)
    assert said.startswith("JUDGE_LIMITER_URL is refused: ")
    for piece in ("ss:w", "/rd", "#x", "?x", "a/b", "/y@", ":6391"):
        assert piece not in said, (piece, said)
    loaded = load_config({"JUDGE_LIMITER_URL": url})
    assert loaded.config.limiter_url is None and loaded.sources["limiter_url"] == "invalid:JUDGE_LIMITER_URL → default"
    warning = " ".join(loaded.warnings)
    assert "local limiter" in warning and not any(piece in warning for piece in ("ss:w", "/rd", "#x", "?x", "/y@"))


def test_a_password_that_names_another_store_never_reaches_it(stores):
    """``redis://:x@127.0.0.1:A/y@127.0.0.1:B/0`` — a password ``x@127.0.0.1:A/y`` for store B —
    made the client dial store A with the password ``x``: the fleet's keys landed there and
    nothing said so. Now the URL is refused before any connection: neither store holds a key,
    the run uses its local limiter, and the warning names B (written) and none of the password."""
    a = stores("a", password="x")
    password = f"x@127.0.0.1:{a.port}/y"
    b = stores("b", password=password)
    url = f"redis://:{password}@127.0.0.1:{b.port}/0"
    lim = job(url)
    ticket, _ = lim.try_start()
    assert ticket is not None
    lim.answered(ticket)
    assert keys(a.port, "x") == [] and keys(b.port, password) == []  # no key landed anywhere
    assert lim.mode == "local" and len(lim.warnings) == 1
    said = lim.warnings[0]
    assert f"127.0.0.1:{b.port}" in said and "refused" in said and "nothing was dialled" in said
    assert f":{a.port}" not in said and "/y" not in said and "local limiter" in said
    lim.close()


def test_a_fragment_in_the_password_never_dials_localhost(stores):
    """``redis://:<port A>#x@127.0.0.1:B/0``: the client read no host (``localhost``) and port A
    out of the password, and took its tickets from store A."""
    a = stores("a")
    b = stores("b", password=f"{a.port}#x")
    lim = job(f"redis://:{a.port}#x@127.0.0.1:{b.port}/0")
    ticket, _ = lim.try_start()
    assert ticket is not None
    lim.answered(ticket)
    assert keys(a.port) == [] and lim.mode == "local"
    assert f"127.0.0.1:{b.port}" in lim.warnings[0] and "#x" not in lim.warnings[0]
    lim.close()


def test_the_issue_url_is_refused_and_a_percent_encoded_one_reaches_the_store_written(stores):
    """The issue's password ``p@ss:w/rd?#`` unencoded is refused naming none of it; encoded
    (``p%40ss%3Aw%2Frd%3F%23``) the same job shares exactly that store, and a store that goes
    away is named by the address dialled."""
    password = "p@ss:w/rd?#"
    store = stores("b", password=password)
    lim = job(f"redis://:{password}@127.0.0.1:{store.port}")
    assert lim.try_start()[0] is not None and lim.mode == "local"
    said = lim.warnings[0]
    assert "refused" in said and f"127.0.0.1:{store.port}" in said
    assert not any(piece in said for piece in ("ss:w", "w/rd", "rd?", "p@ss"))
    lim.close()
    encoded = job(f"redis://:p%40ss%3Aw%2Frd%3F%23@127.0.0.1:{store.port}/0")
    ticket, _ = encoded.try_start()
    assert encoded.mode == "shared" and encoded.address is not None
    assert encoded.address.dialled == f"127.0.0.1:{store.port}"
    encoded.answered(ticket)  # type: ignore[arg-type]
    assert keys(store.port, password)  # the state is in the store written
    store.kill()
    ticket, _ = encoded.try_start()
    assert ticket is not None and encoded.mode == "local"
    assert f"the shared store at 127.0.0.1:{store.port} (redis://***@127.0.0.1:{store.port}/0) failed" in encoded.warnings[0]
    encoded.close()
