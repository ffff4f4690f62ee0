"""The agent-CLI backends' shared parts without the CLIs: failure classification from the
CLIs' recorded words, the private config, the process runner's timeout and group kill,
the prompt's size fallback, and a missing binary."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest
from testkit import make_ctx

from cowork_judge.agentic.claude_cli import CLAUDE_PATTERNS, ClaudeCliBackend, anthropic_base_url
from cowork_judge.agentic.cli_base import ARGV_PROMPT_BYTES, BackendMissing, classify_cli_error, cli_prompt
from cowork_judge.agentic.cli_proc import run_cli
from cowork_judge.agentic.codex_cli import CODEX_PATTERNS, CodexCliBackend, codex_config, watch_codex
from cowork_judge.agentic.workspace import build_workspace
from cowork_judge.core.classify import classify
from cowork_judge.core.rubric import normalize_rubric

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# what codex-cli 0.171.0 printed against the simulator's faults (selftests/sim/test_sim_real_clis.py)
CODEX_SAID = [
    ("rate limit exceeded: Request rate increased too quickly, the stream was stopped; please retry later", "rate_limit"),
    ("exceeded retry limit, last status: 429 Too Many Requests, request id: req_sim_7efe35cd5b10", "rate_limit"),
    ("Quota exceeded. Check your plan and billing details.", "insufficient_quota"),
    ("stream disconnected before completion: stream closed before response.completed", "rate_limit"),
    ("Incomplete response returned, reason: max_output_tokens", "api_error"),
    ("Missing environment variable: `JUDGE_API_KEY`.", "no_credential"),
    ("unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses", "request_rejected"),
    ("We\u2019re currently experiencing high demand, which may cause temporary errors.", "api_error"),
    ("Reconnecting... waiting for network (Connection failed: error sending request)", "api_error"),
]
# what Claude Code 2.1.197 printed as `result` (with `api_error_status`)
CLAUDE_SAID = [
    ("API Error: Request rate increased too quickly, the stream was stopped; please retry later", None, "rate_limit"),
    ("API Error: Request rejected (429) \u00b7 Rate limit reached for requests", 429, "rate_limit"),
    ("API Error: 400 Request rate increased too quickly, please slow down and retry later", 400, "rate_limit"),
    ("API Error: 400 quota exceeded for this key: the requests-per-minute window is full", 400, "rate_limit"),
    ("Credit balance is too low", 400, "insufficient_quota"),
    ("API Error: 500 Bad gateway: upstream model server unavailable. This is a server-side issue", 500, "api_error"),
    ("API Error: Unable to connect to API (ECONNRESET)", None, "api_error"),
    ("API Error: Stream ended without receiving any events", None, "api_error"),
    ("Failed to authenticate. API Error: 401 Incorrect API key provided", 401, "request_rejected"),
    ("Not logged in \u00b7 Please run /login", None, "no_credential"),
]


@pytest.mark.parametrize(("said", "kind"), CODEX_SAID)
def test_codex_words_map_to_the_failure_table(said, kind):
    assert classify_cli_error(said, patterns=CODEX_PATTERNS) == kind


@pytest.mark.parametrize(("said", "status", "kind"), CLAUDE_SAID)
def test_claude_words_map_to_the_failure_table(said, status, kind):
    assert classify_cli_error(said, status=status, patterns=CLAUDE_PATTERNS) == kind


def test_the_status_is_read_from_the_words_when_the_cli_gives_none():
    assert classify_cli_error("API Error: Request rejected (429)") == "rate_limit"
    assert classify_cli_error("API Error: 403 Forbidden") == "request_rejected"
    assert classify_cli_error("unexpected status 503 Service Unavailable") == "api_error"
    assert classify_cli_error("last status: 408 Request Timeout") == "api_error"  # 408/409 are transient


def test_cli_phrases_only_refine_the_shared_classifier():
    # codex's "Quota exceeded. Check your plan…" is insufficient_quota, although the shared
    # classifier reads a bare "quota exceeded" as a full rate window
    assert classify(Exception("Quota exceeded. Check your plan and billing details.")) == "rate_limit"
    assert classify_cli_error("quota exceeded for this key", patterns=CODEX_PATTERNS) == "rate_limit"


def test_codex_config_is_strict_toml_with_retries_off_and_no_key():
    text = codex_config('model "x"', "http://127.0.0.1:9/v1/")
    doc = tomllib.loads(text)
    assert doc["model"] == 'model "x"' and doc["model_provider"] == "judge_endpoint"
    provider = doc["model_providers"]["judge_endpoint"]
    assert provider == {"name": "cowork-judge endpoint", "base_url": "http://127.0.0.1:9/v1", "env_key": "JUDGE_API_KEY",
                        "wire_api": "responses", "request_max_retries": 0, "stream_max_retries": 0}
    assert doc["project_doc_max_bytes"] == 0 and doc["analytics"] == {"enabled": False}
    assert not any(doc["features"].values())


def test_anthropic_base_url_drops_v1():
    assert anthropic_base_url("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000"
    assert anthropic_base_url("https://gw.example/anthropic") == "https://gw.example/anthropic"


def test_codex_watcher_stops_the_reconnect_loop_at_its_first_line():
    line = '{"type":"error","message":"Reconnecting... waiting for network (Connection failed: error sending request)"}'
    assert "could not reach the endpoint (Reconnecting" in watch_codex("stdout", line)
    assert watch_codex("stdout", '{"type":"turn.started"}') is None
    assert "sandbox" in watch_codex("stderr", "Refusing to create helper binaries under temporary dir /tmp/x")


def _alive(pid: int, grace_sec: float = 2.0) -> bool:
    """True while `pid` runs (a zombie is dead), after up to `grace_sec` for SIGKILL to land."""
    end = time.monotonic() + grace_sec
    while True:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                running = fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except OSError:
            running = False
        if not running or time.monotonic() > end:
            return running
        time.sleep(0.05)


def test_timeout_kills_the_whole_process_group(tmp_path):
    """A CLI that forks a helper and hangs: both are gone when the per-call timeout fires."""
    pidfile = tmp_path / "child.pid"
    script = f"sleep 300 & echo $! > {pidfile}; echo started; wait"
    t0 = time.monotonic()
    out = asyncio.run(run_cli(["/bin/sh", "-c", script], env={"PATH": os.environ["PATH"]}, cwd=tmp_path, timeout_sec=1.0))
    assert out.timed_out and out.returncode is None and out.killed and "started" in out.stdout
    assert time.monotonic() - t0 < 5
    assert not _alive(int(pidfile.read_text()))


def test_cancelling_an_attempt_kills_its_process(tmp_path):
    pidfile = tmp_path / "child.pid"

    async def cut_short() -> None:
        task = asyncio.ensure_future(run_cli(["/bin/sh", "-c", f"echo $$ > {pidfile}; sleep 300"],
                                             env={"PATH": os.environ["PATH"]}, cwd=tmp_path, timeout_sec=60))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cut_short())
    assert not _alive(int(pidfile.read_text()))


def test_a_watcher_stops_the_process_and_a_missing_program_is_an_error(tmp_path):
    script = "echo one; echo 'Reconnecting... waiting for network'; sleep 300"
    out = asyncio.run(run_cli(["/bin/sh", "-c", script], env={"PATH": os.environ["PATH"]}, cwd=tmp_path, timeout_sec=30,
                              watch=lambda stream, line: "loop" if "Reconnecting" in line else None))
    assert out.stopped == "loop" and not out.timed_out and out.seconds < 10
    missing = asyncio.run(run_cli([str(tmp_path / "no-such-cli")], env={}, cwd=tmp_path, timeout_sec=5))
    assert missing.error is not None and "FileNotFoundError" in missing.error


def test_a_huge_prompt_falls_back_to_the_lean_form(tmp_path):
    rows = normalize_rubric({"rubrics": [{"id": "A1", "description": "states the growth", "weight": 1}]}).criteria
    ctx = make_ctx(tmp_path, {"report.md": "x" * 10}, final_message="y" * 30_000,
                   env={"JUDGE_API_KEY": "sk-unit-0123456789", "JUDGE_BASE_URL": "http://127.0.0.1:9/v1"})
    ctx.instruction = "judge carefully " * 10_000  # 160 kB
    ws = build_workspace("block-01", rows, ctx.segment())
    prompt = cli_prompt(ctx.segment(), rows, ws)
    assert len(prompt.encode()) < ARGV_PROMPT_BYTES
    assert "Read judge_instruction.md first" in prompt and "output/report.md (10 bytes)" in prompt
    assert '"id": "A1"' in prompt.split("<rubric_rows>")[1]
    ctx.instruction = "judge carefully"
    assert prompt != cli_prompt(ctx.segment(), rows, ws) and "y" * 1000 in cli_prompt(ctx.segment(), rows, ws)


@pytest.mark.parametrize("backend", [CodexCliBackend, ClaudeCliBackend])
def test_a_missing_binary_is_backend_missing_with_the_install_hint(tmp_path, monkeypatch, backend):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    ctx = make_ctx(tmp_path, env={"JUDGE_API_KEY": "sk-unit-0123456789", "JUDGE_BASE_URL": "http://127.0.0.1:9/v1"})
    with pytest.raises(BackendMissing) as caught:
        backend.open(ctx.segment())
    assert caught.value.kind == "backend_missing"
    assert f"the {backend.executable} CLI is not on PATH (npm install -g" in str(caught.value)


def test_recorded_codex_events_keep_a_salvageable_partial_answer(tmp_path):
    """codex printed the cut answer before "Incomplete response": verdicts it still holds are kept."""
    from cowork_judge.agentic.cli_proc import ProcOutcome

    events = [{"type": "turn.started"},
              {"type": "item.completed", "item": {
                  "id": "item_1", "type": "agent_message",
                  "text": '{"verdicts": [{"id": "A1", "hit": true, "reason": "ok"}, {"id": "A2", "hi'}},
              {"type": "error", "message": "Incomplete response returned, reason: max_output_tokens"},
              {"type": "turn.failed", "error": {"message": "Incomplete response returned, reason: max_output_tokens"}}]
    outcome = ProcOutcome(1, "\n".join(json.dumps(e) for e in events), "Reading additional input from stdin...\n", 0.5)
    backend = CodexCliBackend.__new__(CodexCliBackend)
    (tmp_path / "codex_home").mkdir()
    report = backend.read(outcome, tmp_path)
    assert report.failure is not None and report.failure.kind == "api_error" and report.calls == 1
    assert "max_output_tokens" in str(report.failure) and report.text.startswith('{"verdicts"')


@pytest.mark.parametrize("backend", [CodexCliBackend, ClaudeCliBackend])
def test_the_cli_gets_a_minimal_environment_and_the_key_only_there(tmp_path, monkeypatch, backend):
    key = "sk-unit-Qw3rTy9UiOp0"
    for name, value in {"HTTPS_PROXY": "http://proxy.internal:3128", "OTHER_SERVICE_TOKEN": "tok-other-123456789",
                        "OPENAI_API_KEY": key, "JUDGE_API_KEY": key, "PYTHONPATH": "/agent/planted"}.items():
        monkeypatch.setenv(name, value)
    ctx = make_ctx(tmp_path, env={"JUDGE_API_KEY": key, "JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "JUDGE_MODEL": "m"})
    run_dir = tmp_path / "run"
    for sub in ("home", "tmp"):
        (run_dir / sub).mkdir(parents=True)
    call = backend(ctx.segment(), "/usr/bin/true", tmp_path / "home").prepare(run_dir, "PROMPT", {"type": "object"}, tmp_path)
    env = call.env
    assert env["HTTPS_PROXY"] == "http://proxy.internal:3128" and env["HOME"] == str(run_dir / "home")
    assert env["TMPDIR"] == str(run_dir / "tmp")
    assert "OTHER_SERVICE_TOKEN" not in env and "PYTHONPATH" not in env and "OPENAI_API_KEY" not in env
    assert [k for k, v in env.items() if v == key] == (["JUDGE_API_KEY"] if backend is CodexCliBackend else ["ANTHROPIC_API_KEY"])
    assert call.argv[-2:] == ["--", "PROMPT"] and "PROMPT" not in call.audit_argv and key not in " ".join(call.argv)
    for path in run_dir.rglob("*"):  # what the backend wrote: config.toml, schema.json
        assert path.is_dir() or key.encode() not in path.read_bytes()
    if backend is CodexCliBackend:
        codex_home, tmpdir = Path(env["CODEX_HOME"]), Path(env["TMPDIR"])
        assert tmpdir not in codex_home.parents and codex_home.parent == tmpdir.parent  # the sandbox works
        assert (codex_home / "config.toml").is_file()
    else:
        assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9" and env["CLAUDE_CODE_MAX_RETRIES"] == "0"
        assert env["CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK"] == "1" and env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == "1"


@pytest.mark.parametrize(("exit_code", "failed"), [(1, True), (0, False)])
def test_a_command_refused_by_the_sandbox_fails_the_attempt(tmp_path, exit_code, failed):
    """codex's tool result when its sandbox helper is missing (recorded in selftests/sim); the
    same words printed by a successful `cat` of a deliverable are only data."""
    from cowork_judge.agentic.cli_proc import ProcOutcome

    command = {"id": "item_1", "type": "command_execution", "command": "/bin/bash -lc 'ls -la output'",
               "aggregated_output": "bwrap: execvp codex-linux-sandbox: No such file or directory\n", "exit_code": exit_code}
    events = [{"type": "item.completed", "item": command},
              {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": '{"verdicts": []}'}},
              {"type": "turn.completed", "usage": {"input_tokens": 100, "output_tokens": 5}}]
    outcome = ProcOutcome(0, "\n".join(json.dumps(e) for e in events), "", 0.5)
    (tmp_path / "codex_home").mkdir()
    report = CodexCliBackend.__new__(CodexCliBackend).read(outcome, tmp_path)
    assert (report.failure is not None and report.failure.kind == "backend_error") is failed
    assert report.tokens == 105 and report.calls == 2


@pytest.mark.parametrize(("backend", "reserve_sec"), [("openai", 84), ("codex", 224), ("claude", 224)])
def test_the_budget_split_reserves_by_the_backends_declared_cost_model(judge_run, tmp_path, backend, reserve_sec):
    """5 agentic rows, JUDGE_BATCH=4 → 2 blocks on 2 slots = 1 wave: reserve = (fixed + 4 ×
    per_row) × 2 from `config.backends` (openai 30 + 3/row, codex and claude 100 + 3/row)."""
    tests = tmp_path / "tests"
    tests.mkdir()
    rows = [{"id": "W1", "description": "w", "weight": 1, "judge_method": "workflow", "workflow_name": "stub"}]
    rows += [{"id": f"A{i}", "description": f"row {i}", "weight": 1} for i in range(5)]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    empty = tmp_path / "empty-bin"
    empty.mkdir()

    def deliver(root: Path) -> None:
        (root / "app" / "output").mkdir(parents=True, exist_ok=True)
        (root / "app" / "output" / "report.md").write_text("# report\n")

    # no CLI and no model answer needed: the reserve is logged before the agentic segment runs
    run = judge_run(tests, None, sim=False, setup=deliver,
                    env={"JUDGE_BACKEND": backend, "PATH": str(empty), "JUDGE_API_KEY": "sk-unit-0123456789",
                         "JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "JUDGE_MAX_TRIES": "1"})
    assert f"(agentic reserve {reserve_sec} s)" in (run.verifier / "judge.log").read_text()
    assert run.reward_text.strip()
