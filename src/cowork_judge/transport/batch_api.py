"""Batch API judging, the request side: a run's one-round-trip requests recorded for a
provider batch, then answered from its results (``cowork-judge batch --batch-api``).

The batch command judges its instances twice (`batch.api_rounds`), and this module is what
differs in the run's model-call path between the two passes (`transport.attempts` wraps the
run's `transport.chat.Transport` in `BatchedTransport` when `STAGE_ENV` is set):

- **record**: every request that is one round trip (no ``tools``: chat-only rows, workflow
  cells, answer_match, agentic blocks with inline evidence) is written, as one line of
  OpenAI's batch input format, to ``<folder>/requests/<instance digest>.jsonl``, and fails
  at once as `BatchDeferred` (``request_rejected``: no retry, no re-split); a request with
  tools (a multi-turn agentic block) is not recorded and fails the same way. The run's
  result is thrown away; no request leaves the machine.
  A record pass after the first (``--batch-api-rounds`` > 1) reads the answers the earlier
  batches hold, as the answer pass does, and records only the requests no batch holds yet: the
  requests that depend on earlier answers (a workflow's second stage, a re-ask, a later
  sampling round) go into the next batch.
- **answer**: the same run again. A request whose ``custom_id`` the batch answered gets that
  answer, read by `transport.chat.plain_completion` and then by the run's own reply parser
  (grounded-quote checks included), counted in ``judge_calls``/``judge_tokens`` and priced
  under the model name ``<model>@batch`` (`core.cost`: the batch price). A request the batch
  failed or let expire goes to the live API (``failed = "live"``) or fails as
  `BatchRequestFailed` (``request_rejected``: the row stays unjudged, ``"unjudged"``).
  Anything else — a multi-turn agentic block's turns (each turn depends on the tool
  results of the one before, so they cannot wait a batch window each), a re-ask whose
  prompt holds the first answer — goes live.

The ``custom_id`` (`custom_id`) is ``cj-<sha256(instance)[:12]>-<sha256(request body)[:40]>-<n>``:
stable across the two passes (the request bodies are deterministic but for the spotlight
boundary, which the digest reads as one fixed word: `body_digest`), unique per instance
(``n`` counts identical bodies in one run: a sampled row asks the same request several
times) and at most 64 characters of ``[A-Za-z0-9-]`` (both providers' rule). The simulator
finds the instance from the digest (`sim.batch_api`).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cowork_judge.core.cost import BATCH_SUFFIX
from cowork_judge.core.error_kinds import ErrorKind, JudgeFailure

STAGE_ENV = "COWORK_JUDGE_BATCH_API"
"""The environment variable the batch command sets for its runs: ``record:<folder>`` or
``answer:<live|unjudged>:<folder>`` (internal: not a ``JUDGE_*`` setting)."""
BATCH_URL = "/v1/chat/completions"
"""The endpoint every batched request names."""
BATCH_MODEL_SUFFIX = BATCH_SUFFIX
"""Tokens answered by a batch are counted under ``<model>@batch`` (`core.cost` prices them)."""
INSTANCE_ENV = "JUDGE_INSTANCE_ID"
"""The run's instance name (the batch sets it for each run)."""

FailedPolicy = Literal["live", "unjudged"]


class BatchDeferred(JudgeFailure):
    """The record pass: the request was written for the batch, not sent (never retried)."""

    kind: ErrorKind = "request_rejected"


class BatchRequestFailed(JudgeFailure):
    """The batch failed or let expire this request, and ``--batch-api-failed unjudged`` keeps the row unjudged."""

    kind: ErrorKind = "request_rejected"


@dataclass(frozen=True)
class Stage:
    """Which pass a run is in and where the batch's files are.

    Attributes:
        mode: ``record`` or ``answer``.
        folder: ``<out>/batch-api`` (requests/, results/, state.json).
        failed: what a request the batch failed or let expire becomes in the answer pass.
    """

    mode: Literal["record", "answer"]
    folder: Path
    failed: FailedPolicy = "live"

    def to_env(self) -> str:
        """The value of `STAGE_ENV` for this stage."""
        return f"record:{self.folder}" if self.mode == "record" else f"answer:{self.failed}:{self.folder}"

    @classmethod
    def from_env(cls, value: str | None) -> Stage | None:
        """Parse `to_env`'s output; None for an empty or malformed value."""
        if not value:
            return None
        mode, _, rest = value.partition(":")
        if mode == "record" and rest:
            return cls("record", Path(rest))
        failed, _, folder = rest.partition(":")
        if mode == "answer" and failed in ("live", "unjudged") and folder:
            return cls("answer", Path(folder), "live" if failed == "live" else "unjudged")
        return None


def instance_digest(instance: str) -> str:
    """The first 12 hex characters of sha256(instance name): the instance part of a ``custom_id``."""
    return hashlib.sha256(instance.encode("utf-8")).hexdigest()[:12]


def _canon(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def body_digest(body: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a request body as the two passes both see it: the run's spotlight
    boundary (`safety.spotlight`: a fresh random code in each process, so it differs between
    the record pass and the answer pass) replaced by a fixed word."""
    from cowork_judge.safety import spotlight

    return hashlib.sha256(_canon(body).replace(spotlight.boundary().encode(), b"<boundary>")).hexdigest()


def custom_id(instance: str, body: Mapping[str, Any], occurrence: int) -> str:
    """The batch ``custom_id`` of the `occurrence`-th (0-based) request of `body` in `instance`'s run."""
    return f"cj-{instance_digest(instance)}-{body_digest(body)[:40]}-{occurrence}"


def request_body(*, model: str, messages: list[dict[str, Any]], response_format: dict[str, Any] | None,
                 temperature: float | None) -> dict[str, Any]:
    """The Chat Completions body of a batched request: what `transport.chat.Transport.chat`
    sends, without streaming (a batch answers with one document)."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    if response_format is not None:
        body["response_format"] = response_format
    if temperature is not None:
        body["temperature"] = temperature
    return body


def read_results(folder: Path, instance: str) -> dict[str, dict[str, Any]]:
    """The batch results of `instance` under ``<folder>/results/*.jsonl``: custom_id →
    ``{"ok": bool, "body": completion | None, "why": str}`` (`batch_jobs` writes them)."""
    prefix = f"cj-{instance_digest(instance)}-"
    out: dict[str, dict[str, Any]] = {}
    results = folder / "results"
    for path in sorted(results.glob("*.jsonl")) if results.is_dir() else ():
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if not line.startswith('{"custom_id": "' + prefix):
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict) and isinstance(row.get("custom_id"), str):
                    out[row["custom_id"]] = row
    return out


class BatchedTransport:
    """The run's transport under a `Stage` (module docstring): records or answers the
    one-round-trip requests, hands the rest to the live `transport.chat.Transport`.

    Args:
        live: the run's transport (used for what the batch does not answer).
        stage: the pass.
        instance: the run's instance name (`INSTANCE_ENV`).
        read_reply: a chat completion document → its `transport.chat.ChatReply` or None
            (`transport.chat.plain_completion`; passed in, so this module loads no client).
    """

    def __init__(self, live: Any, stage: Stage, instance: str, read_reply: Callable[[Any], Any]) -> None:
        self.live, self.stage, self.instance, self.read_reply = live, stage, instance, read_reply
        self.model, self.stats, self.temperature = live.model, live.stats, live.temperature
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._results: dict[str, dict[str, Any]] | None = None
        self.batched = 0
        """Requests answered from the batch in this run."""

    def _next_id(self, body: dict[str, Any]) -> str:
        digest = body_digest(body)
        with self._lock:
            n = self._counts.get(digest, 0)
            self._counts[digest] = n + 1
        return custom_id(self.instance, body, n)

    async def chat(self, messages: list[dict[str, Any]], *, timeout_sec: float, tools: list[dict[str, Any]] | None = None,
                   tool_choice: str | None = None, response_format: dict[str, Any] | None = None,
                   model: str | None = None) -> Any:
        """As `transport.chat.Transport.chat`, under the stage (module docstring).

        Raises:
            BatchDeferred: the record pass (every request).
            BatchRequestFailed: the batch failed the request and the stage keeps it unjudged.
            What `transport.chat.Transport.chat` raises for a live request.
        """
        live_kwargs: dict[str, Any] = {"timeout_sec": timeout_sec, "tools": tools, "tool_choice": tool_choice,
                                       "response_format": response_format, **({"model": model} if model else {})}
        if tools:
            if self.stage.mode == "record":
                raise BatchDeferred("batch API record pass: a request with tools goes live in the answer pass")
            return await self.live.chat(messages, **live_kwargs)
        body = request_body(model=model or self.model, messages=messages, response_format=response_format,
                            temperature=self.temperature)
        cid = self._next_id(body)
        if self._results is None:
            self._results = read_results(self.stage.folder, self.instance)
        row = self._results.get(cid)
        if self.stage.mode == "record":  # a later round records only what no batch holds yet
            if row is None:
                self._record(cid, body)
                raise BatchDeferred(f"batch API record pass: request {cid} written for the batch")
            if not row.get("ok"):  # failed or expired: the answer pass decides (live or unjudged)
                raise BatchDeferred(f"batch API record pass: request {cid} was not answered by its batch")
        if row is None:  # not batched (a re-ask, a request the record pass did not make): live
            return await self.live.chat(messages, **live_kwargs)
        reply = self.read_reply(row.get("body")) if row.get("ok") else None
        if reply is not None:
            self.batched += 1
            self.stats.count(calls=1, tokens=reply.prompt_tokens + reply.completion_tokens, cached=reply.cached_tokens)
            self.stats.used(str(body["model"]) + BATCH_MODEL_SUFFIX, prompt=reply.prompt_tokens,
                            cached=reply.cached_tokens, completion=reply.completion_tokens)
            return reply
        if self.stage.failed == "unjudged":
            raise BatchRequestFailed(f"the batch API did not answer request {cid}: {row.get('why') or 'failed'} "
                                     "(--batch-api-failed unjudged)")
        return await self.live.chat(messages, **live_kwargs)

    def _record(self, cid: str, body: dict[str, Any]) -> None:
        folder = self.stage.folder / "requests"
        folder.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"custom_id": cid, "method": "POST", "url": BATCH_URL, "body": body}, ensure_ascii=False)
        with self._lock, open(folder / f"{instance_digest(self.instance)}.jsonl", "a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    async def close(self) -> None:
        """Close the live transport."""
        await self.live.close()


def batched(live: Any, read_reply: Callable[[Any], Any], environ: Mapping[str, str] | None = None) -> Any:
    """`live` wrapped in a `BatchedTransport` when the environment names a stage (and the
    run an instance); `live` itself otherwise. `read_reply` reads a chat completion document
    (`transport.chat.plain_completion`)."""
    env = os.environ if environ is None else environ
    stage = Stage.from_env(env.get(STAGE_ENV))
    instance = env.get(INSTANCE_ENV) or ""
    return BatchedTransport(live, stage, instance, read_reply) if stage is not None and instance else live


__all__ = ["BATCH_MODEL_SUFFIX", "STAGE_ENV", "BatchDeferred", "BatchRequestFailed", "BatchedTransport", "Stage",
           "batched", "custom_id", "instance_digest", "read_results", "request_body"]
