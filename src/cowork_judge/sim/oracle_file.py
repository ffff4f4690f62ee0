"""``cowork-judge sim --oracle FILE``, re-read when the file changes (trial 22 P-5).

The task author's loop is: edit the oracle, run ``cowork-judge try`` again. The file is read at
start (a bad file refuses to start), then its stamp (modification time, size, inode) is checked
on every model request; a changed file is read again before that request is answered, and the
console says so. A file that no longer reads (invalid JSON, a bad entry, removed) is said on the
console once per change, and every model request gets HTTP 400 naming the problem until the file
reads again: never an answer from the old file, which would look like a verdict of the new one.
The last good oracle is kept (`OracleFile.oracle`), not answered from.

Thread safety: the request threads share one `OracleFile`; the stamp check and the re-read run
under one lock, and each state (stamp, oracle, problem) is one immutable `_State` swapped whole,
so a request answers from one oracle from its first row to its last (`OracleFile.current`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .policies import OraclePolicy

__all__ = ["OracleFile"]

Stamp = tuple[int, int, int]
"""``(st_mtime_ns, st_size, st_ino)`` of the oracle file."""


def _stamp(path: str) -> Stamp | None:
    """The file's stamp, or None when it cannot be stat'ed (removed, say)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass(frozen=True)
class _State:
    stamp: Stamp | None
    oracle: OraclePolicy
    """The last oracle the file gave (the one answered from when `problem` is None)."""
    problem: str | None = None
    """Why the file as it stands now does not read; requests are refused with it."""


class OracleFile:
    """An oracle file, read at start and again whenever it changes.

    Args:
        path: the oracle JSON file (format: `OraclePolicy.from_dict`).
        say: called with one console line (no trailing newline) when the file is re-read or
            no longer reads; None = silent.
        on_missing: given to every oracle read (`OraclePolicy.on_missing`).

    Raises:
        ValueError: the file does not read at start (the message names it).
    """

    def __init__(self, path: str | os.PathLike[str], *, say: Callable[[str], None] | None = None,
                 on_missing: Callable[[str, str | None], None] | None = None) -> None:
        self.path = os.fspath(path)
        self.say = say
        self.on_missing = on_missing
        self._lock = threading.Lock()
        stamp = _stamp(self.path)
        self._state = _State(stamp, self._read())
        self.reads = 1
        """How often the file was read successfully (1 after start)."""

    def _read(self) -> OraclePolicy:
        oracle = OraclePolicy.from_file(self.path)
        oracle.on_missing = self.on_missing
        return oracle

    @property
    def oracle(self) -> OraclePolicy:
        """The last good oracle (the one at start until the file changes and reads)."""
        return self._state.oracle

    def current(self) -> OraclePolicy:
        """The oracle that answers a request now: the file re-read first when its stamp changed.

        Raises:
            ValueError: the file as it stands does not read (the message names the file, the
                problem and that the simulator re-reads it on the next request).
        """
        with self._lock:
            stamp = _stamp(self.path)
            if stamp != self._state.stamp:
                self._state = self._reread(stamp)
            state = self._state
        if state.problem is not None:
            raise ValueError(state.problem)
        return state.oracle

    def _reread(self, stamp: Stamp | None) -> _State:
        """The state after the file changed to `stamp` (called under the lock; says the outcome)."""
        try:
            oracle = self._read()
        except ValueError as exc:
            self._tell(f"warning: {exc}: model requests get HTTP 400 until it reads again (the file is re-read on the "
                       "next request; the old oracle answers nothing)")
            return _State(stamp, self._state.oracle, f"{exc} (fix the file: the simulator re-reads it on the next "
                                                            "request)")
        self.reads += 1
        self._tell(f"oracle file {self.path} changed: re-read, {len(oracle.answers) + len(oracle.page_answers)} "
                   "entries; requests from now on are answered from it")
        for line in oracle.conflicts():
            self._tell(f"warning: oracle file {self.path}: {line}")
        return _State(stamp, oracle)

    def _tell(self, line: str) -> None:
        if self.say is not None:
            try:
                self.say(line)
            except Exception:  # noqa: BLE001 - telling is a courtesy; the request is answered either way
                pass

    def snapshot(self, instance: str | None = None) -> OraclePolicy:
        """`current` (the per-request resolution of `policies.resolve`; `instance` is not used)."""
        return self.current()

    def verdicts(self, rows: list[dict[str, Any]], context_text: str, page: int | None = None) -> list[dict[str, Any]]:
        """`current`'s verdicts. Raises ValueError as `current` does."""
        return self.current().verdicts(rows, context_text, page)
