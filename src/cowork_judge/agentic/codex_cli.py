"""The `codex` backend: one ``codex exec`` per attempt, in the block workspace (SPEC §10).

Command line (measured with codex-cli 0.171.0)::

    codex exec --json --color never --strict-config --skip-git-repo-check
               --sandbox read-only --output-schema <schema.json> -o <last_message.txt>
               -C <workspace> -- <prompt>          (stdin: /dev/null)

Configuration: every endpoint, api.openai.com included, is reached through a private
``$CODEX_HOME/config.toml`` written per attempt: ``model_provider = "judge_endpoint"``
with ``base_url`` = ``JUDGE_BASE_URL``, ``env_key = "JUDGE_API_KEY"`` (the key is in the
child's environment only; no ``auth.json`` is written), ``wire_api = "responses"``, and
the CLI's own retries off (``request_max_retries = 0``, ``stream_max_retries = 0``: the
scheduler retries); update checks, analytics, plugins and apps off (no traffic besides the
endpoint); ``project_doc_max_bytes = 0``, so no ``AGENTS.md`` from a folder above the
workspace (an agent may plant one, with a ``.git``, in /tmp) reaches the judge.

The CODEX_HOME-under-TMPDIR failure: when ``CODEX_HOME`` lies inside the temp dir, codex
refuses to create its sandbox helper ("Refusing to create helper binaries under temporary
dir"), every shell command the judge runs fails (``bwrap: execvp codex-linux-sandbox``)
and the run still exits 0 with verdicts given blind. This backend lays the attempt's
folder out so that cannot happen — ``TMPDIR`` is the sibling ``tmp/`` of ``codex_home/``
inside the private per-run folder — and if codex still says so (or a command fails with a
``bwrap:`` sandbox error) the attempt fails ``backend_error`` rather than keep verdicts
judged without opening a file.

Failures (codex exits 1 and says why on stdout's ``turn.failed`` event and on stderr):
"Missing environment variable: `JUDGE_API_KEY`" → ``no_credential``; "Quota exceeded.
Check your plan and billing details." (codex's words for ``insufficient_quota``) →
``insufficient_quota``; "rate limit exceeded: Request rate increased too quickly…" (an
error inside the stream), "exceeded retry limit, last status: 429", "stream disconnected
before completion" → ``rate_limit``; other statuses by the shared classifier. An endpoint
that refuses connections makes codex loop "Reconnecting... waiting for network" forever:
the backend kills it at the first such line (``api_error``, retried by the scheduler).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cowork_judge.agentic.cli_base import (
    CliBackend,
    CliCall,
    CliFailure,
    CliPatterns,
    CliReport,
    classify_cli_error,
    cli_environment,
    last_line,
)
from cowork_judge.agentic.cli_proc import ProcOutcome

CODEX_PATTERNS = CliPatterns((
    ("missing environment variable", "no_credential"),
    ("check your plan and billing details", "insufficient_quota"),
    ("refusing to create helper binaries", "backend_error"),
    ("reconnecting... waiting for network", "api_error"),
))
"""codex's own failure wording → kind (before the shared classifier)."""

SANDBOX_BROKEN = "refusing to create helper binaries"
RECONNECTING = "reconnecting... waiting for network"
STDIN_NOTE = "reading additional input from stdin"  # printed on every run, stdin being /dev/null

CONFIG_TEMPLATE = """\
model = {model}
model_provider = "judge_endpoint"
check_for_update_on_startup = false
project_doc_max_bytes = 0

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
plugin_sharing = false

[analytics]
enabled = false

[model_providers.judge_endpoint]
name = "cowork-judge endpoint"
base_url = {base_url}
env_key = "JUDGE_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
"""
"""The private ``config.toml`` (values are TOML basic strings); ``--strict-config`` accepts it."""


def codex_config(model: str, base_url: str) -> str:
    """The text of ``$CODEX_HOME/config.toml`` for `model` at `base_url` (``…/v1``)."""
    return CONFIG_TEMPLATE.format(model=json.dumps(model), base_url=json.dumps(base_url.rstrip("/")))


def watch_codex(stream: str, line: str) -> str | None:
    """Stop codex at its first reconnect loop line or sandbox refusal (see module doc)."""
    low = line.lower()
    if RECONNECTING in low:
        message = _event_message(line) if stream == "stdout" else line.strip()
        return f"codex could not reach the endpoint ({message or line.strip()[:200]})"
    if SANDBOX_BROKEN in low and stream == "stderr":
        return f"codex refused to set up its read-only sandbox ({line.strip()[:200]})"
    return None


def _event_message(line: str) -> str:
    try:
        event = json.loads(line)
    except ValueError:
        return ""
    return str(event.get("message") or "") if isinstance(event, dict) else ""


class CodexCliBackend(CliBackend):
    """``JUDGE_BACKEND=codex``: judges each block with ``codex exec`` (module doc: flags,
    configuration, the sandbox layout, failure classification). Needs the ``codex`` CLI
    (and ``node``) on PATH and an endpoint that speaks the Responses API."""

    name = "codex"
    executable = "codex"
    install_hint = "npm install -g @openai/codex"

    def prepare(self, run_dir: Path, prompt: str, schema: dict[str, Any], workspace: Path) -> CliCall:
        """Write the attempt's ``codex_home/config.toml`` and schema; argv and environment."""
        codex_home = run_dir / "codex_home"  # a sibling of TMPDIR=run_dir/tmp, never inside it
        codex_home.mkdir()
        config = self.ctx.settings
        (codex_home / "config.toml").write_text(codex_config(config.model, self.base_url), encoding="utf-8")
        schema_path, last = run_dir / "schema.json", run_dir / "last_message.txt"
        schema_path.write_text(json.dumps(schema), encoding="utf-8")
        head = [self.exe, "exec", "--json", "--color", "never", "--strict-config", "--skip-git-repo-check",
                "--sandbox", "read-only", "--output-schema", str(schema_path), "-o", str(last), "-C", str(workspace), "--"]
        env = cli_environment({"HOME": str(run_dir / "home"), "CODEX_HOME": str(codex_home),
                               "TMPDIR": str(run_dir / "tmp"), "JUDGE_API_KEY": self.api_key})
        return CliCall([*head, prompt], env, watch=watch_codex, audit_argv=[*head, "<prompt>"])

    def read(self, outcome: ProcOutcome, run_dir: Path) -> CliReport:
        """The final message (``-o`` file, else the last ``agent_message`` event), requests
        and tokens, and the failure when codex failed, hung or was stopped."""
        events = [e for e in (_json_line(line) for line in outcome.stdout.splitlines()) if e is not None]
        messages = [e["item"].get("text") or "" for e in events
                    if e.get("type") == "item.completed" and isinstance(e.get("item"), dict)
                    and e["item"].get("type") == "agent_message"]
        commands = [e["item"] for e in events if e.get("type") == "item.completed" and isinstance(e.get("item"), dict)
                    and e["item"].get("type") == "command_execution"]
        usage = next((e.get("usage") for e in reversed(events) if e.get("type") == "turn.completed"), None) or {}
        tokens = int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
        # completed responses (a command asks for one more); a failed request is added below
        calls = _responses(run_dir / "codex_home") or len(commands) + (outcome.returncode == 0 and bool(messages))
        try:
            text = (run_dir / "last_message.txt").read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        text = text if text.strip() else (messages[-1] if messages else "")
        notes = {"commands": [{"command": str(c.get("command"))[:300], "exit_code": c.get("exit_code"),
                               "output": str(c.get("aggregated_output") or "")[:2000]} for c in commands[:50]]}
        report = CliReport(text or None, calls=calls, tokens=tokens, notes=notes)
        said = _failure_message(events, outcome.stderr)
        if outcome.stopped is not None:
            kind = classify_cli_error(outcome.stopped, patterns=CODEX_PATTERNS)
            report.failure = CliFailure(f"{outcome.stopped}; stopped at once (the scheduler retries)", kind=kind,
                                        calls=calls, tokens=tokens)
        elif outcome.timed_out:
            report.failure = self.timeout_failure(outcome, said, calls=calls + 1, tokens=tokens)
            report.calls = calls + 1  # the request in flight
        elif _sandbox_failed(commands, outcome.stderr):
            report.failure = CliFailure("codex's read-only sandbox could not run the judge's commands (bwrap); "
                                        "verdicts given without opening a file are not kept", kind="backend_error",
                                        calls=calls, tokens=tokens)
        elif outcome.returncode != 0:
            kind = "backend_missing" if outcome.returncode == 127 else classify_cli_error(said, patterns=CODEX_PATTERNS)
            made = calls + (kind not in ("no_credential", "backend_missing"))  # the request that failed
            report.calls = made
            report.failure = CliFailure(f"codex exited {outcome.returncode}: {said or 'no message'}", kind=kind,
                                        calls=made, tokens=tokens)
        return report


def _json_line(line: str) -> dict[str, Any] | None:
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _failure_message(events: list[dict[str, Any]], stderr: str) -> str:
    """codex's reason: the ``turn.failed`` error, else its last ``error`` event, else the
    last ``ERROR:`` line (or any last line) of stderr."""
    for event in reversed(events):
        if event.get("type") == "turn.failed" and isinstance(event.get("error"), dict):
            return str(event["error"].get("message") or "")
        if event.get("type") == "error" and event.get("message"):
            return str(event["message"])
    errors = [line.strip() for line in stderr.splitlines() if line.strip().startswith("ERROR")]
    if errors:
        return errors[-1]
    said = last_line("\n".join(line for line in stderr.splitlines() if STDIN_NOTE not in line.lower()))
    return said or (f"the event {events[-1].get('type')}" if events else "")


def _sandbox_failed(commands: list[dict[str, Any]], stderr: str) -> bool:
    if SANDBOX_BROKEN in stderr.lower():
        return True
    return any(c.get("exit_code") not in (0, None) and str(c.get("aggregated_output") or "").startswith("bwrap:")
               for c in commands)


def _responses(codex_home: Path) -> int:
    """Model responses of the attempt: the ``token_count`` events with usage in codex's
    session files (0 when there are none)."""
    count = 0
    for path in (codex_home / "sessions").rglob("*.jsonl") if (codex_home / "sessions").is_dir() else ():
        try:
            with path.open(encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    if '"token_count"' in line and '"info":{' in line.replace(" ", ""):
                        count += 1
        except OSError:
            continue
    return count
