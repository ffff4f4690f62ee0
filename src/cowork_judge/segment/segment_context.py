"""What a segment (code methods, workflows, the agentic backends) gets from the run: one
frozen, typed `SegmentContext`.

The router (`engine.router.route`) builds it from the run's own state
(`run.context.RunContext.segment`) and hands it down once: once to the code segment, once,
after merging what the code rows found, to the workflow and the agentic segments. A segment
only reads it and RETURNS what it found (the code segment its verdicts, located deck,
artifacts and notes: `code_methods.code_rows.CodeSegment`, carrying them from row to row
itself in a copy of its context; workflows and agentic blocks their verdicts); the router
merges each segment's outcome once. Nothing a segment gets reaches the API key or the whole configuration: the
settings are the few knobs the segments read (`SegmentSettings`), and model calls go through
the run's one model-call path (`calls`, which holds the key in closures only).

Importing this module loads no model client (a code-only run's start-up).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from cowork_judge.core.retry import RetryPolicy
from cowork_judge.safety.redact import Redactor
from cowork_judge.segment.audit import AuditLog
from cowork_judge.segment.deadline import Deadline
from cowork_judge.segment.delivery import Delivery, LocatedDeck
from cowork_judge.segment.judges import SamplingPlan
from cowork_judge.core.layout import RunFolders
from cowork_judge.segment.segment_settings import SegmentSettings
from cowork_judge.transport.attempts import ModelCalls
from cowork_judge.transport.stats import CallStats

NOTHING: Mapping[str, Any] = MappingProxyType({})
"""An empty read-only mapping (no artifacts yet, no workflow settings)."""


@dataclass(frozen=True)
class SegmentContext:
    """Everything a segment may read about one run (see the module docstring).

    Attributes:
        paths: where to read and write (`RunFolders`).
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
        deck: the deck the code rows located (`segment.delivery.LocatedDeck`), None when none was.
        artifacts: anything else earlier code rows found, read-only (the located deck is `deck`).
        deck_locators: ids of the rubric's ``locate_deck`` rows (set by the code segment); empty:
            the rubric has none, and a deck check without ``path`` locates the deck itself.
        workflow_config: ``rubric.json → workflow_config`` (name → settings), read-only.
        sampling: who judges and how often when rows are sampled or judged by a panel
            (JUDGE_SAMPLES > 1, JUDGE_PANEL: `segment.judges.SamplingPlan`, each judge with its
            call path); None: one judge asks every row once.
    """

    paths: RunFolders
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
    deck: LocatedDeck | None = None
    artifacts: Mapping[str, Any] = field(default_factory=lambda: NOTHING)
    deck_locators: tuple[str, ...] = ()
    workflow_config: Mapping[str, Any] = field(default_factory=lambda: NOTHING)
    sampling: SamplingPlan | None = None
