"""Batch API judging, the provider side: submit the recorded requests as an OpenAI batch
(``/v1/files`` + ``/v1/batches``), poll it with backoff, download what it answered.

Everything lives in one folder (``<out>/batch-api``, `transport.batch_api.Stage.folder`):

- ``requests/*.jsonl`` — the record pass's requests (`transport.batch_api`);
- ``state.json`` — every batch this folder ever submitted: its id, input file, the
  ``custom_id`` s it holds, its last status, whether its results are downloaded; and
  ``pending`` — a submission under way (its input file is uploaded, the batch maybe created);
- ``results/<batch id>.jsonl`` — one normalised line per ``custom_id``:
  ``{"custom_id", "ok", "body" (the chat completion, when ok), "why" (when not)}``.

Never twice: a ``custom_id`` already in ``state.json`` is not submitted again (`submit`); the
state is written (atomically) after the upload and again right after the batch is created, and
a batch created by a process killed before it wrote the id is found again by its metadata
token (``cowork_judge_token``, a digest of its ``custom_id`` s) in the provider's list of batches
before anything is created. A killed ``batch --batch-api`` run again therefore polls the batches
it already has and submits nothing it submitted before.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cowork_judge._util.fsutil import atomic_write, dump_json
from cowork_judge.transport.batch_api import BATCH_URL

STATE_SCHEMA = "cowork-judge/batch-api-state@1"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
"""Batch statuses after which nothing more will be answered."""
TOKEN_KEY = "cowork_judge_token"
"""The batch metadata key that finds a batch again after a kill (`submit`)."""
COMPLETION_WINDOW = "24h"


class BatchAPIError(Exception):
    """The provider refused a submission or its files could not be read (the message says which)."""


# --------------------------------------------------------------------------- state


def load_state(folder: Path) -> dict[str, Any]:
    """``<folder>/state.json`` (an empty state when absent).

    Raises:
        BatchAPIError: it exists and is not a state document (a batch must not resubmit blindly).
    """
    path = folder / "state.json"
    if not path.exists():
        return {"schema": STATE_SCHEMA, "batches": [], "pending": None}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BatchAPIError(f"{path} is unreadable ({exc}): remove it only if no batch of it is still running") from None
    if not isinstance(state, dict) or state.get("schema") != STATE_SCHEMA or not isinstance(state.get("batches"), list):
        raise BatchAPIError(f"{path} is not a batch API state ({STATE_SCHEMA})")
    return state


def save_state(folder: Path, state: Mapping[str, Any]) -> None:
    """Write ``<folder>/state.json`` atomically."""
    atomic_write(folder / "state.json", dump_json(dict(state)))


def submitted_ids(state: Mapping[str, Any]) -> set[str]:
    """Every ``custom_id`` of every batch in `state` (a pending submission's included)."""
    ids = {cid for batch in state["batches"] for cid in batch.get("custom_ids", ())}
    pending = state.get("pending")
    return ids | set(pending.get("custom_ids", ())) if isinstance(pending, dict) else ids


def recorded_requests(folder: Path) -> dict[str, str]:
    """The record pass's requests: custom_id → its input line (JSON text)."""
    out: dict[str, str] = {}
    requests = folder / "requests"
    for path in sorted(requests.glob("*.jsonl")) if requests.is_dir() else ():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                cid = json.loads(line).get("custom_id")
            except (ValueError, AttributeError):
                continue
            if isinstance(cid, str):
                out.setdefault(cid, line)
    return out


# --------------------------------------------------------------------------- submit


async def submit(client: Any, folder: Path, state: dict[str, Any], lines: Mapping[str, str]) -> str | None:
    """Submit the requests of `lines` (custom_id → input line) not yet in `state` as one batch;
    its id (None: nothing new). Adopts a pending batch of an earlier, killed process first.

    Raises:
        openai.APIError: the provider refused the upload or the batch.
    """
    await adopt_pending(client, folder, state)
    done = submitted_ids(state)
    new = sorted(cid for cid in lines if cid not in done)
    if not new:
        return None
    token = hashlib.sha256("\n".join(new).encode()).hexdigest()[:32]
    data = "".join(lines[cid] + "\n" for cid in new).encode("utf-8")
    uploaded = await client.files.create(file=("cowork-judge-batch.jsonl", data), purpose="batch")
    state["pending"] = {"token": token, "input_file_id": uploaded.id, "custom_ids": new}
    save_state(folder, state)
    batch = await client.batches.create(input_file_id=uploaded.id, endpoint=BATCH_URL, completion_window=COMPLETION_WINDOW,
                                        metadata={TOKEN_KEY: token})
    _adopt(folder, state, batch.id, batch.status)
    return str(batch.id)


async def adopt_pending(client: Any, folder: Path, state: dict[str, Any]) -> None:
    """A pending submission (uploaded, maybe created, then the process died): the batch with its
    token becomes the state's; none found: the submission was never made and is dropped."""
    pending = state.get("pending")
    if not isinstance(pending, dict):
        return
    async for batch in client.batches.list(limit=100):
        if (batch.metadata or {}).get(TOKEN_KEY) == pending.get("token"):
            _adopt(folder, state, batch.id, batch.status)
            return
    state["pending"] = None
    save_state(folder, state)


def _adopt(folder: Path, state: dict[str, Any], batch_id: str, status: str) -> None:
    pending = state["pending"]
    state["batches"].append({"id": str(batch_id), "input_file_id": pending["input_file_id"], "token": pending["token"],
                             "custom_ids": pending["custom_ids"], "status": str(status), "downloaded": False})
    state["pending"] = None
    save_state(folder, state)


# --------------------------------------------------------------------------- poll and download


async def wait_for_batches(client: Any, folder: Path, state: dict[str, Any], *, first_wait_sec: float = 1.0,
                           max_wait_sec: float = 60.0, factor: float = 1.5,
                           say: Callable[[str], None] = lambda line: None) -> None:
    """Poll every batch of `state` not yet downloaded until it ends (waits grow from
    `first_wait_sec` by `factor` up to `max_wait_sec`), then download its results."""
    wait = first_wait_sec
    while True:
        open_batches = [b for b in state["batches"] if not b.get("downloaded")]
        if not open_batches:
            return
        for entry in open_batches:
            batch = await client.batches.retrieve(entry["id"])
            if batch.status != entry["status"]:
                entry["status"] = str(batch.status)
                save_state(folder, state)
                say(f"batch API: {entry['id']} {batch.status} ({len(entry['custom_ids'])} request(s))")
            if batch.status in TERMINAL:
                await download(client, folder, entry, batch)
                entry["downloaded"] = True
                save_state(folder, state)
        if any(not b.get("downloaded") for b in state["batches"]):
            await asyncio.sleep(wait)
            wait = min(max_wait_sec, wait * factor)


async def download(client: Any, folder: Path, entry: Mapping[str, Any], batch: Any) -> Path:
    """Write ``results/<id>.jsonl``: every custom_id of the batch, answered or not."""
    rows: dict[str, dict[str, Any]] = {}
    for file_id in (batch.output_file_id, batch.error_file_id):
        if not file_id:
            continue
        text = (await client.files.content(file_id)).text
        for line in text.splitlines():
            row = _result_row(line)
            if row is not None:
                rows[row["custom_id"]] = row
    for cid in entry["custom_ids"]:
        rows.setdefault(cid, {"custom_id": cid, "ok": False, "body": None, "why": f"batch {batch.status}"})
    path = folder / "results" / f"{entry['id']}.jsonl"
    atomic_write(path, "".join(json.dumps(rows[cid], ensure_ascii=False) + "\n" for cid in entry["custom_ids"]))
    return path


def _result_row(line: str) -> dict[str, Any] | None:
    """One output/error file line normalised (``ok`` only for an HTTP 200 with a body)."""
    try:
        doc = json.loads(line)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("custom_id"), str):
        return None
    response: dict[str, Any] = doc["response"] if isinstance(doc.get("response"), dict) else {}
    error: dict[str, Any] | None = doc["error"] if isinstance(doc.get("error"), dict) else None
    status, body = response.get("status_code"), response.get("body")
    if error is None and status == 200 and isinstance(body, dict):
        return {"custom_id": doc["custom_id"], "ok": True, "body": body, "why": ""}
    if error is not None:
        why = f"{error.get('code') or 'error'}: {error.get('message') or ''}".strip()
    else:
        message = body.get("error", {}).get("message") if isinstance(body, dict) and isinstance(body.get("error"), dict) else ""
        why = f"HTTP {status}: {message}"
    return {"custom_id": doc["custom_id"], "ok": False, "body": None, "why": why[:300]}


__all__ = ["BatchAPIError", "adopt_pending", "download", "load_state", "recorded_requests", "save_state", "submit",
           "submitted_ids", "wait_for_batches"]
