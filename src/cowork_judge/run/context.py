"""The run context: the run's own state, held by the engine (`engine.judge`, `engine.router`).

Built once by `engine.judge` after delivery is known; passed down, never global. The
segments never get it: the router builds a frozen `segment.segment_context.SegmentContext`
from it (`RunContext.segment`) once for the code segment and once for the model segments
after it, and merges each segment's outcome here once (the located deck, `artifacts`, the
delivery's notes). Importing it loads no model client: a code-only run never imports
``openai``.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from cowork_judge.config.backends import backend_spec
from cowork_judge.core.budgets import agentic_reserve, workflow_budget
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.core.simulated import builtin_simulator
from cowork_judge.safety.redact import Redactor
from cowork_judge.config.judge_config import JudgeConfig
from cowork_judge.run.sampling_plan import sample_temperature, sampling_plan
from cowork_judge.run.paths import RunPaths
from cowork_judge.segment.audit import AuditLog
from cowork_judge.segment.segment_context import SegmentContext
from cowork_judge.segment.deadline import Deadline
from cowork_judge.segment.delivery import Delivery, LocatedDeck
from cowork_judge.segment.judges import SamplingPlan
from cowork_judge.segment.segment_settings import SegmentSettings
from cowork_judge.transport.attempts import ModelCalls, RequestLimiter
from cowork_judge.transport.fleet import limiter_warnings, open_limiter
from cowork_judge.transport.stats import CallStats


@dataclass
class RunContext:
    """Everything a segment needs to judge rows of one rollout.

    Attributes:
        paths: where to read and write.
        config: effective knobs, WITHOUT the API key (``api_key`` is None: the key lives
            only inside the transport, `calls`; ``calls.has_credentials`` says whether
            there is one).
        instruction: judge instruction text; `instruction_source` says where it came from.
        task_prompt: contents of ``task_prompt.md`` ("" when absent).
        delivery: deliverables and final message.
        deadline: the run deadline (JUDGE_DEADLINE from process start).
        redactor: secret redaction for everything written.
        audit: the ``judge/`` audit folder.
        stats: model call/token counters.
        deck: the deck the code rows located (`segment.delivery.LocatedDeck`), merged by the
            engine from their outcomes; later segments read it through their context.
        artifacts: anything else the code rows found, merged the same way.
        workflow_config: rubric.json's top-level ``workflow_config`` (name → settings).
        rng: randomness for jitter and backoff (seedable in tests).
        retry: the retry policy (failure table, JUDGE_MAX_TRIES, JUDGE_RETRY_BACKOFF_MAX);
            defaults to the configuration's.
        limiter: the run's one limiter of model requests, shared by agentic blocks and
            workflow calls; made from the configuration by default (`transport.fleet.open_limiter`:
            the fleet's shared store with JUDGE_LIMITER_URL, else the local `transport.limiter`).
        calls: the run's one model-call path (`transport.attempts.ModelCalls`: the one HTTP
            client, the limiter's tickets, retries), over `limiter` and `stats`; made from
            the configuration by default. Its client is closed when its outermost
            ``opened()`` scope ends.
        sampling: who judges and how often when rows are sampled or judged by a panel
            (JUDGE_SAMPLES > 1, JUDGE_PANEL: `run.sampling_plan.SamplingPlan`, the judges' call
            paths made here with their keys); None: one judge asks every row once.
        extras_blind: set by the run after the evidence step when no delivered deck was read at all because the
            judge's extras are missing (the cause, `engine.evidence_step.EXTRAS_MISSING_KEY`): the router then leaves
            the agentic rows unjudged ``extras_missing`` instead of judging them blind (trial 23 P-1).
        builtin_simulator: the endpoint is the built-in simulator of ``try``/``demo`` (`core.simulated.builtin_simulator`,
            read from the key before it is dropped): the verdict cache keys it by one name, not its port of this run
            (`run.verdict_cache.judge_settings`, trial 33 P-2).
    """

    paths: RunPaths
    config: JudgeConfig
    instruction: str
    instruction_source: str
    task_prompt: str
    delivery: Delivery
    deadline: Deadline
    redactor: Redactor
    audit: AuditLog
    stats: CallStats = field(default_factory=CallStats)
    deck: LocatedDeck | None = None
    artifacts: dict[str, Any] = field(default_factory=dict)
    workflow_config: dict[str, Any] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("cowork_judge"))
    retry: RetryPolicy | None = None
    limiter: RequestLimiter | None = None
    calls: ModelCalls | None = None
    sampling: SamplingPlan | None = None
    extras_blind: str | None = None
    builtin_simulator: bool = False

    def __post_init__(self) -> None:
        if self.retry is None:
            self.retry = self.config.retry
        config = self.config
        if self.limiter is None:
            self.limiter = open_limiter(
                url=config.limiter_url.get_secret_value() if config.limiter_url else None, base_url=config.base_url,
                model=config.model, api_key=config.api_key.get_secret_value() if config.api_key else None,
                key_override=config.limiter_key, fleet_rpm=config.fleet_rpm, fleet_tpm=config.fleet_tpm,
                backoff_max_sec=config.retry.backoff_max_sec, lease_sec=config.block_budget_sec + 5.0, rng=self.rng)
        if self.calls is None:
            self.calls = ModelCalls(api_key=config.api_key.get_secret_value() if config.api_key else None,
                                    base_url=config.base_url, model=config.model, stats=self.stats, limiter=self.limiter,
                                    headers=config.request_headers, temperature=sample_temperature(config))
        if self.sampling is None and config.sampled:
            self.sampling = sampling_plan(config, self.calls, stats=self.stats, rng=self.rng)
        if config.panel:  # the panel's keys live only inside their call paths
            self.config = config = config.model_copy(update={"panel": tuple(j.model_copy(update={"api_key": None})
                                                                              for j in config.panel)})
        if config.api_key is not None:  # the key lives only inside the transport (`calls`)
            self.builtin_simulator = builtin_simulator(config.base_url, config.api_key.get_secret_value())
            self.config = config.model_copy(update={"api_key": None})

    def segment(self) -> SegmentContext:
        """The frozen context of the next segment: the run's state as it is now, with the
        settings the segments read and nothing else of the configuration."""
        assert self.calls is not None and self.retry is not None  # __post_init__ makes them
        config = self.config
        settings = SegmentSettings(
            backend=config.backend, model=config.model, base_url=config.base_url, batch=config.batch,
            concurrency=config.concurrency, per_timeout_sec=config.per_timeout_sec, resplit=config.resplit,
            start_jitter_sec=config.start_jitter_sec, max_turns=config.max_turns, aux_files=tuple(config.aux_files),
            code_timeout_sec=config.code_timeout_sec, soffice=config.soffice, chromium=config.chromium,
            workflow_concurrency=config.workflow_concurrency, workflow_start_jitter_sec=config.workflow_start_jitter_sec)
        return SegmentContext(
            paths=self.paths.folders, settings=settings, instruction=self.instruction, task_prompt=self.task_prompt,
            delivery=self.delivery, deadline=self.deadline, redactor=self.redactor, audit=self.audit, calls=self.calls,
            stats=self.stats, retry=self.retry, rng=self.rng, log=self.log, deck=self.deck,
            artifacts=MappingProxyType(dict(self.artifacts)),
            workflow_config=MappingProxyType(dict(self.workflow_config)), sampling=self.sampling)

    def workflow_budget(self, n_agentic: int) -> tuple[float, float]:
        """(seconds the workflow segment may take, seconds reserved for the agentic segment after
        it) from the time left now: JUDGE_SAMPLES asks each of the `n_agentic` agentic rows up to
        k times, so the reserve covers k asks (a panel's judges run side by side;
        `core.budgets.agentic_reserve`), and the workflows get at most
        JUDGE_WORKFLOW_DEADLINE_SHARE of the rest (`core.budgets.workflow_budget`)."""
        config = self.config
        cost = backend_spec(config.backend).cost
        reserve = agentic_reserve(n_agentic * config.samples, batch=config.batch, concurrency=config.concurrency, cost=cost)
        return workflow_budget(self.deadline.remaining(), reserve, config.workflow_deadline_share), reserve

    def limiter_warnings(self) -> list[str]:
        """What the run's limiter says its result must carry (a shared store's fallback), in order."""
        return limiter_warnings(self.limiter)
