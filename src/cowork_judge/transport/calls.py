"""The model-call contract every segment shares: what one call returns (`ModelReply`), how it
fails (`ModelCallFailed`), the transport a workflow calls (`ModelCaller`) and the audit sink
(`AuditSink`). Below the transport and the segments, so neither imports the other for it;
`cowork_judge.workflow._contract` re-exports these names for workflow packages (ABI 2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from cowork_judge.core.error_kinds import JudgeFailure


GATEWAY_NO_AUTH_KEY = "cowork-judge-gateway-supplies-the-key"
"""The stand-in API key of ``JUDGE_GATEWAY_AUTH=none``: the transport sends no Authorization header for it."""
GATEWAY_PLACEHOLDER_KEY = "cowork-judge-gateway-placeholder-key"
"""The stand-in API key of ``JUDGE_GATEWAY_AUTH=placeholder``: sent as ``Bearer <it>`` for the gateway to replace."""

@dataclass(frozen=True)
class ModelReply:
    """One model answer: its text, token usage, and how many attempts it took."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 1


class ModelCallFailed(JudgeFailure):
    """A model call failed after the retry policy gave up; `kind` says why (``rate_limit``,
    ``timeout``, ``api_error``, ``deadline``, ``interrupted``…)."""


class ModelCaller(Protocol):
    """The model transport of a workflow (implemented by the run; see the module docstring).

    Attributes:
        limit: the run's in-flight limit (JUDGE_WORKFLOW_CONCURRENCY): more threads than
            this only queue at the transport.
    """

    limit: int

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        label: str,
        response_format: dict[str, Any] | None = None,
        timeout_sec: float | None = None,
    ) -> ModelReply:
        """Send one Chat Completions request (retried per the failure table).

        Args:
            messages: OpenAI chat messages (text and ``image_url`` parts).
            label: audit name of the call (e.g. ``page-03/layout``).
            response_format: e.g. a ``json_schema`` format; dropped (with a warning) if the
                endpoint rejects structured output.
            timeout_sec: per-attempt limit, at most ``JUDGE_PER_TIMEOUT`` (default).

        Raises:
            ModelCallFailed: the policy gave up, the deadline passed or ``cancel`` was set.
        """
        ...


class AuditSink(Protocol):
    """The workflow's part of the ``judge/`` audit folder (everything written is redacted)."""

    def append(self, name: str, record: dict[str, Any]) -> None:
        """Append one JSON record to ``<name>.jsonl``; never raises."""
        ...


__all__ = ["AuditSink", "ModelCallFailed", "ModelCaller", "ModelReply"]
