"""Deliverable globs: which output-relative paths a code-method pattern names.

Rules (documented for task authors): a pattern without ``/`` matches a file NAME at any
depth (``*.md`` matches ``a.md`` and ``notes/b.md``); a pattern with ``/`` matches the
whole output-relative path, where ``*`` and ``?`` stay inside one path segment and
``**/`` matches zero or more directories (``reports/**/*.csv`` matches
``reports/a.csv`` and ``reports/2024/q1/a.csv``; ``**/*`` matches every file).
"""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The regular expression of a glob (see the module rules).

    Raises:
        ValueError: an empty pattern, or one that climbs out of the output dir (``..``).
    """
    if not pattern or not pattern.strip("/"):
        raise ValueError("an empty glob matches nothing")
    if ".." in pattern.split("/"):
        raise ValueError(f"glob {pattern!r} may not contain '..'")
    body = pattern.lstrip("/")
    out, i = [], 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        elif body[i] == "[":
            end = body.find("]", i + 1)
            if end == -1:
                out.append(re.escape(body[i]))
                i += 1
            else:
                inner = body[i + 1 : end].replace("\\", "\\\\")
                out.append("[^" + inner[1:] + "]" if inner.startswith("!") else "[" + inner + "]")
                i = end + 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches(pattern: str, rel: str) -> bool:
    """True when the output-relative path `rel` is named by `pattern`."""
    rx = compile_glob(pattern)
    if "/" not in pattern.strip("/"):
        return bool(rx.match(rel.rsplit("/", 1)[-1]))
    return bool(rx.match(rel))
