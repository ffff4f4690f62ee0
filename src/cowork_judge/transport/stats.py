"""Call statistics of one run: model HTTP calls and tokens, shared by every segment."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CallStats:
    """Counters shared by every model call of a run (they become ``judge_calls`` and
    ``judge_tokens``). Increments happen on one event loop at a time; `failed` counts
    failed calls by `ErrorKind`."""

    calls: int = 0
    tokens: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)

    def failed(self, kind: str) -> None:
        """Count one failed call of `kind`."""
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
