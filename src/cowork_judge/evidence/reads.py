"""A deck's structure read once per run (issue 38): the guard's scan of what the agent wrote and
the evidence build both read a deck's slides through the run's `StructureReads`, so the second
reader reuses the first one's whole read instead of parsing the deck again.

Standard library only at import time (the engine makes one per run; the reader, python-pptx and
the evidence documents are imported on the first read).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cowork_judge.evidence.structure import StructureResult


class StructureReads:
    """The run's whole reads of its OOXML decks' structure (`evidence.structure.extract_structure`).

    Keeps a read only when it is whole (``ok`` and not cut by a budget): a partial or failed read
    is read again by whoever asks next (with its own budget). A read is keyed by the file's real
    path, size, modification time and the Strict flag, so a file changed since is read anew.
    Not thread-safe: the run reads decks from one thread (the guard's scan, then the evidence step).
    """

    def __init__(self) -> None:
        self._whole: dict[tuple[str, int, int, bool], StructureResult] = {}
        self.parsed = 0
        """How many times a deck was parsed through this object (what the tests count)."""

    def read(self, path: Path, *, strict: bool, deadline: float | None = None) -> StructureResult:
        """`extract_structure(path, strict=strict, deadline=deadline)`, or the run's whole read of it.

        Raises what `extract_structure` raises (OSError when the file cannot be stat'ed).
        """
        from cowork_judge.evidence.structure import extract_structure

        st = os.stat(path)
        key = (os.path.realpath(path), st.st_size, st.st_mtime_ns, strict)
        done = self._whole.get(key)
        if done is not None:
            return done
        self.parsed += 1
        result = extract_structure(path, strict=strict, deadline=deadline)
        if result.ok and not result.budget_cut:
            self._whole[key] = result
        return result
