"""``JUDGE_LIMITER_URL`` read once: the store address the redis client will dial, or a refusal.

The redis client (redis-py) parses the URL with `urllib.parse.urlparse`: an unencoded
``/ ? #`` in the password ends the authority early, so the host and the port come out of the
password, or out of nothing — ``redis://:#x@redis.example.com:6390/0`` dials ``localhost:6379``, and a
fleet's keys landed in whatever Redis answered there, while the warnings named the host
written in the URL. `store_address` reads the URL as that client does and as a person does
(the host and port after the LAST ``@`` of the user info: `cowork_judge.safety.redact.split_userinfo`),
and refuses the URL with `UnparsableStoreUrl` unless both agree. The refusal names none of
the URL's user info: at most the host and port written after its last ``@``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from cowork_judge.safety.redact import mask_url, split_userinfo

DEFAULT_PORT = 6379
"""The port the redis client dials when the URL names none."""
STORE_SCHEMES = ("redis", "rediss", "unix")
_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%-]+)(?::(?P<port>[0-9]{1,5}))?")
"""A host (a name, an IPv4 address or a bracketed IPv6 one) and an optional numeric port."""
ENCODE_HINT = "percent-encode the characters @ : / ? # % in its password (%40 %3A %2F %3F %23 %25)"


class UnparsableStoreUrl(ValueError):
    """``JUDGE_LIMITER_URL`` does not parse to the store written in it (see the module
    docstring). The message names none of the password: the redis client's own errors quote
    the piece they choke on (a piece of a password with an unencoded ``@ : / ? # %``, too
    short for the run's redactor), so they are never repeated.

    Attributes:
        detail: the message without the variable's name (``is refused: …``).
    """

    def __init__(self, detail: str) -> None:
        super().__init__(f"JUDGE_LIMITER_URL {detail}")
        self.detail = detail


@dataclass(frozen=True)
class StoreAddress:
    """Where the redis client connects for a URL (`store_address`).

    Attributes:
        scheme: ``redis``, ``rediss`` (TLS) or ``unix``.
        host, port: the TCP address (``""``/0 for ``unix``).
        path: the socket path (``unix`` only, else ``""``).
        shown: the URL fit to print (`cowork_judge.safety.redact.mask_url`: no password).
    """

    scheme: str
    host: str
    port: int
    path: str
    shown: str

    @property
    def dialled(self) -> str:
        """``host:port`` (``[::1]:6379`` for IPv6), or ``unix:<path>``: what a warning names."""
        if self.scheme == "unix":
            return f"unix:{self.path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def store_address(url: str) -> StoreAddress:
    """The address the redis client dials for `url`, checked against what `url` says.

    Returns:
        The `StoreAddress` when the client's reading (`urllib.parse.urlsplit`, as redis-py
        reads it: hostname, port, default ``localhost:6379``) names the host and port
        written after the user info's last ``@`` (or the whole authority without one), a
        ``unix://`` socket path likewise.

    Raises:
        UnparsableStoreUrl: another scheme; no host; a port that is not a number in
            1–65535; a path that is not a database number; a ``#``; or the client would
            dial another host or port than the one written (an unencoded ``@ : / ? #`` in
            the password). The message names at most the written host and port.
    """
    text = url.strip()
    scheme = text.partition(":")[0].lower()
    if scheme not in STORE_SCHEMES or not text[len(scheme):].startswith("://"):
        raise UnparsableStoreUrl("is refused: it is not a redis://, rediss:// or unix:// URL")
    prefix, userinfo, rest = split_userinfo(text)
    after = rest if prefix else text[len(scheme) + 3:]  # no user info: everything after "scheme://"
    written = re.split(r"[/?#]", after, maxsplit=1)[0]
    try:
        parts = urlsplit(text)
        port = parts.port
        hostname = parts.hostname
    except ValueError:
        raise UnparsableStoreUrl(_refusal(written, userinfo, "the redis client cannot read its host and port")) from None
    if parts.fragment or "#" in text:
        raise UnparsableStoreUrl(_refusal(written, userinfo, "it holds a '#' (a URL's fragment: the redis client drops "
                                                              "what follows)"))
    if scheme == "unix":
        path = unquote(parts.path)
        written_path = unquote(re.split(r"[?#]", after, maxsplit=1)[0])
        if not path or path != written_path:
            raise UnparsableStoreUrl(_refusal("", userinfo, "the redis client would read another socket path than the "
                                                            "one written"))
        return StoreAddress("unix", "", 0, path, mask_url(text))
    seen = _HOST_PORT.fullmatch(written)
    if seen is None or not hostname:
        raise UnparsableStoreUrl(_refusal(written, userinfo, "it names no host and port the redis client would dial"))
    want_host = unquote(seen.group("host").strip("[]")).lower()
    want_port = int(seen.group("port")) if seen.group("port") else DEFAULT_PORT
    got_host, got_port = unquote(hostname).lower(), port if port is not None else DEFAULT_PORT
    if (got_host, got_port) != (want_host, want_port):
        raise UnparsableStoreUrl(_refusal(written, userinfo, "the redis client would dial another host or port than the "
                                                             "one written"))
    if not 1 <= got_port <= 65535:
        raise UnparsableStoreUrl(_refusal(written, userinfo, f"its port {got_port} is not in 1-65535"))
    if not re.fullmatch(r"/?[0-9]*", parts.path):
        raise UnparsableStoreUrl(_refusal(written, userinfo, "its path is not a database number (redis://host:port/0)"))
    return StoreAddress(scheme, got_host, got_port, "", mask_url(text))


def _refusal(written: str, userinfo: str, why: str) -> str:
    """The refusal's words: `why`, the written host and port when they are plainly one (never
    a piece of the user info), and what to encode."""
    seen = _HOST_PORT.fullmatch(written) if userinfo and written else None
    where = f"; written after its last '@': {written}" if seen is not None else ""
    return f"is refused: {why}{where}; nothing was dialled; {ENCODE_HINT}"
