"""Writing fleet-tool outputs: staged atomic publication, refusing to overwrite, progress.

The other I/O edge of the fleet tools. A file is written to a staging file in its target
directory, flushed to disk, then published with one atomic step: ``os.link`` (which fails
when the target exists, so nothing is ever overwritten by accident) or, with ``force``,
``os.replace``. A reader therefore sees the old file or the whole new one, never a part.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO


class OutputExists(FileExistsError):
    """The target exists and overwriting was not allowed (``--force``)."""


def canonical_json(value: Any) -> bytes:
    """Stable JSON bytes: 2-space indent, UTF-8, keys in the order given, no NaN, final newline."""
    return (json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def write_file(path: Path, data: bytes, *, force: bool = False) -> None:
    """Write `data` to `path` through a staging file and one atomic publication.

    Args:
        force: replace an existing `path`; otherwise an existing file is never touched.

    Raises:
        OutputExists: `path` exists and `force` is false.
        OSError: the directory is missing or not writable, or `path` is a folder
            (`IsADirectoryError`); its ``filename`` is `path`, never the staging file.
    """
    if not force and os.path.lexists(path):
        raise OutputExists(f"{path} exists (use --force to overwrite)")
    if os.path.isdir(path):  # os.replace would fail naming the staging file (issue 39): name the user's path
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file: name the file to write", str(path))
    fd, staging = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".staging", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if force:
            try:
                os.replace(staging, path)
            except OSError as exc:  # never the staging file's name in the error: the user's path
                raise type(exc)(exc.errno, exc.strerror, str(path)) from None
            return
        try:
            os.link(staging, path)  # atomic and never replaces
        except FileExistsError:
            raise OutputExists(f"{path} exists (use --force to overwrite)") from None
        except OSError:  # a filesystem without hard links: check-then-rename is the best left
            if os.path.lexists(path):
                raise OutputExists(f"{path} exists (use --force to overwrite)") from None
            os.replace(staging, path)
    finally:
        if os.path.lexists(staging):
            os.unlink(staging)


class Progress:
    """Periodic counts on stderr while long work runs, only when stderr is a terminal.

    ``Progress(total, "summarize")`` then ``tick()`` per unit and ``done()``; redraws at
    most every `interval_sec` seconds on one line (``\\r``), so pipes and logs stay clean.
    """

    def __init__(self, total: int | None, label: str, *, stream: TextIO | None = None, interval_sec: float = 0.5,
                 enabled: bool | None = None) -> None:
        self.total = total
        self.label = label
        self.stream = stream or sys.stderr
        self.interval_sec = interval_sec
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.count = 0
        self.start = time.monotonic()
        self.last = 0.0

    def tick(self, n: int = 1) -> None:
        """Count `n` units; redraw when the interval has passed."""
        self.count += n
        if self.enabled:
            now = time.monotonic()
            if now - self.last >= self.interval_sec:
                self.last = now
                self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.count / max(now - self.start, 1e-9)
        if self.total:
            width = 24
            filled = int(width * self.count / self.total)
            bar = "#" * filled + "." * (width - filled)
            text = f"{self.label}: [{bar}] {self.count:,}/{self.total:,} ({rate:,.0f}/s)"
        else:
            text = f"{self.label}: {self.count:,} ({rate:,.0f}/s)"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()

    def done(self) -> None:
        """Draw the final count and end the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
