"""Process exit statuses of the command line, in one table (SPEC §12: a `test.sh` need not
read them, the reward file is written on every path). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

EXIT_STATUS: Mapping[str, int] = MappingProxyType({
    "clean": 0,  # the result is a success (or skipped): reward written, no exit_code
    "not_clean": 1,  # reward written, but the result carries an exit_code (or only the fallback could be written)
    "usage": 2,  # bad command line or nothing to run; no judging happened
    "SIGINT": 130,  # stopped by Ctrl-C: documents written first (128 + 2)
    "SIGTERM": 143,  # stopped by a supervisor: documents written first (128 + 15)
})
"""Process exit statuses of the command line, in one table (a `test.sh` need not read
them: the reward file is written on every path)."""


def exit_status(doc_status: str | None) -> int:
    """The process exit status for a run whose result document has `doc_status`
    (``success``/``skipped`` ⇒ clean; ``error`` or no document ⇒ not clean)."""
    return EXIT_STATUS["clean"] if doc_status in ("success", "skipped") else EXIT_STATUS["not_clean"]


def signal_exit_status(signum: int) -> int:
    """``128 + signum``: the shell convention for a process ended by a signal (130, 143)."""
    return 128 + int(signum)
