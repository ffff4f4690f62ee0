"""`transport.tls`: the model client's TLS context is built once per process and per trust
setting (SSL_CERT_FILE / SSL_CERT_DIR), never shared across two different ones."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import pytest

from cowork_judge.transport.chat import Transport
from cowork_judge.transport.stats import CallStats
from cowork_judge.transport.tls import client_tls


def _ca_file() -> str:
    for candidate in (ssl.get_default_verify_paths().cafile, ssl.get_default_verify_paths().openssl_cafile):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip("no CA bundle on this machine")


def test_one_context_per_trust_setting(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    default = client_tls()
    assert isinstance(default, ssl.SSLContext) and client_tls() is default
    monkeypatch.setenv("SSL_CERT_FILE", _ca_file())
    own = client_tls()
    assert own is not default and client_tls() is own  # another trust setting: its own context, also kept
    monkeypatch.delenv("SSL_CERT_FILE")
    assert client_tls() is default


def test_every_client_of_a_process_uses_the_shared_context(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)

    async def go() -> list[object]:
        clients = [Transport(api_key="sk-x", base_url="https://judge.example/v1", model="m", stats=CallStats()) for _ in range(2)]
        try:  # the client library's own attribute path to the context its connections use
            return [t._client._client._transport._pool._ssl_context for t in clients]
        finally:
            for t in clients:
                await t.close()

    contexts = asyncio.run(go())
    assert contexts[0] is contexts[1] is client_tls()
