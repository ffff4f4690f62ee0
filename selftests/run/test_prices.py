"""JUDGE_PRICES with an absurd price (user trial, defect 17): the entry is refused with a warning
that names the model, the others stand, and the run's cost is null with that model unpriced —
never an overflow to infinity written as a silent null."""

from __future__ import annotations

import json

from testkit import SIM_KEY

from cowork_judge.config.judge_config import load_config


def test_an_absurd_price_drops_its_entry_with_a_warning():
    loaded = load_config({"JUDGE_PRICES": json.dumps({"judge-a": {"input": 1e308, "output": 1.0},
                                                      "judge-b": {"input": 2.0, "output": 8.0}})})
    assert list(loaded.config.prices) == ["judge-b"] and loaded.sources["prices"] == "env:JUDGE_PRICES"
    assert loaded.warnings == ["JUDGE_PRICES model 'judge-a': input: Input should be less than or equal to 10000 ($ per "
                               "million tokens); this entry is ignored: the model's cost is null and it is listed as unpriced"]


def test_a_table_with_no_usable_price_falls_back_with_a_warning():
    loaded = load_config({"JUDGE_PRICES": json.dumps({"judge-a": {"input": 1e308, "output": 1.0}})})
    assert loaded.config.prices == {} and loaded.sources["prices"] == "invalid:JUDGE_PRICES → default"
    assert loaded.warnings == ["JUDGE_PRICES has no usable price (model 'judge-a': input: Input should be less than or "
                               "equal to 10000; $ per million tokens); using the default (none)"]


def test_a_run_lists_the_refused_model_as_unpriced(tmp_path, judge_run):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [{"id": "R1", "description": "The report states fact 1.",
                                                                "weight": 1}]}))
    (tests / "task_prompt.md").write_text("Write the report.\n")
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "app" / "output" / "report.md").write_text("fact 1\n")
    prices = {"sim-judge": {"input": 1e308, "output": 1e308}, "other-model": {"input": 1.0, "output": 2.0}}
    run = judge_run(tests, rollout, oracle={"R1": {"hit": True, "reason": "fixed"}},
                    env={"JUDGE_PRICES": json.dumps(prices), "JUDGE_API_KEY": SIM_KEY})
    doc = run.doc
    assert run.returncode == 0 and doc["task_score"] == 1.0
    assert doc["judge_cost_usd"] is None and doc["judge_cost"]["unpriced"] == ["sim-judge"]
    assert any(w.startswith("JUDGE_PRICES model 'sim-judge'") for w in doc["details"]["warnings"]), doc["details"]["warnings"]
