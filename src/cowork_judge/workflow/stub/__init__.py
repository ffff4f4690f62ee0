"""The `stub` workflow: the smallest complete workflow (ABI 2), for tests and as a template.

Scripted verdicts come from ``workflow_config.stub`` in rubric.json; rows listed in
``ask`` are judged by ONE real model call through the run's transport (``ctx.transport``:
counted in ``judge_calls``, audited under ``judge/workflow-stub/``, held to the global
in-flight limit)::

    {"stub": {"levels": {"W1": 0.55}, "hits": {"W2": true}, "na": ["W3"], "ask": ["W4"],
              "parallel": 1, "raise": false, "sleep_sec": 0, "write_page": false}}

``levels`` are snapped to the 21-step grid; ``na`` rows go through `apply_na_policy`;
``ask`` rows get the verdict of the model's reply (parsed with the engine's five-step
recovery; the parsed levels are audited); ``parallel`` sends that same request N times at
once from N threads and keeps the first reply — a way to watch the global in-flight limit
at the endpoint; rows mentioned nowhere are left out (the runner fills them in). Every
reason names the deck the code segment located (``deck=<deck_rel>``), and ``write_page``
writes a page image to ``evidence/pages/stub/`` the way a rendering workflow does.
``raise`` and ``sleep_sec`` exercise the runner's failure isolation and budget.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cowork_judge.core.verdicts import Verdict, parse_reply, verdict_schema
from cowork_judge.workflow._contract import (
    ModelCallFailed,
    WorkflowContext,
    apply_na_policy,
    hit_row,
    level_row,
    unjudged_row,
)

REQUIRES_ABI = 2
REQUIRES_EXTRAS: tuple[str, ...] = ()
"""pip extras this workflow needs: none (`install.extras`)."""


def _png_1px() -> bytes:
    """A valid 1×1 white PNG (built with zlib: no image library needed)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b"")


def run(criteria: list[Any], ctx: WorkflowContext, budget_sec: float) -> list[Any]:
    """Return the configured verdicts and the model's for ``ask`` rows (see the module docstring)."""
    config = ctx.settings
    if config.get("raise"):
        raise RuntimeError("stub workflow asked to raise")
    sleep = float(config.get("sleep_sec", 0) or 0)
    if sleep and ctx.cancel.wait(sleep):  # the way a real workflow waits: it stops when told to
        return []
    if config.get("write_page"):
        pages = ctx.evidence_dir / "pages" / "stub"
        pages.mkdir(parents=True, exist_ok=True)
        (pages / "page-001.png").write_bytes(_png_1px())
    deck = f" (deck={ctx.deck.rel if ctx.deck else None})"
    levels = config.get("levels", {})
    hits = config.get("hits", {})
    na = set(config.get("na", []))
    asked = [c for c in criteria if c.id in set(config.get("ask", []))]
    out: list[Verdict] = _ask_model(asked, ctx, int(config.get("parallel", 1) or 1)) if asked else []
    for c in criteria:
        if c.id in na:
            value = apply_na_policy([None], c.workflow.na_policy)
            out.append(unjudged_row(c.id, "not_applicable", "all pages N/A") if value is None else level_row(c.id, value, f"all pages N/A → {c.workflow.na_policy}{deck}"))
        elif c.id in levels:
            out.append(level_row(c.id, float(levels[c.id]), f"stub level{deck}"))
        elif c.id in hits:
            value = hits[c.id]
            if not isinstance(value, bool):
                raise TypeError(f"workflow_config.stub.hits.{c.id} must be true or false, got {value!r}")
            out.append(hit_row(c.id, value, f"stub hit{deck}"))
    return out


def _ask_model(rows: list[Any], ctx: WorkflowContext, parallel: int) -> list[Verdict]:
    """One model call judging `rows` (sent `parallel` times at once); their verdicts."""
    rows_json = json.dumps([c.for_judge() for c in rows], ensure_ascii=False).replace("<", "\\u003c")
    messages = [
        {"role": "system", "content": "You judge rubric rows of a finished task. Answer with JSON verdicts only."},
        {"role": "user", "content": f"Judge these rows.\n<rubric_rows>\n{rows_json}\n</rubric_rows>"},
    ]
    schema = verdict_schema(rows)
    response_format = {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": schema, "strict": True}}

    def call(n: int) -> Any:
        return ctx.transport.complete(messages, label=f"ask-{n}", response_format=response_format)

    try:
        with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="stub-ask") as pool:
            replies = list(pool.map(call, range(1, max(1, parallel) + 1)))
    except ModelCallFailed as exc:
        return [unjudged_row(c.id, exc.kind, f"the model call failed: {exc}") for c in rows]
    outcome = parse_reply(replies[0].text, rows, method="workflow")
    ctx.audit.append("parsed", {"step": outcome.step, "problems": outcome.problems,
                                "levels": {k: v.level for k, v in outcome.verdicts.items()},
                                "hits": {k: v.hit for k, v in outcome.verdicts.items()}})
    return list(outcome.verdicts.values())
