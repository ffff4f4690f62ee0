"""The one loopback-host rule: which hosts of a URL are this machine. Read by `core.simulated.builtin_simulator`
(the verdict cache's mark of the built-in simulator) and `commands._endpoint.loopback_address` (``try``/``demo``
probe only a loopback endpoint), which each wrote it out before. Pure; the standard library only."""

from __future__ import annotations

import ipaddress


def is_loopback_host(host: str) -> bool:
    """Whether `host` (a URL's host name as `urllib.parse.urlsplit` gives it: no brackets, no port; any case) is a
    loopback one: ``localhost``, a name under ``.localhost``, an IPv4 address in 127.0.0.0/8 or the IPv6 ``::1``.
    Any other name, an address elsewhere and "" are False. Pure; never raises."""
    host = host.lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


__all__ = ["is_loopback_host"]
