"""The `claude` backend: one ``claude -p`` per attempt, in the block workspace (SPEC §10).

Command line (measured with Claude Code 2.1.197)::

    claude -p --output-format json --json-schema <schema> --model <JUDGE_MODEL>
           --max-turns <JUDGE_MAX_TURNS> --tools Read,Grep,Glob --no-session-persistence
           -- <prompt>                              (stdin: /dev/null, cwd: the workspace)

Environment: ``ANTHROPIC_BASE_URL`` = ``JUDGE_BASE_URL`` without its ``/v1`` (the CLI adds
it), ``ANTHROPIC_API_KEY`` = the judge key (in the environment only),
``CLAUDE_CODE_MAX_RETRIES=0`` and ``CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK=1`` (else
the CLI retries 429/5xx and repeats a failed stream as a non-streaming request by
itself: the scheduler retries), ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (no
telemetry, no session-title request), ``CLAUDE_CODE_DISABLE_CLAUDE_MDS=1`` (a
``CLAUDE.md`` an agent planted in a folder above the workspace would otherwise reach the
judge's context), ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1``, and a private ``HOME`` (it
writes ``~/.claude.json``).

Tools: ``Read``, ``Grep`` and ``Glob`` only. The CLI has no read-only sandbox like
codex's, and the deliverables are untrusted: no shell, no writes, no web.

The answer is one JSON document on stdout: ``structured_output`` holds the verdicts
(``result`` the same as text). Failures: ``is_error: true`` with ``result`` "API Error: …"
and ``api_error_status``; "Credit balance is too low" → ``insufficient_quota``; "Not
logged in" → ``no_credential``; the rest by the shared classifier (429 and "Request rate
increased too quickly" → ``rate_limit``, 5xx and lost connections → ``api_error``). A run
that ends without an answer (the turn limit, or answers that never validated against the
schema) is ``parse_error``.
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

CLAUDE_PATTERNS = CliPatterns((
    ("not logged in", "no_credential"),
    ("credit balance is too low", "insufficient_quota"),
))
"""claude's own failure wording → kind (before the shared classifier)."""

NO_ANSWER_SUBTYPES = {
    "error_max_turns": "it reached --max-turns (JUDGE_MAX_TURNS) first",
    "error_max_structured_output_retries": "its answers did not validate against the verdict schema",
}
"""Result subtypes of a run that ended without an answer: ``parse_error`` (retried)."""

TOOLS = "Read,Grep,Glob"
"""The only tools the judge gets: read-only."""

FIXED_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
    "CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK": "1",
    "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
    "DISABLE_AUTOUPDATER": "1",
}
"""Environment every claude attempt gets (module doc says why)."""


def anthropic_base_url(base_url: str) -> str:
    """``JUDGE_BASE_URL`` as ``ANTHROPIC_BASE_URL``: without a trailing ``/`` or ``/v1``."""
    url = base_url.rstrip("/")
    return url.removesuffix("/v1")


class ClaudeCliBackend(CliBackend):
    """``JUDGE_BACKEND=claude``: judges each block with ``claude -p`` (module doc: flags,
    environment, failure classification). Needs the ``claude`` CLI on PATH and an endpoint
    that speaks the Anthropic Messages API (``/v1/messages``)."""

    name = "claude"
    executable = "claude"
    install_hint = "npm install -g @anthropic-ai/claude-code"

    def prepare(self, run_dir: Path, prompt: str, schema: dict[str, Any], workspace: Path) -> CliCall:
        """Argv and environment of one attempt (nothing is written but the private HOME)."""
        config = self.ctx.settings
        head = [self.exe, "-p", "--output-format", "json", "--json-schema", json.dumps(schema), "--model", config.model,
                "--max-turns", str(config.max_turns), "--tools", TOOLS, "--no-session-persistence", "--"]
        env = cli_environment({**FIXED_ENV, "HOME": str(run_dir / "home"), "TMPDIR": str(run_dir / "tmp"),
                               "ANTHROPIC_BASE_URL": anthropic_base_url(self.base_url),
                               "ANTHROPIC_API_KEY": self.api_key})
        shown = [*head, "<prompt>"]
        shown[head.index("--json-schema") + 1] = "<schema>"
        return CliCall([*head, prompt], env, audit_argv=shown)

    def read(self, outcome: ProcOutcome, run_dir: Path) -> CliReport:
        """The verdicts (``structured_output``, else ``result``), requests and tokens, and the
        failure when claude reported an error, hung or printed no result document."""
        doc = _result_document(outcome.stdout)
        if doc is None:
            calls = 1 if outcome.timed_out or outcome.returncode not in (0, 127) else 0
            report = CliReport(outcome.stdout.strip() or None, calls=calls)
            said = last_line(outcome.stderr) or last_line(outcome.stdout)
            if outcome.timed_out:
                report.failure = self.timeout_failure(outcome, said, calls=calls, tokens=0)
            elif outcome.returncode != 0:
                kind = "backend_missing" if outcome.returncode == 127 else classify_cli_error(said, patterns=CLAUDE_PATTERNS)
                report.failure = CliFailure(f"claude exited {outcome.returncode}: {said or 'no message'}", kind=kind,
                                            calls=calls)
            return report
        usage = raw_usage if isinstance(raw_usage := doc.get("usage"), dict) else {}
        tokens = sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                       "cache_read_input_tokens", "output_tokens"))
        turns = int(doc.get("num_turns") or 0)
        structured = doc.get("structured_output")
        text = json.dumps(structured, ensure_ascii=False) if isinstance(structured, (dict, list)) else doc.get("result")
        notes = {"subtype": doc.get("subtype"), "num_turns": turns, "api_error_status": doc.get("api_error_status"),
                 "permission_denials": doc.get("permission_denials")}
        if not doc.get("is_error"):
            # an answer through the StructuredOutput tool counts one turn more than requests
            calls = max(1, turns - 1) if isinstance(structured, (dict, list)) else max(1, turns)
            return CliReport(text if isinstance(text, str) else None, calls=calls, tokens=tokens, notes=notes)
        message = str(doc.get("result") or doc.get("subtype") or "error")
        if doc.get("subtype") in NO_ANSWER_SUBTYPES:
            return CliReport(None, calls=max(1, turns - 1), tokens=tokens, notes=notes, failure=CliFailure(
                f"claude gave no verdicts: {NO_ANSWER_SUBTYPES[doc['subtype']]}", kind="parse_error",
                calls=max(1, turns - 1), tokens=tokens))
        status = doc.get("api_error_status") if isinstance(doc.get("api_error_status"), int) else None
        kind = classify_cli_error(message, status=status, patterns=CLAUDE_PATTERNS)
        calls = 0 if kind == "no_credential" else max(1, turns)
        return CliReport(None, calls=calls, tokens=tokens, notes=notes,
                         failure=CliFailure(f"claude: {message}", kind=kind, calls=calls, tokens=tokens))


def _result_document(stdout: str) -> dict[str, Any] | None:
    """The ``{"type": "result", …}`` document on stdout (the whole text, else the last line
    that is one)."""
    for line in [stdout.strip(), *reversed(stdout.strip().splitlines())]:
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and doc.get("type") == "result":
            return doc
    return None
