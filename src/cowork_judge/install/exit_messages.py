"""Why did a judge run end without a reward? The one table that answers it (SPEC §17).

`RULES` is an ordered table: each rule names one failure class, the `exit_code` it implies
(only the four of SPEC §12), a case-insensitive pattern matched line by line against the
verifier logs, and a one-line reason. The FIRST rule (in table order) that matches any
line decides; the reason quotes the line that matched. A log that matches nothing is
``judge:scorer_error`` ("no known failure pattern").

The same table runs in two places: in Python (`infer`, ``cowork-judge exit-message``) and
inside ``templates/test.sh``, which embeds `render_shell_table()` verbatim so it can classify
failures that happen before any judge is installed (no Python, index unreachable). The
patterns therefore use only the POSIX ERE subset that ``grep -E`` and Python's `re` read
alike (literals, ``.``, ``[...]``, ``*``, ``+``, ``?``, ``|``, ``( )``, ``\\.``); a test pins
that both give the same answer on every snippet.

Lines that ``test.sh`` prints itself start with `MARKER` (``cowork-judge/test.sh: FAILED
<stage>:``), so its own verdicts on a stage are exact, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cowork_judge.core.error_kinds import ExitCode

MARKER = "cowork-judge/test.sh: FAILED"
"""Prefix of the lines test.sh writes when one of its own stages fails."""

LOG_FILES: tuple[str, ...] = ("test-sh.log", "judge.log", "test-stdout.txt")
"""Files of the verifier folder that are read, in this order (missing ones are skipped)."""

TAIL_BYTES = 1_000_000
"""Only the last this-many bytes of each log are read (test.sh does ``tail -c`` alike)."""

MAX_QUOTE_CHARS = 300
"""The matched line is quoted in the reason up to this many characters."""


@dataclass(frozen=True)
class Rule:
    """One failure class.

    Attributes:
        name: stable identifier (also printed by ``--json``).
        exit_code: what the result document says.
        pattern: POSIX ERE (the grep -E / Python `re` common subset), matched
            case-insensitively against single lines.
        reason: the start of the one-line `exit_reason`; the matched line follows it.
    """

    name: str
    exit_code: ExitCode
    pattern: str
    reason: str


RULES: tuple[Rule, ...] = (
    # test.sh's own stages: exact
    Rule("no_python", "judge:scorer_error", MARKER + " python:",
         "no usable Python (3.10 or newer) in the image, the judge could not be installed"),
    Rule("bad_version", "judge:scorer_error", MARKER + " version:",
         "COWORK_JUDGE_VERSION is not a version number"),
    # pip could not reach the index (connection refused, DNS, TLS, proxy, timeouts, 5xx)
    Rule("index_unreachable", "judge:api_error",
         r"Retrying \(Retry\(total=|Could not fetch URL|Failed to establish a new connection"
         r"|Name or service not known|Temporary failure in name resolution|Network is unreachable"
         r"|No route to host|ProxyError|SSLError|certificate verify failed|HTTP error 5[0-9][0-9]"
         r"|Read timed out\. \(read timeout=|ConnectTimeoutError",
         "the package index could not be reached, the judge was not installed"),
    Rule("version_missing", "judge:scorer_error",
         r"No matching distribution found for cowork[-_.]judge|Could not find a version that satisfies the requirement cowork[-_.]judge",
         "the requested cowork-judge version is not on the package index"),
    Rule("wrong_package", "judge:scorer_error", MARKER + " package:",
         "the package installed as cowork-judge is not this project (an unrelated project shares the name)"),
    Rule("install_failed", "judge:scorer_error", MARKER + " (venv|install):",
         "cowork-judge could not be installed"),
    Rule("entry_missing", "judge:scorer_error", MARKER + " entry-missing:",
         "the custom judge entry (CUSTOM_JUDGE_ENTRY) does not exist or cannot be run"),
    # the judge (or a custom entry) ran
    Rule("no_credential", "judge:no_credential",
         r"no judge credentials|AuthenticationError|invalid_api_key|Incorrect API key|Error code: 401"
         r"|401 Unauthorized|PermissionDeniedError|Error code: 403",
         "the judge endpoint refused the credentials or none were configured"),
    Rule("killed_at_deadline", "judge:timeout", MARKER + " timeout:",
         "the judge ran past its time limit and was stopped"),
    Rule("rate_limit", "judge:api_error",
         r"RateLimitError|Error code: 429|429 Too Many Requests|rate limit|Request rate increased too quickly"
         r"|quota exceeded|insufficient_quota",
         "the judge endpoint rate-limited the run"),
    Rule("api_error", "judge:api_error",
         r"APIConnectionError|APIStatusError|InternalServerError|Error code: 5[0-9][0-9]|Bad Gateway"
         r"|Service Unavailable|stream disconnected|Connection refused|Connection reset",
         "the judge endpoint failed"),
    Rule("timeout", "judge:timeout",
         r"APITimeoutError|Request timed out|TimeoutError|timed out|deadline exceeded|JUDGE_DEADLINE",
         "a judge call or the run timed out"),
    Rule("crash", "judge:scorer_error",
         MARKER + r" (judge|entry):|Traceback \(most recent call last\)|ModuleNotFoundError|ImportError"
         r"|Segmentation fault|MemoryError|Killed",
         "the judge crashed"),
)
"""The table, in priority order (first match wins)."""

DEFAULT_EXIT_CODE: ExitCode = "judge:scorer_error"
DEFAULT_REASON = "the judge left no reward and no known failure pattern is in the logs"

_NON_PRINTABLE = re.compile(r"[^\x20-\x7e]")
_ALLOWED_PATTERN = re.compile(r"[A-Za-z0-9 _:,'./\\()\[\]|*+?=-]*")


@dataclass(frozen=True)
class Inference:
    """The most likely cause of a run that left no reward.

    Attributes:
        exit_code: one of the four `ExitCode` values.
        exit_reason: one line: the rule's reason, then the quoted log line.
        rule: the matching rule's name, or ``"default"``.
        line: the log line that matched ("" for the default).
    """

    exit_code: ExitCode
    exit_reason: str
    rule: str
    line: str = ""


def _compiled() -> list[tuple[Rule, re.Pattern[str]]]:
    return [(rule, re.compile(rule.pattern, re.IGNORECASE | re.ASCII)) for rule in RULES]


def quote_line(line: str) -> str:
    """A log line as the reason quotes it, exactly as test.sh does it in bash.

    Every character outside printable ASCII becomes ``?`` (logs are read byte by byte), runs
    of spaces become one, one leading and one trailing space go, and the result is cut to
    `MAX_QUOTE_CHARS`.
    """
    text = _NON_PRINTABLE.sub("?", line)
    text = re.sub(" +", " ", text)
    text = text[1:] if text.startswith(" ") else text
    text = text[:-1] if text.endswith(" ") else text
    return text[:MAX_QUOTE_CHARS]


def infer(texts: Iterable[str | bytes]) -> Inference:
    """Classify logs by the table, the way test.sh's ``grep -a -i -E -m 1`` does.

    Args:
        texts: log contents in the order they are searched (`LOG_FILES` order); `str` is
            taken as UTF-8. Lines are split on ``\\n`` and matched byte-wise (C locale).

    Returns:
        The first rule (table order) that matches some line, quoting the first line
        (text order) it matches; the default inference when none does. Never raises.
    """
    lines: list[str] = []
    for text in texts:
        raw = text.encode("utf-8", errors="replace") if isinstance(text, str) else text
        lines.extend(raw.decode("latin-1").split("\n"))
    for rule, regex in _compiled():
        for line in lines:
            if regex.search(line):
                return Inference(rule.exit_code, f"{rule.reason}: {quote_line(line)}", rule.name, line)
    return Inference(DEFAULT_EXIT_CODE, DEFAULT_REASON, "default")


def read_logs(verifier_dir: Path) -> list[bytes]:
    """The tails (`TAIL_BYTES`) of the `LOG_FILES` that exist in `verifier_dir`, as bytes.

    Unreadable files are skipped. Returns [] when none exists.
    """
    texts = []
    for name in LOG_FILES:
        path = verifier_dir / name
        try:
            with path.open("rb") as fh:
                size = fh.seek(0, 2)
                fh.seek(max(0, size - TAIL_BYTES))
                texts.append(fh.read())
        except OSError:
            continue
    return texts


def infer_from_dir(verifier_dir: Path) -> Inference:
    """`infer` over the logs of one verifier folder (see `read_logs`)."""
    return infer(read_logs(verifier_dir))


def render_shell_table() -> str:
    """The table as test.sh embeds it: one rule a line, ``name<TAB>exit_code<TAB>pattern<TAB>reason``.

    Raises:
        ValueError: a rule uses a character outside the portable pattern subset, or a tab.
    """
    out = []
    for rule in RULES:
        if not _ALLOWED_PATTERN.fullmatch(rule.pattern):
            raise ValueError(f"rule {rule.name}: pattern has characters outside the grep -E / re subset")
        if not _NON_PRINTABLE.sub("", rule.reason) == rule.reason:
            raise ValueError(f"rule {rule.name}: reason must be one line of printable ASCII")
        out.append("\t".join((rule.name, rule.exit_code, rule.pattern, rule.reason)))
    out.append("\t".join(("default", DEFAULT_EXIT_CODE, "-", DEFAULT_REASON)))  # bash's read merges empty fields
    return "\n".join(out) + "\n"
