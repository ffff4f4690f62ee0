"""A PEP 503 simple index of given wheel files, served over HTTP on 127.0.0.1.

A sandboxed ``tests/test.sh`` installs the judge with real pip from real indexes; pointed at
this one (``COWORK_WHEEL_URL`` and ``PIP_INDEX_URL``) it needs no other network. The files
are hard-linked (copied across devices) under ``<root>/files``; ``<root>/simple/<project>/``
lists them with their SHA-256, which pip checks.
"""

from __future__ import annotations

import http.server
import threading
from pathlib import Path
from typing import Any

from cowork_judge._util.fsutil import file_sha256, link_or_copy
from cowork_judge.install.wheels import normalize


class PackageIndex:
    """A PEP 503 simple index of `files`, served on 127.0.0.1 (an ephemeral port) until `stop`.

    Args:
        root: an empty folder for the index's pages and files.
        files: wheel (or sdist) files; the project is the file name's first ``-`` field.

    Attributes:
        requests: every request path served, in order (e.g. ``/simple/cowork-judge/``).

    Raises:
        OSError: a file cannot be linked or copied, or no port can be bound.
    """

    def __init__(self, root: Path, files: list[Path]) -> None:
        self.root = root
        by_project: dict[str, list[Path]] = {}
        files_dir = root / "files"
        files_dir.mkdir(parents=True, exist_ok=True)
        for f in files:
            target = files_dir / f.name
            if not target.exists():
                link_or_copy(f, target)
            by_project.setdefault(normalize(f.name.split("-")[0]), []).append(target)
        simple = root / "simple"
        simple.mkdir(exist_ok=True)
        links = []
        for project, paths in sorted(by_project.items()):
            (simple / project).mkdir(exist_ok=True)
            rows = "".join(f'<a href="../../files/{p.name}#sha256={file_sha256(p)}">{p.name}</a><br/>\n' for p in sorted(set(paths)))
            (simple / project / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{rows}</body></html>\n", encoding="utf-8")
            links.append(f'<a href="{project}/">{project}</a><br/>')
        (simple / "index.html").write_text("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n",
                                           encoding="utf-8")
        self.requests: list[str] = []
        handler = _handler(str(root), self.requests)
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="package-index", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The simple index URL, e.g. ``http://127.0.0.1:41234/simple/``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/simple/"

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> PackageIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(directory: str, requests: list[str]) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=directory, **kwargs)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
            requests.append(self.path)

    return Handler


__all__ = ["PackageIndex"]
