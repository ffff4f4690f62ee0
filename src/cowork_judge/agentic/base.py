"""What every agentic backend provides: one attempt at a block, and a declared cost model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import ParseOutcome


@dataclass(frozen=True)
class CostModel:
    """Expected seconds of one attempt: ``fixed_sec + rows × per_row_sec``.

    The router reserves the agentic budget from it (SPEC §7.6: codex declares about
    100 s fixed and 3 s per row, measured on the seed fleet).
    """

    fixed_sec: float
    per_row_sec: float

    def attempt_sec(self, rows: int) -> float:
        """Expected seconds for one attempt judging `rows` rows."""
        return self.fixed_sec + rows * self.per_row_sec


class AgentBackend(Protocol):
    """An agentic backend: judges one block once per `attempt` call."""

    name: str
    cost_model: CostModel

    async def attempt(
        self, block_name: str, rows: Sequence[Criterion], workspace: Path, *, attempt_no: int, timeout_at: float
    ) -> ParseOutcome:
        """One attempt; raises transport errors for the scheduler to classify."""
        ...
