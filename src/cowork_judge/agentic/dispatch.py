"""The `agentic` segment's entry: judge rows with the configured backend (SPEC §10).

The backend comes from the registry (`config.backends`); its implementation, and the
model client with it, is imported only here and only when agentic rows exist.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

from cowork_judge.agentic.base import AgentBackend
from cowork_judge.agentic.scheduler import judge_blocks
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.config.backends import backend_spec, load_backend_class
from cowork_judge.segment.segment_context import SegmentContext


def judge_agentic(rows: Sequence[Criterion], ctx: SegmentContext) -> dict[str, Verdict]:
    """Judge `rows` with the configured backend; exactly one verdict per row.

    A backend this version does not ship, or whose implementation fails to import, leaves
    every row unjudged ``backend_missing``. Requires credentials in the run's call path
    (``ctx.calls``; the caller checks them first). Model calls go through the run's call path (``ctx.calls``)
    and each judge's, which the caller holds open (`segment.judges.calls_opened`: the router, or the
    engine around it); the segment opens no scope of its own.
    """
    if not rows:
        return {}
    spec = backend_spec(ctx.settings.backend)
    try:
        # the registry (run.backends.BACKENDS) names AgentBackend classes only; loaded by name
        backend_class = cast("type[AgentBackend]", load_backend_class(spec))
    except ImportError as exc:
        reason = f"{exc}; use one of: {', '.join(n for n in _available())}"
        return {c.id: Verdict.unjudged(c.id, "backend_missing", reason) for c in rows}
    if ctx.sampling is not None:  # JUDGE_SAMPLES > 1 or JUDGE_PANEL: the sampling layer over the same blocks
        from cowork_judge.agentic.sampled_blocks import judge_sampled

        return asyncio.run(judge_sampled(rows, ctx, backend_class))
    return asyncio.run(_judge(rows, ctx, backend_class))


def _available() -> list[str]:
    from cowork_judge.config.backends import BACKENDS

    return [name for name, spec in BACKENDS.items() if spec.available]


async def _judge(rows: Sequence[Criterion], ctx: SegmentContext, backend_class: type[AgentBackend]) -> dict[str, Verdict]:
    backend = backend_class.open(ctx)
    try:
        return await judge_blocks(rows, ctx, backend)
    finally:
        try:
            await asyncio.wait_for(backend.close(), timeout=2.0)
        except Exception:  # noqa: BLE001 - closing must never cost the run its verdicts
            pass
