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
NOT_SECRET_NAMES = frozenset({"JUDGE_LIMITER_KEY"})
"""Variables whose names match `SECRET_NAME` but hold no secret: ``JUDGE_LIMITER_KEY`` names
the shared store's key for a rate limit (an operator's label such as the model's name).
Redacting it turned every equal string of the result into ``[REDACTED]`` — ``judge_model``
when the label was the model — and hid from the log which key the jobs share."""
MIN_SECRET_LEN = 8
"""Values of merely secret-looking variables (``*TOKEN*``, ``MONKEY_MODE``…) shorter than
this are not treated as secrets: they would redact ordinary words."""
MIN_CREDENTIAL_LEN = 4
"""API keys (``*_API_KEY`` and the resolved judge key) are redacted from this length on
(SPEC §22 names them without a length); `config.load_config` warns below it."""
MARK = "[REDACTED]"


URL_NAMES = ("JUDGE_BASE_URL", "OPENAI_BASE_URL", "JUDGE_LIMITER_URL")
"""The variables whose URL may carry a token or a password, when the caller names none (`Redactor.from_environ`;
the configuration names the variables of its ``url`` secret settings, these three)."""


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
    def from_environ(cls, environ: Mapping[str, str], extra: Iterable[str] = (),
                     url_names: Iterable[str] = URL_NAMES) -> Redactor:
        """Collect secrets from variables whose names look secret, plus credentials: the
        `extra` values (the resolved judge key) and ``*_API_KEY`` variables, plus tokens
        embedded in the URLs of the variables `url_names` (``https://user:token@host/?key=…``;
        the configuration passes those of its ``url`` secret settings)."""
        found = [v for k, v in environ.items()
                 if SECRET_NAME.search(k) and not CREDENTIAL_NAME.search(k) and k.upper() not in NOT_SECRET_NAMES]
        credentials = [v for k, v in environ.items() if CREDENTIAL_NAME.search(k)]
        for name in url_names:
            # query values stay at the secret length: ``?api-version=2024-06-01&stream=true``
            found.extend(url_secrets(environ.get(name, "")))
        return cls(found, [*credentials, *extra])

    def redact(self, value: str) -> str:
        """`value` with every secret replaced by ``[REDACTED]``.

        Strings that contain none of the secrets are returned as they are without running
        the pattern (a plain substring test per secret: a 5,000-row document holds tens of
        thousands of strings, and the watchdog must write it within seconds).
        """
        if self._pattern is None or not value or not any(v in value for v in self._values):
            return value
        return self._pattern.sub(MARK, value)

    text = redact
    """The former name of `redact`, kept for the callers written before it (tests)."""

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
            return self.redact(value)
        if isinstance(value, Mapping):
            return {self.redact(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value


def _pattern(values: list[str]) -> re.Pattern[str] | None:
    """One alternation of `values` (longest first); a value shorter than `MIN_SECRET_LEN`
    matches only as a whole token: a key "data" must not turn "database" into
    "[REDACTED]base" nor "task_score" into a new JSON key."""
    parts = [re.escape(v) if len(v) >= MIN_SECRET_LEN else rf"(?<![\w-]){re.escape(v)}(?![\w-])" for v in values]
    return re.compile("|".join(parts)) if parts else None


SCHEME_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*(?::/+|/{2,})")
"""What a URL's scheme looks like at the start of a text, typos included (``redis://``,
``redis:/``, ``redis//``, ``http:///``): kept when the user info after it is masked."""


def _userinfo_end(text: str) -> int:
    """Index of the ``@`` that ends what looks like a URL's user info in `text`, -1 when
    none does. Parsing is not trusted (a mistyped URL — ``redis:/:pw@host``, ``http:/u:pw@host``,
    a password holding ``/``, ``?`` or ``#`` — puts the user info in the path, the query or
    the fragment): the LAST ``@`` counts, unless it stands inside a query value
    (``…/v1?email=a@b``: a ``?`` before it followed by a ``name=``), then the last ``@``
    before that query."""
    at = text.rfind("@")
    if at < 0:
        return -1
    query = text.find("?")
    if 0 <= query < at and "=" in text[query:at]:
        return text.rfind("@", 0, query)
    return at


URL_SCHEMES = ("http", "https", "redis", "rediss", "unix")
"""The schemes of the URLs the judge reads (endpoints, the fleet's store): `url_shape` names them as typed."""


def url_shape(text: str) -> str:
    """What a refused URL looks like, for a warning that must not quote it (it may hold a
    password anywhere once mistyped): its scheme as typed when it starts with one of
    `URL_SCHEMES` (``its value begins 'redis:/', the rest is not shown``), else ``its value
    has no http(s)/redis scheme, it is not shown``."""
    typed = re.match(r"\s*([A-Za-z][A-Za-z0-9+.-]{0,15})(:/*|/{2,})", text)
    if typed and typed.group(1).lower() in URL_SCHEMES:
        return f"its value begins {typed.group(1) + typed.group(2)!r}, the rest is not shown"
    return "its value has no http(s)/redis scheme, it is not shown"


def split_userinfo(url: str) -> tuple[str, str, str]:
    """``(scheme prefix, user info, rest)`` of `url` by `_userinfo_end` and `SCHEME_PREFIX`,
    whether or not it parses (``redis:/:pw@h:6379/0`` → ``("redis:/", ":pw", "h:6379/0")``);
    the user info is "" when nothing looks like one (then the prefix is "" and rest is `url`)."""
    end = _userinfo_end(url)
    if end < 0:
        return "", "", url
    scheme = SCHEME_PREFIX.match(url)
    start = scheme.end() if scheme and scheme.end() <= end else 0
    return url[:start], url[start:end], url[end + 1:]


def url_secrets(url: str) -> list[str]:
    """The parts of `url` that can carry a token: the password of its user info (the whole
    user info when it has no ``:``, a token used as the user name: ``https://ghp_…@host``)
    and its query-string values. The user info is found even when the URL does not parse
    (`split_userinfo`): a mistyped ``redis:/:pw@host`` still gives ``pw``."""
    from urllib.parse import parse_qsl, urlsplit

    _, userinfo, _ = split_userinfo(url)
    found = [userinfo.partition(":")[2] if ":" in userinfo else userinfo]
    try:
        parts = urlsplit(url)
        if parts.password:
            found.append(parts.password)
        found.extend(v for _, v in parse_qsl(parts.query))
    except ValueError:
        pass
    return [v for v in found if v]


SECRET_QUERY_WORDS = ("key", "token", "secret", "password", "passwd", "pwd", "auth", "signature", "sig", "credential",
                      "session", "access")
"""A query parameter whose name contains one of these (case-insensitive) is treated as a secret by `mask_url`."""


def mask_url(url: str) -> str:
    """`url` fit to print: a user name and password (``user:pass@``) become ``***@`` and the
    value of every query parameter whose name looks secret (`SECRET_QUERY_WORDS`) becomes
    ``***``; everything else (scheme, host, port, path, other parameters) is kept.

    A text that does not parse as a URL is masked all the same: whatever looks like user
    info (`split_userinfo`: up to the last ``@`` outside a query value) becomes ``***``
    (``redis:/:pw@host:6379/0`` → ``redis:/***@host:6379/0``, ``u:pw@host`` → ``***@host``),
    as typed otherwise. A well-formed URL prints as `urllib.parse.urlunsplit` gives it back
    (a stored fingerprint's endpoint keeps its digest).
    """
    from urllib.parse import urlsplit, urlunsplit

    prefix, userinfo, rest = split_userinfo(url)
    if userinfo or url[len(prefix):].startswith("@"):
        url = f"{prefix}***@{rest}"
    try:
        parts = urlsplit(url)
        if not parts.netloc:  # no authority: not a URL urlunsplit would give back as typed
            head, mark, tail = url.partition("?")
            query, hash_mark, fragment = tail.partition("#")
            return head + mark + _mask_query(query) + hash_mark + fragment
        netloc = parts.netloc
        if "@" in netloc:
            netloc = "***@" + netloc.rpartition("@")[2]
        return urlunsplit((parts.scheme, netloc, parts.path, _mask_query(parts.query), parts.fragment))
    except ValueError:
        return url


def _mask_query(query: str) -> str:
    """A query string with the value of every secret-looking parameter (`SECRET_QUERY_WORDS`) as ``***``."""
    from urllib.parse import parse_qsl, urlencode

    if not query:
        return query
    pairs = parse_qsl(query, keep_blank_values=True)
    return urlencode([(k, "***" if any(w in k.lower() for w in SECRET_QUERY_WORDS) else v) for k, v in pairs], safe="*")


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
        from cowork_judge.safety.spotlight import mask  # the prompts' boundary is never logged either

        record.msg = mask(self._redactor.redact(message))
        record.args = None
        return True
