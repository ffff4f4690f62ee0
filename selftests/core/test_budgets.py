"""Segment budgets (SPEC §7.6) as pure functions."""

from __future__ import annotations

import pytest

from cowork_judge.core.budgets import CostModel, agentic_reserve, workflow_budget
from cowork_judge.config.backends import BACKENDS

CODEX = CostModel(fixed_sec=100.0, per_row_sec=3.0)


def test_seed_example_47_workflow_rows_and_1_agentic_row():
    # the seed notes' PPT task: 47 workflow rows, 1 agentic row, codex, batch 4, concurrency 2;
    # a fixed share of 0.5 starved the workflow (898 s); the adaptive split gives it 1571 s.
    reserve = agentic_reserve(1, batch=4, concurrency=2, cost=CODEX)
    assert reserve == 224.0  # 1 wave × (100 + 4 × 3) × 2
    assert workflow_budget(1795.0, reserve) == pytest.approx(1571.0)
    assert workflow_budget(1795.0, reserve, share=0.5) == pytest.approx(897.5)


@pytest.mark.parametrize(
    "n_agentic,batch,concurrency,expected",
    [(0, 4, 2, 0.0), (1, 4, 2, 224.0), (8, 4, 2, 224.0), (9, 4, 2, 448.0), (17, 4, 2, 672.0), (9, 8, 1, 2 * (100 + 24) * 2)],
)
def test_reserve_counts_waves(n_agentic, batch, concurrency, expected):
    assert agentic_reserve(n_agentic, batch=batch, concurrency=concurrency, cost=CODEX) == expected


def test_no_agentic_rows_give_the_workflow_everything():
    assert workflow_budget(1000.0, agentic_reserve(0, batch=4, concurrency=2, cost=CODEX)) == 1000.0


def test_floor_keeps_half_for_workflows_when_agentic_is_large():
    reserve = agentic_reserve(200, batch=4, concurrency=2, cost=CODEX)
    assert reserve > 1000
    assert workflow_budget(1000.0, reserve) == 500.0


def test_explicit_share_is_the_escape_hatch_and_no_negative_budget():
    assert workflow_budget(1000.0, 100.0, share=0.25) == 250.0
    assert workflow_budget(-5.0, 100.0) == 0.0


def test_every_backend_declares_a_cost_model():
    assert set(BACKENDS) == {"openai", "codex", "claude"}
    assert BACKENDS["codex"].cost == CODEX
