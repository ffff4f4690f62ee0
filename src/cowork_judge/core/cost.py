"""What a run's model calls cost: tokens per model × the price table (``JUDGE_PRICES``). Pure.

Prices are US dollars per million tokens, per model, in three classes: uncached input,
cached input (the part of the prompt the endpoint served from its prompt cache,
``usage.prompt_tokens_details.cached_tokens``, which OpenAI-compatible endpoints count
INSIDE ``prompt_tokens``) and output. So a call costs::

    (prompt − cached) · input + cached · cached_input + completion · output   (per 10⁶ tokens)

A run's cost is the sum over its models. It is None — never a guess — when some model that
was called has no price (or a price whose cost is not a finite number), or when some of its
tokens were reported without the split (an agent CLI that gives one total). Tokens of models
that were never called cost nothing. A price above `MAX_PRICE` is refused (``JUDGE_PRICES``
drops that model's entry with a warning: `config.panel.read_prices`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

PER_TOKENS = 1_000_000
"""Prices are per this many tokens (the unit every provider's price list uses)."""
MAX_PRICE = 10_000.0
"""Largest accepted price, US dollars per million tokens: the dearest list prices of 2025
(reasoning models' output) are a few hundred dollars; a price above this is a typo
(``1e308`` made every cost overflow to infinity and the run's cost silently null)."""


class Price(BaseModel):
    """One model's prices, US dollars per million tokens."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False, description="Uncached input (prompt) tokens, $ per 10⁶.")
    cached_input: float | None = Field(None, ge=0, le=MAX_PRICE, allow_inf_nan=False, description="Cached input tokens, $ per "
                                       "10⁶; None = the input price (an endpoint without a cache discount).")
    output: float = Field(ge=0, le=MAX_PRICE, allow_inf_nan=False, description="Output (completion) tokens, $ per 10⁶.")


class ModelUsage(BaseModel):
    """Tokens one model spent in a run, as the endpoint reported them."""

    model_config = ConfigDict(frozen=True)

    calls: int = Field(0, ge=0, description="Requests that reported usage.")
    input_tokens: int = Field(0, ge=0, description="Prompt tokens, cached ones included.")
    cached_input_tokens: int = Field(0, ge=0, description="The cached part of input_tokens.")
    output_tokens: int = Field(0, ge=0, description="Completion tokens.")
    unsplit_tokens: int = Field(0, ge=0, description="Tokens reported only as a total (an agent CLI): they cannot be priced.")
    usd: float | None = Field(None, description="What these tokens cost at the model's price; None when unpriced.")


class JudgeCost(BaseModel):
    """A run's cost (``judge_cost`` of the result; ``judge_cost_usd`` is its `usd`)."""

    model_config = ConfigDict(frozen=True)

    usd: float | None = Field(description="Total in US dollars; None when some model called has no price or unsplit tokens.")
    models: dict[str, ModelUsage] = Field(default_factory=dict, description="Model → its tokens and cost.")
    unpriced: list[str] = Field(default_factory=list, description="Models called that JUDGE_PRICES has no price for.")


def usage_cost(usage: ModelUsage, price: Price | None) -> float | None:
    """What `usage` costs at `price` (formula in the module docstring), US dollars; None
    without a price, with unsplit tokens, or when the sum is not a finite number."""
    if price is None or usage.unsplit_tokens:
        return None
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    cached_price = price.input if price.cached_input is None else price.cached_input
    dollars = ((usage.input_tokens - cached) * price.input + cached * cached_price + usage.output_tokens * price.output)
    dollars /= PER_TOKENS
    return dollars if math.isfinite(dollars) else None


BATCH_SUFFIX = "@batch"
"""Tokens a provider's Batch API answered are counted under ``<model>@batch`` (``batch --batch-api``)."""
BATCH_DISCOUNT = 0.5
"""The batch price when ``JUDGE_PRICES`` names no ``<model>@batch``: this share of the model's
live price (OpenAI's and Anthropic's batch discount, 2025-2026)."""


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    """`model`'s price: its own entry; for ``<model>@batch`` without one, `BATCH_DISCOUNT` times
    ``<model>``'s price (every class); None when neither is priced."""
    if model in prices or not model.endswith(BATCH_SUFFIX):
        return prices.get(model)
    live = prices.get(model[: -len(BATCH_SUFFIX)])
    if live is None:
        return None
    return Price(input=live.input * BATCH_DISCOUNT, output=live.output * BATCH_DISCOUNT,
                 cached_input=None if live.cached_input is None else live.cached_input * BATCH_DISCOUNT)


def judge_cost(usage: Mapping[str, ModelUsage], prices: Mapping[str, Price]) -> JudgeCost:
    """The run's cost from its per-model `usage` and the price table (keys: model names; a
    ``<model>@batch`` key is priced by `price_of`)."""
    models: dict[str, ModelUsage] = {}
    unpriced: list[str] = []
    total: float | None = 0.0
    for model in sorted(usage):
        used = usage[model]
        spent = used.input_tokens or used.output_tokens or used.unsplit_tokens or used.calls
        price = price_of(model, prices)
        usd = usage_cost(used, price) if spent else 0.0
        models[model] = used.model_copy(update={"usd": None if usd is None else round(usd, 8)})
        if usd is None:
            if price is None or not used.unsplit_tokens:  # no price, or one that gives no finite cost
                unpriced.append(model)
            total = None
        elif total is not None:
            total += usd
    return JudgeCost(usd=None if total is None else round(total, 8), models=models, unpriced=unpriced)


__all__ = ["BATCH_DISCOUNT", "BATCH_SUFFIX", "MAX_PRICE", "PER_TOKENS", "JudgeCost", "ModelUsage", "Price", "judge_cost",
           "price_of", "usage_cost"]
