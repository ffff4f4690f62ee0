"""The cost of a run's calls (`core.cost`): tokens × prices, null when a price is unknown."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from cowork_judge.core.cost import MAX_PRICE, ModelUsage, Price, judge_cost, usage_cost


def test_cached_input_is_priced_apart_from_the_rest_of_the_prompt():
    used = ModelUsage(calls=2, input_tokens=3_000_000, cached_input_tokens=1_000_000, output_tokens=500_000)
    price = Price(input=2.0, cached_input=0.5, output=8.0)
    assert usage_cost(used, price) == pytest.approx(2 * 2.0 + 1 * 0.5 + 0.5 * 8.0)
    assert usage_cost(used, Price(input=2.0, output=8.0)) == pytest.approx(3 * 2.0 + 0.5 * 8.0)  # no cache discount given


def test_a_run_costs_the_sum_of_its_models_and_null_when_one_is_unpriced():
    usage = {"a": ModelUsage(calls=1, input_tokens=1_000_000, output_tokens=0),
             "b": ModelUsage(calls=1, input_tokens=0, output_tokens=1_000_000)}
    prices = {"a": Price(input=1.0, output=2.0), "b": Price(input=1.0, output=3.0)}
    cost = judge_cost(usage, prices)
    assert cost.usd == pytest.approx(4.0) and cost.unpriced == [] and cost.models["b"].usd == pytest.approx(3.0)
    unknown = judge_cost(usage, {"a": prices["a"]})
    assert unknown.usd is None and unknown.unpriced == ["b"] and unknown.models["a"].usd == pytest.approx(1.0)
    assert judge_cost({}, prices).usd == 0.0  # nothing called, nothing spent


def test_tokens_reported_only_as_a_total_are_never_guessed():
    cli = {"a": ModelUsage(calls=1, unsplit_tokens=5000)}
    assert judge_cost(cli, {"a": Price(input=1.0, output=2.0)}).usd is None


def test_prices_are_finite_and_not_negative():
    for bad in ({"input": -1, "output": 1}, {"input": float("inf"), "output": 1}, {"input": 1}, {"input": 1, "output": 1, "x": 2}):
        with pytest.raises(ValidationError):
            Price.model_validate(bad)


def test_a_price_above_the_ceiling_is_refused():
    assert Price(input=MAX_PRICE, output=0.0).input == MAX_PRICE
    for bad in ({"input": 1e308, "output": 1}, {"input": 1, "output": MAX_PRICE * 2}, {"input": 1, "cached_input": 1e20, "output": 1}):
        with pytest.raises(ValidationError, match="less than or equal to 10000"):
            Price.model_validate(bad)


def test_a_cost_that_is_not_finite_is_null_and_its_model_unpriced():
    """Defence in depth for a price that slipped past validation (built without it): the sum
    overflows to infinity, which is never a cost."""
    absurd = Price.model_construct(input=1e308, cached_input=None, output=1e308)
    usage = {"a": ModelUsage(calls=1, input_tokens=2_000_000, output_tokens=10), "b": ModelUsage(calls=1, input_tokens=10)}
    assert usage_cost(usage["a"], absurd) is None
    cost = judge_cost(usage, {"a": absurd, "b": Price(input=1.0, output=1.0)})
    assert cost.usd is None and cost.unpriced == ["a"] and cost.models["a"].usd is None and cost.models["b"].usd == 1e-05
