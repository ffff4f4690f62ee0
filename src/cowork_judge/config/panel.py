"""``JUDGE_PANEL`` and ``JUDGE_PRICES``: a panel's judges and a price table, read from their JSON (issue 28).

A panel is a JSON list of judges::

    [{"name": "mini", "model": "gpt-4.1-mini"},
     {"name": "haiku", "model": "claude-haiku-4-5", "base_url": "https://gw.example/v1",
      "api_key_env": "GATEWAY_KEY", "weight": 2}]

``model`` is required; ``name`` defaults to the model (names must differ); ``base_url``
defaults to the run's endpoint (``JUDGE_BASE_URL``); ``api_key_env`` is the NAME of the
environment variable that holds the judge's key, read once when the configuration is
loaded — a panel never carries a key. A judge on another endpoint must name its own
variable (the run's key is never sent to another endpoint); a judge on the run's endpoint
without one uses ``JUDGE_API_KEY``. A field that looks like a key (``api_key``, ``key``,
``token``, ``secret``…) is refused: it is dropped with a warning that names the field but
never its value, and the value is added to the run's redaction, so it reaches no document
or log. ``weight`` (> 0, default 1) counts in ``JUDGE_PANEL_VOTE=weighted``.

A price table maps model names to US dollars per million tokens (`core.cost.Price`)::

    {"gpt-4.1-mini": {"input": 0.4, "cached_input": 0.1, "output": 1.6}}

Errors are ValueErrors whose messages never quote a value (the whole text of a malformed
panel may hold a key).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from cowork_judge.core.cost import Price

ENV_NAME_RE = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]{0,127}\Z")
"""What an environment variable's name looks like (a key with ``-`` never does)."""
UPPER_NAME_RE = re.compile(r"\A[A-Z_][A-Z0-9_]*\Z")
"""A conventional variable name: quoted in warnings (anything else might be a pasted key)."""
SECRET_FIELDS = frozenset({"api_key", "apikey", "key", "token", "secret", "password", "authorization", "bearer"})
"""Panel fields refused because they would carry a secret in the panel's text."""
KNOWN_FIELDS = frozenset({"name", "model", "base_url", "api_key_env", "weight"})
MAX_JUDGES = 9
"""Largest panel: every judge multiplies the run's calls (PoLL's panels had 3 judges)."""


class PanelJudge(BaseModel):
    """One judge of ``JUDGE_PANEL`` (see the module docstring).

    Attributes:
        api_key: resolved from `api_key_env` (or the run's key) when the configuration is
            loaded; never read from the panel's text; the run context takes it out of the
            configuration once the judge's call path holds it.
        key_refused: see the field (trial 6 F22: such a key was retried as a connection error).
        url_refused: see the field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key_env: str | None = None
    weight: float = Field(1.0, gt=0, allow_inf_nan=False)
    api_key: SecretStr | None = Field(None, exclude=True)
    key_refused: str | None = Field(None, exclude=True)
    """Why the key `api_key_env` holds was refused (`key_problem`: ``holds a line break at
    character 7 of 15``); the judge then has no key. Set by `resolve_keys`."""
    url_refused: str | None = Field(None, exclude=True)
    """Why `base_url` was refused (`config.judge_config.endpoint_problem`, the check JUDGE_BASE_URL gets: ``ends in
    the route /chat/completions …``); the judge then has no endpoint and no key: its samples are lost
    (``no_credential``) with no request sent, and it never falls back to the run's endpoint."""


def key_problem(key: str) -> str | None:
    """What keeps `key` (a judge key, already stripped of surrounding spaces) from travelling in
    an HTTP ``Authorization`` header, in words that follow the variable's name (``holds a line
    break at character 7``, ``holds a non-ASCII character at character 4``, ``holds a control
    character …``); None when it can. The openai client retries such a key as a connection
    error until the deadline (trial 6 F22). The words never quote the key, only a position."""
    for i, ch in enumerate(key, start=1):
        if ch in "\r\n":
            return f"holds a line break at character {i} of {len(key)}"
        if ord(ch) > 126:
            return f"holds a non-ASCII character at character {i} of {len(key)}"
        if ord(ch) < 32 or ord(ch) == 127:
            return f"holds a control character (code {ord(ch)}) at character {i} of {len(key)}"
    return None


def read_panel(text: str) -> tuple[tuple[PanelJudge, ...], list[str], list[str]]:
    """Parse ``JUDGE_PANEL``.

    Returns:
        (the judges without keys, warnings, values of refused secret fields — for redaction).

    Raises:
        ValueError: not a JSON list of objects, no judge, more than `MAX_JUDGES`, a judge
            without a model, a bad field, a repeated name, an ``api_key_env`` that is not
            a variable's name (the message never quotes a value).
    """
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError("is not valid JSON (a list of judges)") from None
    if not isinstance(data, list) or not data:
        raise ValueError("must be a non-empty JSON list of judges")
    if len(data) > MAX_JUDGES:
        raise ValueError(f"has {len(data)} judges; at most {MAX_JUDGES}")
    judges: list[PanelJudge] = []
    warnings: list[str] = []
    secrets: list[str] = []
    for n, entry in enumerate(data, start=1):
        if not isinstance(entry, dict):
            raise ValueError(f"judge {n} is not an object")
        entry = dict(entry)
        for field in sorted(k for k in entry if str(k).lower() in SECRET_FIELDS):
            value = entry.pop(field)
            if isinstance(value, str) and value:
                secrets.append(value)
            warnings.append(f"JUDGE_PANEL judge {n}: the field {field!r} would put a key in the panel's text; it is "
                            "ignored (name the environment variable that holds the key in api_key_env)")
        unknown = sorted(str(k) for k in entry if k not in KNOWN_FIELDS)
        if unknown:
            raise ValueError(f"judge {n} has unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(KNOWN_FIELDS))}")
        env_name = entry.get("api_key_env")
        if env_name is not None and not (isinstance(env_name, str) and ENV_NAME_RE.match(env_name)):
            if isinstance(env_name, str) and env_name:
                secrets.append(env_name)
            raise ValueError(f"{_judge_label(n, entry)}: api_key_env {env_name_problem(env_name)}: it must be the NAME "
                             "of the environment variable that holds the judge's key, not a key (letters, digits and _, "
                             "not starting with a digit, at most 128 characters); the whole panel is not used "
                             "(JUDGE_MODEL judges alone)")
        if isinstance(entry.get("model"), str) and "name" not in entry:
            entry["name"] = entry["model"]
        if isinstance(entry.get("base_url"), str):
            entry["base_url"] = entry["base_url"].strip().rstrip("/") or None
        try:
            judges.append(PanelJudge.model_validate(entry))
        except ValidationError as exc:
            first = exc.errors(include_input=False, include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "judge"
            raise ValueError(f"judge {n}: {where}: {first['msg']}") from None
    names = [j.name for j in judges]
    repeated = sorted({x for x in names if names.count(x) > 1})
    if repeated:
        raise ValueError(f"judge names must differ (repeated: {', '.join(repeated)}; give each a name)")
    return tuple(judges), warnings, secrets


def _judge_label(n: int, entry: Mapping[str, Any]) -> str:
    """``judge 2`` or ``judge 2 ('haiku')``: the entry's position, and its name when it has a plain one."""
    name = entry.get("name", entry.get("model"))
    plain = isinstance(name, str) and 0 < len(name) <= 64 and name.isprintable()
    return f"judge {n} ({name!r})" if plain else f"judge {n}"


def env_name_problem(value: object) -> str:
    """What keeps `value` (a panel entry's ``api_key_env``) from being an environment variable's
    name, in words that follow ``api_key_env`` and never quote it (it may be a pasted key): not
    a string, empty, too long, or its first wrong character and where it stands (``holds '-'
    at character 3 of 6``, ``starts with '1'``; a character that is not printable ASCII by its
    code)."""
    if not isinstance(value, str):
        return "is not a string"
    if not value:
        return "is empty"
    if len(value) > 128:
        return f"is {len(value)} characters long"
    for i, ch in enumerate(value, start=1):
        if ch == "_" or (ch.isascii() and ch.isalnum() and not (i == 1 and ch.isdigit())):
            continue
        shown = repr(ch) if ch.isascii() and ch.isprintable() else f"a character of code {ord(ch)}"
        return f"starts with {shown}" if i == 1 else f"holds {shown} at character {i} of {len(value)}"
    return "is not a name"


def resolve_keys(panel: tuple[PanelJudge, ...], env: Mapping[str, str], *, run_key: str | None,
                 run_url: str | None) -> tuple[tuple[PanelJudge, ...], list[str], list[str]]:
    """Each judge with its key read from its ``api_key_env`` (or the run's key when it uses
    the run's endpoint), warnings for judges left without one (their samples are lost
    ``no_credential``; the other judges' verdicts stand), and the keys refused because an HTTP
    header cannot carry them (`key_problem`; for redaction: they are never sent, and no
    warning quotes them)."""
    out: list[PanelJudge] = []
    warnings: list[str] = []
    refused: list[str] = []
    for judge in panel:
        key: str | None = None
        why: str | None = None
        if judge.api_key_env:
            key = (env.get(judge.api_key_env) or "").strip() or None
            # a mixed-case "name" may be a key pasted in the wrong field: not quoted
            named = judge.api_key_env if UPPER_NAME_RE.match(judge.api_key_env) else "the variable named in api_key_env"
            if key is None:
                warnings.append(f"JUDGE_PANEL judge {judge.name!r}: {named} is not set; this judge's samples "
                                "will be lost (no_credential)")
            elif (why := key_problem(key)) is not None:  # trial 6 F22 for a panel judge's own key
                refused.append(key)
                key = None
                warnings.append(f"JUDGE_PANEL judge {judge.name!r}: {named} {why}: it is ignored (an HTTP header "
                                "cannot carry it; fix the variable); this judge's samples will be lost (no_credential), "
                                "with no request sent")
        elif judge.base_url and judge.base_url != run_url:
            warnings.append(f"JUDGE_PANEL judge {judge.name!r} is on another endpoint than JUDGE_BASE_URL and names no "
                            "api_key_env: the run's key is never sent to another endpoint; its samples will be lost "
                            "(no_credential)")
        else:
            key = run_key
            if key is None:
                warnings.append(f"JUDGE_PANEL judge {judge.name!r} uses the run's key and JUDGE_API_KEY is not set; its "
                                "samples will be lost (no_credential)")
        out.append(judge.model_copy(update={"api_key": SecretStr(key) if key else None, "key_refused": why}))
    return tuple(out), warnings, refused


def read_prices(text: str) -> tuple[dict[str, Price], list[str]]:
    """Parse ``JUDGE_PRICES``: model → {input, cached_input?, output} (dollars per 10⁶ tokens,
    each in ``[0, core.cost.MAX_PRICE]``).

    Returns:
        (the prices, warnings): an entry that is not such an object (a negative price, a
        typo such as ``1e308``) is dropped with a warning that names the model and the
        field, so that model's cost is null and it is listed as unpriced; the others stand.

    Raises:
        ValueError: not a JSON object, or no entry left (the message never quotes a value).
    """
    try:
        data: Any = json.loads(text)
    except ValueError:
        raise ValueError("is not valid JSON (model → {input, cached_input, output})") from None
    if not isinstance(data, dict) or not data:
        raise ValueError("must be a non-empty JSON object: model → {input, cached_input, output} in $ per million tokens")
    prices: dict[str, Price] = {}
    refused: list[str] = []
    for model, entry in data.items():
        try:
            prices[str(model)] = Price.model_validate(entry)
        except ValidationError as exc:
            first = exc.errors(include_input=False, include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "price"
            refused.append(f"model {model!r}: {where}: {first['msg']}")
    if not prices:
        raise ValueError(f"has no usable price ({'; '.join(refused)}; $ per million tokens)")
    warnings = [f"JUDGE_PRICES {why} ($ per million tokens); this entry is ignored: the model's cost is null and it is "
                "listed as unpriced" for why in refused]
    return prices, warnings


__all__ = ["MAX_JUDGES", "PanelJudge", "env_name_problem", "key_problem", "read_panel", "read_prices", "resolve_keys"]
