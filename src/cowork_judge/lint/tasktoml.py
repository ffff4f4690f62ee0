"""``task.toml`` checks (when it sits beside ``tests/``): the knobs a package needs, its timeout.

Harbor injects into the verifier only the variables ``[verifier.env]`` declares, with
whole-value templates ``${VAR}`` / ``${VAR:-default}`` resolved from the host (SPEC §1), and
kills the verifier after ``[verifier].timeout_sec`` (default 600) without downloading its
directory. What a package NEEDS declared (decided here, documented in the README):

- the credential pair (``JUDGE_API_KEY``/``OPENAI_API_KEY`` and ``JUDGE_BASE_URL``/
  ``OPENAI_BASE_URL``) when any row is judged by a model — without it every trial ends
  ``judge:no_credential`` (T002);
- ``JUDGE_DEADLINE``, because ``timeout_sec`` is only safe relative to it: a package that
  leaves it to the installed version's default breaks silently when a fleet or a new
  version moves it (T003), and ``timeout_sec ≥ JUDGE_DEADLINE + INSTALL_MARGIN_SEC`` (T004);
- ``COWORK_JUDGE_VERSION`` is recommended, not needed: without it a fleet cannot inject a
  judge version per batch (T009, WARN).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from cowork_judge.install.taskinit import (ENV_TEMPLATE_RE, INSTALL_BUDGET_SEC, MARGIN_SEC, declared_deadline_sec, is_separate,
                                          required_timeout_sec)
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.reading import Unreadable, read_toml
from cowork_judge.config.effects import invalid_reward_settings
from cowork_judge.config.judge_config import ENV_NAMES, load_config

INSTALL_MARGIN_SEC = float(INSTALL_BUDGET_SEC + MARGIN_SEC)
"""Seconds ``timeout_sec`` must leave beyond JUDGE_DEADLINE — the same budget as
``cowork-judge init`` (`install.taskinit`): the thin test.sh bounds the whole pip install at
300 s (``COWORK_INSTALL_TIMEOUT``) and stops the judge 60 s after its deadline; the rest
covers the capability probe, the fallback documents, the tests/ upload and the
/logs/verifier download (2280 s for the default 1800 s deadline). A cold install measured
44–46 s, so the margin is for the worst case, which is what loses rewards."""
HARBOR_DEFAULT_TIMEOUT_SEC = 600.0
"""Harbor 0.26's ``[verifier].timeout_sec`` when task.toml does not set it."""
THIN_SHELL_NAMES = ("COWORK_JUDGE_VERSION", "COWORK_JUDGE_VERSION_SOURCE", "COWORK_WHEEL_URL", "COWORK_JUDGE_EXTRAS",
                    "CUSTOM_JUDGE_ENTRY", "COWORK_JUDGE_PYTHON", "COWORK_JUDGE_HOME", "COWORK_PIP_TIMEOUT",
                    "COWORK_PIP_RETRIES", "COWORK_INSTALL_TIMEOUT")
"""Variables the thin test.sh reads (SPEC §14 and the tunables in templates/test.sh's header);
any variable the package's own test.sh reads is known too."""
ROOT_NAMES = ("JUDGE_APP_DIR", "JUDGE_LOGS_DIR", "JUDGE_TESTS_DIR", "JUDGE_WORK_DIR", "JUDGE_ALT_OUTPUT_DIR")
"""Root overrides the judge reads (`cowork_judge.run.paths`)."""
KNOWN_NAMES = frozenset({n for names in ENV_NAMES.values() for n in names} | set(THIN_SHELL_NAMES) | set(ROOT_NAMES))
SECRET_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
"""Name parts Harbor treats as secrets (it redacts such values in saved logs)."""


@dataclass(frozen=True)
class EnvValue:
    """One ``[verifier.env]`` entry.

    Attributes:
        raw: the value as written.
        var: the host variable of a whole-value template, None for a literal.
        default: the template's default (``${VAR:-default}``), None when it has none.
    """

    raw: str
    var: str | None = None
    default: str | None = None

    @property
    def effective(self) -> str | None:
        """The value the verifier sees when the host leaves the variable unset (None: unknown)."""
        return self.raw if self.var is None else self.default


@dataclass
class TaskToml:
    """What lint needs from task.toml: the env block, the timeout (None = not set) and the verifier's mode."""

    file: str
    env: dict[str, EnvValue] = field(default_factory=dict)
    timeout_sec: float | None = None
    timeout_invalid: bool = False
    """``timeout_sec`` is set but not a number (T001 says so; T004 then has nothing to compare)."""
    separate: bool = False
    """The verifier runs in its own container (built from ``tests/Dockerfile`` when the task has one)."""
    trajectory_carried: bool = False
    """A separate verifier receives the agent's ``trajectory.json``: a ``[[verifier.collect]]`` hook copies it
    into ``/logs/artifacts`` (what `cowork-judge init` writes), or an artifact declares it (an older init)."""

    def declared(self, *names: str) -> str | None:
        """The first of `names` declared with a non-empty value, else None."""
        return next((n for n in names if n in self.env and self.env[n].raw.strip()), None)


def parse_env_value(raw: str) -> EnvValue:
    """Split a value into literal / whole-value template (``${VAR}``, ``${VAR:-default}``)."""
    m = ENV_TEMPLATE_RE.match(raw)
    if m is None:
        return EnvValue(raw=raw)
    return EnvValue(raw=raw, var=m.group(1), default=m.group(2))


def carries_trajectory(data: Mapping[str, Any]) -> bool:
    """Whether task.toml hands a separate verifier the agent's ``trajectory.json``: a
    ``[[verifier.collect]]`` hook whose command names ``trajectory.json`` and ``/logs/artifacts``
    (init's hook copies it to `AGENT_COPY_DIR`), or an artifact naming ``/logs/agent`` or its
    ``trajectory.json`` (what init wrote before 2.0)."""
    verifier = data.get("verifier")
    hooks = verifier.get("collect") if isinstance(verifier, Mapping) else None
    for hook in hooks if isinstance(hooks, list) else []:
        command = str(hook.get("command", "")) if isinstance(hook, Mapping) else ""
        if "trajectory.json" in command and "/logs/artifacts" in command:
            return True
    artifacts = data.get("artifacts")
    for item in artifacts if isinstance(artifacts, list) else []:
        source = item.get("source") if isinstance(item, Mapping) else item
        if isinstance(source, str) and source.rstrip("/") in ("/logs/agent", "/logs/agent/trajectory.json"):
            return True
    return False


def load(path: Path, file: str) -> tuple[TaskToml | None, list[Finding]]:
    """Read task.toml; (None, [T001]) when it cannot be used at all."""
    try:
        data = read_toml(path)
    except Unreadable as exc:
        return None, [Finding("T001", file, f"cannot be read: {exc}")]
    out: list[Finding] = []
    toml = TaskToml(file=file)
    verifier = data.get("verifier", {})
    if not isinstance(verifier, Mapping):
        return None, [Finding("T001", file, "[verifier] must be a table", field="verifier")]
    toml.separate = is_separate(data)
    toml.trajectory_carried = carries_trajectory(data)
    timeout = verifier.get("timeout_sec")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            out.append(Finding("T001", file, f"must be a number of seconds, got {timeout!r:.40}",
                               field="[verifier].timeout_sec"))
            toml.timeout_invalid = True
        else:
            toml.timeout_sec = float(timeout)
    env = verifier.get("env", {})
    if not isinstance(env, Mapping):
        out.append(Finding("T001", file, "[verifier.env] must be a table of strings", field="[verifier.env]"))
        env = {}
    for name, value in env.items():
        if not isinstance(value, str):
            out.append(Finding("T001", file, f"must be a string (Harbor refuses the task otherwise); write "
                                             f"{name} = \"{value}\"", field=f"[verifier.env].{name}"))
            continue
        toml.env[str(name)] = parse_env_value(value)
    return toml, out


def check(toml: TaskToml, *, needs_model: bool, also_read: frozenset[str] = frozenset()) -> list[Finding]:
    """T002–T009 for a loaded task.toml.

    Args:
        needs_model: some row is judged by a model (credentials are needed).
        also_read: variables the package's test.sh reads (never "unknown", T006).
    """
    return list(_check(toml, needs_model, also_read))


def deadline_sec(toml: TaskToml) -> tuple[float, str]:
    """(JUDGE_DEADLINE the verifier would use when the host leaves it unset, how it was found): the
    deadline `cowork-judge init` sizes ``timeout_sec`` from (`taskinit.declared_deadline_sec`)."""
    return declared_deadline_sec({name: value.raw for name, value in toml.env.items()})


def _check(toml: TaskToml, needs_model: bool, also_read: frozenset[str]) -> Iterator[Finding]:
    file = toml.file
    for name, value in toml.env.items():
        upper = name.upper()
        if any(m in upper for m in SECRET_MARKERS) and value.raw.strip():
            literal = value.raw if value.var is None else (value.default or "")
            if literal.strip():
                yield Finding("T005", file, "a secret is written into the package; use \"${" + name + "}\" so the "
                                            "host provides it", field=f"[verifier.env].{name}")
        if value.var is None and "$" in value.raw:
            yield Finding("T008", file, f"{value.raw!r:.60} is not a whole-value template (${{VAR}} or ${{VAR:-default}}): "
                                        "Harbor passes it literally", field=f"[verifier.env].{name}")
        if (upper.startswith(("JUDGE_", "COWORK_")) or upper == "CUSTOM_JUDGE_ENTRY") and name not in KNOWN_NAMES and name not in also_read:
            match = difflib.get_close_matches(name, sorted(KNOWN_NAMES), n=1, cutoff=0.8)
            hint = f"; did you mean {match[0]}?" if match else ""
            yield Finding("T006", file, f"{name} is not a variable the judge or test.sh reads{hint}",
                          field=f"[verifier.env].{name}")
    if needs_model:
        key = toml.declared("JUDGE_API_KEY", "OPENAI_API_KEY")
        url = toml.declared("JUDGE_BASE_URL", "OPENAI_BASE_URL")
        missing = [n for n, ok in (("JUDGE_API_KEY", key), ("JUDGE_BASE_URL", url)) if not ok]
        if missing:
            yield Finding("T002", file, f"{' and '.join(missing)} not declared (nor the OPENAI_* fallback): Harbor "
                                        "injects only declared variables, so every trial of this model-judged rubric "
                                        "ends judge:no_credential; add " + ", ".join(f'{n} = "${{{n}}}"' for n in missing),
                          field="[verifier.env]")
    deadline, source = deadline_sec(toml)
    if "JUDGE_DEADLINE" not in toml.env:
        yield Finding("T003", file, f"JUDGE_DEADLINE not declared: timeout_sec rests on the installed version's default "
                                    f"({deadline:g} s); add JUDGE_DEADLINE = \"${{JUDGE_DEADLINE:-{deadline:g}}}\"",
                      field="[verifier.env]")
    timeout = toml.timeout_sec if toml.timeout_sec is not None else HARBOR_DEFAULT_TIMEOUT_SEC
    need = required_timeout_sec(deadline)  # the bound `init` writes (trial 11 F7: one function for both)
    if timeout < need and not toml.timeout_invalid:
        said = f"{timeout:g}" if toml.timeout_sec is not None else f"not set (Harbor's default {timeout:g})"
        yield Finding("T004", file, f"timeout_sec is {said} < {source} + {INSTALL_MARGIN_SEC:g} s install margin: "
                                    "Harbor kills the verifier before the judge's deadline and downloads no reward; "
                                    f"set timeout_sec ≥ {need}",
                      field="[verifier].timeout_sec")
    if "COWORK_JUDGE_VERSION" not in toml.env:
        yield Finding("T009", file, "COWORK_JUDGE_VERSION not declared: a fleet cannot inject a judge version for this "
                                    "package; add COWORK_JUDGE_VERSION = \"${COWORK_JUDGE_VERSION:-<x.y.z>}\"",
                      field="[verifier.env]")
    yield from _values(toml)


def _values(toml: TaskToml) -> Iterator[Finding]:
    """T007 / T012: the judge's own parser on the values the verifier sees by default; an invalid value of a
    setting that changes the verdicts or the reward (`config.effects.EFFECTS` kind ``verdict`` / ``score``,
    which `batch` refuses to start on) is the ERROR T012, of any other setting the WARN T007."""
    skip = {"JUDGE_API_KEY", "OPENAI_API_KEY"}  # never parsed here: a secret has no default to check
    environ: dict[str, Any] = {n: v.effective for n, v in toml.env.items()
                               if n in KNOWN_NAMES and n not in skip and v.effective is not None}
    warnings, reward_changing = _config_warnings(tuple(sorted(environ.items())))
    for warning in warnings:
        name = next((n for n in sorted(environ, key=len, reverse=True) if warning.startswith(n)), None)
        if name in reward_changing:
            yield Finding("T012", toml.file, f"the judge would say: {warning}; this setting changes the verdicts or "
                                             "the reward, so every trial would be scored under a value nobody chose "
                                             "(batch refuses to start on it)", field=f"[verifier.env].{name}")
            continue
        yield Finding("T007", toml.file, f"the judge would say: {warning}",
                      field=f"[verifier.env].{name}" if name else "[verifier.env]")


@lru_cache(maxsize=256)
def _config_warnings(environ: tuple[tuple[str, str], ...]) -> tuple[tuple[str, ...], frozenset[str]]:
    """The judge's configuration warnings for these values (shared across a family), and the names among
    them whose invalid value changes the verdicts or the reward (`config.effects.invalid_reward_settings`)."""
    loaded = load_config(dict(environ))
    return tuple(loaded.warnings), frozenset(invalid_reward_settings(loaded.sources))


__all__ = ["HARBOR_DEFAULT_TIMEOUT_SEC", "INSTALL_MARGIN_SEC", "KNOWN_NAMES", "EnvValue", "TaskToml", "check",
           "deadline_sec", "load", "parse_env_value"]
