"""Call statistics of one run: model HTTP calls and tokens, shared by every segment."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CallStats:
    """Counters shared by every model call of a run (they become ``judge_calls`` and
    ``judge_tokens``). Increments happen on one event loop at a time; `failed` counts
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

    def failed(self, kind: str) -> None:
        """Count one failed call of `kind`."""
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
