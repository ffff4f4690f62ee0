"""What every agentic backend provides (`AgentBackend`); its cost model (`core.budgets.CostModel`)
is declared with it in `config.backends`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from cowork_judge.core.error_kinds import ErrorKind, JudgeFailure
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import ParseOutcome
from cowork_judge.segment.segment_context import SegmentContext

T = TypeVar("T")

MIN_ATTEMPT_FRACTION = 0.25
"""No attempt (nor an agent CLI's grounding re-ask run) is started with less block budget
left than this fraction of ``JUDGE_PER_TIMEOUT``: it could only time out."""


@dataclass(frozen=True)
class Attempted:
    """What one attempt of a block returns.

    Attributes:
        parsed: the parsed reply (possibly without a usable verdict).
        calls, tokens: model requests and tokens the attempt made OUTSIDE the run's call path
            (an agent CLI's own requests); the built-in backend's requests are counted by the
            path itself (0 here). The scheduler adds them to the run's counters.
        reasked: ids of the rows an extra model run of the attempt asked again for their
            quote (an agent CLI's grounding re-ask: one more CLI run); the scheduler counts
            it as one more attempt on those rows. Empty for the built-in backend, whose
            re-ask is one more turn of the same conversation.
    """

    parsed: ParseOutcome
    calls: int = 0
    tokens: int = 0
    reasked: tuple[str, ...] = ()


class BackendFailure(JudgeFailure):
    """A failed attempt that made model requests outside the run's call path (an agent
    CLI's): `calls` and `tokens` ride on the failure, and the scheduler counts them.

    Attributes:
        calls: model requests the attempt made (counted in ``judge_calls``).
        tokens: tokens it reported before it failed.
    """

    def __init__(self, message: str, *, kind: ErrorKind, calls: int = 0, tokens: int = 0) -> None:
        super().__init__(message, kind=kind)
        self.calls = calls
        self.tokens = tokens


class Resender(Protocol):
    """What the scheduler gives an attempt whose backend makes its model requests one at a
    time on the run's call path (``resends_in_place = True``, the built-in backend): each
    request goes through `send`, which re-sends it IN PLACE — same attempt, same
    conversation — when the endpoint refuses it at admission (HTTP 429), after the
    server's ``Retry-After``, through the run's one retry loop (`transport.retrying`).
    The wait pauses the attempt's clock (`agentic.attempt_clock`) and gives the block's
    lane to another block meanwhile (`agentic.lanes`)."""

    @property
    def timeout_at(self) -> float:
        """When the attempt must end (monotonic seconds), later after each wait in place: read
        it for each request."""
        ...

    async def send(self, request: Callable[[], Awaitable[T]], *, turn: int) -> T:
        """``await request()`` — one model request of turn `turn` — re-sent in place while it
        is refused at admission.

        Raises:
            transport.retrying.Ending: the re-sends ended without an answer (the block's
                loop ends with them).
            What `request` raised other than a refusal at admission (the attempt fails).
        """
        ...


class AgentBackend(Protocol):
    """An agentic backend: judges one block once per `attempt` call.

    Implementations are registered in `config.backends.BACKENDS`; the dispatcher makes
    one per run with ``open(ctx)`` and closes it with ``close()``. A backend that makes its
    model requests one at a time through the run's call path sets ``resends_in_place =
    True``: its `attempt` then also takes ``resend`` (a `Resender`) and sends each request
    through it (a CLI's requests are the CLI's: an agent-CLI attempt fails as a whole).
    """

    name: str

    @classmethod
    def open(cls, ctx: SegmentContext) -> AgentBackend:
        """The backend for one run (`ctx`: the agentic segment's context)."""
        ...

    async def close(self) -> None:
        """Release what `open` acquired (HTTP clients, temp dirs); must not raise."""
        ...

    async def attempt(
        self, block_name: str, rows: Sequence[Criterion], workspace: Path, *, attempt_no: int, timeout_at: float
    ) -> Attempted:
        """One attempt; raises transport errors (a `BackendFailure` when it made requests
        outside the run's call path) for the scheduler to classify."""
        ...
