"""Who judges a run, as the segments see it (issue 28): the judges of a sampled run, each
with its call path, and the sampling plan (`SamplingPlan`).

The run builds the plan from its configuration (`run.sampling_plan.sampling_plan`) and hands it
to every segment in its frozen context (`segment.segment_context.SegmentContext.sampling`); None
there means one judge asks every row once (the single-ask path, unchanged). A judge on
the run's endpoint with the run's key shares the run's call path
(`transport.attempts.ModelCalls`: one client, one limiter); judges elsewhere have their
own. A judge whose model differs from its path's names its model on every request
(`ModelView`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from cowork_judge.core.sampling import FIRST_ROUND, SamplingRecord, Vote


class CallPath(Protocol):
    """What the plan needs of a judge's call path (`transport.attempts.ModelCalls`, which
    satisfies it; typed by this view so that the segments' context does not reach the
    transport through the plan)."""

    @property
    def model(self) -> str: ...

    def opened(self) -> AbstractContextManager[Any]: ...

    async def chat(self, messages: list[dict[str, Any]], *, timeout_sec: float, tools: list[dict[str, Any]] | None = None,
                   tool_choice: str | None = None, response_format: dict[str, Any] | None = None,
                   model: str | None = None) -> Any: ...


class ModelView:
    """An endpoint's call path as one judge sees it: the same path (client, limiter,
    credentials), every request naming the judge's `model`. Everything else is delegated."""

    def __init__(self, path: CallPath, model: str) -> None:
        self.path = path
        self.model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self.path, name)

    async def chat(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        """`ModelCalls.chat` with this judge's model."""
        return await self.path.chat(messages, **{**kwargs, "model": self.model})

    def __repr__(self) -> str:
        return f"ModelView({self.path!r}, model={self.model!r})"


@dataclass(frozen=True)
class Judge:
    """One judge of the run.

    Attributes:
        name: how samples name it (the model without a panel; the panel entry's name).
        model: the model it asks; base_url: its endpoint (None: the run's).
        weight: its weight in ``JUDGE_PANEL_VOTE=weighted``.
        calls: its call path (`ModelCalls`, or a `ModelView` of a shared one).
        path: the underlying `ModelCalls` (whose ``opened`` scope closes the client).
        slug: a file-name-safe form of `name` for audit folders (``j1-mini``).
        missing_key_env: the panel entry's ``api_key_env`` when that variable gave no key (unset,
            or holding a key an HTTP header cannot carry); named when the judge cannot start.
            None otherwise.
        missing_key_why: what is wrong with that variable, in words that follow its name
            (``is not set``, ``holds a line break at character 7 of 15``).
        cannot_start: why the judge has no call path at all, said as the reason of its lost samples (a panel
            entry's base_url refused: ``base_url ends in the route /chat/completions …``); None otherwise.
    """

    name: str
    model: str
    base_url: str | None
    weight: float
    calls: Any
    path: CallPath
    slug: str
    missing_key_env: str | None = None
    missing_key_why: str = "is not set"
    cannot_start: str | None = None


@dataclass(frozen=True)
class SamplingPlan:
    """How a sampled run asks (`sampling_plan`).

    Attributes:
        k: the most samples of a unit per judge (JUDGE_SAMPLES).
        adaptive: JUDGE_SAMPLING=adaptive (ask `first_round` times, then only unsettled units).
        vote: JUDGE_PANEL_VOTE.
        judges: the judges, in panel order (one without a panel).
        record: what the result records (``details.sampling``).
    """

    k: int
    adaptive: bool
    vote: Vote
    judges: tuple[Judge, ...]
    record: SamplingRecord

    @property
    def first_round(self) -> int:
        """Samples every unit gets before the adaptive rule decides: 2 (at most k), or k when fixed."""
        return min(self.k, FIRST_ROUND) if self.adaptive else self.k

    @property
    def weights(self) -> dict[str, float]:
        """Judge name → weight."""
        return {j.name: j.weight for j in self.judges}

    @property
    def panel(self) -> bool:
        """True with more than one judge."""
        return len(self.judges) > 1


@contextmanager
def judges_opened(plan: SamplingPlan | None) -> Iterator[None]:
    """Every judge's call path held open for the scope (each closed when its outermost scope ends)."""
    with ExitStack() as stack:
        seen: set[int] = set()
        for judge in plan.judges if plan is not None else ():
            if id(judge.path) not in seen:
                seen.add(id(judge.path))
                stack.enter_context(judge.path.opened())
        yield


@contextmanager
def calls_opened(calls: CallPath, plan: SamplingPlan | None) -> Iterator[None]:
    """The run's call path (`calls`) and every judge's held open for the scope: one scope for
    every client a segment may use (each closed when its outermost scope ends: the run's, or
    the router's, or the scope of a caller that runs a segment alone; the segments open none)."""
    with calls.opened(), judges_opened(plan):
        yield


__all__ = ["CallPath", "Judge", "ModelView", "SamplingPlan", "calls_opened", "judges_opened"]
