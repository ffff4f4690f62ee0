"""The knobs the segments read (`SegmentSettings`), copied from the run's configuration by
the engine (`run.context.RunContext.segment`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SegmentSettings:
    """The knobs the segments read, copied from the run's configuration (`config.judge_config.JudgeConfig`,
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
