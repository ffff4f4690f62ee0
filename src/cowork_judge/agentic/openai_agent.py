"""The built-in `openai` backend: an agent loop over Chat Completions with workspace tools.

One ATTEMPT judges one block: system + first user message, then up to
``JUDGE_MAX_TURNS`` model turns; tool calls run against the block workspace; the turn
without tool calls is parsed as the verdict reply (structured output via json_schema,
plain JSON when the endpoint rejects ``response_format``). Retries, time limits and
resplit are the scheduler's job.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cowork_judge.agentic.prompt import (
    fence,
    final_turn_message,
    first_user_message,
    system_message,
)
from cowork_judge.agentic.tools import TOOL_SCHEMAS, WorkspaceTools
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import ParseOutcome, parse_reply, verdict_schema
from cowork_judge.run.context import RunContext
from cowork_judge.transport.audit import audit_view
from cowork_judge.transport.chat import ResponseFormatRejected, Transport


class OpenAIAgentBackend:
    """Agentic backend over an OpenAI-compatible endpoint (built in; no CLI needed).

    Args:
        transport: the endpoint.
        ctx: the run context (instruction, task prompt, audit, limits).
    """

    name = "openai"

    def __init__(self, transport: Transport, ctx: RunContext) -> None:
        self.transport = transport
        self.ctx = ctx
        self.structured = True  # flips to False for the whole run when the endpoint rejects it

    @classmethod
    def open(cls, ctx: RunContext) -> OpenAIAgentBackend:
        """The backend of one run over the configured endpoint.

        Raises:
            ValueError: no credentials (the caller checks them before judging).
        """
        config = ctx.config
        if config.api_key is None or not config.base_url:
            raise ValueError("the openai backend needs JUDGE_API_KEY and JUDGE_BASE_URL")
        transport = Transport(api_key=config.api_key.get_secret_value(), base_url=config.base_url, model=config.model,
                              stats=ctx.stats, limiter=ctx.limiter)
        return cls(transport, ctx)

    async def close(self) -> None:
        """Close the HTTP client."""
        await self.transport.close()

    async def attempt(self, block_name: str, rows: Sequence[Criterion], workspace: Path, *, attempt_no: int, timeout_at: float) -> ParseOutcome:
        """Judge `rows` once; returns the parsed outcome (possibly all `parse_error`).

        Args:
            block_name: audit name of the block (``block-01``, ``block-01-r2``…).
            rows: the rows of the block.
            workspace: the block workspace (tools are confined to it).
            attempt_no: 1-based attempt number, for the audit.
            timeout_at: monotonic time by which this attempt must end.

        Raises:
            Transport errors (classified by the scheduler), ``asyncio.TimeoutError``.
        """
        tools = WorkspaceTools(workspace)
        schema = verdict_schema(rows)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_message(self.ctx.instruction, structured=self.structured, schema=schema)},
            {"role": "user", "content": first_user_message(rows, workspace, self.ctx.task_prompt, self.ctx.delivery.final_message, redact=self.ctx.redactor.text)},
        ]
        audit_name = f"{block_name}/attempt-{attempt_no}"
        max_turns = self.ctx.config.max_turns
        sent = 0
        for turn in range(1, max_turns + 1):
            last = turn == max_turns
            if last and turn > 1:
                messages.append({"role": "user", "content": final_turn_message()})
            reply = await self._call(messages, schema, use_tools=not last, timeout_at=timeout_at)
            self.ctx.audit.append(audit_name, {"turn": turn, "request": audit_view(messages[sent:]), "reply": reply.__dict__})
            sent = len(messages)
            if reply.tool_calls and not last:
                messages.append(
                    {
                        "role": "assistant",
                        "content": reply.content or None,
                        "tool_calls": [
                            {"id": tc["id"] or f"call_{turn}_{n}", "type": "function", "function": {"name": tc["name"], "arguments": tc["arguments"] or "{}"}}
                            for n, tc in enumerate(reply.tool_calls)
                        ],
                    }
                )
                images: list[dict[str, Any]] = []
                for n, tc in enumerate(reply.tool_calls):
                    result = await tools.call_detached(tc["name"], tc["arguments"])
                    messages.append(
                        {"role": "tool", "tool_call_id": tc["id"] or f"call_{turn}_{n}", "content": fence("tool_output", self.ctx.redactor.text(result.text))}
                    )
                    if result.image_data_url:
                        images.append({"type": "image_url", "image_url": {"url": result.image_data_url}})
                if images:
                    messages.append({"role": "user", "content": [{"type": "text", "text": "Images requested with view_image:"}, *images]})
                continue
            outcome = parse_reply(reply.content, rows)
            self.ctx.audit.append(
                audit_name,
                {"turn": turn, "parsed": {"step": outcome.step, "problems": outcome.problems,
                                          "verdicts": {k: v.model_dump(mode="json") for k, v in outcome.verdicts.items()}}},
            )
            return outcome
        raise AssertionError("unreachable: the last turn always returns")  # pragma: no cover

    async def _call(self, messages: list[dict[str, Any]], schema: dict[str, Any], *, use_tools: bool, timeout_at: float):
        response_format = (
            {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": schema, "strict": True}} if self.structured else None
        )
        timeout = max(0.05, timeout_at - time.monotonic())
        try:
            return await self.transport.chat(
                messages,
                timeout_sec=timeout,
                tools=TOOL_SCHEMAS if use_tools else None,
                tool_choice="auto" if use_tools else None,
                response_format=response_format,
            )
        except ResponseFormatRejected:
            self.structured = False
            self.ctx.log.warning("the endpoint rejected response_format; falling back to plain JSON replies")
            messages[0] = {"role": "system", "content": system_message(self.ctx.instruction, structured=False, schema=schema)}
            timeout = max(0.05, timeout_at - time.monotonic())
            return await self.transport.chat(
                messages, timeout_sec=timeout, tools=TOOL_SCHEMAS if use_tools else None, tool_choice="auto" if use_tools else None
            )

