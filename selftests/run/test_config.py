"""Configuration: defaults, bad values fall back with a warning, credentials, `config` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.config.judge_config import default, export_credentials, load_config


def knob(config, name):
    """The value of knob `name` (a dotted name reads a nested policy's field)."""
    for part in name.split("."):
        config = getattr(config, part)
    return config


def test_defaults_match_the_spec():
    c = load_config({}).config
    assert (c.model, c.backend, c.batch, c.concurrency, c.per_timeout_sec, c.retry.max_tries) == ("gpt-5.5", "openai", 4, 2, 150, 6)
    assert (c.resplit, c.deadline_sec, c.start_jitter_sec, c.retry.backoff_max_sec) == (True, 1800, 0, 20)
    assert (c.scoring.reward_mode, c.scoring.pass_threshold, c.scoring.pass_compare, c.lenient_delivery, c.chat_fallback) == ("continuous", 0.75, "gte", False, True)
    assert (c.evidence_sec, c.metric_id, c.scoring.systemic_fraction, c.scoring.systemic_min, c.scoring.unjudged_negative) == (180, "rubric_llm_judge", 0.4, 2, "deduct")
    assert (c.workflow_concurrency, c.workflow_deadline_share, c.workflow_start_jitter_sec, c.code_timeout_sec) == (4, None, 0, 60)
    assert c.block_budget_sec == 300 and not c.has_credentials


@pytest.mark.parametrize(
    "name,value,field",
    [
        ("JUDGE_BATCH", "0", "batch"),
        ("JUDGE_BATCH", "four", "batch"),
        ("JUDGE_CONCURRENCY", "-2", "concurrency"),
        ("JUDGE_PER_TIMEOUT", "nan", "per_timeout_sec"),
        ("JUDGE_DEADLINE", "0", "deadline_sec"),
        ("JUDGE_REWARD_MODE", "stepwise", "scoring.reward_mode"),
        ("JUDGE_PASS_THRESHOLD", "1.5", "scoring.pass_threshold"),
        ("JUDGE_PASS_COMPARE", ">=", "scoring.pass_compare"),
        ("JUDGE_RESPLIT", "perhaps", "resplit"),
        ("JUDGE_SYSTEMIC_FRACTION", "2", "scoring.systemic_fraction"),
        ("JUDGE_WORKFLOW_DEADLINE_SHARE", "0", "workflow_deadline_share"),
        ("JUDGE_UNJUDGED_NEGATIVE", "forgive", "scoring.unjudged_negative"),
        ("JUDGE_BACKEND", "gemini", "backend"),
    ],
)
def test_bad_values_fall_back_with_a_warning(name, value, field):
    loaded = load_config({name: value})
    assert knob(loaded.config, field) == default(field)
    assert loaded.sources[field] == f"invalid:{name} → default"
    assert len(loaded.warnings) == 1 and name in loaded.warnings[0] and repr(value) in loaded.warnings[0]


def test_good_values_and_sources():
    loaded = load_config({"JUDGE_BATCH": " 8 ", "JUDGE_REWARD_MODE": "BINARY", "JUDGE_LENIENT_DELIVERY": "yes",
                          "JUDGE_WORKFLOW_DEADLINE_SHARE": "0.5", "JUDGE_AUX_FILES": "a.py, b.py c.py", "JUDGE_MODEL": ""})
    c = loaded.config
    assert (c.batch, c.scoring.reward_mode, c.lenient_delivery, c.workflow_deadline_share, c.aux_files) == (8, "binary", True, 0.5, ("a.py", "b.py", "c.py"))
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


def test_a_hand_run_starts_at_once_and_the_fleet_values_live_in_the_template():
    from cowork_judge.install.taskinit import env_block
    from cowork_judge.install.template import template_text
    from cowork_judge.config.judge_config import FLEET_START_JITTER_SEC, FLEET_WORKFLOW_START_JITTER_SEC

    c = load_config({}).config
    assert (c.start_jitter_sec, c.workflow_start_jitter_sec) == (0, 0)  # issue 26: a 4-row hand run took 2 minutes
    text = template_text()
    assert f'JUDGE_START_JITTER="${{JUDGE_START_JITTER:-{FLEET_START_JITTER_SEC}}}"' in text
    assert f'JUDGE_WORKFLOW_START_JITTER="${{JUDGE_WORKFLOW_START_JITTER:-{FLEET_WORKFLOW_START_JITTER_SEC}}}"' in text
    env = dict(env_block())
    assert env["JUDGE_START_JITTER"] == "${JUDGE_START_JITTER:-180}"
    assert env["JUDGE_WORKFLOW_START_JITTER"] == "${JUDGE_WORKFLOW_START_JITTER:-30}"


def test_jitter_never_eats_a_short_deadline():
    loaded = load_config({"JUDGE_DEADLINE": "30", "JUDGE_START_JITTER": "180", "JUDGE_WORKFLOW_START_JITTER": "30"})
    assert loaded.config.start_jitter_sec == 3.0 and loaded.config.workflow_start_jitter_sec == 3.0
    assert any("JUDGE_START_JITTER=180" in w for w in loaded.warnings)
    assert load_config({"JUDGE_START_JITTER": "180"}).warnings == []  # the fleet values (180 s of 1800 s) are consistent


def test_absurd_deadline_falls_back():
    loaded = load_config({"JUDGE_DEADLINE": "1e12"})
    assert loaded.config.deadline_sec == 1800 and "JUDGE_DEADLINE" in loaded.warnings[0]


def test_base_url_that_is_not_http_warns_without_echoing_it():
    loaded = load_config({"JUDGE_BASE_URL": "not a url with-token-abc123456", "JUDGE_API_KEY": "k" * 20})
    assert any(w.startswith("JUDGE_BASE_URL has no scheme (it must begin with http:// or https://): it is ignored")
               for w in loaded.warnings)
    assert loaded.config.base_url is None and loaded.sources["base_url"] == "invalid:JUDGE_BASE_URL → unset"
    assert not any("abc123456" in w for w in loaded.warnings)
    assert not any("http(s)" in w for w in load_config({"JUDGE_BASE_URL": "https://judge.example/v1"}).warnings)


def test_backends_come_from_the_registry():
    from cowork_judge.config.backends import BACKENDS, UnknownBackend, backend_spec

    loaded = load_config({"JUDGE_BACKEND": "gemini"})
    assert loaded.config.backend == "openai" and "must be one of openai, codex, claude" in loaded.warnings[0]
    assert list(BACKENDS) == ["openai", "codex", "claude"]
    with pytest.raises(UnknownBackend, match="unknown agentic backend 'gemini'; known: openai, codex, claude"):
        backend_spec("gemini")
    unavailable = [name for name, spec in BACKENDS.items() if not spec.available]
    for name in unavailable:  # a registered backend without an implementation in this version says so
        assert any("not available in this version" in w for w in load_config({"JUDGE_BACKEND": name}).warnings)


def test_every_environment_read_is_in_the_config_and_shown(tmp_path):
    """The container roots are knobs like any other: read by `load_config`, listed by `config`."""
    from cowork_judge.run.paths import RunPaths

    env = {"JUDGE_APP_DIR": str(tmp_path / "a"), "JUDGE_LOGS_DIR": str(tmp_path / "l"), "JUDGE_TESTS_DIR": str(tmp_path / "t"),
           "JUDGE_WORK_DIR": str(tmp_path / "w"), "JUDGE_ALT_OUTPUT_DIR": str(tmp_path / "o")}
    loaded = load_config(env)
    paths = RunPaths.from_config(loaded.config, tests_dir=tmp_path / "flag")
    assert (paths.app_dir, paths.logs_dir, paths.tests_dir, paths.work_dir, paths.alt_output_dir) == (
        tmp_path / "a", tmp_path / "l", tmp_path / "flag", tmp_path / "w", tmp_path / "o")
    assert not paths.ephemeral_work and loaded.sources["app_dir"] == "env:JUDGE_APP_DIR"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})
    for name in ("app_dir", "logs_dir", "tests_dir", "work_dir", "alt_output_dir"):
        line = next(x for x in proc.stdout.splitlines() if x.startswith(name + " "))
        assert "env:JUDGE_" in line
    src = Path(__file__).resolve().parents[2] / "src" / "cowork_judge"
    readers = sorted(str(p.relative_to(src)) for p in src.rglob("*.py")
                     if p.parts[len(src.parts)] != "sim" and ("os.environ" in p.read_text() or "getenv(" in p.read_text()))
    # config reads the knobs; demo builds the environment it hands to config; process helpers
    # pass a minimal environment to children; the dry run (`cowork-judge try`, a host-side
    # tool, never the judge) resolves a task's [verifier.env] against the host's environment
    # as Harbor does, and its wheel cache runs pip with the host's environment and reads
    # COWORK_JUDGE_CACHE / XDG_CACHE_HOME; the original 1.3.x's entry (`python -m cowork_judge
    # <tests>`) translates its settings (TASK_DIR, VERIFIER_LOG_DIR, …) into this project's
    # before config reads them, and the dispatcher asks it whether a call is such an entry
    # a batch worker sets the environment of each instance it judges (and puts its own back),
    # and the shared TLS context is keyed by the trust settings the client library itself reads;
    # the Harbor verifier resolves a task's [verifier.env] against the host's environment as Harbor
    # does and hands each trial's judge process the host's PATH and locale; the Batch API
    # transport reads the stage `batch --batch-api` hands its runs (an internal handshake
    # between the batch and its own runs, not a user's setting); a path the user typed is made absolute
    # against the shell's working folder ($PWD, where it names the same folder as os.getcwd()), not a setting;
    # init (a host-side authoring tool, like try) resolves the COWORK_WHEEL_URL it writes into [verifier.env]
    # against the shell's environment, as Harbor will, to warn that a trial would install from pip's index
    assert set(readers) <= {"_util/given_paths.py", "install/taskinit.py", "config/judge_config.py", "commands/demo.py", "_util/procs.py", "commands/try_.py", "install/wheels.py",
                            "commands/legacy_entry.py", "commands/__init__.py", "batch/worker.py",
                            "transport/tls.py", "harbor/staging.py", "harbor/verifier.py",
                            "transport/batch_api.py"}, readers


def test_a_code_only_run_never_imports_the_model_client(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [
        {"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
         "code_method_params": {"glob": "*.md"}}]}))
    (tmp_path / "app" / "output").mkdir(parents=True)
    (tmp_path / "app" / "output" / "r.md").write_text("# r")
    code = ("import sys\nfrom cowork_judge.commands import main\n"
            f"rc = main(['run', '--app-dir', {str(tmp_path / 'app')!r}, '--logs-dir', {str(tmp_path / 'logs')!r}, "
            f"'--tests-dir', {str(tests)!r}])\n"
            "print('RC', rc, 'openai' in sys.modules, 'cowork_judge.agentic.openai_agent' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert "RC 0 False False" in proc.stdout, proc.stdout + proc.stderr
    assert (tmp_path / "logs" / "verifier" / "reward.txt").read_text() == "1.0\n"


@pytest.mark.parametrize(("env", "field", "cap"), [("JUDGE_CONCURRENCY", "concurrency", 32), ("JUDGE_BATCH", "batch", 50),
                                                  ("JUDGE_MAX_TRIES", "retry.max_tries", 20), ("JUDGE_WORKFLOW_CONCURRENCY",
                                                                                         "workflow_concurrency", 32)])
def test_absurd_knobs_are_capped_with_a_warning(env, field, cap):
    loaded = load_config({env: "100000"})
    assert knob(loaded.config, field) == cap and loaded.sources[field] == f"capped:{env}"
    assert any(w.startswith(f"{env}=100000 is above the cap {cap}") for w in loaded.warnings)
    assert knob(load_config({env: str(cap)}).config, field) == cap  # the cap itself is accepted silently
    assert not load_config({env: str(cap)}).warnings


def test_config_command_prints_a_header_row():
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")})
    assert proc.stdout.splitlines()[0].split()[:3] == ["knob", "value", "source"]


def test_a_pair_is_never_mixed_from_both_families():
    """Trial finding 12: JUDGE_API_KEY went with OPENAI_BASE_URL (the key to another pair's endpoint), no warning."""
    loaded = load_config({"JUDGE_API_KEY": "sk-judge-1234567890", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                          "OPENAI_API_KEY": "sk-openai-1234567890"})
    assert loaded.config.base_url is None and not loaded.config.has_credentials
    assert loaded.sources["api_key"] == "env:JUDGE_API_KEY" and loaded.sources["base_url"] == "unset"
    assert loaded.warnings == ["JUDGE_API_KEY is set with OPENAI_BASE_URL, but JUDGE_BASE_URL is not: a credential pair "
                               "comes from one family (JUDGE_* or OPENAI_*), so OPENAI_BASE_URL is not used (JUDGE_API_KEY "
                               "never goes with the other family's endpoint); set JUDGE_BASE_URL, or unset JUDGE_API_KEY "
                               "to use the OPENAI_* pair"]
    assert loaded.missing_credentials() == ("no judge credentials: JUDGE_BASE_URL is not set (OPENAI_BASE_URL is, but a "
                                            "pair is never completed from the other family)")
    url_only = load_config({"JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-openai-1234567890"})
    assert url_only.config.api_key is None and url_only.mixed == {"JUDGE_API_KEY": "OPENAI_API_KEY"}
    whole = load_config({"JUDGE_API_KEY": "sk-judge-1234567890", "JUDGE_BASE_URL": "http://j/v1",
                         "OPENAI_BASE_URL": "http://o/v1"})
    assert whole.config.base_url == "http://j/v1" and whole.warnings == []  # one whole family: nothing mixed


def test_an_unknown_judge_variable_is_warned_with_a_did_you_mean(capsys):
    """Trial finding 11: JUDGE_SAMPLS=3 was silently ignored by the run (it judges once)."""
    loaded = load_config({"JUDGE_SAMPLS": "3", "JUDGE_FOO": "1", "OTHER_THING": "x", "JUDGE_SAVE_TRAJECTORY": "1",
                          "JUDGE_PANEL": '[{"name": "b", "model": "m", "api_key_env": "JUDGE_B_KEY"}]',
                          "JUDGE_B_KEY": "sk-b-1234567890"})
    assert [w for w in loaded.warnings if "not a setting" in w] == [
        "JUDGE_FOO is not a setting the judge reads: it is ignored",
        "JUDGE_SAMPLS is not a setting the judge reads (did you mean JUDGE_SAMPLES?): it is ignored",
    ]
    assert loaded.config.samples == 1
