"""`core.hosts.is_loopback_host`: the one loopback-host rule that `core.simulated.builtin_simulator` and
`commands._endpoint.loopback_address` both read (they each wrote it out before), and that the two agree."""

from __future__ import annotations

import pytest

from cowork_judge.commands._endpoint import loopback_address
from cowork_judge.core.hosts import is_loopback_host
from cowork_judge.core.simulated import SIM_KEY, builtin_simulator

LOOPBACK = ["localhost", "LocalHost", "judge.localhost", "127.0.0.1", "127.8.9.10", "127.255.255.254", "::1",
            "0:0:0:0:0:0:0:1"]
ELSEWHERE = ["", "localhost.example.com", "notlocalhost", "128.0.0.1", "0.0.0.0", "192.0.2.1", "::", "::2",
             "::ffff:127.0.0.1", "judge.example.com", "[::1]", "127.0.0.1:8000", "localhost:80"]


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_hosts(host):
    assert is_loopback_host(host)


@pytest.mark.parametrize("host", ELSEWHERE)
def test_other_hosts_and_what_is_no_host(host):
    assert not is_loopback_host(host)


@pytest.mark.parametrize(("url", "loopback"), [
    ("http://localhost/v1", True), ("http://JUDGE.localhost:8000/v1", True), ("http://127.3.2.1:41107/v1", True),
    ("https://[::1]:8443/v1", True), ("http://[0:0:0:0:0:0:0:1]/v1", True), ("http://localhost.example.com/v1", False),
    ("http://128.0.0.1/v1", False), ("http://[::ffff:127.0.0.1]/v1", False), ("https://gw.example/v1", False),
    ("http://[bad/v1", False), ("", False),
])
def test_both_readers_of_a_url_accept_the_same_hosts(url, loopback):
    assert builtin_simulator(url, SIM_KEY) is loopback
    assert (loopback_address(url) is not None) is loopback
