"""What a segment (code methods, workflows, the agentic backends) gets from the run: one
frozen, typed `SegmentContext`.

The engine (`engine.judge`, `engine.router`) builds it from the run's own state
(`run.context.RunContext.segment`) before each segment — and before each code row, with
the artifacts of the rows before it merged in. A segment only reads it and RETURNS what it
found (a code row its verdict, artifacts and notes: `code_methods.runner.CodeOutcome`;
workflows and agentic blocks their verdicts); the engine merges the outcomes and builds the
next context. Nothing a segment gets reaches the API key or the whole configuration: the
settings are the few knobs the segments read (`SegmentSettings`), and model calls go through
the run's one model-call path (`calls`, which holds the key in closures only).

Importing this module loads no model client (a code-only run's start-up).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from cowork_judge.core.retry import RetryPolicy
from cowork_judge.redact import Redactor
from cowork_judge.segment.audit import AuditLog
from cowork_judge.segment.delivery import Delivery
from cowork_judge.segment.paths import SegmentPaths
from cowork_judge.transport.attempts import ModelCalls
from cowork_judge.transport.stats import CallStats

NOTHING: Mapping[str, Any] = MappingProxyType({})
"""An empty read-only mapping (no artifacts yet, no workflow settings)."""


@dataclass(frozen=True)
class Deadline:
    """The run's wall-clock limit on the monotonic clock (seconds)."""

    at: float

    @classmethod
    def after(cls, seconds: float, *, start: float | None = None) -> Deadline:
        """A deadline `seconds` after `start` (default: now)."""
        return cls((time.monotonic() if start is None else start) + seconds)

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.at - time.monotonic()

    def passed(self) -> bool:
        """True once the deadline is reached."""
        return self.remaining() <= 0


@dataclass(frozen=True)
class SegmentSettings:
    """The knobs the segments read, copied from the run's configuration (`run.config.JudgeConfig`,
    the one home of their defaults and meanings; the environment variable is named in each
    line). No key, nothing else of the configuration.

    Attributes:
        backend: JUDGE_BACKEND, the agentic backend's name.
        model: JUDGE_MODEL; base_url: JUDGE_BASE_URL (an agent CLI's endpoint).
        batch: JUDGE_BATCH; concurrency: JUDGE_CONCURRENCY; start_jitter_sec: JUDGE_START_JITTER.
        per_timeout_sec: JUDGE_PER_TIMEOUT, seconds per attempt (call).
        resplit: JUDGE_RESPLIT; max_turns: JUDGE_MAX_TURNS; aux_files: JUDGE_AUX_FILES.
        code_timeout_sec: JUDGE_CODE_TIMEOUT, seconds per code method.
        soffice: JUDGE_SOFFICE_PATH; chromium: JUDGE_CHROMIUM_PATH.
        workflow_concurrency: JUDGE_WORKFLOW_CONCURRENCY; workflow_start_jitter_sec:
            JUDGE_WORKFLOW_START_JITTER.
    """

    backend: str
    model: str
    base_url: str | None
    batch: int
    concurrency: int
    per_timeout_sec: float
    resplit: bool
    start_jitter_sec: float
    max_turns: int
    aux_files: tuple[str, ...]
    code_timeout_sec: float
    soffice: str | None
    chromium: str | None
    workflow_concurrency: int
    workflow_start_jitter_sec: float

    @property
    def block_budget_sec(self) -> float:
        """Seconds of attempt time one block may take: 2 × JUDGE_PER_TIMEOUT (SPEC §11)."""
        return 2.0 * self.per_timeout_sec


@dataclass(frozen=True)
class SegmentContext:
    """Everything a segment may read about one run (see the module docstring).

    Attributes:
        paths: where to read and write (`SegmentPaths`).
        settings: the knobs the segments read (`SegmentSettings`).
        instruction: the judge instruction text; task_prompt: ``task_prompt.md`` ("" when absent).
        delivery: what the agent handed in (`segment.delivery.Delivery`).
        deadline: the run's JUDGE_DEADLINE.
        redactor: secret redaction for everything written or sent.
        audit: the run's ``judge/`` audit folder.
        calls: the run's one model-call path (`transport.attempts.ModelCalls`: the HTTP
            client, the limiter's tickets); stats: its call/token/failure counters.
        retry: the retry policy (failure table, JUDGE_MAX_TRIES, JUDGE_RETRY_BACKOFF_MAX).
        rng: the run's random source (jitter, backoff; seeded in tests).
        log: the run's logger.
        artifacts: what earlier code rows found (``deck_path``, ``deck_rel``, ``deck_kind``…),
            read-only.
        workflow_config: ``rubric.json → workflow_config`` (name → settings), read-only.
    """

    paths: SegmentPaths
    settings: SegmentSettings
    instruction: str
    task_prompt: str
    delivery: Delivery
    deadline: Deadline
    redactor: Redactor
    audit: AuditLog
    calls: ModelCalls
    stats: CallStats
    retry: RetryPolicy
    rng: random.Random = field(default_factory=random.Random)
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("cowork_judge"))
    artifacts: Mapping[str, Any] = field(default_factory=lambda: NOTHING)
    workflow_config: Mapping[str, Any] = field(default_factory=lambda: NOTHING)
