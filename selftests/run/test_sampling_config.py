"""JUDGE_SAMPLES, JUDGE_SAMPLING, JUDGE_SAMPLE_TEMPERATURE, JUDGE_PANEL, JUDGE_PANEL_VOTE, JUDGE_PRICES (issue 28)."""

from __future__ import annotations

import json

from cowork_judge.config.judge_config import CAPS, load_config, masked
from cowork_judge.run.fingerprint import verdict_ingredients
from cowork_judge.run.sampling_plan import ModelView, sampling_plan, sampling_record
from cowork_judge.transport.attempts import ModelCalls
from cowork_judge.transport.stats import CallStats

KEY = "sk-literal-key-0123456789abcdef"


def test_defaults_ask_once_with_one_judge():
    config = load_config({}).config
    assert (config.samples, config.sampling, config.sample_temperature, config.panel, config.panel_vote, config.prices) == (
        1, "adaptive", None, (), "majority", {})
    assert not config.sampled and sampling_record(config) is None


def test_sampling_knobs_are_read_and_bad_values_fall_back_with_a_warning():
    loaded = load_config({"JUDGE_SAMPLES": "3", "JUDGE_SAMPLING": "fixed", "JUDGE_SAMPLE_TEMPERATURE": "0.7",
                          "JUDGE_PANEL_VOTE": "weighted"})
    c = loaded.config
    assert (c.samples, c.sampling, c.sample_temperature, c.panel_vote) == (3, "fixed", 0.7, "weighted")
    bad = load_config({"JUDGE_SAMPLES": "0", "JUDGE_SAMPLING": "sometimes", "JUDGE_SAMPLE_TEMPERATURE": "9"})
    assert (bad.config.samples, bad.config.sampling, bad.config.sample_temperature) == (1, "adaptive", None)
    assert len(bad.warnings) == 3
    capped = load_config({"JUDGE_SAMPLES": "50"})
    assert capped.config.samples == CAPS["samples"][0] and any("cap" in w for w in capped.warnings)


def test_a_literal_key_in_the_panel_is_refused_and_never_written_anywhere():
    panel = [{"model": "m-a", "api_key": KEY}, {"model": "m-b", "base_url": "https://other.example/v1", "api_key_env": "B_KEY"}]
    loaded = load_config({"JUDGE_PANEL": json.dumps(panel), "B_KEY": "sk-b-secret-0123456789",
                          "JUDGE_API_KEY": "sk-main-0123456789", "JUDGE_BASE_URL": "https://main.example/v1"})
    assert any("'api_key' would put a key in the panel's text" in w for w in loaded.warnings)
    assert all(KEY not in w for w in loaded.warnings)
    a, b = loaded.config.panel
    assert a.api_key is not None and a.api_key.get_secret_value() == "sk-main-0123456789"  # the run's endpoint: the run's key
    assert b.api_key is not None and b.api_key.get_secret_value() == "sk-b-secret-0123456789"
    shown = json.dumps(masked(loaded.config), default=str)
    assert KEY not in shown and "sk-b-secret" not in shown and "sk-main" not in shown
    assert loaded.redactor.text(f"x {KEY} y sk-b-secret-0123456789") == "x [REDACTED] y [REDACTED]"


def test_a_judge_on_another_endpoint_never_gets_the_runs_key():
    panel = [{"model": "m", "base_url": "https://elsewhere.example/v1"}]
    loaded = load_config({"JUDGE_PANEL": json.dumps(panel), "JUDGE_API_KEY": "sk-main-0123456789",
                          "JUDGE_BASE_URL": "https://main.example/v1"})
    assert loaded.config.panel[0].api_key is None
    assert any("never sent to another endpoint" in w for w in loaded.warnings)


def test_a_key_pasted_as_the_variable_name_is_refused_and_not_quoted():
    loaded = load_config({"JUDGE_PANEL": json.dumps([{"model": "m", "api_key_env": "sk-proj-abc-123"}])})
    assert loaded.config.panel == ()
    assert any("JUDGE_PANEL" in w and "not a key" in w for w in loaded.warnings)
    assert all("sk-proj" not in w for w in loaded.warnings)
    unset = load_config({"JUDGE_PANEL": json.dumps([{"model": "m", "api_key_env": "SkMixedCaseLooksLikeAKey123"}])})
    assert all("SkMixedCase" not in w for w in unset.warnings) and any("is not set" in w for w in unset.warnings)


def test_malformed_panels_and_prices_fall_back_without_quoting_their_text():
    for raw in ("not json " + KEY, "[]", json.dumps([{"name": "x"}]), json.dumps([{"model": "a"}, {"model": "a"}]),
                json.dumps([{"model": "a", "weight": 0}]), json.dumps([{"model": "a", "colour": "red"}])):
        loaded = load_config({"JUDGE_PANEL": raw})
        assert loaded.config.panel == () and loaded.warnings and all(KEY not in w for w in loaded.warnings)
        assert loaded.sources["panel"] == "invalid:JUDGE_PANEL → default"
    prices = load_config({"JUDGE_PRICES": json.dumps({"m": {"input": 1, "cached_input": 0.1, "output": 4}})}).config.prices
    assert prices["m"].output == 4
    bad = load_config({"JUDGE_PRICES": json.dumps({"m": {"input": -1, "output": 4}})})
    assert bad.config.prices == {} and any("JUDGE_PRICES" in w for w in bad.warnings)


def test_the_fingerprint_changes_only_when_sampling_is_configured(tmp_path):
    (tmp_path / "rubric.json").write_text("[]")
    plain = verdict_ingredients(load_config({}).config, tmp_path)
    assert "samples" not in plain["sampling"]
    sampled = verdict_ingredients(load_config({"JUDGE_SAMPLES": "3"}).config, tmp_path)
    assert sampled["sampling"]["samples"] == 3 and sampled["sampling"]["sampling_mode"] == "adaptive"
    panel = verdict_ingredients(load_config({"JUDGE_PANEL": json.dumps([{"model": "m", "api_key_env": "K"}]),
                                             "K": "sk-k-0123456789"}).config, tmp_path)
    assert panel["sampling"]["panel"] == [{"name": "m", "model": "m", "endpoint": None, "weight": 1.0}]
    assert "sk-k" not in json.dumps(panel) and "\"K\"" not in json.dumps(panel)


def test_judges_share_a_path_per_endpoint_and_key_and_get_their_own_elsewhere():
    env = {"JUDGE_API_KEY": "sk-main-0123456789", "JUDGE_BASE_URL": "http://127.0.0.1:1/v1", "OTHER": "sk-other-0123456789",
           "JUDGE_SAMPLES": "2", "JUDGE_SAMPLE_TEMPERATURE": "0.5",
           "JUDGE_PANEL": json.dumps([{"name": "same", "model": "gpt-5.5"}, {"name": "mini", "model": "mini"},
                                      {"name": "far", "model": "far", "base_url": "http://127.0.0.1:2/v1", "api_key_env": "OTHER"}])}
    config = load_config(env).config
    stats = CallStats()
    main = ModelCalls(api_key="sk-main-0123456789", base_url=config.base_url, model=config.model, stats=stats, limiter=None)
    import random

    plan = sampling_plan(config, main, stats=stats, rng=random.Random(0))
    assert plan is not None and [j.name for j in plan.judges] == ["same", "mini", "far"]
    same, mini, far = plan.judges
    assert same.calls is main and same.path is main
    assert isinstance(mini.calls, ModelView) and mini.path is main and mini.calls.model == "mini"
    assert far.path is not main and far.path.limiter is not None and far.path.limiter is not main.limiter
    assert far.path.stats is stats  # the run's counters
    assert plan.first_round == 2 and plan.weights == {"same": 1.0, "mini": 1.0, "far": 1.0}
    assert plan.record.temperature == 0.5
