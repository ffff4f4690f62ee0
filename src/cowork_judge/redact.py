"""Secret redaction: keys never reach result.json, logs, the audit folder or workspaces.

A `Redactor` knows the secret values of this run (API keys and any environment value
whose name contains KEY, TOKEN, SECRET or PASSWORD) and replaces them with
``[REDACTED]`` in any text or JSON-like value (SPEC §22; Harbor redacts the same names).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
CREDENTIAL_NAME = re.compile(r"_API_KEY$", re.IGNORECASE)
MIN_SECRET_LEN = 8
"""Values of merely secret-looking variables (``*TOKEN*``, ``MONKEY_MODE``…) shorter than
this are not treated as secrets: they would redact ordinary words."""
MIN_CREDENTIAL_LEN = 4
"""API keys (``*_API_KEY`` and the resolved judge key) are redacted from this length on
(SPEC §22 names them without a length); `config.load_config` warns below it."""
MARK = "[REDACTED]"


class Redactor:
    """Replace known secret values in text and nested JSON-like values."""

    def __init__(self, secrets: Iterable[str] = (), credentials: Iterable[str] = ()) -> None:
        """`secrets`: values redacted from `MIN_SECRET_LEN` characters on; `credentials`
        (API keys): from `MIN_CREDENTIAL_LEN` on."""
        values = {s for s in secrets if s and len(s) >= MIN_SECRET_LEN}
        values |= {s for s in credentials if s and len(s) >= MIN_CREDENTIAL_LEN}
        # Longest first so that a secret containing another is replaced whole.
        self._values = sorted(values, key=len, reverse=True)
        self._pattern = _pattern(self._values)
        # the same secrets as they appear inside JSON text (quotes, backslashes and control
        # characters escaped), for `json_text`
        escaped = sorted(values | {json.dumps(v, ensure_ascii=False)[1:-1] for v in values}, key=len, reverse=True)
        self._json_values = escaped
        self._json_pattern = _pattern(escaped)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """Collect secrets from variables whose names look secret, plus credentials: the
        `extra` values (the resolved judge key) and ``*_API_KEY`` variables, plus tokens
        embedded in endpoint URLs (``https://user:token@host/?key=…``)."""
        found = [v for k, v in environ.items() if SECRET_NAME.search(k) and not CREDENTIAL_NAME.search(k)]
        credentials = [v for k, v in environ.items() if CREDENTIAL_NAME.search(k)]
        for name in ("JUDGE_BASE_URL", "OPENAI_BASE_URL", "JUDGE_LIMITER_URL"):
            # query values stay at the secret length: ``?api-version=2024-06-01&stream=true``
            found.extend(url_secrets(environ.get(name, "")))
        return cls(found, [*credentials, *extra])

    def text(self, value: str) -> str:
        """`value` with every secret replaced by ``[REDACTED]``.

        Strings that contain none of the secrets are returned as they are without running
        the pattern (a plain substring test per secret: a 5,000-row document holds tens of
        thousands of strings, and the watchdog must write it within seconds).
        """
        if self._pattern is None or not value or not any(v in value for v in self._values):
            return value
        return self._pattern.sub(MARK, value)

    def json_text(self, text: str) -> str:
        """`text`, a JSON document, with every secret replaced inside it — one pass over the
        text instead of a walk over every value. The result must be checked by the caller
        (a short secret that equals a JSON literal or number breaks the document, which
        the caller detects by parsing it; `value` is the slow, exact alternative)."""
        if self._json_pattern is None or not any(v in text for v in self._json_values):
            return text
        return self._json_pattern.sub(MARK, text)

    def value(self, value: Any) -> Any:
        """Redact strings inside dicts/lists/tuples recursively (keys included)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value


def _pattern(values: list[str]) -> re.Pattern[str] | None:
    """One alternation of `values` (longest first); a value shorter than `MIN_SECRET_LEN`
    matches only as a whole token: a key "data" must not turn "database" into
    "[REDACTED]base" nor "task_score" into a new JSON key."""
    parts = [re.escape(v) if len(v) >= MIN_SECRET_LEN else rf"(?<![\w-]){re.escape(v)}(?![\w-])" for v in values]
    return re.compile("|".join(parts)) if parts else None


def url_secrets(url: str) -> list[str]:
    """Password and query-string values of a URL (the parts that can carry a token)."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.password] if parts.password else []
    found.extend(v for _, v in parse_qsl(parts.query))
    return [v for v in found if v]


SECRET_QUERY_WORDS = ("key", "token", "secret", "password", "passwd", "pwd", "auth", "signature", "sig", "credential",
                      "session", "access")
"""A query parameter whose name contains one of these (case-insensitive) is treated as a secret by `mask_url`."""


def mask_url(url: str) -> str:
    """`url` fit to print: a user name and password (``user:pass@``) become ``***@`` and the
    value of every query parameter whose name looks secret (`SECRET_QUERY_WORDS`) becomes
    ``***``; everything else (scheme, host, port, path, other parameters) is kept. A text
    that is not a URL is returned unchanged.
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = "***@" + netloc.rpartition("@")[2]
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode([(k, "***" if any(w in k.lower() for w in SECRET_QUERY_WORDS) else v) for k, v in pairs],
                              safe="*")
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    except ValueError:
        return url


class RedactingFilter(logging.Filter):
    """A logging filter that redacts the final message of every record."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info:
            formatter = logging.Formatter()
            message = message + "\n" + formatter.formatException(record.exc_info)
            record.exc_info = None
            record.exc_text = None
        from cowork_judge.spotlight import mask  # the prompts' boundary is never logged either

        record.msg = mask(self._redactor.text(message))
        record.args = None
        return True
