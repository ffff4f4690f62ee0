"""Call statistics of one run: model HTTP calls and tokens, shared by every segment."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from cowork_judge.core.cost import ModelUsage


@dataclass
class CallStats:
    """Counters shared by every model call of a run (they become ``judge_calls`` and
    ``judge_tokens``). Increments happen on one event loop at a time; `count_failure` counts
    failed calls by `ErrorKind`.

    ``tokens`` is prompt + completion tokens as the endpoint reported them, cached prompt
    tokens INCLUDED (OpenAI counts them inside ``prompt_tokens``); ``cached_tokens`` is
    that cached part alone (``usage.prompt_tokens_details.cached_tokens``), so the
    uncached prompt cost of a run is ``tokens − completion − cached_tokens``. The result
    document's fixed ``extra_fields`` keys carry ``judge_tokens`` only (SPEC §12); each
    call's cached count is in the audit folder (``judge/``, the reply of every turn)."""

    calls: int = 0
    tokens: int = 0
    cached_tokens: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    by_model: dict[str, dict[str, int]] = field(default_factory=dict)
    """Model name → ``calls``, ``input_tokens`` (cached included), ``cached_input_tokens``,
    ``output_tokens`` and ``unsplit_tokens`` (an agent CLI that reports one total): what a
    price table (``JUDGE_PRICES``, `core.cost`) needs; a panel's judges each under their model."""

    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def count_failure(self, kind: str) -> None:
        """Count one failed call of `kind`."""
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1

    def count(self, *, calls: int = 0, tokens: int = 0, cached: int = 0) -> None:
        """Add to the counters under the lock (a panel's call paths run on their own threads)."""
        with self._lock:
            self.calls += calls
            self.tokens += tokens
            self.cached_tokens += cached

    def used(self, model: str, *, prompt: int = 0, cached: int = 0, completion: int = 0, unsplit: int = 0,
             calls: int = 1) -> None:
        """Add one reply's usage of `model` to `by_model` (token counts as the endpoint reported
        them). Thread-safe: a panel's judges answer on their own call paths' threads."""
        with self._lock:
            row = self.by_model.setdefault(model, {"calls": 0, "input_tokens": 0, "cached_input_tokens": 0,
                                                   "output_tokens": 0, "unsplit_tokens": 0})
            row["calls"] += calls
            row["input_tokens"] += prompt
            row["cached_input_tokens"] += cached
            row["output_tokens"] += completion
            row["unsplit_tokens"] += unsplit

    def usage(self) -> dict[str, ModelUsage]:
        """`by_model` as `core.cost.ModelUsage` records (what `core.cost.judge_cost` prices)."""
        with self._lock:
            return {model: ModelUsage(**row) for model, row in self.by_model.items()}
