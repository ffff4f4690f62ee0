"""Configuration: defaults, bad values fall back with a warning, credentials, `config` command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cowork_judge.run.config import JudgeConfig, export_credentials, load_config


def test_defaults_match_the_spec():
    c = load_config({}).config
    assert (c.model, c.backend, c.batch, c.concurrency, c.per_timeout_sec, c.max_tries) == ("gpt-5.5", "openai", 4, 2, 150, 6)
    assert (c.resplit, c.deadline_sec, c.start_jitter_sec, c.retry_backoff_max_sec) == (True, 1800, 180, 20)
    assert (c.reward_mode, c.pass_threshold, c.pass_compare, c.lenient_delivery, c.chat_fallback) == ("continuous", 0.75, "gte", False, True)
    assert (c.evidence_sec, c.metric_id, c.systemic_fraction, c.systemic_min, c.unjudged_negative) == (180, "rubric_llm_judge", 0.4, 2, "deduct")
    assert (c.workflow_concurrency, c.workflow_deadline_share, c.workflow_start_jitter_sec, c.code_timeout_sec) == (4, None, 30, 60)
    assert c.block_budget_sec == 300 and not c.has_credentials


@pytest.mark.parametrize(
    "name,value,field",
    [
        ("JUDGE_BATCH", "0", "batch"),
        ("JUDGE_BATCH", "four", "batch"),
        ("JUDGE_CONCURRENCY", "-2", "concurrency"),
        ("JUDGE_PER_TIMEOUT", "nan", "per_timeout_sec"),
        ("JUDGE_DEADLINE", "0", "deadline_sec"),
        ("JUDGE_REWARD_MODE", "stepwise", "reward_mode"),
        ("JUDGE_PASS_THRESHOLD", "1.5", "pass_threshold"),
        ("JUDGE_PASS_COMPARE", ">=", "pass_compare"),
        ("JUDGE_RESPLIT", "perhaps", "resplit"),
        ("JUDGE_SYSTEMIC_FRACTION", "2", "systemic_fraction"),
        ("JUDGE_WORKFLOW_DEADLINE_SHARE", "0", "workflow_deadline_share"),
        ("JUDGE_UNJUDGED_NEGATIVE", "forgive", "unjudged_negative"),
        ("JUDGE_BACKEND", "gemini", "backend"),
    ],
)
def test_bad_values_fall_back_with_a_warning(name, value, field):
    loaded = load_config({name: value})
    assert getattr(loaded.config, field) == JudgeConfig.model_fields[field].default
    assert loaded.sources[field] == f"invalid:{name} → default"
    assert len(loaded.warnings) == 1 and name in loaded.warnings[0] and repr(value) in loaded.warnings[0]


def test_good_values_and_sources():
    loaded = load_config({"JUDGE_BATCH": " 8 ", "JUDGE_REWARD_MODE": "BINARY", "JUDGE_LENIENT_DELIVERY": "yes",
                          "JUDGE_WORKFLOW_DEADLINE_SHARE": "0.5", "JUDGE_AUX_FILES": "a.py, b.py c.py", "JUDGE_MODEL": ""})
    c = loaded.config
    assert (c.batch, c.reward_mode, c.lenient_delivery, c.workflow_deadline_share, c.aux_files) == (8, "binary", True, 0.5, ("a.py", "b.py", "c.py"))
    assert loaded.sources["batch"] == "env:JUDGE_BATCH" and loaded.sources["model"] == "default"
    assert loaded.warnings == []


def test_credentials_fall_back_to_openai_names_and_export_both():
    loaded = load_config({"OPENAI_API_KEY": "sk-openai-1234567890", "OPENAI_BASE_URL": "http://h/v1/", "JUDGE_API_KEY": ""})
    c = loaded.config
    assert c.has_credentials and c.base_url == "http://h/v1"
    assert loaded.sources["api_key"] == "env:OPENAI_API_KEY"
    env: dict[str, str] = {}
    export_credentials(c, env)
    assert env == {"JUDGE_API_KEY": "sk-openai-1234567890", "OPENAI_API_KEY": "sk-openai-1234567890",
                   "JUDGE_BASE_URL": "http://h/v1", "OPENAI_BASE_URL": "http://h/v1"}
    judge_first = load_config({"OPENAI_API_KEY": "sk-a-000000000", "JUDGE_API_KEY": "sk-b-111111111", "JUDGE_BASE_URL": "http://j"}).config
    assert judge_first.api_key.get_secret_value() == "sk-b-111111111"


def test_config_command_masks_secrets():
    key = "sk-very-secret-key-ABCDEF-987654"
    env = {"PATH": "/usr/bin:/bin", "JUDGE_API_KEY": key, "JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "JUDGE_BATCH": "zero"}
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert key not in proc.stdout + proc.stderr
    assert "****3210" not in proc.stdout and "****7654" in proc.stdout
    assert "invalid:JUDGE_BATCH" in proc.stdout and "JUDGE_BATCH='zero'" in proc.stderr
    as_json = subprocess.run([sys.executable, "-m", "cowork_judge", "config", "--json"], env=env, capture_output=True, text=True, timeout=60)
    data = json.loads(as_json.stdout)
    assert data["values"]["batch"] == 4 and data["sources"]["api_key"] == "env:JUDGE_API_KEY" and key not in as_json.stdout


def test_jitter_never_eats_a_short_deadline():
    loaded = load_config({"JUDGE_DEADLINE": "30"})
    assert loaded.config.start_jitter_sec == 3.0 and loaded.config.workflow_start_jitter_sec == 3.0
    assert any("JUDGE_START_JITTER=180" in w for w in loaded.warnings)
    assert load_config({}).warnings == []  # the defaults (180 s of 1800 s) are consistent


def test_absurd_deadline_falls_back():
    loaded = load_config({"JUDGE_DEADLINE": "1e12"})
    assert loaded.config.deadline_sec == 1800 and "JUDGE_DEADLINE" in loaded.warnings[0]


def test_base_url_that_is_not_http_warns_without_echoing_it():
    loaded = load_config({"JUDGE_BASE_URL": "not a url with-token-abc123456", "JUDGE_API_KEY": "k" * 20})
    assert any("JUDGE_BASE_URL is not an http(s) URL" in w for w in loaded.warnings)
    assert not any("abc123456" in w for w in loaded.warnings)
    assert not any("http(s)" in w for w in load_config({"JUDGE_BASE_URL": "https://judge.example/v1"}).warnings)
