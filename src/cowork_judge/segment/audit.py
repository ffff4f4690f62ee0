"""The run's audit folder (``judge/``), as the segments and the run write to it.

`AuditLog` is made once per run (`engine.judge`) over ``<verifier>/judge/``; the segments
get it in their context (`segment.segment_context.SegmentContext.audit`): per-block prompts, raw
replies and parsed verdicts, each workflow's calls under its own folder (`scoped`).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from cowork_judge.safety import spotlight
from cowork_judge.core.caps import cap_middle
from cowork_judge.core.layout import KEPT_MESSAGE_NAME
from cowork_judge._util.fsutil import atomic_write, dump_json
from cowork_judge.safety.redact import Redactor

AUDIT_TEXT_CAP_CHARS = 1_000_000
"""Longest text (one string value: a reply, a reason, a prompt part) the audit folder keeps;
longer ones keep their first and last halves around a marker saying how much was cut
(`core.caps.cap_middle`). Real replies are a few KB; the cap bounds what one runaway
reply (20 MB) costs the folder — it appeared three times, 61 MB, before — while keeping
both ends of it for a reader."""


def _capped(value: Any, limit: int = AUDIT_TEXT_CAP_CHARS) -> Any:
    if isinstance(value, str):
        return cap_middle(value, limit)
    if isinstance(value, dict):
        return {k: _capped(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_capped(v, limit) for v in value]
    return value


class AuditLog:
    """The ``judge/`` audit folder: per-block prompts, raw replies and parsed verdicts.

    Everything written is redacted, and every text longer than `AUDIT_TEXT_CAP_CHARS` is
    cut in its middle. Files are JSON Lines so that an interrupted run still leaves every
    completed turn readable. Thread-safe.
    """

    def __init__(self, root: Path, redactor: Redactor) -> None:
        self.root = root
        self._redactor = redactor
        self._lock = threading.Lock()

    def append(self, name: str, record: dict[str, Any]) -> None:
        """Append one JSON record to ``<root>/<name>.jsonl``; never raises."""
        try:
            line = spotlight.mask(json.dumps(_capped(self._redactor.value(record)), ensure_ascii=False, default=str))
            path = self.root / f"{name}.jsonl"
            with self._lock:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
        except (OSError, ValueError, TypeError):
            pass

    def scoped(self, prefix: str) -> AuditLog:
        """The audit log of one part of the run, under ``<root>/<prefix>/`` (same redaction)."""
        return AuditLog(self.root / prefix, self._redactor)

    def write_json(self, name: str, value: Any) -> None:
        """Write one JSON document ``<root>/<name>.json`` atomically, not fsynced (an audit file is
        diagnostic: a power failure may leave it empty, never half-written by a crash); never raises."""
        try:
            atomic_write(self.root / f"{name}.json", spotlight.mask(dump_json(_capped(self._redactor.value(value)))),
                         durable=False)
        except (OSError, ValueError, TypeError):
            pass

    def keep_final_message(self, text: str | None, source: str | None, cut: str | None) -> None:
        """Keep the agent's final message the run read (`text`, from `source`; `cut`: what of its source
        was not read) as ``<root>/final_message.json`` (`core.layout.KEPT_MESSAGE_NAME`), redacted and
        capped like every audit text, for the report page (trial 22 P-3). Nothing when no message was
        read; never raises."""
        if text:
            self.write_json(KEPT_MESSAGE_NAME, {"source": source, "chars": len(text), "cut": cut, "text": text})
