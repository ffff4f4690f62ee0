"""Shared test constants and result types (a uniquely named module: `conftest` names clash
across test subdirectories)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge.sim import SimServer

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures"
DECKS = FIXTURES / "decks"
EXAMPLE_TESTS = REPO / "tests"
ROLLOUTS = REPO / "examples" / "rollouts"
HEALTHBENCH_EXAMPLE = REPO / "examples" / "healthbench-bbd759b4"
SIM_KEY = "sk-sim-test-key-0123456789"


@dataclass
class RunResult:
    """What one end-to-end run left behind."""

    returncode: int
    seconds: float
    stdout: str
    stderr: str
    verifier: Path
    work: Path
    sim: SimServer | None

    @property
    def reward_text(self) -> str:
        return (self.verifier / "reward.txt").read_text()

    @property
    def reward(self) -> float:
        return float(self.reward_text)

    @property
    def doc(self) -> dict[str, Any]:
        return json.loads((self.verifier / "result.json").read_text())

    @property
    def verdicts(self) -> dict[str, dict[str, Any]]:
        return {r["id"]: r for r in self.doc["results"]}

    @property
    def model_requests(self) -> int:
        return 0 if self.sim is None else len(self.sim.log)


