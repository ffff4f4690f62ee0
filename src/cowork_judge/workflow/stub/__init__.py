"""The `stub` workflow: the smallest complete workflow, for tests and as a template.

It judges nothing itself: verdicts come from ``workflow_config.stub`` in rubric.json::

    {"stub": {"levels": {"W1": 0.55}, "hits": {"W2": true}, "na": ["W3"],
              "raise": false, "sleep_sec": 0, "write_page": false}}

``levels`` are snapped to the 21-step grid; ``na`` rows go through `apply_na_policy`;
rows mentioned nowhere are left out (the router fills them in). Every reason names the
deck the code segment located (``deck=<deck_rel>``), and ``write_page`` writes a page
image to ``evidence/pages/stub/`` the way a rendering workflow does, so tests can see
that all segments judge the same file. ``raise`` and ``sleep_sec`` exercise the router's
failure isolation and budget.
"""

from __future__ import annotations

import time
from typing import Any

from cowork_judge.workflow._contract import (
    apply_na_policy,
    hit_row,
    level_row,
    unjudged_row,
)

REQUIRES_ABI = 1



def _png_1px() -> bytes:
    """A valid 1×1 white PNG (built with zlib: no image library needed)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b"")


def run(criteria: list[Any], ctx: dict[str, Any], budget_sec: float) -> list[Any]:
    """Return the configured verdicts (see module docstring)."""
    config = ctx.get("workflow_config") or {}
    if config.get("raise"):
        raise RuntimeError("stub workflow asked to raise")
    sleep = float(config.get("sleep_sec", 0) or 0)
    if sleep:
        cancel = ctx.get("cancel")
        if cancel is not None:  # the way a real workflow waits: it stops when the router says so
            if cancel.wait(sleep):
                return []
        else:
            time.sleep(min(sleep, budget_sec + 5))
    if config.get("write_page"):
        pages = ctx["evidence_dir"] / "pages" / "stub"
        pages.mkdir(parents=True, exist_ok=True)
        (pages / "page-001.png").write_bytes(_png_1px())
    deck = f" (deck={ctx['artifacts'].get('deck_rel')})"
    levels = config.get("levels", {})
    hits = config.get("hits", {})
    na = set(config.get("na", []))
    out = []
    for c in criteria:
        if c.id in na:
            value = apply_na_policy([None], c.na_policy)
            out.append(unjudged_row(c.id, "not_applicable", "all pages N/A") if value is None else level_row(c.id, value, f"all pages N/A → {c.na_policy}{deck}"))
        elif c.id in levels:
            out.append(level_row(c.id, float(levels[c.id]), f"stub level{deck}"))
        elif c.id in hits:
            value = hits[c.id]
            if not isinstance(value, bool):
                raise TypeError(f"workflow_config.stub.hits.{c.id} must be true or false, got {value!r}")
            out.append(hit_row(c.id, value, f"stub hit{deck}"))
    return out
