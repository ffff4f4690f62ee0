"""Request log of the simulated judge: one entry per model request (any endpoint), thread-safe."""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LogEntry", "RequestLog"]


@dataclass(frozen=True)
class LogEntry:
    """One finished model request (``/v1/chat/completions``, ``/v1/responses``, ``/v1/messages``).

    Attributes:
        seq: arrival order, 1-based.
        start_s: ``time.monotonic()`` when the request line was read, seconds.
        end_s: ``time.monotonic()`` just before the answer's last write (or when the
            hang/reset/dropped stream finished), seconds.
        kind: ``tool`` (answered with a tool call), ``final`` (answered with verdicts),
            ``generic`` (answered in the generic mode), ``fault`` (a fault was injected, or
            the token bucket refused the request) or ``error`` (401/400: bad request).
        fault: fault kind (``faults.FAULT_KINDS``, or ``rpm_limit`` for the bucket's 429), or None.
        status: HTTP status sent; None when no status line was sent (hang, reset).
        stream: the request asked for ``stream: true``.
        model: requested model name.
        row_ids: ids of the rubric rows the request judges (may be empty on errors).
        prompt_chars: characters of message text and tool-call arguments, plus 4 per token
            of each image part (`image_tokens`).
        prompt_tokens: estimated prompt tokens, ``ceil(prompt_chars / 4)``: text and images.
        completion_tokens: estimated tokens of the answer content or tool-call arguments.
        images: image parts in the request.
        tool_call: name of the tool called on a tool turn, else None.
        response_format: ``json_schema``/``json_object``/``text`` or None.
        delay_s: latency-model delay slept before answering, seconds.
        error: message of a 400/401 answer, else None.
        endpoint: ``chat``, ``responses`` or ``messages``.
        cached_tokens: prompt tokens reported as cached (``prefix_cache`` rule; 0 when the
            request was not answered).
        generic_shape: generic mode only: the answer shape (``generic.SHAPES``), else None.
        retry_after_ms: ``rpm_limit`` only: the ``retry-after-ms`` sent, else None.
        page: the page a per-page workflow request judged (its ``<page_number>`` marker),
            else None.
        instance: the ``X-Cowork-Judge-Instance`` header of the request, else None.
        temperature: the ``temperature`` the request sent, else None.
        flipped: ids of the rows whose answer ``--flip`` flipped in this answer.
        original: the original cowork-judge 1.3.x's request kind (``original.kind_of``), else None.
        answer_schema: the JSON schema the request asked the answer to follow, exactly as sent
            (chat ``response_format.json_schema.schema``, responses ``text.format.schema``,
            messages ``output_config.format.schema`` or the answer tool's ``input_schema``;
            key order kept), else None.
        fabricated: ids of the rows whose hit ``--fabricate`` invented in this answer.
        custom_id: a Batch API request's ``custom_id`` (``endpoint = "batch"``: `batch_api`), else None.
        unshown_quotes: ids whose labelled (oracle) quote is not in the text this request showed:
            answered with a quote of shown text instead (`quotes.add_quotes`).
    """

    seq: int
    start_s: float
    end_s: float
    kind: str
    fault: str | None = None
    status: int | None = 200
    stream: bool = False
    model: str = ""
    row_ids: list[str] = field(default_factory=list)
    prompt_chars: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    images: int = 0
    tool_call: str | None = None
    response_format: str | None = None
    delay_s: float = 0.0
    error: str | None = None
    endpoint: str = "chat"
    cached_tokens: int = 0
    generic_shape: str | None = None
    retry_after_ms: int | None = None
    page: int | None = None
    instance: str | None = None
    temperature: float | None = None
    flipped: list[str] = field(default_factory=list)
    original: str | None = None
    answer_schema: dict[str, Any] | None = None
    fabricated: list[str] = field(default_factory=list)
    unshown_quotes: list[str] = field(default_factory=list)
    custom_id: str | None = None

    @property
    def duration_s(self) -> float:
        """``end_s - start_s``, seconds."""
        return self.end_s - self.start_s

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with every field plus ``duration_s``."""
        doc = dataclasses.asdict(self)
        doc["duration_s"] = self.duration_s
        return doc


class RequestLog:
    """Thread-safe, append-only list of ``LogEntry`` (``clear`` empties it).

    Indexing, ``len`` and iteration work on a snapshot. When ``jsonl_path`` is given each
    entry is also appended to that file as one JSON line as soon as it is added.

    A request whose answer has started its last write (``answered``) but is not logged yet
    is waited for (up to ``SETTLE_S`` seconds) before a snapshot is taken: a client that
    has read its answer always finds its request in the log, however the server's threads
    are scheduled.
    """

    SETTLE_S = 5.0
    """Longest wait, seconds, for answered requests to be logged before a snapshot."""

    def __init__(self, jsonl_path: str | os.PathLike[str] | None = None) -> None:
        self._entries: list[LogEntry] = []
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._answered: set[int] = set()
        self._seq = 0
        self.jsonl_path = os.fspath(jsonl_path) if jsonl_path is not None else None

    def next_seq(self) -> int:
        """Reserve the next arrival number."""
        with self._lock:
            self._seq += 1
            return self._seq

    @property
    def arrivals(self) -> int:
        """Requests that have arrived so far, answered or not (no waiting for the log to settle)."""
        with self._lock:
            return self._seq

    def answered(self, seq: int) -> None:
        """Note that request ``seq`` is about to send its answer's last bytes (logged soon)."""
        with self._lock:
            self._answered.add(seq)

    def append(self, entry: LogEntry) -> None:
        """Add one entry (and write it to the JSONL file, if any)."""
        with self._lock:
            self._entries.append(entry)
            self._answered.discard(entry.seq)
            if self.jsonl_path is not None:
                with open(self.jsonl_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry.to_dict()) + "\n")
            self._settled.notify_all()

    def entries(self) -> list[LogEntry]:
        """Snapshot of all entries, in arrival order (``seq``): a request answered before an
        earlier one finished logging still comes after it, so order-based assertions hold
        however the machine schedules the server's threads. Answered requests not yet
        logged are waited for first (at most ``SETTLE_S``)."""
        with self._lock:
            self._settled.wait_for(lambda: not self._answered, timeout=self.SETTLE_S)
            return sorted(self._entries, key=lambda e: e.seq)

    def clear(self) -> None:
        """Drop all entries (arrival numbers keep counting)."""
        with self._lock:
            self._entries.clear()
            self._answered.clear()

    def to_json(self) -> list[dict[str, Any]]:
        """All entries as dicts, in arrival (``seq``) order."""
        return [e.to_dict() for e in sorted(self.entries(), key=lambda e: e.seq)]

    def count(self, kind: str | None = None, fault: str | None = None, endpoint: str | None = None) -> int:
        """Entries matching ``kind``, ``fault`` and ``endpoint`` (None matches anything)."""
        return sum(
            1
            for e in self.entries()
            if (kind is None or e.kind == kind) and (fault is None or e.fault == fault)
            and (endpoint is None or e.endpoint == endpoint)
        )

    def counts_by_endpoint(self) -> dict[str, int]:
        """Number of entries per endpoint (``chat``/``responses``/``messages``), only those seen."""
        counts: dict[str, int] = {}
        for e in self.entries():
            counts[e.endpoint] = counts.get(e.endpoint, 0) + 1
        return counts

    def max_in_flight(self, endpoint: str | None = None) -> int:
        """Peak number of requests handled at once, from ``start_s``/``end_s`` (0 when empty).

        Intervals are half-open: a request that ends exactly when another starts does not
        overlap it. ``endpoint`` restricts the count to one endpoint.
        """
        edges = []
        for e in self.entries():
            if endpoint is None or e.endpoint == endpoint:
                edges += [(e.start_s, 1), (e.end_s, -1)]
        peak = level = 0
        for _, step in sorted(edges):  # at equal times -1 sorts before +1
            level += step
            peak = max(peak, level)
        return peak

    def __len__(self) -> int:
        return len(self.entries())

    def __iter__(self) -> Iterator[LogEntry]:
        return iter(self.entries())

    def __getitem__(self, index: int) -> LogEntry:
        return self.entries()[index]
