"""Deliverable globs: which output-relative paths a code-method pattern names.

Rules (documented for task authors): a pattern without ``/`` matches a file NAME at any
depth (``*.md`` matches ``a.md`` and ``notes/b.md``); a pattern with ``/`` matches the
whole output-relative path, where ``*`` and ``?`` stay inside one path segment and
``**/`` matches zero or more directories (``reports/**/*.csv`` matches
``reports/a.csv`` and ``reports/2024/q1/a.csv``; ``**/*`` matches every file). ``**``
crosses directories only as a whole segment. Names and patterns are compared in Unicode NFC
(`name_form`): a name saved decomposed (NFD, as macOS writes it) is the name typed composed.
"""

from __future__ import annotations

import fnmatch
import unicodedata


def name_form(name: str) -> str:
    """`name` (a file name, an output-relative path or a glob) as names are compared: Unicode NFC,
    so ``Pra\u0308sentation.pptx`` (NFD: ``a`` + combining diaeresis, as macOS and some zip tools
    write names) is ``Präsentation.pptx`` (trial 14 F19). Case is kept (globs are case-sensitive)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def same_name(a: str, b: str) -> bool:
    """True when file names (or paths) `a` and `b` are one name under `name_form` (NFC)."""
    return a == b or name_form(a) == name_form(b)


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


CONTAINER_OUTPUT = "/app/output"
"""The output folder as the agent's instruction names it (Harbor's container layout, JUDGE_APP_DIR's
default ``/app``): a deliverable glob or path written from it is read relative to it."""
CONTAINER_APP = "/app"
"""The agent's working folder in the container: an app-dir glob (``locate_deck``'s ``sources``) written
from it is read relative to it."""


def output_relative(pattern: str, what: str = "glob") -> str:
    """`pattern`, a deliverable glob (or a deliverable's path, `what` ``"path"``), as the
    output-relative pattern it names: ``/app/output/`` in front and ``.`` segments dropped
    (``/app/output/report.md`` and ``./report.md`` are ``report.md``), a leading ``/`` dropped.

    Raises:
        ValueError: an empty pattern, ``..``, a first segment ``output`` (globs are already
            relative to output/), or an absolute path in ``/app`` outside ``/app/output``;
            the message says what to write instead.
    """
    body = _without_dots(check_glob(pattern))
    if pattern.startswith(CONTAINER_OUTPUT + "/") or pattern == CONTAINER_OUTPUT:
        body = _without_dots(pattern[len(CONTAINER_OUTPUT):].lstrip("/"))
        if not body:
            raise ValueError(f"{what} {pattern!r} names the output folder itself, not a deliverable")
        return body
    if not body:
        raise ValueError(f"{what} {pattern!r} names no file (an empty {what} matches nothing)")
    first, _, rest = body.partition("/")
    if first == "output" and rest:
        raise ValueError(f"{what} {pattern!r} starts with 'output/', but a {what} is relative to output/ already "
                         f"(it would name output/{body}): write {rest!r}")
    if pattern.startswith(CONTAINER_APP + "/") and rest:
        raise ValueError(f"{what} {pattern!r} names a path in {CONTAINER_APP} outside {CONTAINER_OUTPUT}: a {what} is "
                         f"relative to output/ (write {rest!r} for {CONTAINER_OUTPUT}/{rest})")
    return body


def app_relative(pattern: str) -> str:
    """`pattern`, an app-dir glob (``locate_deck``'s ``sources``), relative to the app dir:
    ``/app/`` in front and ``.`` segments dropped (``/app/input/*`` is ``input/*``).

    Raises:
        ValueError: see `check_glob`; or nothing is left (``/app/``).
    """
    check_glob(pattern)
    body = pattern[len(CONTAINER_APP):] if pattern.startswith(CONTAINER_APP + "/") else pattern
    body = _without_dots(body.lstrip("/"))
    if not body:
        raise ValueError(f"glob {pattern!r} names the app folder itself, not a file")
    return body


def _without_dots(body: str) -> str:
    """`body` without its ``.`` segments (``./a/./b`` is ``a/b``); a trailing ``/`` is kept."""
    kept = [seg for seg in body.split("/") if seg != "."]
    return "/".join(kept).lstrip("/")


def matches(pattern: str, rel: str) -> bool:
    """True when the output-relative path `rel` is named by `pattern`.

    Matching is segment by segment: a ``**`` segment takes zero or more path segments
    (dynamic programming over segments), any other segment is matched against one path
    segment by `fnmatch.fnmatchcase`, whose translation cannot backtrack exponentially
    (CPython ≥ 3.9, bpo-40480). No regular expression is built from the whole pattern: an
    agent's file name of 245 underscores against ``*_*_*_*.csv`` took 21 s with one. Both
    sides are compared in NFC (`name_form`).

    Raises:
        ValueError: see `check_glob`.
    """
    body = name_form(check_glob(pattern))
    rel = name_form(rel)
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
