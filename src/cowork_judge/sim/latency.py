"""Latency model of the simulated judge: how long a call takes before it is answered."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

__all__ = ["CALL_KINDS", "LatencyModel"]

CALL_KINDS = ("tool", "final")
"""``tool``: a turn answered with a tool call; ``final``: the turn that returns verdicts."""


@dataclass
class LatencyModel:
    """Delay per call: ``base_ms + per_row_ms * rows`` for the call's kind, optionally jittered.

    Attributes:
        tool_base_ms: fixed part of a tool turn, milliseconds (>= 0).
        tool_per_row_ms: extra per judged row on a tool turn, milliseconds (>= 0).
        final_base_ms: fixed part of a final (verdict) turn, milliseconds (>= 0).
        final_per_row_ms: extra per judged row on a final turn, milliseconds (>= 0).
        jitter_frac: 0 = deterministic; f in (0, 1] multiplies each delay by a seeded
            uniform factor in [1 - f, 1 + f].
        seed: seed of the jitter draws.

    Raises:
        ValueError: a negative time or a jitter fraction outside [0, 1].
    """

    tool_base_ms: float = 0.0
    tool_per_row_ms: float = 0.0
    final_base_ms: float = 0.0
    final_per_row_ms: float = 0.0
    jitter_frac: float = 0.0
    seed: int = 0
    _rng: random.Random = field(init=False, repr=False, compare=False)
    _lock: threading.Lock = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("tool_base_ms", "tool_per_row_ms", "final_base_ms", "final_per_row_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0.0 <= self.jitter_frac <= 1.0:
            raise ValueError(f"jitter_frac must be in [0, 1], got {self.jitter_frac}")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    @classmethod
    def uniform(cls, base_ms: float, per_row_ms: float = 0.0, *, jitter_frac: float = 0.0, seed: int = 0) -> LatencyModel:
        """The same ``base_ms`` / ``per_row_ms`` for both call kinds."""
        return cls(base_ms, per_row_ms, base_ms, per_row_ms, jitter_frac=jitter_frac, seed=seed)

    def nominal_ms(self, kind: str, rows: int) -> float:
        """Delay without jitter, milliseconds. ``kind`` is ``tool`` or ``final``."""
        if kind == "tool":
            return self.tool_base_ms + self.tool_per_row_ms * rows
        if kind == "final":
            return self.final_base_ms + self.final_per_row_ms * rows
        raise ValueError(f"unknown call kind {kind!r}; known: {CALL_KINDS}")

    def delay_sec(self, kind: str, rows: int) -> float:
        """Delay of one call, seconds (jittered when ``jitter_frac`` > 0; thread-safe)."""
        ms = self.nominal_ms(kind, rows)
        if self.jitter_frac and ms:
            with self._lock:
                ms *= 1.0 + self.jitter_frac * (2.0 * self._rng.random() - 1.0)
        return max(0.0, ms) / 1000.0
