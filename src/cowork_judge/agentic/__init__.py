"""Agentic judging: rows that an agent judges by reading the deliverables (SPEC §10).

`judge_agentic` is the segment entry used by the router; backends live in their own
modules (`openai_agent` is built in) and share the `scheduler`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from cowork_judge.agentic.base import AgentBackend, CostModel
from cowork_judge.agentic.openai_agent import OpenAIAgentBackend
from cowork_judge.agentic.scheduler import judge_blocks
from cowork_judge.run.context import RunContext
from cowork_judge.transport.chat import Transport
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict

BACKEND_COST_MODELS: dict[str, CostModel] = {
    "openai": OpenAIAgentBackend.cost_model,
    "codex": CostModel(fixed_sec=100.0, per_row_sec=3.0),
    "claude": CostModel(fixed_sec=100.0, per_row_sec=3.0),
}
"""Declared attempt cost per backend (seconds), used for the router's budget reserve."""


def judge_agentic(rows: Sequence[Criterion], ctx: RunContext) -> dict[str, Verdict]:
    """Judge `rows` with the configured backend; exactly one verdict per row.

    A backend that cannot run here leaves every row unjudged ``backend_missing``.
    Requires credentials in ``ctx.config`` (the caller checks them first).
    """
    if not rows:
        return {}
    backend_name = ctx.config.backend
    if backend_name != "openai":
        reason = f"JUDGE_BACKEND={backend_name!r} is not available in this version; use 'openai'"
        return {c.id: Verdict.unjudged(c.id, "backend_missing", reason) for c in rows}
    return asyncio.run(_run_openai(rows, ctx))


async def _run_openai(rows: Sequence[Criterion], ctx: RunContext) -> dict[str, Verdict]:
    assert ctx.config.api_key is not None and ctx.config.base_url
    transport = Transport(
        api_key=ctx.config.api_key.get_secret_value(),
        base_url=ctx.config.base_url,
        model=ctx.config.model,
        stats=ctx.stats,
    )
    backend: AgentBackend = OpenAIAgentBackend(transport, ctx)
    try:
        return await judge_blocks(rows, ctx, backend)
    finally:
        try:
            await asyncio.wait_for(transport.close(), timeout=2.0)
        except Exception:  # closing must never cost the run its verdicts
            pass


__all__ = ["judge_agentic", "BACKEND_COST_MODELS", "CostModel"]
