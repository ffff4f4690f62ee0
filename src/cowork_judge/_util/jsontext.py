"""The one reader of JSON and JSONL inputs a person hands the fleet commands (trial 13 L4).

Windows tools — PowerShell's ``Out-File -Encoding utf8``, Notepad's "UTF-8 with BOM" — write a
UTF-8 byte-order mark (``EF BB BF``) before the first ``{``; JSON (RFC 8259 §8.1) lets a reader
ignore it, and Python's ``json.loads`` of a ``str`` refuses it. Every JSON or JSONL input of
``summarize``, ``rescore``, ``calibrate`` and ``batch`` (result documents, instance tags,
labels, instance lists) is decoded here: UTF-8, one leading mark dropped (``utf-8-sig``). A mark
is accepted only at the start of a file (so of a JSONL file's first line); any other invalid
UTF-8 is still an error, raised as `UnicodeDecodeError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

UTF8_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark."""


def without_bom(data: bytes) -> bytes:
    """`data` without one leading UTF-8 byte-order mark (unchanged when it has none)."""
    return data[len(UTF8_BOM):] if data.startswith(UTF8_BOM) else data


def json_text(data: bytes) -> str:
    """The text of the JSON bytes `data`: UTF-8, a leading byte-order mark dropped.

    Raises:
        UnicodeDecodeError: `data` is not UTF-8.
    """
    return data.decode("utf-8-sig")


def read_json_text(path: Path) -> str:
    """The text of the JSON or JSONL file `path` (`json_text` of its bytes).

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: it is not UTF-8.
    """
    return json_text(path.read_bytes())


def load_json_file(path: Path, **options: Any) -> Any:
    """The JSON value of the file `path` (`read_json_text`), `options` passed to ``json.loads``.

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: it is not UTF-8.
        ValueError: it is not JSON (``json.JSONDecodeError``).
    """
    return json.loads(read_json_text(path), **options)
