"""Console streams that outlive their reader: a command whose stdout (or stderr) is a pipe closed
early (``cowork-judge init <task> | head -1``) still does its job (trial 23 P-5).

Python ignores SIGPIPE, so a write to a pipe nobody reads raises `BrokenPipeError`; raised from a
``print`` in the middle of a command, it ended the command after it had said what it would do and
before it did it ("said done, did nothing", exit 0). `PipeSafe` wraps the stream instead: the first
broken pipe points the descriptor at ``/dev/null`` (Python's guidance on SIGPIPE,
https://docs.python.org/3/library/signal.html#note-on-sigpipe, so the flush at exit raises nothing
either) and every later write is dropped; the command runs on and ends with its own exit status.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast


class PipeSafe:
    """A text stream (`stream`, e.g. ``sys.stdout``) whose writes never raise `BrokenPipeError`.

    Every attribute but `write`, `writelines` and `flush` is the wrapped stream's (``fileno``,
    ``isatty``, ``encoding``…).

    Attributes:
        stream: the wrapped stream.
        lost: True once a write or flush met a closed pipe: from then on output is dropped.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lost = False

    def write(self, text: str) -> int:
        """Write `text` (dropped once the reader is gone); returns ``len(text)`` either way."""
        if not self.lost:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._lose()
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each of `lines` (`write`)."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Flush the wrapped stream; a closed pipe is `lost`, never raised."""
        if not self.lost:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._lose()

    def _lose(self) -> None:
        """Point the stream's descriptor at /dev/null (what is still buffered goes there at exit)."""
        self.lost = True
        try:
            fd = self.stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # no descriptor (a test's StringIO): dropping is enough
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def pipe_safe_console() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` are `PipeSafe` (restored after it).

    A stream that is None (the process started with that descriptor closed) or already `PipeSafe`
    is left as it is.
    """
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None and not isinstance(sys.stdout, PipeSafe):
        sys.stdout = cast(TextIO, PipeSafe(sys.stdout))
    if sys.stderr is not None and not isinstance(sys.stderr, PipeSafe):
        sys.stderr = cast(TextIO, PipeSafe(sys.stderr))
    try:
        yield
    finally:
        current = sys.stdout, sys.stderr
        for replaced in current:  # what the block still buffered reaches the reader, or /dev/null
            if isinstance(replaced, PipeSafe):
                replaced.flush()
        sys.stdout, sys.stderr = saved
