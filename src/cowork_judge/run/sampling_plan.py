"""Who judges a run, and how often (issue 28): the sampling plan built from the configuration,
what the result records of it, and the run's cost.

Without ``JUDGE_SAMPLES``/``JUDGE_PANEL`` a run has one judge (``JUDGE_MODEL`` on the run's
call path) asked once per row, and `sampling_plan` returns None: the segments take their
single-ask path, unchanged. Otherwise a `SamplingPlan` lists the judges, each with its
call path: a panel judge on the run's endpoint with the run's key shares the run's path
(`transport.attempts.ModelCalls`: one client, one limiter); judges elsewhere get one path
per endpoint and key, each with its own client and its own limiter (their rate limits are
theirs), sharing the run's call counters. A judge whose model differs from its path's names
its model on every request (`ModelView`). The plan's types live below the segments, in
`segment.judges`, since every segment reads the plan from its context.
"""

from __future__ import annotations

import random
import re

from cowork_judge.core.cost import JudgeCost, judge_cost
from cowork_judge.core.sampling import JudgeWeight, SamplingRecord
from cowork_judge.config.judge_config import JudgeConfig
from cowork_judge.segment.judges import Judge, ModelView, SamplingPlan
from cowork_judge.transport.attempts import ModelCalls
from cowork_judge.transport.limiter import Limiter
from cowork_judge.transport.stats import CallStats

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def sample_temperature(config: JudgeConfig) -> float | None:
    """The temperature every request carries: JUDGE_SAMPLE_TEMPERATURE when JUDGE_SAMPLES > 1, else None."""
    return config.sample_temperature if config.samples > 1 else None


def sampling_record(config: JudgeConfig) -> SamplingRecord | None:
    """What a result records of the run's sampling (``details.sampling``): None when every
    row is asked once by one judge (then the document has no sampling fields at all)."""
    if not config.sampled:
        return None
    judges = ([JudgeWeight(name=j.name, model=j.model, weight=j.weight) for j in config.panel] if config.panel
              else [JudgeWeight(name=config.model, model=config.model)])
    return SamplingRecord(samples=config.samples, mode=config.sampling, vote=config.panel_vote,
                          temperature=sample_temperature(config), judges=tuple(judges))


def run_cost(config: JudgeConfig, stats: CallStats | None) -> JudgeCost | None:
    """The run's cost from its counters and JUDGE_PRICES; None when no price table is set."""
    if not config.prices:
        return None
    return judge_cost(stats.usage() if stats is not None else {}, config.prices)


def sampling_plan(config: JudgeConfig, main: ModelCalls, *, stats: CallStats, rng: random.Random) -> SamplingPlan | None:
    """The run's sampling plan, or None when it asks every row once with one judge.

    Args:
        config: the run's configuration WITH the panel's keys (`config.judge_config.PanelJudge.api_key`).
        main: the run's call path (JUDGE_MODEL at JUDGE_BASE_URL).
        stats: the run's counters (shared by every judge's path).
        rng: the run's random source (the judges' limiters draw their waits from it).
    """
    if not config.sampled:
        return None
    judges: list[Judge] = []
    if not config.panel:
        judges.append(Judge(name=config.model, model=config.model, base_url=config.base_url, weight=1.0, calls=main,
                            path=main, slug=_slug(config.model, 0, panel=False)))
    main_key = config.api_key.get_secret_value() if config.api_key else None
    paths: dict[tuple[str | None, str | None], ModelCalls] = {(config.base_url, main_key): main}
    for n, entry in enumerate(config.panel, start=1):
        url = None if entry.url_refused else entry.base_url or config.base_url  # refused: never the run's endpoint
        key = entry.api_key.get_secret_value() if entry.api_key else None
        path = paths.get((url, key))
        if path is None:
            path = ModelCalls(api_key=key, base_url=url, model=entry.model, stats=stats,
                              limiter=Limiter(backoff_max_sec=config.retry.backoff_max_sec, rng=rng),
                              headers=config.request_headers, temperature=sample_temperature(config))
            paths[(url, key)] = path
        calls = path if path.model == entry.model else ModelView(path, entry.model)
        judges.append(Judge(name=entry.name, model=entry.model, base_url=url, weight=entry.weight, calls=calls, path=path,
                            slug=_slug(entry.name, n, panel=True),
                            missing_key_env=entry.api_key_env if key is None and not entry.url_refused else None,
                            missing_key_why=entry.key_refused or "is not set", cannot_start=entry.url_refused))
    record = sampling_record(config)
    assert record is not None
    return SamplingPlan(k=config.samples, adaptive=config.sampling == "adaptive", vote=config.panel_vote,
                        judges=tuple(judges), record=record)


def _slug(name: str, n: int, *, panel: bool) -> str:
    text = _UNSAFE.sub("-", name).strip("-.")[:40] or "judge"
    return f"j{n}-{text}" if panel else text


__all__ = ["run_cost", "sample_temperature", "sampling_plan", "sampling_record"]
