"""The one loopback-host rule: which hosts of a URL are this machine. Read by `core.simulated.builtin_simulator`
(the verdict cache's mark of the built-in simulator) and `commands._endpoint.loopback_address` (``try``/``demo``
probe only a loopback endpoint), which each wrote it out before; and the one rule of hosts reserved for examples
(`placeholder_host`: ``try``/``demo`` refuse such an endpoint or index, init warns of such a ``COWORK_WHEEL_URL``).
Pure; the standard library only."""

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


RESERVED_EXAMPLE_DOMAINS = ("example.com", "example.net", "example.org", "example", "invalid", "test")
"""Second-level names and top-level domains reserved for examples and tests (RFC 2606, RFC 6761): no endpoint is there."""


def placeholder_host(url: str) -> str | None:
    """The host of `url` when it is, or lies under, a name reserved for examples (`RESERVED_EXAMPLE_DOMAINS`:
    ``judge.example.com``, ``gw.example``, ``x.invalid``), else None (also for a URL that cannot be read)."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return None
    return host if any(host == d or host.endswith("." + d) for d in RESERVED_EXAMPLE_DOMAINS) else None


__all__ = ["RESERVED_EXAMPLE_DOMAINS", "is_loopback_host", "placeholder_host"]
