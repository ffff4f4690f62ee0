"""Reading a package's files safely: size caps, regular files only, never executing anything.

Every reader raises `Unreadable` with a one-line reason instead of an `OSError` or a
decoding traceback, so a package the linter cannot read becomes a finding.
"""

from __future__ import annotations

import json
import math
import stat
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from cowork_judge.core.json_errors import json_error_said
from cowork_judge.core.rubric import MAX_RUBRIC_BYTES, RepeatedKeys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MAX_TEXT_BYTES = 1024 * 1024
"""Largest task.toml / test.sh / requirements file read (bytes); real ones are a few KB."""


class Unreadable(Exception):
    """The file cannot be read as asked; ``str(exc)`` is the reason, one line."""


class NotJson(Exception):
    """The file was read but is not JSON; ``str(exc)`` is the reason, one line."""


def read_text(path: Path, *, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes` bytes.

    Raises:
        Unreadable: missing, not a regular file (a FIFO would block forever), too large,
            permission denied, or not UTF-8.
    """
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file")
        if info.st_size > max_bytes:
            raise Unreadable(f"larger than {max_bytes} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise Unreadable("not found") from None
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    if len(data) > max_bytes:  # grew between stat and read
        raise Unreadable(f"larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None


class NonFinite(float):
    """A ``NaN``/``Infinity`` constant from the JSON text (the engine refuses the file)."""


def _constant(name: str) -> float:
    return NonFinite({"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[name])


BOM = "\ufeff"
"""The UTF-8 byte-order mark as text: the engine's `load_rubric` reads a rubric that starts with
one (``utf-8-sig``), so the linter does too, and says so (R015)."""


def read_json(path: Path, repeats: RepeatedKeys | None = None) -> tuple[Any, str, bool]:
    """Decode a rubric file as the engine does (`core.rubric.load_rubric`): a leading UTF-8
    byte-order mark is skipped.

    ``NaN``/``Infinity`` constants are decoded as `NonFinite` floats so that the row and
    field holding them can be named (the engine refuses the whole file).

    Returns:
        (decoded document, text without the byte-order mark, whether the file had one). With `repeats`,
        every key an object gives twice is recorded there (the engine refuses two different values: R018).

    Raises:
        Unreadable: see `read_text` (cap `MAX_RUBRIC_BYTES`, the engine's).
        NotJson: syntax error, nesting too deep, or an integer too long to convert.
    """
    text = read_text(path, max_bytes=MAX_RUBRIC_BYTES)
    bom = text.startswith(BOM)
    text = text[len(BOM):] if bom else text
    try:
        return json.loads(text, parse_constant=_constant, object_pairs_hook=repeats), text, bom
    except RecursionError:
        raise NotJson("nested too deeply to be a rubric") from None
    except ValueError as exc:
        raise NotJson(json_error_said(exc, text)) from None


def read_toml(path: Path) -> dict[str, Any]:
    """Decode a task.toml.

    Raises:
        Unreadable: see `read_text`; or not valid TOML (the reason names line and column).
    """
    return _toml(read_text(path))


@lru_cache(maxsize=256)
def _toml(text: str) -> dict[str, Any]:
    """Decoded TOML, shared between identical files (a family's task.toml files usually
    are): callers must not modify it."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise Unreadable("not valid TOML: nested too deeply") from None


def is_nonfinite(value: Any) -> bool:
    """True for a float that is NaN or infinite (from a constant or an overflowing literal)."""
    return isinstance(value, float) and not math.isfinite(value)
