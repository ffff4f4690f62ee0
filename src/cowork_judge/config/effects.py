"""What each setting changes in a stored result, and so what a resume does when it changed (issue 39).

Every setting (`config.judge_config.ENV_NAMES`: a field of `config.judge_config.JudgeConfig`, dotted for a
nested policy's) declares its `Effect` where it is declared (`cowork_judge.core.knobs.knob(..., effect=...)`):
`EFFECTS` is read from the fields, so a new setting cannot be forgotten — `knob` requires an effect:

- ``verdict``: it changes what the judge is asked, of what, or how often — the verdicts
  themselves. It is an ingredient of the verdict fingerprint (`run.fingerprint`, at
  `Effect.key`, as `Effect.value` gives it), so ``batch``/``calibrate`` resume judge the
  instance again when it changed.
- ``score``: it changes only how stored verdicts become the reward and the document (the
  scoring policy, the guard's flag/penalize, the metric id, the price table). A resume
  re-folds the stored verdicts under the new value with no model call, rewrites the
  instance's documents and says so (`fleet.rescore.restate`). Such a setting may have a part
  that does decide what is judged (JUDGE_GUARD=off does not scan): that part is in the
  fingerprint (`Effect.key`).
- ``none``: it decides whether or when a verdict is reached (deadlines, retries, pacing,
  concurrency), where files are, or how the run is reached (credentials) — not which
  verdict, reward or document. A resume keeps the stored result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cowork_judge.config.judge_config import JudgeConfig, settings
from cowork_judge.core.knobs import DERIVED, OMIT, Effect, Kind, setting_value

__all__ = ["DERIVED", "EFFECTS", "OMIT", "Effect", "Kind", "effects", "fingerprint_settings", "invalid_reward_settings",
           "score_settings", "setting_value"]


def effects(model: type[JudgeConfig] | None = None) -> dict[str, Effect]:
    """Setting (as `config.judge_config.ENV_NAMES` names it) → its `Effect`, read from the `knob`
    declarations of `model` (default `JudgeConfig`; a subclass adds its own)."""
    return {name: k.effect for name, (_, k) in settings(model).items()}


EFFECTS: dict[str, Effect] = effects()
"""Setting (as `config.judge_config.ENV_NAMES` names it) → its `Effect`."""


STORED_ORDER: dict[str, int] = {key: i for i, key in enumerate((
    "backend", "model", "endpoint", "sampling.batch", "sampling.max_turns", "sampling.resplit", "sampling.chat_fallback",
    "sampling.lenient_delivery", "sampling.evidence", "sampling.aux_files", "instruction_sha256", "response_file", "skip",
    "guard_row", "sampling.samples", "sampling.sampling_mode", "sampling.temperature", "sampling.panel",
    "sampling.panel_vote", "guard_scan"))}
"""`Effect.key` → its place in a result's ``details.fingerprint``, as documents written before the settings were
declared in their fields have it: the digest sorts its keys, the document keeps this order, so a new run's
document reads like a stored one. A key not listed (a new setting's) comes after these, in declaration order."""


def fingerprint_settings(config: JudgeConfig) -> dict[str, Any]:
    """The part of `config` that decides verdicts, nested by `Effect.key`
    (``{"model": …, "sampling": {"batch": …}}``), read from the settings `config`'s class declares;
    `DERIVED` keys are left to the caller."""
    out: dict[str, Any] = {}
    stored_order = sorted(effects(type(config)).items(), key=lambda item: STORED_ORDER.get(item[1].key or "", len(STORED_ORDER)))
    for name, effect in stored_order:
        if effect.key is None or effect.value == DERIVED:
            continue
        value = effect.value(config) if callable(effect.value) else setting_value(config, name)
        if value is OMIT:
            continue
        if isinstance(value, tuple):
            value = list(value)
        head, _, rest = effect.key.partition(".")
        if rest:
            out.setdefault(head, {})[rest] = value
        else:
            out[head] = value
    return out


def score_settings() -> list[str]:
    """The settings a resume re-scores from stored verdicts (kind ``score``), in table order."""
    return [name for name, effect in EFFECTS.items() if effect.kind == "score"]


def invalid_reward_settings(sources: Mapping[str, str]) -> list[str]:
    """The environment variables whose invalid value fell back to a default although the setting
    changes the verdicts or the reward (kind ``verdict`` or ``score``): a batch refuses to start
    on them rather than judge, or re-score stored verdicts, under a value nobody chose.

    Args:
        sources: `config.judge_config.LoadedConfig.sources` (field → ``"invalid:NAME → default"`` …).

    Returns:
        The variable names, sorted (empty when none).
    """
    found = set()
    for name, source in sources.items():
        effect = EFFECTS.get(name)
        if source.startswith("invalid:") and effect is not None and effect.kind != "none":
            found.add(source.removeprefix("invalid:").split(" ", 1)[0])
    return sorted(found)
