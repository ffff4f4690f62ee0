"""The REAL codex and claude CLIs against a SimServer on loopback (skipped when not on PATH).

What is pinned here, measured with codex-cli 0.171.0 and Claude Code 2.1.197:

codex (``codex exec``, Responses API):
- config: ``$CODEX_HOME/config.toml`` with ``model_provider = "judge_endpoint"`` and
  ``[model_providers.judge_endpoint]`` ``base_url = <sim.url>``, ``env_key = "JUDGE_API_KEY"``,
  ``wire_api = "responses"``, ``request_max_retries = 0``, ``stream_max_retries = 0``; and
  the ``plugins``/``remote_plugin``/``apps``/``in_app_updates``/``plugin_sharing`` features
  off (else it runs ``git`` against github.com/openai/plugins.git and resolves
  api.github.com at start). ``--strict-config`` accepts all of it.
- the read-only sandbox works only when ``CODEX_HOME`` is NOT inside the temp dir
  (``$TMPDIR``, else ``/tmp``): codex then refuses to create its helper binaries ("Refusing
  to create helper binaries under temporary dir") and every command fails with ``bwrap:
  execvp codex-linux-sandbox: No such file or directory`` (exit code 1, as a tool result:
  the run itself still succeeds). A ``CODEX_HOME`` under /tmp works with ``TMPDIR`` set to a
  sibling directory. (Under /dev/shm the helper is created but bwrap's fresh /dev hides it.)
- stdin must be ``/dev/null`` (it reads stdin otherwise); the final message is on stdout
  and in ``-o FILE``; progress and errors go to stderr.
- it needs ``response.completed``; it also understands ``response.failed`` and
  ``response.incomplete``; with retries at 0 it makes ONE request per turn and exits 1.
  (When the endpoint refuses connections, it loops "Reconnecting... waiting for network"
  regardless of the retry settings; only an outer timeout ends it.)

claude (``claude -p --output-format json --json-schema SCHEMA``, Messages API):
- env: ``ANTHROPIC_BASE_URL=<sim.root_url>`` (no /v1), ``ANTHROPIC_API_KEY`` (sent as
  ``x-api-key``), ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (without it a prompt of some
  length also triggers a concurrent session-title request: ``output_config.format``
  json_schema ``{"title"}``, no tools), a throwaway ``HOME`` (it writes ~/.claude.json).
- it sends ``HEAD /`` first, then ``POST /v1/messages?beta=true`` (always streaming);
  ``--json-schema`` becomes a ``StructuredOutput`` tool; the verdicts arrive as
  ``structured_output`` (and as JSON text in ``result``) of the one JSON document on stdout.
  ``Bash`` ``ls -la output`` runs without a permission prompt in ``-p`` mode.
- it retries 429/5xx itself (honours ``retry-after``) unless ``CLAUDE_CODE_MAX_RETRIES=0``;
  an error inside the stream is followed by a NON-streaming retry of the same turn unless
  ``CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK=1``. A reply that is text where the
  StructuredOutput call was due is answered by a reminder turn, so content faults are
  absorbed. Errors: exit 1, ``is_error: true``, ``result: "API Error: ..."``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cowork_judge.sim import FaultPlan, OraclePolicy, SimServer

ROWS = [
    {"id": "A1", "description": "The report states the quarterly revenue growth", "type": "binary", "polarity": "positive"},
    {"id": "A2", "description": "The report has a chart with labelled axes", "type": "binary", "polarity": "positive"},
]
ORACLE = {"A1": {"hit": True, "reason": "growth of 5% is stated"}, "A2": {"hit": False, "reason": "no chart"}}
EXPECTED = [{"id": "A1", "hit": True, "reason": "growth of 5% is stated"}, {"id": "A2", "hit": False, "reason": "no chart"}]
SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "additionalProperties": False, "required": ["id", "hit", "reason"],
        "properties": {"id": {"type": "string", "enum": ["A1", "A2"]}, "hit": {"type": "boolean"},
                       "reason": {"type": "string"}}}}},
}
PROMPT = ("Judge the deliverables in output/ against every rubric row and answer with the verdicts.\n"
          f"<rubric_rows>{json.dumps(ROWS)}</rubric_rows>")
TIMEOUT_SEC = 60

CODEX = shutil.which("codex")
CLAUDE = shutil.which("claude")
needs_codex = pytest.mark.skipif(CODEX is None, reason="codex CLI not on PATH (npm install -g @openai/codex)")
needs_claude = pytest.mark.skipif(
    CLAUDE is None, reason="claude CLI not on PATH (npm install -g @anthropic-ai/claude-code)")


class RecordingOracle(OraclePolicy):
    """The oracle, also keeping the context text of every final turn (to see tool results)."""

    def __init__(self) -> None:
        base = OraclePolicy.from_dict(ORACLE)
        super().__init__(base.answers, base.page_answers)
        self.contexts: list[str] = []

    def verdicts(self, rows: list[dict[str, Any]], context_text: str, page: int | None = None) -> list[dict[str, Any]]:
        self.contexts.append(context_text)
        return super().verdicts(rows, context_text, page)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "output").mkdir(parents=True)
    (ws / "output" / "report.md").write_text("# Q3 report\n\nQuarterly revenue grew 5%.\n", encoding="utf-8")
    (ws / "rubric.json").write_text(json.dumps(ROWS, indent=1), encoding="utf-8")
    (tmp_path / "home").mkdir()
    return ws


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT_SEC)


# -- codex --------------------------------------------------------------------------------
CODEX_CONFIG = """\
model = "sim-judge"
model_provider = "judge_endpoint"
check_for_update_on_startup = false

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
plugin_sharing = false

[analytics]
enabled = false

[model_providers.judge_endpoint]
name = "judge endpoint"
base_url = "{base_url}"
env_key = "JUDGE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""


def _codex(sim: SimServer, ws: Path, *, codex_home: Path, tmpdir: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    codex_home.mkdir(parents=True, exist_ok=True)
    tmpdir.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(CODEX_CONFIG.format(base_url=sim.url), encoding="utf-8")
    schema, last = ws.parent / "schema.json", ws.parent / "last_message.txt"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(ws.parent / "home"), "CODEX_HOME": str(codex_home),
           "TMPDIR": str(tmpdir), "JUDGE_API_KEY": "sk-sim-codex"}
    cmd = [CODEX or "codex", "exec", "--strict-config", "--skip-git-repo-check", "--sandbox", "read-only",
           "--output-schema", str(schema), "-o", str(last), "-C", str(ws), PROMPT]
    return _run(cmd, env, ws), last


@needs_codex
def test_codex_exec_lists_output_then_returns_oracle_verdicts(workspace):
    policy = RecordingOracle()
    with SimServer(policy, api_key="sk-sim-codex") as sim:
        proc, last = _codex(sim, workspace, codex_home=workspace.parent / "codex-home",
                            tmpdir=workspace.parent / "codex-tmp")  # a sibling: CODEX_HOME is not under TMPDIR
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(last.read_text())["verdicts"] == EXPECTED
    assert json.loads(proc.stdout)["verdicts"] == EXPECTED
    assert [(e.endpoint, e.kind, e.tool_call, e.status) for e in sim.log] == [
        ("responses", "tool", "exec_command", 200), ("responses", "final", None, 200)]
    assert sim.log[1].cached_tokens > 1024  # the history is resent: its prefix is cached
    assert "report.md" in policy.contexts[-1]  # `ls -la output` ran in the read-only sandbox
    assert sim.other_requests == [] and sim.errors == []


@needs_codex
def test_codex_sandbox_fails_when_codex_home_is_inside_tmpdir(workspace):
    policy = RecordingOracle()
    with SimServer(policy) as sim:
        proc, last = _codex(sim, workspace, codex_home=workspace.parent / "codex-home", tmpdir=workspace.parent)
    assert proc.returncode == 0  # the run succeeds; only the command failed
    assert "Refusing to create helper binaries under temporary dir" in proc.stderr
    assert "codex-linux-sandbox: No such file or directory" in policy.contexts[-1]
    assert "report.md" not in policy.contexts[-1]
    assert json.loads(last.read_text())["verdicts"] == EXPECTED


@needs_codex
@pytest.mark.parametrize(
    ("kind", "printed"),
    [
        ("stream_rate_limit", ("ERROR: rate limit exceeded: Request rate increased too quickly, the stream was "
                               "stopped; please retry later")),
        ("http_429", "ERROR: exceeded retry limit, last status: 429 Too Many Requests"),
        ("insufficient_quota", "ERROR: Quota exceeded. Check your plan and billing details."),
        ("stream_disconnect", "ERROR: stream disconnected before completion: stream closed before response.completed"),
        ("truncated_json", "ERROR: Incomplete response returned, reason: max_output_tokens"),
    ],
)
def test_codex_exec_fails_on_endpoint_errors_without_retrying(workspace, kind, printed):
    with SimServer(OraclePolicy.from_dict(ORACLE), faults=FaultPlan(script=[kind])) as sim:
        proc, last = _codex(sim, workspace, codex_home=workspace.parent / "codex-home",
                            tmpdir=workspace.parent / "codex-tmp")
    assert proc.returncode == 1 and printed in proc.stderr and last.read_text() == ""  # -o file left empty
    assert [(e.fault, e.endpoint) for e in sim.log] == [(kind, "responses")]  # retries off: one request


# -- claude -------------------------------------------------------------------------------
def _claude(sim: SimServer, ws: Path, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(ws.parent / "home"), "ANTHROPIC_BASE_URL": sim.root_url,
           "ANTHROPIC_API_KEY": "sk-sim-claude", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", **extra_env}
    cmd = [CLAUDE or "claude", "-p", "--output-format", "json", "--json-schema", json.dumps(SCHEMA), PROMPT]
    return _run(cmd, env, ws)


@needs_claude
def test_claude_print_runs_bash_then_structured_output_with_oracle_verdicts(workspace):
    policy = RecordingOracle()
    with SimServer(policy, api_key="sk-sim-claude") as sim:
        proc = _claude(sim, workspace)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["is_error"] is False and result["subtype"] == "success"
    assert result["structured_output"] == {"verdicts": EXPECTED}
    assert json.loads(result["result"]) == {"verdicts": EXPECTED}
    assert [(e.endpoint, e.kind, e.tool_call, e.stream) for e in sim.log] == [
        ("messages", "tool", "Bash", True), ("messages", "final", None, True)]
    assert result["usage"]["cache_read_input_tokens"] == sim.log[1].cached_tokens > 0
    assert [(m, p) for m, p, _ in sim.other_requests] == [("HEAD", "/")]  # its connectivity probe
    assert "report.md" in policy.contexts[-1]  # the Bash `ls -la output` result came back


@needs_claude
def test_claude_stream_rate_limit_fails_only_without_its_fallbacks(workspace):
    plan = FaultPlan(script=["stream_rate_limit"])
    with SimServer(OraclePolicy.from_dict(ORACLE), faults=plan) as sim:
        proc = _claude(sim, workspace, CLAUDE_CODE_MAX_RETRIES="0", CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK="1")
    result = json.loads(proc.stdout)
    assert proc.returncode == 1 and result["is_error"] is True
    assert result["result"] == "API Error: Request rate increased too quickly, the stream was stopped; please retry later"
    assert [e.fault for e in sim.log] == ["stream_rate_limit"]
    # by default the CLI falls back to a non-streaming request for the same turn and succeeds
    with SimServer(OraclePolicy.from_dict(ORACLE), faults=FaultPlan(script=["stream_rate_limit"])) as sim:
        proc = _claude(sim, workspace)
    assert proc.returncode == 0 and json.loads(proc.stdout)["structured_output"] == {"verdicts": EXPECTED}
    assert [(e.fault, e.stream) for e in sim.log][:2] == [("stream_rate_limit", True), (None, False)]


@needs_claude
def test_claude_http_429_without_retries_is_an_error_result(workspace):
    with SimServer(OraclePolicy.from_dict(ORACLE), faults=FaultPlan(script=["http_429"])) as sim:
        proc = _claude(sim, workspace, CLAUDE_CODE_MAX_RETRIES="0")
    result = json.loads(proc.stdout)
    assert proc.returncode == 1 and result["is_error"] is True and result["api_error_status"] == 429
    assert result["result"] == "API Error: Request rejected (429) · Rate limit reached for requests"
    assert len(sim.log) == 1
