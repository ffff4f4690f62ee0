"""Secrets in mistyped URLs (user trial, defects 1 and 10): a JUDGE_LIMITER_URL or JUDGE_BASE_URL
that does not parse still hides its password in every channel a run or a command writes —
warnings, result.json (its fingerprint included), judge.log, stdout/stderr, `cowork-judge
config` — and a JUDGE_BASE_URL without a usable scheme is refused with one clear warning
(rows that need a model end ``no_credential`` at once) instead of failing every attempt as a
connection error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import SIM_KEY

from cowork_judge.safety.redact import mask_url, url_secrets, url_shape
from cowork_judge.config.judge_config import load_config, masked
from cowork_judge.run.fingerprint import verdict_ingredients
from cowork_judge.sim import OraclePolicy, SimServer

STORE_PW = "S3cretRedisPw"
BASE_PW = "BasePw123"


@pytest.mark.parametrize("url, shown, secret", [
    (f"redis:/:{STORE_PW}@127.0.0.1:6379/0", "redis:/***@127.0.0.1:6379/0", STORE_PW),
    (f"redis//:{STORE_PW}@127.0.0.1:6379/0", "redis//***@127.0.0.1:6379/0", STORE_PW),
    (f"http:/u:{BASE_PW}@host/v1", "http:/***@host/v1", BASE_PW),
    (f"http:///u:{BASE_PW}@host/v1", "http:///***@host/v1", BASE_PW),
    (f"u:{BASE_PW}@host:8000/v1", "***@host:8000/v1", BASE_PW),
    ("redis://:pa/ss-word@host/0", "redis://***@host/0", "pa/ss-word"),  # a "/" puts the password in the path
    ("redis://:pa?ss-word@host/0", "redis://***@host/0", "pa?ss-word"),  # a "?" in the query
    ("redis://:pa#ss-word@host/0", "redis://***@host/0", "pa#ss-word"),  # a "#" in the fragment
    ("https://ghp_tokenAsUser123@gw.example/v1", "https://***@gw.example/v1", "ghp_tokenAsUser123"),
])
def test_user_info_is_masked_and_found_even_when_the_url_does_not_parse(url, shown, secret):
    assert mask_url(url) == shown and secret not in mask_url(url)
    assert secret in url_secrets(url)


@pytest.mark.parametrize("url, shown", [
    ("https://u:s3cr3t@host.example/v1?api_key=s3cr3t&region=eu", "https://***@host.example/v1?api_key=***&region=eu"),
    ("https://host.example/v1?email=a@b.example&token=zz", "https://host.example/v1?email=a%40b.example&token=***"),
    ("HTTP://Host.example/v1?", "http://Host.example/v1"),  # as urlunsplit gives it back: stored digests stand
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
    ("127.0.0.1:8000/v1", "127.0.0.1:8000/v1"),
])
def test_well_formed_urls_print_as_before(url, shown):
    assert mask_url(url) == shown


def test_a_warning_never_quotes_a_refused_url():
    assert url_shape(f"redis:/:{STORE_PW}@h") == "its value begins 'redis:/', the rest is not shown"
    assert url_shape(f"{STORE_PW}") == "its value has no http(s)/redis scheme, it is not shown"
    for env in ({"JUDGE_LIMITER_URL": f"redis:/:{STORE_PW}@127.0.0.1:6379/0"},
                {"JUDGE_LIMITER_URL": STORE_PW + "-only"},  # a bare password pasted into the variable
                {"JUDGE_BASE_URL": f"http:/u:{BASE_PW}@127.0.0.1:1/v1", "JUDGE_API_KEY": SIM_KEY}):
        loaded = load_config(env)
        assert loaded.warnings and not any(STORE_PW in w or BASE_PW in w for w in loaded.warnings), loaded.warnings
        assert STORE_PW not in json.dumps(masked(loaded.config), default=str)
    # the malformed URL's password is in the run's redaction too (for whatever quotes it later)
    loaded = load_config({"JUDGE_LIMITER_URL": f"redis//:{STORE_PW}@127.0.0.1:6379/0",
                          "JUDGE_BASE_URL": f"http:/u:{BASE_PW}@127.0.0.1:1/v1"})
    assert loaded.redactor.text(f"a {STORE_PW} b {BASE_PW}") == "a [REDACTED] b [REDACTED]"


@pytest.mark.parametrize("url, problem", [
    ("127.0.0.1:8000/v1", "has no scheme (it must begin with http:// or https://)"),
    ("localhost:8000/v1", "has no scheme (it must begin with http:// or https://)"),
    ("localhost/v1", "has no scheme (it must begin with http:// or https://)"),
    ("http:/127.0.0.1:8000/v1", "has a mistyped scheme (its value begins 'http:/', the rest is not shown; write http:// "
                                "or https://)"),
    ("ftp://127.0.0.1/v1", "has the scheme 'ftp', not http:// or https://"),
    ("http:///v1", "has no host (its value begins 'http:///', the rest is not shown)"),
    ("https://h.example:99999/v1", "has an invalid port (its value begins 'https://', the rest is not shown)"),
])
def test_a_base_url_without_a_usable_scheme_is_refused_not_guessed(url, problem):
    """Decision (defect 10): never guess a scheme — ``http://`` would send the key unencrypted
    to a remote host, ``https://`` fails on a local endpoint. The URL is ignored with one
    warning and the run has no endpoint (``no_credential``), and OPENAI_BASE_URL does not
    stand in for it (JUDGE_API_KEY would go to another endpoint)."""
    loaded = load_config({"JUDGE_BASE_URL": url, "OPENAI_BASE_URL": "https://other.example/v1", "JUDGE_API_KEY": SIM_KEY})
    assert loaded.config.base_url is None and not loaded.config.has_credentials
    assert loaded.sources["base_url"] == "invalid:JUDGE_BASE_URL → unset"
    assert [w for w in loaded.warnings if w.startswith("JUDGE_BASE_URL ")] == [
        f"JUDGE_BASE_URL {problem}: it is ignored, so rows that need a model end no_credential; write "
        "http://host:port/v1 (https:// for a remote endpoint: no scheme is guessed, http:// would send the key unencrypted)"]
    good = load_config({"JUDGE_BASE_URL": "https://u:p@judge.example:8443/v1/", "JUDGE_API_KEY": SIM_KEY})
    assert good.config.base_url == "https://u:p@judge.example:8443/v1" and good.warnings == []


def test_the_fingerprint_never_holds_user_info(tmp_path):
    panel = json.dumps([{"name": "a", "model": "m1"},
                        {"name": "b", "model": "m2", "base_url": f"http:/u:{BASE_PW}@gw.example/v1", "api_key_env": "GW"}])
    config = load_config({"JUDGE_BASE_URL": "https://u:p%2Fss@judge.example/v1", "JUDGE_API_KEY": SIM_KEY,
                          "JUDGE_PANEL": panel, "GW": "sk-gw-key-123456"}).config
    ingredients = verdict_ingredients(config, tmp_path)
    assert ingredients["endpoint"] == "https://***@judge.example/v1"
    assert [j["endpoint"] for j in ingredients["sampling"]["panel"]] == [None, "http:/***@gw.example/v1"]


def test_try_prints_the_endpoint_masked(capsys):
    from cowork_judge.commands.try_ import _endpoint

    env = {"JUDGE_BASE_URL": f"https://user:{BASE_PW}@judge.acme-corp.net/v1", "JUDGE_API_KEY": SIM_KEY}
    assert _endpoint(env, {}) is None  # the caller's endpoint: no simulator
    out = capsys.readouterr().out
    assert "JUDGE_BASE_URL=https://***@judge.acme-corp.net/v1" in out and BASE_PW not in out


# --------------------------------------------------------------------------- every channel of a real run


def _task(root: Path) -> Path:
    tests = root / "tests"
    tests.mkdir(parents=True)
    rows = [{"id": "C1", "description": "A report exists.", "weight": 1, "judge_method": "code",
             "code_method_name": "file_exists", "code_method_params": {"glob": "report.md"}},
            {"id": "R1", "description": "The report states fact 1.", "weight": 2},
            {"id": "R2", "description": "The report states fact 2.", "weight": 1}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text("Write the report.\n")
    return tests


def _run(root: Path, tests: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "report.md").write_text("fact 1, fact 2\n")
    (root / "logs" / "agent").mkdir(parents=True)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    full.update(JUDGE_START_JITTER="0", JUDGE_EVIDENCE="0", JUDGE_MAX_TRIES="2", PYTHONDONTWRITEBYTECODE="1", **env)
    argv = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir", str(root / "logs"),
            "--tests-dir", str(tests), "--work-dir", str(root / "work")]
    return subprocess.run(argv, env=full, capture_output=True, text=True, timeout=300)


def _config_cmd(env: dict[str, str], *flags: str) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    full.update(env)
    out = subprocess.run([sys.executable, "-m", "cowork_judge", "config", *flags], env=full, capture_output=True,
                         text=True, timeout=120, check=True)
    return out.stdout + out.stderr


def _everything(root: Path, proc: subprocess.CompletedProcess[str]) -> str:
    files = [p for p in root.rglob("*") if p.is_file()]
    return proc.stdout + proc.stderr + "".join(p.read_text(errors="replace") for p in files)


ORACLE = OraclePolicy.from_dict({"R1": {"hit": True, "reason": "fixed"}, "R2": {"hit": False, "reason": "fixed"}})


@pytest.mark.parametrize("store_url", [f"redis:/:{STORE_PW}@127.0.0.1:6379/0", f"redis//:{STORE_PW}@127.0.0.1:6379/0"])
def test_a_mistyped_limiter_url_leaks_its_password_nowhere(tmp_path, store_url):
    tests = _task(tmp_path)
    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        proc = _run(tmp_path / "job", tests, {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": sim.url,
                                              "JUDGE_LIMITER_URL": store_url})
    doc = json.loads((tmp_path / "job" / "logs" / "verifier" / "result.json").read_text())
    assert proc.returncode == 0 and doc["extra_fields"]["judge_coverage"] == 1.0, proc.stderr[-2000:]
    shape = store_url[:7]
    assert any(w.startswith(f"JUDGE_LIMITER_URL (its value begins {shape!r}") for w in doc["details"]["warnings"])
    everything = _everything(tmp_path / "job", proc)
    assert STORE_PW not in everything and "JUDGE_LIMITER_URL (its value begins" in everything
    for flags in ((), ("--json",)):
        out = _config_cmd({"JUDGE_LIMITER_URL": store_url}, *flags)
        assert STORE_PW not in out and "JUDGE_LIMITER_URL (its value begins" in out


@pytest.mark.parametrize("template", ["http:/u:" + BASE_PW + "@127.0.0.1:{port}/v1", "127.0.0.1:{port}/v1"])
def test_a_base_url_without_a_usable_scheme_ends_no_credential_and_leaks_nothing(tmp_path, template):
    tests = _task(tmp_path)
    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        url = template.format(port=sim.url.split(":")[2].split("/")[0])
        proc = _run(tmp_path / "job", tests, {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": url})
        requests = len(sim.log)
    doc = json.loads((tmp_path / "job" / "logs" / "verifier" / "result.json").read_text())
    kinds = {r["id"]: r["error_kind"] for r in doc["results"]}
    assert requests == 0 and kinds == {"C1": None, "R1": "no_credential", "R2": "no_credential"}, kinds
    assert doc["details"]["fingerprint"]["endpoint"] is None
    assert any(w.startswith("JUDGE_BASE_URL has ") and "scheme" in w and ": it is ignored" in w
               for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    # issue 39 item 19: the warning spoke of a "redis scheme", the error said "set JUDGE_API_KEY and JUDGE_BASE_URL"
    # while both were set; now both name what is wrong with the URL, and the key is not said to be missing
    said = " ".join(doc["details"]["warnings"]) + doc["exit_reason"] + proc.stderr
    assert "redis" not in said and "set JUDGE_API_KEY and JUDGE_BASE_URL" not in said
    assert doc["exit_code"] == "judge:no_credential" and "JUDGE_API_KEY" not in doc["exit_reason"]
    assert doc["exit_reason"].startswith("no judge credentials: JUDGE_BASE_URL is set but ignored: it has ")
    assert "scheme" in doc["exit_reason"]
    everything = _everything(tmp_path / "job", proc)
    assert BASE_PW not in everything and "APIConnectionError" not in everything
    for flags in ((), ("--json",)):
        out = _config_cmd({"JUDGE_BASE_URL": url, "JUDGE_API_KEY": SIM_KEY}, *flags)
        assert BASE_PW not in out and "JUDGE_BASE_URL has " in out


@pytest.mark.parametrize("key, problem", [("sk-ключ-9f8e7d6c5b4a", "holds a non-ASCII character at character 4 of 20"),
                                          ("sk-abc\ndef-9f8e7d6c5b4a", "holds a line break at character 7 of 23"),
                                          ("sk-abc\tdef-9f8e7d6c5b4a", "holds a control character (code 9)")])
def test_a_key_no_http_header_can_carry_ends_no_credential_without_retries(tmp_path, key, problem):
    """Trial 6 F22: a key with a non-ASCII character or a line break was retried as a connection
    error for ~25 s and ended judge:api_error; now it is checked once at start, the variable and
    what is wrong are named (never the key), and the model rows end no_credential at once."""
    tests = _task(tmp_path)
    with SimServer(ORACLE, api_key=SIM_KEY, tool_rounds=0) as sim:
        proc = _run(tmp_path / "job", tests, {"JUDGE_API_KEY": key, "JUDGE_BASE_URL": sim.url})
        requests = len(sim.log)
    doc = json.loads((tmp_path / "job" / "logs" / "verifier" / "result.json").read_text())
    kinds = {r["id"]: r["error_kind"] for r in doc["results"]}
    assert requests == 0 and kinds == {"C1": None, "R1": "no_credential", "R2": "no_credential"}, kinds
    assert doc["exit_code"] == "judge:no_credential" and doc["extra_fields"]["judge_calls"] == 0
    assert doc["exit_reason"].startswith(f"no judge credentials: JUDGE_API_KEY is set but ignored: it {problem}")
    assert "JUDGE_BASE_URL" not in doc["exit_reason"]  # the URL is fine: it is not said to be missing
    assert any(w.startswith(f"JUDGE_API_KEY {problem}") for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    everything = _everything(tmp_path / "job", proc)
    assert "9f8e7d6c5b4a" not in everything and "Connection error" not in everything and "UnicodeEncodeError" not in everything
    out = _config_cmd({"JUDGE_API_KEY": key, "JUDGE_BASE_URL": sim.url})
    assert f"JUDGE_API_KEY {problem}" in out and "9f8e7d6c5b4a" not in out
