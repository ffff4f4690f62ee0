"""Shared fixtures of the workflow tests: the example deck's evidence, built once per session,
and ``run_ppt``: ``ppt_judge.run`` with the run's real workflow transport against the simulator."""

from __future__ import annotations

import logging
import random
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from testkit import EXAMPLE_TESTS, ROLLOUTS

from cowork_judge.core.retry import RetryPolicy
from cowork_judge.core.rubric import Criterion, load_rubric
from cowork_judge.sim import FaultPlan, LatencyModel, OraclePolicy, SimServer
from cowork_judge.transport.stats import CallStats
from cowork_judge.workflow.caller import WorkflowCalls
from cowork_judge.workflow import ppt_judge
from cowork_judge.workflow._contract import SampledJudge, WorkflowContext, WorkflowSampling

KEY = "sk-ppt-content-test-0001"
DECK_NAME = "build_effective_agents.pptx"


@pytest.fixture(scope="session")
def example_evidence(tmp_path_factory) -> dict[str, Any]:
    """The example deck (10 slides) rendered and extracted by the evidence layer, once per session."""
    from cowork_judge.evidence import build_evidence, probe_capabilities

    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice is not installed")
    root = tmp_path_factory.mktemp("example-evidence")
    out = root / "output"
    out.mkdir()
    shutil.copy(ROLLOUTS / "deck" / "app" / "output" / DECK_NAME, out / DECK_NAME)
    summary = build_evidence([out / DECK_NAME], root / "evidence", budget_sec=180, width_px=400, root=out)
    assert summary.pages_rendered == 10
    return {"evidence": root / "evidence", "artifacts": {"deck_path": str(out / DECK_NAME), "deck_kind": "pptx",
                                                          "deck_rel": DECK_NAME}}


def example_rows(*, content: bool = True, visual: bool = True) -> list[Criterion]:
    """The example rubric's ppt_judge rows (content: workflow_group type1/type2; visual: the rest)."""
    rows = [c for c in load_rubric(EXAMPLE_TESTS / "rubric.json").criteria if c.workflow.name == "ppt_judge"]
    return [c for c in rows if (c.workflow.group in ("type1", "type2") and content)
            or (c.workflow.group not in ("type1", "type2") and visual)]


class Audit:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict]] = []

    def append(self, name: str, record: dict) -> None:
        self.records.append((name, record))

    def named(self, name: str) -> list[dict]:
        return [r for n, r in self.records if n == name]


@dataclass
class PptRun:
    verdicts: dict[str, Any]
    requests: list[Any]
    audit: Audit
    seconds: float

    def calls_of(self, row: str) -> list[Any]:
        return [e for e in self.requests if row in e.row_ids]


@pytest.fixture
def run_ppt(example_evidence) -> Callable[..., PptRun]:
    """``run_ppt(rows, oracle, assets_dir=..., faults=..., latency=..., limit=1, budget=120, tries=2)``."""

    def run(rows: Sequence[Criterion], oracle: dict, *, assets_dir: Path | None = EXAMPLE_TESTS / "workflow_assets" / "ppt_judge",
            faults: FaultPlan | None = None, latency: LatencyModel | None = None, limit: int = 1, budget: float = 120.0,
            tries: int = 2, settings: dict | None = None, samples: int = 1, adaptive: bool = True,
            flip: Any = None) -> PptRun:
        server = SimServer(OraclePolicy.from_dict(oracle), faults=faults, latency=latency, api_key=KEY, flip=flip).start()
        audit, cancel = Audit(), threading.Event()
        calls = WorkflowCalls(api_key=KEY, base_url=server.url, model="sim", limit=limit, jitter_sec=0.0, per_timeout_sec=20.0,
                              retry=RetryPolicy(max_tries=tries, backoff_max_sec=1.0), stats=CallStats(),
                              deadline_at=time.monotonic() + 600, redact=lambda s: s, rng=random.Random(5),
                              log=logging.getLogger("test"))
        ev = example_evidence
        caller = calls.caller("ppt_judge", audit, cancel=cancel, budget_end=time.monotonic() + budget)
        sampling = (WorkflowSampling(k=samples, adaptive=adaptive, vote="majority",
                                     judges=(SampledJudge(name="sim", transport=caller, slug="sim"),)) if samples > 1 else None)
        ctx = WorkflowContext(
            name="ppt_judge", settings=settings or {}, artifacts=ev["artifacts"], evidence_dir=ev["evidence"],
            work_dir=ev["evidence"].parent, delivery=SimpleNamespace(files=[SimpleNamespace(rel=DECK_NAME)]),
            deadline_at=time.monotonic() + 600, cancel=cancel,
            transport=caller, audit=audit, assets_dir=assets_dir, sampling=sampling)
        t0 = time.monotonic()
        try:
            verdicts = ppt_judge.run(list(rows), ctx, budget)
        finally:
            calls.close()
            server.stop()
        return PptRun({v.id: v for v in verdicts}, sorted(server.log.entries(), key=lambda e: e.seq), audit,
                      time.monotonic() - t0)

    return run
