"""Per-page workflow requests: which page a request judges, and N/A answers per row.

A page-first workflow (``ppt_judge``) asks about one rendered page per request and writes
the page number into its user message as a marker::

    <page_number>3</page_number>

The FIRST marker in the user messages (tool results excluded) names the page; the oracle's
``"<row id>@<page>"`` entries then override the row's answer for that page. Workflows must
escape ``<`` in deliverable text they quote (``ppt_judge`` does), so a deck cannot plant a
marker of its own ahead of the workflow's.

A workflow whose answer schema lets ``level`` be a string (``ppt_judge``: the 21-step grid
or ``"N/A"``) gets ``"level": "<that string>"`` and ``"hit": false`` for rows the oracle
answers with ``"na": true`` — the reply is in the schema's shape, so the workflow's parser
sees N/A exactly as a model following the schema would write it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["PAGE_MARKER_RE", "mark_na", "na_level", "page_of"]

PAGE_MARKER_RE = re.compile(r"<page_number>\s*(\d{1,6})\s*</page_number>")
"""The page marker of a per-page request; page numbers are 1-based (0 is ignored)."""


def page_of(user_texts: list[str]) -> int | None:
    """The page named by the first ``<page_number>N</page_number>`` marker, or None.

    Args:
        user_texts: the text pieces of the user messages, in order.

    Returns:
        N ≥ 1, or None when no text holds a marker (or the first marker says 0).
    """
    for text in user_texts:
        m = PAGE_MARKER_RE.search(text)
        if m:
            page = int(m.group(1))
            return page if page >= 1 else None
    return None


def na_level(schema: Any) -> str | None:
    """The string a reply writes as ``level`` for "not applicable", or None.

    Read from the answer schema: the first string value of an ``enum``/``const`` of
    ``properties.verdicts.items.properties.level`` (directly or inside ``anyOf``/``oneOf``).
    None when the schema offers no such value (the reply then keeps its numeric level and
    its ``"na"`` flag).
    """
    try:
        level = schema["properties"]["verdicts"]["items"]["properties"]["level"]
    except (KeyError, TypeError):
        return None
    for branch in [level, *(level.get("anyOf") or []), *(level.get("oneOf") or [])] if isinstance(level, dict) else []:
        if not isinstance(branch, dict):
            continue
        enum = branch.get("enum")
        values = enum if isinstance(enum, list) else ([branch["const"]] if "const" in branch else [])
        for value in values:
            if isinstance(value, str):
                return value
    return None


NA_UNREAD = ("; the oracle's \"na\": true was not read: this request's answer has no not-applicable verdict (only "
             "ppt_judge's page rows have one), so the row is answered as the entry's hit says")
"""Appended to the reason of a verdict whose oracle entry says ``"na": true`` where the request cannot carry it
(`na_unread`; trial 39 P-5: an agentic row marked N/A was scored a plain miss with no word)."""


def na_unread(verdicts: list[dict[str, Any]], schema: Any) -> list[str]:
    """The ids of `verdicts` marked ``"na": true`` whose request cannot answer "not applicable": its answer schema
    (a dict with ``properties.verdicts.items``) has neither an N/A level (`na_level`) nor an ``na`` field in any item
    branch. [] when the schema is not of that shape (nothing is known) or no verdict is marked."""
    marked = [str(v.get("id")) for v in verdicts if v.get("na") is True]
    if not marked or na_level(schema) is not None:
        return []
    try:
        items = schema["properties"]["verdicts"]["items"]
    except (KeyError, TypeError):
        return []
    if not isinstance(items, dict):
        return []
    branches = [b for b in items.get("anyOf", [items]) if isinstance(b, dict)]
    if any("na" in (b.get("properties") or {}) for b in branches):
        return []
    return marked


def mark_na(verdicts: list[dict[str, Any]], na_value: str | None) -> list[dict[str, Any]]:
    """`verdicts` with ``level = na_value`` and ``hit = false`` on rows whose ``na`` is true
    (unchanged when `na_value` is None). Returns new dicts; the input is not modified."""
    if na_value is None:
        return verdicts
    return [{**v, "level": na_value, "hit": False} if v.get("na") is True else v for v in verdicts]
