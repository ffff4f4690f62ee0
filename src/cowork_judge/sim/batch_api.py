"""OpenAI's Batch API on the simulated judge: ``/v1/files`` + ``/v1/batches``.

Routes (``/v1`` prefix optional): ``POST /files`` (multipart: ``purpose``, ``file``),
``GET /files/{id}/content``, ``POST /batches`` (``input_file_id``, ``endpoint`` =
``/v1/chat/completions``, ``completion_window``, ``metadata``), ``GET /batches/{id}``,
``GET /batches`` (newest first, as OpenAI lists them), ``POST /batches/{id}/cancel``.

A batch stays ``in_progress`` for ``delay_sec`` seconds after it was created (``--batch-delay``),
then completes on its next read: every line of its input file is answered by the simulator's
own pipeline (`SimServer.answer_batched`: the same policy, oracle, quotes and fabrication as a
live request; logged with ``endpoint = "batch"`` and its ``custom_id``), except the failure
mix: each ``custom_id`` draws once, from a hash of (seed, custom_id), whether it **fails** (an
HTTP 500 in the error file, ``--batch-fail P``) or **expires** (``error.code =
"batch_expired"``, ``--batch-expire P``). The draw does not depend on the order or on the batch,
so a test knows which ids fail.

The oracle finds a batched request's instance from its ``custom_id`` (a batch request has no
header): the judge writes ``cj-<first 12 hex of sha256(instance name)>-…``, and the simulator
matches that against the names under ``--oracle-dir`` (`instance_of`).

Every ``custom_id`` submitted is recorded in `BatchAPI.submitted` (``GET /_sim/log`` shows it as
``batch_submitted``): the proof a resumed judge never submits one twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Protocol

__all__ = ["BatchAPI", "instance_digest", "outcome_draw"]

BATCH_ENDPOINT = "/v1/chat/completions"
"""The one endpoint the simulated Batch API serves."""


class BatchedAnswerer(Protocol):
    """What the Batch API needs of the simulator (`server.SimServer`)."""

    def answer_batched(self, body: object, instance: str | None, custom_id: str) -> tuple[int, dict[str, Any]]: ...

    def instance_names(self) -> list[str]: ...


def instance_digest(name: str) -> str:
    """The 12 hex characters of an instance's name a judge's ``custom_id`` carries."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]


def outcome_draw(seed: int, custom_id: str) -> float:
    """A number in [0, 1) fixed by (seed, custom_id): below ``fail`` the request fails, below
    ``fail + expire`` it expires."""
    digest = hashlib.sha256(f"{seed}:{custom_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


class BatchAPI:
    """The simulated files and batches (thread-safe; in memory).

    Args:
        sim: answers each batched line (`SimServer`).
        delay_sec: seconds a batch stays ``in_progress`` (``--batch-delay``).
        fail, expire: shares of requests that fail / expire (``--batch-fail``, ``--batch-expire``).
        seed: seed of the failure draw.
        clock: seconds (tests may inject one).
    """

    def __init__(self, sim: BatchedAnswerer, *, delay_sec: float = 0.0, fail: float = 0.0, expire: float = 0.0,
                 seed: int = 0, clock: Callable[[], float] = time.time) -> None:
        if not (0 <= fail <= 1 and 0 <= expire <= 1 and fail + expire <= 1):
            raise ValueError("--batch-fail and --batch-expire must be in [0, 1] and sum to at most 1")
        if delay_sec < 0:
            raise ValueError("--batch-delay must be >= 0")
        self.sim, self.delay_sec, self.fail, self.expire, self.seed, self.clock = sim, delay_sec, fail, expire, seed, clock
        self.files: dict[str, tuple[str, str, bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.submitted: list[tuple[str, str]] = []
        """``(batch id, custom_id)`` of every request line of every batch created, in order."""
        self._lock = threading.Lock()
        self._n = 0

    def _id(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}_sim{self._n:06d}"

    # ------------------------------------------------------------------ files

    def create_file(self, content_type: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """``POST /files``: store the multipart upload's ``file`` part."""
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + body)
        fields: dict[str, tuple[str, bytes]] = {}
        for part in message.iter_parts() if message.is_multipart() else ():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = (part.get_filename() or "", payload)
        if "file" not in fields:
            return 400, _error("a multipart body with a 'file' part is required")
        purpose = fields.get("purpose", ("", b"batch"))[1].decode("utf-8", "replace")
        with self._lock:
            file_id = self._id("file")
            self.files[file_id] = (purpose, fields["file"][0], fields["file"][1])
        return 200, self._file_doc(file_id)

    def _file_doc(self, file_id: str) -> dict[str, Any]:
        purpose, filename, data = self.files[file_id]
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(self.clock()),
                "filename": filename or "upload.jsonl", "purpose": purpose, "status": "processed", "expires_at": None,
                "status_details": None}

    def file_content(self, file_id: str) -> bytes | None:
        """``GET /files/{id}/content``: the bytes, None when there is no such file."""
        with self._lock:
            entry = self.files.get(file_id)
        return None if entry is None else entry[2]

    def _store(self, data: bytes, purpose: str) -> str:
        file_id = self._id("file")
        self.files[file_id] = (purpose, f"{file_id}.jsonl", data)
        return file_id

    # ------------------------------------------------------------------ batches

    def create_batch(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """``POST /batches``: validate the input file (JSON lines of ``custom_id``, ``method``,
        ``url``, ``body``; custom_ids unique in the file) and start the batch."""
        try:
            doc = json.loads(body or b"null")
        except ValueError:
            return 400, _error("request body is not valid JSON")
        if not isinstance(doc, dict) or doc.get("endpoint") != BATCH_ENDPOINT:
            return 400, _error(f"endpoint must be {BATCH_ENDPOINT}")
        with self._lock:
            entry = self.files.get(str(doc.get("input_file_id")))
            if entry is None:
                return 404, _error(f"no file {doc.get('input_file_id')!r}")
            lines, problem = _read_lines(entry[2])
            if problem is not None:
                return 400, _error(problem)
            batch_id = self._id("batch")
            now = self.clock()
            self.submitted.extend((batch_id, line["custom_id"]) for line in lines)
            self.batches[batch_id] = {
                "id": batch_id, "object": "batch", "endpoint": BATCH_ENDPOINT, "errors": None,
                "input_file_id": doc["input_file_id"], "completion_window": doc.get("completion_window", "24h"),
                "status": "in_progress", "output_file_id": None, "error_file_id": None, "created_at": int(now),
                "in_progress_at": int(now), "expires_at": int(now + 86400), "completed_at": None,
                "failed_at": None, "expired_at": None, "cancelled_at": None, "cancelling_at": None,
                "finalizing_at": None, "metadata": doc.get("metadata") or None,
                "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                "_ready_at": now + self.delay_sec, "_lines": lines,
            }
            return 200, _public(self.batches[batch_id])

    def retrieve(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        """``GET /batches/{id}``: the batch, completed on this read once its delay has passed."""
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return 404, _error(f"no batch {batch_id!r}")
            if batch["status"] == "in_progress" and self.clock() >= batch["_ready_at"]:
                self._complete(batch)
            return 200, _public(batch)

    def cancel(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        """``POST /batches/{id}/cancel``: an unfinished batch is cancelled (no output)."""
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return 404, _error(f"no batch {batch_id!r}")
            if batch["status"] == "in_progress":
                batch.update(status="cancelled", cancelled_at=int(self.clock()))
            return 200, _public(batch)

    def list_doc(self) -> dict[str, Any]:
        """``GET /batches``: every batch, newest first, in one page."""
        with self._lock:
            data = [_public(b) for b in reversed(self.batches.values())]
        return {"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None, "has_more": False}

    def _complete(self, batch: dict[str, Any]) -> None:
        """Answer every line (the failure mix drawn per custom_id); write the output and error files."""
        out: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        names = {instance_digest(n): n for n in self.sim.instance_names()}
        for line in batch["_lines"]:
            cid = line["custom_id"]
            draw = outcome_draw(self.seed, cid)
            rid = f"req_{hashlib.sha256(cid.encode()).hexdigest()[:16]}"
            if draw < self.fail:
                errors.append({"id": f"batch_req_{rid}", "custom_id": cid, "error": None, "response": {
                    "status_code": 500, "request_id": rid,
                    "body": _error("simulated batch failure (--batch-fail)", "server_error")}})
            elif draw < self.fail + self.expire:
                errors.append({"id": f"batch_req_{rid}", "custom_id": cid, "response": None, "error": {
                    "code": "batch_expired", "message": "This request could not be executed before the completion window "
                                                        "expired (--batch-expire)."}})
            else:
                status, body = self.sim.answer_batched(line.get("body"), names.get(_digest_of(cid)), cid)
                row = {"id": f"batch_req_{rid}", "custom_id": cid, "error": None,
                       "response": {"status_code": status, "request_id": rid, "body": body}}
                (out if status == 200 else errors).append(row)
        now = int(self.clock())
        batch.update(status="completed", completed_at=now, finalizing_at=now,
                     request_counts={"total": len(batch["_lines"]), "completed": len(out), "failed": len(errors)})
        if out:
            batch["output_file_id"] = self._store(_jsonl(out), "batch_output")
        if errors:
            batch["error_file_id"] = self._store(_jsonl(errors), "batch_output")


def _digest_of(custom_id: str) -> str:
    parts = custom_id.split("-")
    return parts[1] if len(parts) >= 3 and parts[0] == "cj" else ""


def _read_lines(data: bytes) -> tuple[list[dict[str, Any]], str | None]:
    lines: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            return [], f"line {n} of the input file is not JSON"
        cid = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(cid, str) or not cid or line.get("url") != BATCH_ENDPOINT or line.get("method") != "POST":
            return [], f"line {n}: custom_id, method POST and url {BATCH_ENDPOINT} are required"
        if cid in seen:
            return [], f"line {n}: duplicate custom_id {cid!r}"
        seen.add(cid)
        lines.append(line)
    if not lines:
        return [], "the input file holds no request"
    return lines, None


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


def _error(message: str, err_type: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": err_type, "param": None, "code": None}}


def oracle_names(root: str) -> list[str]:
    """Instance names an ``--oracle-dir`` serves: ``NAME.json`` files and ``NAME/oracle.json`` folders."""
    names: list[str] = []
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if entry.endswith(".json") and os.path.isfile(path):
            names.append(entry[: -len(".json")])
        elif os.path.isfile(os.path.join(path, "oracle.json")):
            names.append(entry)
    return names
