"""Secret redaction: keys never reach result.json, logs, the audit folder or workspaces.

A `Redactor` knows the secret values of this run (API keys and any environment value
whose name contains KEY, TOKEN, SECRET or PASSWORD) and replaces them with
``[REDACTED]`` in any text or JSON-like value (SPEC §22; Harbor redacts the same names).
"""

from __future__ import annotations

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
        # Longest first so that a secret containing another is replaced whole. A value
        # shorter than MIN_SECRET_LEN is replaced only as a whole token: a key "data" must
        # not turn "database" into "[REDACTED]base" nor "task_score" into a new JSON key.
        self._values = sorted(values, key=len, reverse=True)
        parts = [re.escape(v) if len(v) >= MIN_SECRET_LEN else rf"(?<![\w-]){re.escape(v)}(?![\w-])" for v in self._values]
        self._pattern = re.compile("|".join(parts)) if parts else None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """Collect secrets from variables whose names look secret, plus credentials: the
        `extra` values (the resolved judge key) and ``*_API_KEY`` variables, plus tokens
        embedded in endpoint URLs (``https://user:token@host/?key=…``)."""
        found = [v for k, v in environ.items() if SECRET_NAME.search(k) and not CREDENTIAL_NAME.search(k)]
        credentials = [v for k, v in environ.items() if CREDENTIAL_NAME.search(k)]
        for name in ("JUDGE_BASE_URL", "OPENAI_BASE_URL"):
            # query values stay at the secret length: ``?api-version=2024-06-01&stream=true``
            found.extend(url_secrets(environ.get(name, "")))
        return cls(found, [*credentials, *extra])

    def text(self, value: str) -> str:
        """`value` with every secret replaced by ``[REDACTED]``."""
        if self._pattern is None or not value:
            return value
        return self._pattern.sub(MARK, value)

    def value(self, value: Any) -> Any:
        """Redact strings inside dicts/lists/tuples recursively (keys included)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value


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
        record.msg = self._redactor.text(message)
        record.args = None
        return True
