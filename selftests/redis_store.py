"""A real ``redis-server`` for the fleet limiter's tests (a uniquely named module, as `testkit`).

`RedisStore` starts one on a free loopback port in a temporary folder, with no persistence
(``--save '' --appendonly no``), waits until it answers PING, and stops it (``kill`` stops it
mid-test: a store that dies while jobs run); ``tls=True`` serves TLS only, with a
self-signed certificate made by the ``openssl`` command (`OPENSSL`). `SilentServer` is a TCP
server that accepts connections and never says a word (a store that never answers).
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

REDIS_SERVER = shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)
OPENSSL = shutil.which("openssl")
START_TIMEOUT_SEC = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (PEM files in `folder`), by the ``openssl``
    command; valid for two days."""
    assert OPENSSL is not None
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


class RedisStore:
    """One ``redis-server`` (``password``: ``--requirepass``; ``tls``: TLS only, the
    certificate `cert` trusted by `url` through ``ssl_ca_certs``); `url` names it."""

    def __init__(self, folder: Path, *, password: str | None = None, tls: bool = False) -> None:
        assert REDIS_SERVER is not None
        self.port = free_port()
        self.password = password
        folder.mkdir(parents=True, exist_ok=True)
        self.cert: Path | None = None
        argv = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", str(folder)]
        if tls:
            self.cert, key = self_signed(folder)
            argv[1:3] = ["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", str(self.cert),
                         "--tls-key-file", str(key), "--tls-ca-cert-file", str(self.cert), "--tls-auth-clients", "no"]
        if password:
            argv += ["--requirepass", password]
        self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        if self.cert is not None:
            return f"rediss://{auth}127.0.0.1:{self.port}/0?ssl_ca_certs={self.cert}"
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SEC
        hello = b"*1\r\n$4\r\nPING\r\n"
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as raw:
                    if self.cert is None:
                        raw.sendall(hello)
                        answer = raw.recv(64)
                    else:
                        tls = ssl.create_default_context(cafile=str(self.cert))
                        with tls.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                            s.sendall(hello)
                            answer = s.recv(64)
                    if answer:  # +PONG, or -NOAUTH with a password: either way it serves
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        """Stop the server at once (SIGKILL) and wait for it (idempotent)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=30)
            self.proc = None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and wait for it (idempotent)."""
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
            self.proc = None


class SilentServer:
    """A loopback TCP server that accepts connections and never answers (nor closes them)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = int(self.sock.getsockname()[1])
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self._held.append(conn)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self._held:
            conn.close()
        self.sock.close()
