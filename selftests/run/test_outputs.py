"""Outputs: published schema, atomic writes, the fallback document, redaction."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema

from cowork_judge import ABI, __version__
from cowork_judge.core.result import result_json_schema
from cowork_judge.safety.redact import Redactor
from cowork_judge.config.judge_config import load_config
from cowork_judge.run.outputs import EXTRA_FIELD_KEYS, atomic_write, format_reward, write_fallback
from cowork_judge.run.paths import RunPaths


def published_schema() -> dict:
    return json.loads(resources.files("cowork_judge").joinpath("schemas/result.schema.json").read_text())


def test_published_schema_is_the_generated_one():
    assert published_schema() == result_json_schema(), "regenerate: cowork-judge schema > src/cowork_judge/schemas/result.schema.json"


def test_extra_fields_keys_are_the_spec_list():
    assert set(EXTRA_FIELD_KEYS) == {
        "passed", "judge_coverage", "judge_unjudged", "judge_degraded", "judge_error_kind", "judge_seconds",
        "judge_evidence_pages", "judge_methods", "judge_coverage_by_method", "judge_unjudged_weight_frac",
        "judge_called", "delivery_missing", "delivery_from_chat", "judge_calls", "judge_tokens",
    }


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "deep" / "reward.txt"
    atomic_write(target, "0.5\n")
    atomic_write(target, "0.25\n")
    assert target.read_text() == "0.25\n"
    assert [p.name for p in target.parent.iterdir()] == ["reward.txt"]


def test_reward_format_round_trips():
    for value in (0.0, 1.0, 0.8368421052631579, 1 / 3):
        assert float(format_reward(value)) == value
    assert format_reward(None) == "SKIPPED\n"


def test_fallback_document_is_schema_valid_and_redacted(tmp_path):
    paths = RunPaths.resolve(app_dir=tmp_path, logs_dir=tmp_path / "logs", tests_dir=tmp_path, work_dir=tmp_path / "w", environ={})
    key = "sk-fallback-secret-0000111122"
    write_fallback(paths, exit_code="judge:scorer_error", exit_reason=f"boom with {key}", redactor=Redactor([key]),
                   identity={"judge_model": "m-1", "metric_id": "x"}, seconds=1.23456)
    doc = json.loads(paths.result_json.read_text())
    jsonschema.validate(doc, published_schema())
    assert paths.reward_txt.read_text() == "0.0\n" and json.loads(paths.reward_json.read_text()) == {"reward": 0.0}
    assert (doc["version"], doc["abi"], doc["judge_model"], doc["metric_id"]) == (__version__, ABI, "m-1", "x")
    assert doc["extra_fields"]["judge_seconds"] == 1.235 and doc["exit_code"] == "judge:scorer_error"
    assert key not in paths.result_json.read_text() and "[REDACTED]" in doc["exit_reason"]
    assert set(doc["extra_fields"]) == set(EXTRA_FIELD_KEYS)


def test_redactor_handles_nested_values_and_short_values():
    r = Redactor(["sk-abcdefgh12345", "short"])
    assert r.value({"a": ["x sk-abcdefgh12345 y", {"sk-abcdefgh12345": 1}]}) == {"a": ["x [REDACTED] y", {"[REDACTED]": 1}]}
    assert r.text("short stays") == "short stays"
    env = Redactor.from_environ({"MY_TOKEN": "tok-1234567890", "HOME": "/root/home/dir"})
    assert env.text("tok-1234567890 /root/home/dir") == "[REDACTED] /root/home/dir"


def test_short_api_keys_are_still_redacted():
    r = Redactor.from_environ({"JUDGE_API_KEY": "k7Qz9w", "MONKEY_MODE": "on-off", "SOME_TOKEN": "abc12"}, extra=["k7Qz9w"])
    assert r.text("key=k7Qz9w mode=on-off tok=abc12") == "key=[REDACTED] mode=on-off tok=abc12"
    assert Redactor.from_environ({"OPENAI_API_KEY": "abcd"}).text("x abcd y") == "x [REDACTED] y"
    assert Redactor.from_environ({"OPENAI_API_KEY": "abc"}).text("x abc y") == "x abc y"  # config warns about this one
    # a short key is replaced as a whole token only: words and JSON keys that contain it stay
    r = Redactor.from_environ({"JUDGE_API_KEY": "task"}, extra=["task"])
    assert r.text("the database task_score task-prompt, key=task.") == "the database task_score task-prompt, key=[REDACTED]."
    assert r.value({"task_score": 1, "auth": "Bearer task"}) == {"task_score": 1, "auth": "Bearer [REDACTED]"}
    long_key = Redactor(["sk-long-secret-1234"])
    assert long_key.text("xsk-long-secret-1234y") == "x[REDACTED]y"  # a long one goes wherever it appears


def test_too_short_api_key_warns():
    loaded = load_config({"JUDGE_API_KEY": "abc", "JUDGE_BASE_URL": "http://127.0.0.1:1/v1"})
    assert loaded.config.has_credentials
    assert any("JUDGE_API_KEY is shorter than 4 characters" in w for w in loaded.warnings)
    assert any("redacted only where it stands as a whole word" in w for w in load_config({"JUDGE_API_KEY": "abcd"}).warnings)
    assert not any("shorter" in w for w in load_config({"JUDGE_API_KEY": "abcd1234"}).warnings)


def test_the_limiter_key_is_a_label_not_a_secret():
    """JUDGE_LIMITER_KEY matches the secret-looking names (…KEY) but names a store key, often
    the model's name: redacting it turned ``judge_model`` and ``metric_id`` of the result into
    ``[REDACTED]`` (a user trial). Everything else that looks secret still is."""
    env = {"JUDGE_LIMITER_KEY": "rubric_llm_judge", "JUDGE_MODEL": "rubric_llm_judge", "FLEET_TOKEN": "tok-1234567890"}
    r = Redactor.from_environ(env)
    assert r.value({"judge_model": "rubric_llm_judge", "t": "tok-1234567890"}) == {"judge_model": "rubric_llm_judge",
                                                                                    "t": "[REDACTED]"}


def test_redactor_catches_tokens_in_endpoint_urls():
    env = {"JUDGE_BASE_URL": "https://judge:p4ssw0rd-long-secret@proxy.internal/v1?api-key=abcdef123456789"}
    r = Redactor.from_environ(env)
    text = r.text("calling https://judge:p4ssw0rd-long-secret@proxy.internal/v1?api-key=abcdef123456789")
    assert "p4ssw0rd-long-secret" not in text and "abcdef123456789" not in text


def test_children_get_no_secrets(monkeypatch, tmp_path):
    """Every child process (LibreOffice, Chromium, the regex worker, fc-match) starts from
    `child_environment`: a child that prints its environment shows no key."""
    from cowork_judge._util.procs import child_environment, run_command

    monkeypatch.setenv("JUDGE_API_KEY", "sk-child-must-not-see-0123456789")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value-0123456789")
    monkeypatch.setenv("LANG", "C.UTF-8")
    shown = run_command(["env"], timeout_sec=10).stdout
    assert "sk-child-must-not-see" not in shown and "aws-secret-value" not in shown and "JUDGE_" not in shown
    assert "LANG=C.UTF-8" in shown and "PATH=" in shown
    assert "HOME=/x" in run_command(["env"], timeout_sec=10, env=child_environment({"HOME": "/x"})).stdout
