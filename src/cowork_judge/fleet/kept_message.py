"""The agent's final message as a run kept it (``judge/final_message.json``), read for the report page.

The judge writes that audit file when it read a final message (`segment.audit.AuditLog.keep_final_message`):
redacted like every audit file and cut in its middle past the audit's cap. This module only reads it; a
missing or unreadable file is a note, never an error (the page is still written).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from cowork_judge.fleet.documents import read_regular

MAX_KEPT_MESSAGE_BYTES = 16 * 1024 * 1024
"""Largest kept-message file read (bytes): the audit keeps at most 1,000,000 characters of text, which JSON
escapes to at most a few MB; a larger file is not the judge's and is not read."""


@dataclass(frozen=True)
class KeptMessage:
    """The final message a run read: its `text` (redacted; cut in its middle past the audit's cap), its
    `source` (``trajectory``, ``final_answer.txt``, ``response_file`` …), `chars` (its length as read) and
    `cut` (what of its source was not read, or None)."""

    text: str
    source: str | None
    chars: int
    cut: str | None


def read_kept_message(path: Path, read_source: str | None) -> tuple[KeptMessage | None, str | None]:
    """The kept message at `path` and a note for the page: ``(message, None)``; ``(None, note)`` when the run
    read a final message (`read_source`, the result's ``details.delivery.final_message_source``) but the file
    is absent or unreadable; ``(None, None)`` when the run read none and nothing is kept. Never raises."""
    try:
        data = json.loads(read_regular(path, MAX_KEPT_MESSAGE_BYTES))
        text = data["text"]
        if not isinstance(text, str):
            raise TypeError("text is not a string")
    except FileNotFoundError:
        return None, (f"the final message the run read (from {read_source}) is not kept in this folder: no "
                      f"{path.parent.name}/{path.name} (a judge older than this report keeps no copy)") if read_source else None
    except (OSError, ValueError, TypeError, KeyError) as exc:
        return None, f"{path} could not be read ({exc}): the final message is not shown"
    chars = data.get("chars")
    return KeptMessage(text=text, source=str(data.get("source") or read_source or "") or None,
                       chars=chars if isinstance(chars, int) and not isinstance(chars, bool) else len(text),
                       cut=data.get("cut") if isinstance(data.get("cut"), str) else None), None
