"""Caps on text: how a too-long text is cut, saying so (`cap_text` keeps the head,
`cap_middle` the head and the tail). Pure; used by the result document (`core.result`),
the audit folder (`segment.audit`) and the job report (`fleet.report`)."""

from __future__ import annotations


def cap_text(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, saying how long it was.

    Idempotent (a capped text is within `limit`, so capping again changes nothing), which
    keeps a re-scored document identical to the written one.
    """
    if len(text) <= limit:
        return text
    marker = f" … [cut from {len(text)} characters]"
    return text[: max(0, limit - len(marker))] + marker


def cap_middle(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters keeping its head and its tail (a reply's end
    often holds the verdict), with a marker in the middle saying how much was cut. Idempotent
    for texts already within `limit`."""
    if len(text) <= limit:
        return text
    marker = f" … [{{}} of {len(text)} characters cut] … "
    keep = max(0, limit - len(marker.format(len(text))))
    head, tail = keep - keep // 2, keep // 2
    return text[:head] + marker.format(len(text) - head - tail) + (text[len(text) - tail:] if tail else "")
