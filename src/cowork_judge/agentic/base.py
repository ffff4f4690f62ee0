"""What every agentic backend provides (`AgentBackend`); its cost model (`core.budgets.CostModel`)
is declared with it in `run.backends`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import ParseOutcome


class AgentBackend(Protocol):
    """An agentic backend: judges one block once per `attempt` call.

    Implementations are registered in `run.backends.BACKENDS`; the dispatcher makes
    one per run with ``open(ctx)`` and closes it with ``close()``.
    """

    name: str

    @classmethod
    def open(cls, ctx: Any) -> AgentBackend:
        """The backend for one run (`ctx` is the `RunContext`)."""
        ...

    async def close(self) -> None:
        """Release what `open` acquired (HTTP clients, temp dirs); must not raise."""
        ...

    async def attempt(
        self, block_name: str, rows: Sequence[Criterion], workspace: Path, *, attempt_no: int, timeout_at: float
    ) -> ParseOutcome:
        """One attempt; raises transport errors for the scheduler to classify."""
        ...
