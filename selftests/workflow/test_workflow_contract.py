"""Workflow contract: lazy loader, ABI check, `_contract` helpers, the `stub` workflow."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scales import parse_level_key, snap_level
from cowork_judge.core.scoring import score
from cowork_judge.workflow import WorkflowUnavailable, load
from cowork_judge.workflow._contract import GRID_21, apply_na_policy, level_row, power_mean, snap_to_grid


def test_loader_imports_only_named_workflows():
    code = (
        "import sys, cowork_judge.engine.router, cowork_judge.workflow as w\n"
        "assert 'cowork_judge.workflow.stub' not in sys.modules, 'imported eagerly'\n"
        "w.load('stub')\n"
        "assert 'cowork_judge.workflow.stub' in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "name,needle",
    [(None, "invalid workflow name"), ("../etc", "invalid workflow name"), ("_contract", "invalid workflow name"),
     ("ppt_judge_v9", "not installed"), ("Stub", "invalid workflow name")],
)
def test_loader_refuses_unknown_or_bad_names(name, needle):
    with pytest.raises(WorkflowUnavailable, match=needle):
        load(name)


def test_abi_mismatch_is_refused():
    assert load("stub").REQUIRES_ABI == 2
    with pytest.raises(WorkflowUnavailable, match="requires ABI 2; this engine accepts \\[1\\]"):
        load("stub", abi_compat=(1,))


def test_grid_has_21_steps_equal_to_their_json_keys():
    assert len(GRID_21) == 21 and GRID_21[0] == 0.0 and GRID_21[-1] == 1.0
    assert all(g == parse_level_key(f"{g:g}") for g in GRID_21)


def test_snapping_twice_is_identity_and_survives_the_engine():
    levels = {f"{g:g}": "grid" for g in GRID_21}
    crit = normalize_rubric([{"id": "v", "description": "visual", "weight": 5, "levels": levels}]).criteria
    for i in range(0, 101):  # levels outside [0, 1] are refused: test_level_row_without_a_usable_level_is_unjudged
        x = i / 100
        once = snap_to_grid(x)
        assert snap_to_grid(once) == once
        assert snap_level(once, crit[0].level_choices) == once  # the engine keeps a grid level as is
        out = score(crit, {"v": level_row("v", x, "page mean")})
        assert out.earned == pytest.approx(5 * once)


@pytest.mark.parametrize("level", [float("nan"), float("inf"), float("-inf"), None, "0.5", True, 7, 75, -0.2, 1.5])
def test_level_row_without_a_usable_level_is_unjudged(level):
    """Not finite, not a number, or outside [0, 1]: the engine's own reading (`read_level`)
    refuses it, so a workflow bug is never snapped into full credit."""
    v = level_row("v", level, "page mean")
    assert v.judged is False and v.error_kind == "workflow_error" and "no usable level" in v.reason


def test_snap_ties_go_low():
    assert snap_to_grid(0.025) == 0.0 and snap_to_grid(0.975) == 0.95 and snap_to_grid(0.0751) == 0.1
    # midpoints where binary float error favours the upper step
    assert [snap_to_grid(x) for x in (0.275, 0.325, 0.675, 0.925)] == [0.25, 0.3, 0.65, 0.9]


@pytest.mark.parametrize(
    "values,p,expected",
    [([1.0, 0.0], 1.0, 0.5), ([0.5, 0.5], 3.0, 0.5), ([1.0, 0.25], 0.0, 0.5), ([1.0, 0.0], 0.0, 0.0),
     ([1.0, 0.5], -1.0, 2 / 3), ([0.2, 0.8], 2.0, (0.34) ** 0.5)],
)
def test_power_mean(values, p, expected):
    assert power_mean(values, p) == pytest.approx(expected)


def test_power_mean_rejects_bad_input():
    with pytest.raises(ValueError):
        power_mean([], 1.0)
    with pytest.raises(ValueError):
        power_mean([1.5], 1.0)


def test_na_policy():
    assert apply_na_policy([None, 1.0, 0.5], None) == 0.75
    assert apply_na_policy([None, None], "pass") == 1.0
    assert apply_na_policy([None], "fail") == 0.0
    assert apply_na_policy([None], "unjudged") is None and apply_na_policy([], None) is None
