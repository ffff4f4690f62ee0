"""The TLS context of the model client, built once per process and per trust setting.

Building one (``load_verify_locations`` of the whole CA bundle) costs tens of milliseconds
of CPU, and the ``openai`` client builds a new one for every client, even for an
``http://`` endpoint: a batch worker (`batch.worker`) that judges hundreds of instances
would spend more CPU there than on the run itself. `client_tls` builds the context the
client library would build by itself (its own ``create_ssl_context()``, honouring
``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` as it does) once per pair of those values, so a run
under other trust settings never gets another's context. A context is only read by the
clients that share it (certificate checks), never changed.
"""

from __future__ import annotations

import os
import ssl
import threading
from typing import Any

TRUST_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""The environment variables the client library reads to build its default TLS context."""

_contexts: dict[tuple[str | None, ...], ssl.SSLContext] = {}
_lock = threading.Lock()


def _http_library() -> Any:
    """The HTTP library the ``openai`` client is built on (``httpx``, or ``httpx2`` in later releases)."""
    import openai._base_client as base

    return getattr(base, "httpx2", None) or getattr(base, "httpx")  # noqa: B009 - one of the two exists


def client_tls() -> ssl.SSLContext | None:
    """The shared default TLS context for the current `TRUST_ENV` values, or None when the
    client library offers no way to build it (then each client builds its own, as before)."""
    key = tuple(os.environ.get(name) for name in TRUST_ENV)
    with _lock:
        ctx = _contexts.get(key)
        if ctx is None:
            build = getattr(_http_library(), "create_ssl_context", None)
            if build is None:
                return None
            ctx = _contexts[key] = build()
        return ctx
