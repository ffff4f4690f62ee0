"""Writing the verifier outputs: reward.txt, result.json, reward-details.json, audit files.

Every write is atomic (temp file in the same directory + ``os.replace``), so Harbor never
reads a half-written reward. `write_fallback` is the last resort of every exit path: it
needs nothing but the standard library and writes a valid reward and result document
even when building the normal document failed.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from cowork_judge.run.paths import RunPaths
from cowork_judge.redact import Redactor
from cowork_judge.core.result import (
    RESULT_SCHEMA,
    ExtraFields,
    ResultDocument,
    RewardDetails,
)

EXTRA_FIELD_KEYS: tuple[str, ...] = tuple(ExtraFields.model_fields)


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write `data` to `path` atomically (temp file + fsync + rename).

    Raises:
        OSError: the directory cannot be created or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; Harbor may collect as another user
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dump_json(value: Any) -> str:
    """Stable JSON text (2-space indent, UTF-8, no NaN)."""
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def format_reward(reward: float | None) -> str:
    """reward.txt content: the reward as a plain float, or ``SKIPPED``."""
    return "SKIPPED\n" if reward is None else f"{float(reward)!r}\n"


_write_lock = threading.Lock()


def write_result(paths: RunPaths, doc: ResultDocument, redactor: Redactor) -> None:
    """Write result.json, reward-details.json and reward.txt (reward last).

    The reward file is written last so that a reward never exists without its result
    document from the same run.
    """
    with _write_lock:
        payload = redactor.value(doc.model_dump(mode="json", by_alias=True))
        atomic_write(paths.result_json, dump_json(payload))
        try:  # the viewer's file is optional: failing it must not cost the reward
            details = redactor.value(RewardDetails.from_result(doc).model_dump(mode="json", by_alias=True))
            atomic_write(paths.reward_details_json, dump_json(details))
        except (OSError, ValueError):
            pass
        atomic_write(paths.reward_txt, format_reward(doc.task_score if doc.status != "skipped" else None))


def write_fallback(
    paths: RunPaths,
    *,
    exit_code: str,
    exit_reason: str,
    version: str,
    abi: int,
    redactor: Redactor | None = None,
) -> None:
    """Last-resort outputs: reward 0 and a minimal, schema-valid error document.

    Uses only the standard library besides `atomic_write`, so it works even when the
    pydantic documents could not be built. Swallows its own OSErrors (nothing else can be
    done), after trying a plain write.
    """
    reason = redactor.text(exit_reason) if redactor else exit_reason
    extra = {
        "passed": False,
        "judge_coverage": 0.0,
        "judge_unjudged": 0,
        "judge_degraded": True,
        "judge_error_kind": None,
        "judge_seconds": 0.0,
        "judge_evidence_pages": 0,
        "judge_methods": {},
        "judge_coverage_by_method": {},
        "judge_unjudged_weight_frac": 0.0,
        "judge_called": False,
        "delivery_missing": False,
        "delivery_from_chat": False,
        "judge_calls": 0,
        "judge_tokens": 0,
    }
    doc = {
        "schema": RESULT_SCHEMA,
        "status": "error",
        "exit_code": exit_code,
        "exit_reason": reason[:2000],
        "task_score": 0.0,
        "score_raw": None,
        "score_normalized": None,
        "fatal": False,
        "metric_id": os.environ.get("JUDGE_METRIC_ID") or "rubric_llm_judge",
        "version": version,
        "abi": abi,
        "requested_version": os.environ.get("COWORK_JUDGE_VERSION") or None,
        "version_source": os.environ.get("COWORK_JUDGE_VERSION_SOURCE") or "package",
        "judge_backend": os.environ.get("JUDGE_BACKEND") or "openai",
        "judge_model": os.environ.get("JUDGE_MODEL") or "gpt-5.5",
        "results": [],
        "criteria": [],
        "details": {
            "delivery": {"files": [], "missing": False, "from_chat": False, "stray": [], "ignored": []},
            "warnings": [],
            "evidence": {},
        },
        "extra_fields": extra,
    }
    try:
        atomic_write(paths.result_json, dump_json(doc))
    except OSError:
        pass
    for target, text in ((paths.reward_txt, "0.0\n"),):
        try:
            atomic_write(target, text)
        except OSError:
            try:
                target.write_text(text)
            except OSError:
                pass


class AuditLog:
    """The ``judge/`` audit folder: per-block prompts, raw replies and parsed verdicts.

    Everything written is redacted. Files are JSON Lines so that an interrupted run still
    leaves every completed turn readable. Thread-safe.
    """

    def __init__(self, root: Path, redactor: Redactor) -> None:
        self.root = root
        self._redactor = redactor
        self._lock = threading.Lock()

    def append(self, name: str, record: dict[str, Any]) -> None:
        """Append one JSON record to ``<root>/<name>.jsonl``; never raises."""
        try:
            line = json.dumps(self._redactor.value(record), ensure_ascii=False, default=str)
            path = self.root / f"{name}.jsonl"
            with self._lock:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
        except (OSError, ValueError, TypeError):
            pass

    def write(self, name: str, value: Any) -> None:
        """Write one JSON document ``<root>/<name>.json`` atomically; never raises."""
        try:
            atomic_write(self.root / f"{name}.json", dump_json(self._redactor.value(value)))
        except (OSError, ValueError, TypeError):
            pass
