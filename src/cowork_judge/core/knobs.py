"""A setting is declared once: `knob(...)` in the field of the model that holds it.

One call gives the pydantic field (default, bounds, the description that
``scripts/gen_config_docs.py`` renders into ``docs/configuration.md``) and carries, in the
field's metadata, a `Knob`: the environment variable(s) that set it, the parser of their
text, its `Effect` on a stored result (what the verdict fingerprint holds and what a resume
does when it changed), whether its value is a secret, and its cap. Everything else is read
from the model (`knob_table`): `config.judge_config` derives its environment reader,
`ENV_NAMES`, the caps and the masked view of a config from it, and `config.effects` the table
of effects the fingerprint and the resume read. The nested policies of the configuration
(`core.scoring.ScoringPolicy`, `core.retry.RetryPolicy`) declare their settings the same way,
which is why this lives on the ground floor.

Pure: no environment, no I/O. The parsers turn a variable's text into a value or raise a
`ValueError` whose words follow the variable's name (``must be an integer ≥ 1``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

Kind = Literal["verdict", "score", "none"]
Secret = Literal["key", "url"]
OMIT = object()
"""`Effect.value` returns it to leave the key out (the sampling settings of a run that asks every row once)."""
DERIVED = "derived"
"""`Effect.value` marker: the fingerprint holds a digest `run.fingerprint.verdict_ingredients` computes from the
tests folder (the instruction's text, not its file name)."""
WHEN = "decides whether or when a verdict is reached, not which one (an unjudged row says why)"
"""The `Effect.none` reason of the settings of pace, time and retries."""
TRUTHY = frozenset({"1", "true", "yes", "on", "y", "t"})
FALSY = frozenset({"0", "false", "no", "off", "n", "f", ""})


@dataclass(frozen=True)
class Effect:
    """What one setting changes in a stored result (`config.effects` explains the three kinds).

    Attributes:
        kind: ``verdict``, ``score`` or ``none``.
        why: one line for the docs and the test's failure message.
        key: where the verdict fingerprint holds it (dotted: ``sampling.batch``); None for ``none``
            and for ``score`` settings with no part that decides the verdicts.
        value: config → what the fingerprint holds (default: the setting's value as JSON);
            `DERIVED` when the fingerprint computes it from the tests folder.
    """

    kind: Kind
    why: str
    key: str | None = None
    value: Callable[[Any], Any] | str | None = None

    @classmethod
    def verdict(cls, key: str, why: str, value: Callable[[Any], Any] | str | None = None) -> Effect:
        """A setting that decides the verdicts: in the fingerprint at `key` (a resume judges again)."""
        return cls("verdict", why, key, value)

    @classmethod
    def score(cls, why: str, key: str | None = None, value: Callable[[Any], Any] | None = None) -> Effect:
        """A setting a resume re-scores from stored verdicts; `key`/`value` for a part that decides verdicts."""
        return cls("score", why, key, value)

    @classmethod
    def none(cls, why: str) -> Effect:
        """A setting that changes no verdict, reward or document (a resume keeps the result)."""
        return cls("none", why)


@dataclass(frozen=True)
class Knob:
    """The environment side of one setting (the field's metadata; `knob` makes it).

    Attributes:
        env: variable names in priority order, the first one set wins.
        parse: variable text → value, raising `ValueError` (words that follow the variable's
            name); None when the configuration reads it with a reader of its own (the
            credential pair, the JSON settings).
        effect: what a change of it does to a stored result.
        secret: ``key`` (masked as ``****`` + its last 4 characters, and redacted from
            everything the run writes) or ``url`` (masked and redacted as an endpoint URL:
            its userinfo and secret-looking query values); None for a plain value.
        cap: (largest accepted value, why) — a larger value is used as the cap, with a warning.
    """

    env: tuple[str, ...]
    parse: Callable[[str], Any] | None
    effect: Effect
    secret: Secret | None = None
    cap: tuple[float, str] | None = None


def knob(default: Any = ..., *, env: str | tuple[str, ...], parse: Callable[[str], Any] | None, effect: Effect, doc: str,
         secret: Secret | None = None, cap: tuple[float, str] | None = None,
         default_factory: Callable[[], Any] | None = None, **bounds: Any) -> Any:
    """Declare a setting in one place: the pydantic field with its `Knob`.

    Args:
        default: the default value (or `default_factory`).
        env, parse, effect, secret, cap: the `Knob`.
        doc: the description, ``NAME: meaning`` (the config docs table strips the name).
        bounds: pydantic bounds (``ge``, ``gt``, ``le``) and other field options.

    Returns:
        A `pydantic.fields.FieldInfo` (typed `Any`, as `pydantic.Field` is) to assign to the field.
    """
    names = (env,) if isinstance(env, str) else tuple(env)
    if default_factory is not None:
        info: FieldInfo = Field(default_factory=default_factory, description=doc, **bounds)
    else:
        info = Field(default, description=doc, **bounds)
    info.metadata.append(Knob(names, parse, effect, secret, cap))
    return info


def knob_of(info: FieldInfo) -> Knob | None:
    """The `Knob` of a field, or None (a field that is no setting)."""
    return next((m for m in info.metadata if isinstance(m, Knob)), None)


def model_fields(kind: Any) -> dict[str, FieldInfo]:
    """The fields of a pydantic model or pydantic dataclass (class), else {}."""
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return dict(kind.model_fields)
    return dict(getattr(kind, "__pydantic_fields__", None) or {})


def nested_models(model: Any) -> dict[str, Any]:
    """Field → type of the models nested in `model` whose own fields declare settings."""
    out = {}
    for name, info in model_fields(model).items():
        if knob_of(info) is None and any(knob_of(i) for i in model_fields(info.annotation).values()):
            out[name] = info.annotation
    return out


def knob_table(model: Any) -> dict[str, tuple[FieldInfo, Knob]]:
    """Every setting `model` declares, in declaration order: name (dotted for a field of a
    nested model, ``scoring.reward_mode``) → (its field, its `Knob`)."""
    nested = nested_models(model)
    out: dict[str, tuple[FieldInfo, Knob]] = {}
    for name, info in model_fields(model).items():
        if name in nested:
            out.update({f"{name}.{inner}": pair for inner, pair in knob_table(nested[name]).items()})
        elif (found := knob_of(info)) is not None:
            out[name] = (info, found)
    return out


def setting_value(config: Any, name: str) -> Any:
    """The value of setting `name` (dotted for a nested policy's field) in `config`."""
    value: Any = config
    for part in name.split("."):
        value = getattr(value, part)
    return value


# --------------------------------------------------------------------------- parsers

_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?")


def integer(minimum: int) -> Callable[[str], int]:
    """Parser of an integer setting ≥ `minimum`; its `ValueError` says what is expected in one
    clause (issue 39: ``JUDGE_SAMPLES='three' must be an integer ≥ 1``, never Python's
    ``invalid literal for int()``)."""
    expected = f"must be an integer ≥ {minimum}"

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise ValueError(expected) from None
        if value < minimum:
            raise ValueError(expected)
        return value

    return parse


def number(minimum: float, *, strict: bool = False, maximum: float = math.inf, digits: bool = False) -> Callable[[str], float]:
    """Parser of a number setting in [`minimum`, `maximum`] (`minimum` excluded when `strict`);
    its `ValueError` says the expected range, whatever was wrong (issue 39). With `digits`, only
    plain decimals are numbers (``3600``, ``3600.5``, spaces around): no sign, exponent,
    underscore, ``inf`` — what a shell script reading the same variable understands (JUDGE_DEADLINE,
    which ``templates/test.sh`` reads too; trial 6 F11)."""
    expected = (f"must be a number {'>' if strict else '≥'} {minimum:g}" + (f" and ≤ {maximum:g}" if math.isfinite(maximum) else "")
                + (" written in digits (no sign or exponent)" if digits else ""))

    def parse(text: str) -> float:
        if digits and not _DECIMAL.fullmatch(text.strip()):
            raise ValueError(expected)
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError(expected) from None
        if not math.isfinite(value) or value < minimum or (strict and value == minimum) or value > maximum:
            raise ValueError(expected)
        return value

    return parse


def flag(text: str) -> bool:
    """Parser of an on/off setting (`TRUTHY`, `FALSY`)."""
    low = text.strip().lower()
    if low in TRUTHY:
        return True
    if low in FALSY:
        return False
    raise ValueError("must be one of 1/0, true/false, yes/no, on/off")


def choice(*options: str) -> Callable[[str], str]:
    """Parser of a setting that is one of `options` (case-insensitive; the lower-case option)."""

    def parse(text: str) -> str:
        low = text.strip().lower()
        if low not in options:
            raise ValueError(f"must be one of {', '.join(options)}")
        return low

    return parse


def text(value: str) -> str:
    """Parser of a non-empty text setting (stripped)."""
    stripped = value.strip()
    if not stripped:
        raise ValueError("is empty")
    return stripped


def label(value: str) -> str:
    """Parser of a non-empty one-line label written into documents and sent on the wire (stripped).

    Raises:
        ValueError: empty, or holds a control character (a newline, a tab, U+0000…U+001F, U+007F…U+009F):
            a label with a newline splits the line-oriented logs and outputs that carry it.
    """
    stripped = text(value)
    bad = next((ch for ch in stripped if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F), None)
    if bad is not None:
        raise ValueError(f"holds the control character {bad!r}: give a label on one line")
    return stripped
