"""The built-in `openai` backend: an agent loop over Chat Completions with workspace tools.

One ATTEMPT judges one block: system + first user message, then up to
``JUDGE_MAX_TURNS`` model turns; tool calls run against the block workspace; the turn
without tool calls is parsed as the verdict reply (structured output via json_schema,
plain JSON when the endpoint rejects ``response_format``). Retries, time limits and
resplit are the scheduler's job. Every text sent is valid Unicode: agent text is repaired
where it is read (`agent_text`), the model's own replies before they are sent back.

A turn the endpoint refuses AT ADMISSION (HTTP 429: a random refusal or the key's limit)
does not fail the attempt: the scheduler's `Resender` re-sends it in place after the
server's ask (the same conversation, the same attempt; the wait is not attempt time and
the block's lane serves another block meanwhile; `agentic.scheduler`). An attempt that
fails on a model call otherwise (5xx, timeout, an error inside the stream, cancellation)
leaves its conversation to the next attempt of the same block, which re-sends that call
instead of starting over: turns already answered (and their tool results) are not paid for
again. An attempt that ends with an unusable reply starts the next one afresh.
"""

from __future__ import annotations

import asyncio

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge.safety.agent_text import repair
from cowork_judge.agentic.base import Attempted, Resender
from cowork_judge.agentic.block_prompt import (
    UNQUOTABLE,
    evidence_texts,
    fence,
    final_turn_message,
    first_user_message,
    rows_block,
    system_message,
)
from cowork_judge.agentic.tools import TOOL_SCHEMAS, WorkspaceTools
from cowork_judge.core.rubric import Criterion
from cowork_judge.core import grounding
from cowork_judge.core.verdicts import parse_reply, verdict_schema
from cowork_judge.segment.segment_context import SegmentContext
from cowork_judge.transport.audit_view import audit_view
from cowork_judge.transport.attempts import ModelCalls
from cowork_judge.transport.chat import ChatReply, ResponseFormatRejected


@dataclass
class _Conversation:
    """A block's conversation left by a failed model call: the messages, and the turn to make."""

    messages: list[dict[str, Any]]
    turn: int


class OpenAIAgentBackend:
    """Agentic backend over an OpenAI-compatible endpoint (built in; no CLI needed).

    Args:
        transport: the run's model-call path (`transport.attempts.ModelCalls`: each turn is
            one request under its own limiter ticket, on the run's one HTTP client).
        ctx: the run context (instruction, task prompt, audit, limits).
    """

    name = "openai"
    resends_in_place = True
    """Each turn goes through the scheduler's `Resender` (a refused turn is re-sent in place)."""

    def __init__(self, transport: ModelCalls, ctx: SegmentContext) -> None:
        self.transport = transport
        self.ctx = ctx
        self.structured = True  # flips to False for the whole run when the endpoint rejects it
        self._resume: dict[str, _Conversation] = {}  # block name → conversation to resume

    @classmethod
    def open(cls, ctx: SegmentContext) -> OpenAIAgentBackend:
        """The backend of one run over the run's model-call path (`ctx.calls`).

        Raises:
            ValueError: no credentials (the caller checks them before judging).
        """
        if not ctx.calls.has_credentials:
            raise ValueError("the openai backend needs JUDGE_API_KEY and JUDGE_BASE_URL")
        return cls(ctx.calls, ctx)

    async def close(self) -> None:
        """Forget the conversations left to resume (the HTTP client is the run's: closed
        with its call path, `transport.attempts.ModelCalls.opened`)."""
        self._resume.clear()

    async def attempt(self, block_name: str, rows: Sequence[Criterion], workspace: Path, *, attempt_no: int, timeout_at: float,
                      resend: Resender | None = None) -> Attempted:
        """Judge `rows` once; returns the parsed outcome (possibly all `parse_error`).

        Args:
            block_name: audit name of the block (``block-01``, ``block-01-r2``…).
            rows: the rows of the block.
            workspace: the block workspace (tools are confined to it).
            attempt_no: 1-based attempt number, for the audit.
            timeout_at: monotonic time by which this attempt must end (without `resend`).
            resend: the scheduler's `Resender`: every turn's request goes through it (a
                refusal at admission is re-sent in place; the attempt's end is its
                ``timeout_at``, later after each wait). None: each turn is sent once.

        Raises:
            Transport errors (classified by the scheduler), ``asyncio.TimeoutError``,
            ``transport.retrying.Ending`` (the in-place re-sends of a turn ended).
        """
        tools = WorkspaceTools(workspace)
        schema = verdict_schema(rows, quote=True)
        audit_name = f"{block_name}/attempt-{attempt_no}"
        messages, first_turn = self._conversation(block_name, rows, workspace, schema, attempt_no=attempt_no)
        max_turns = self.ctx.settings.max_turns
        sent = 0
        for turn in range(first_turn, max_turns + 1):
            last = turn == max_turns
            if last and turn > 1 and messages[-1].get("content") != final_turn_message():
                messages.append({"role": "user", "content": final_turn_message()})
            try:
                if resend is None:
                    reply = await self._call(messages, rows, workspace, schema, use_tools=not last, timeout_at=timeout_at)
                else:
                    reply = await resend.send(lambda: self._call(messages, rows, workspace, schema, use_tools=not last,
                                                                 timeout_at=resend.timeout_at), turn=turn)
            except BaseException:  # a transport failure, a timeout, a cancellation: resume here next time
                self._resume[block_name] = _Conversation(list(messages), turn)
                raise
            self.ctx.audit.append(audit_name, {"turn": turn, "request": audit_view(messages[sent:]), "reply": reply.__dict__})
            sent = len(messages)
            if reply.tool_calls and not last:
                await self._use_tools(tools, reply, messages, turn=turn)
                continue
            outcome = parse_reply(reply.content, rows)
            evidence = grounding.evidence_of(evidence_texts(messages))
            outcome.verdicts = grounding.ground(rows, outcome.verdicts, evidence)
            self.ctx.audit.append(
                audit_name,
                {"turn": turn, "parsed": {"step": outcome.step, "problems": outcome.problems,
                                          "verdicts": {k: v.model_dump(mode="json") for k, v in outcome.verdicts.items()}}},
            )
            missing = grounding.ungrounded(outcome.verdicts)
            if missing:  # asked again once, in the same conversation, for those rows only
                asked = [c for c in rows if c.id in missing]
                messages.append({"role": "assistant", "content": repair(reply.content or "")})
                messages.append({"role": "user", "content": grounding.reask_text(
                    {k: v for k, v in outcome.verdicts.items() if k in missing}) + "\n\n" + rows_block(asked)})
                try:
                    again = await self._call(messages, asked, workspace, verdict_schema(asked, quote=True), use_tools=False,
                                             timeout_at=timeout_at)
                    second = grounding.ground(asked, parse_reply(again.content, asked).verdicts, evidence)
                except (Exception, asyncio.TimeoutError) as exc:  # the first answers stand, recorded ungrounded
                    self.ctx.log.warning("%s: the grounding re-ask failed (%s); its rows stay ungrounded", block_name,
                                         type(exc).__name__)
                    second = {}
                outcome.verdicts = grounding.settle_reasked(outcome.verdicts, second)
                self.ctx.audit.append(audit_name, {"turn": turn + 1, "regrounded": {
                    k: outcome.verdicts[k].model_dump(mode="json") for k in missing}})
            return Attempted(outcome)  # its requests were counted by the run's call path
        raise AssertionError("unreachable: the last turn always returns")  # pragma: no cover

    def _conversation(self, block_name: str, rows: Sequence[Criterion], workspace: Path, schema: dict[str, Any], *,
                      attempt_no: int) -> tuple[list[dict[str, Any]], int]:
        """The messages an attempt starts from and its first turn: the block's conversation at
        the turn whose call failed in its last attempt (re-sent), else a new one at turn 1."""
        saved = self._resume.pop(block_name, None) if attempt_no > 1 else None
        if saved is not None:  # the last attempt failed on a model call: re-send that call
            self.ctx.audit.append(f"{block_name}/attempt-{attempt_no}", {"resumed_at_turn": saved.turn,
                                                                          "messages": len(saved.messages)})
            return saved.messages, saved.turn
        return [
            {"role": "system", "content": system_message(self.ctx.instruction)},
            {"role": "user", "content": self._opening(rows, workspace, schema)},
        ], 1

    async def _use_tools(self, tools: WorkspaceTools, reply: ChatReply, messages: list[dict[str, Any]], *, turn: int) -> None:
        """Answer the tool calls of `reply` (turn `turn`): the reply, then each call's output
        (redacted, fenced), then the images asked for with view_image, appended to `messages`."""
        assert reply.tool_calls
        # the reply goes back in the next request: repaired, since a model that
        # quotes a deliverable can return half an emoji as a JSON escape
        messages.append(
            {
                "role": "assistant",
                "content": repair(reply.content) if reply.content else None,
                "tool_calls": [
                    {"id": tc["id"] or f"call_{turn}_{n}", "type": "function",
                     "function": {"name": repair(tc["name"] or ""), "arguments": repair(tc["arguments"] or "{}")}}
                    for n, tc in enumerate(reply.tool_calls)
                ],
            }
        )
        images: list[dict[str, Any]] = []
        for n, tc in enumerate(reply.tool_calls):
            result = await tools.call_detached(tc["name"], tc["arguments"])
            messages.append(
                {"role": "tool", "tool_call_id": tc["id"] or f"call_{turn}_{n}", "content": fence("tool_output", self.ctx.redactor.redact(result.text),
                                                                            **({} if result.quotable else UNQUOTABLE))}
            )
            if result.image_data_url:
                images.append({"type": "image_url", "image_url": {"url": result.image_data_url}})
        if images:
            messages.append({"role": "user", "content": [{"type": "text", "text": "Images requested with view_image:"}, *images]})

    def _opening(self, rows: Sequence[Criterion], workspace: Path, schema: dict[str, Any]) -> str:
        """The block's first user message; the answer schema is spelled out only without
        structured output (it goes in the block's tail, after the run's shared prefix)."""
        return first_user_message(rows, workspace, self.ctx.task_prompt, self.ctx.delivery.final_message,
                                  redact=self.ctx.redactor.redact, schema=None if self.structured else schema,
                                  unread=getattr(self.ctx.delivery, "unreadable", ()))

    async def _call(self, messages: list[dict[str, Any]], rows: Sequence[Criterion], workspace: Path, schema: dict[str, Any], *,
                    use_tools: bool, timeout_at: float) -> Any:
        """One turn's reply (a `transport.chat.ChatReply`, as `ModelCalls.chat` gives it); a
        rejected ``response_format`` turns structured replies off and asks again in plain JSON."""
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
            messages[1] = {"role": "user", "content": self._opening(rows, workspace, schema)}
            timeout = max(0.05, timeout_at - time.monotonic())
            return await self.transport.chat(
                messages, timeout_sec=timeout, tools=TOOL_SCHEMAS if use_tools else None, tool_choice="auto" if use_tools else None
            )

