"""Deliverable globs: which output-relative paths a code-method pattern names.

Rules (documented for task authors): a pattern without ``/`` matches a file NAME at any
depth (``*.md`` matches ``a.md`` and ``notes/b.md``); a pattern with ``/`` matches the
whole output-relative path, where ``*`` and ``?`` stay inside one path segment and
``**/`` matches zero or more directories (``reports/**/*.csv`` matches
``reports/a.csv`` and ``reports/2024/q1/a.csv``; ``**/*`` matches every file). ``**``
crosses directories only as a whole segment.
"""

from __future__ import annotations

import fnmatch


def check_glob(pattern: str) -> str:
    """The pattern without its leading ``/``.

    Raises:
        ValueError: an empty pattern, or one that climbs out of the output dir (``..``).
    """
    if not pattern or not pattern.strip("/"):
        raise ValueError("an empty glob matches nothing")
    if ".." in pattern.split("/"):
        raise ValueError(f"glob {pattern!r} may not contain '..'")
    return pattern.lstrip("/")


def matches(pattern: str, rel: str) -> bool:
    """True when the output-relative path `rel` is named by `pattern`.

    Matching is segment by segment: a ``**`` segment takes zero or more path segments
    (dynamic programming over segments), any other segment is matched against one path
    segment by `fnmatch.fnmatchcase`, whose translation cannot backtrack exponentially
    (CPython ≥ 3.9, bpo-40480). No regular expression is built from the whole pattern: an
    agent's file name of 245 underscores against ``*_*_*_*.csv`` took 21 s with one.

    Raises:
        ValueError: see `check_glob`.
    """
    body = check_glob(pattern)
    if "/" not in body.rstrip("/"):
        return fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], body.rstrip("/"))
    parts = [seg for seg in body.split("/") if seg]
    segs = rel.split("/")
    # ok[j] = parts[i:] matches segs[j:], computed from the last pattern segment backwards
    ok = [False] * len(segs) + [True]
    for part in reversed(parts):
        nxt = ok
        ok = [False] * (len(segs) + 1)
        for j in range(len(segs), -1, -1):
            if part == "**":
                ok[j] = nxt[j] or (j < len(segs) and ok[j + 1])
            else:
                ok[j] = j < len(segs) and nxt[j + 1] and fnmatch.fnmatchcase(segs[j], part)
    return ok[0]
