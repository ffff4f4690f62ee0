"""What each setting changes in a stored result, and so what a resume does when it changed (issue 39).

Every setting (`config.judge_config.ENV_NAMES`: a field of `config.judge_config.JudgeConfig`, dotted for a
nested policy's) has one `Effect` in `EFFECTS`, and a test keeps the two tables equal, so a
new setting cannot be forgotten:

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cowork_judge.safety.redact import mask_url
from cowork_judge.config.judge_config import JudgeConfig

Kind = Literal["verdict", "score", "none"]
OMIT = object()
"""`Effect.value` returns it to leave the key out (the sampling settings of a run that asks every row once)."""
DERIVED = "derived"
"""`Effect.value` marker: the fingerprint holds a digest `run.fingerprint.verdict_ingredients` computes from the
tests folder (the instruction's text, not its file name)."""


@dataclass(frozen=True)
class Effect:
    """What one setting changes in a stored result.

    Attributes:
        kind: ``verdict``, ``score`` or ``none`` (the module docstring).
        why: one line for the docs and the test's failure message.
        key: where the verdict fingerprint holds it (dotted: ``sampling.batch``); None for ``none``
            and for ``score`` settings with no part that decides the verdicts.
        value: config → what the fingerprint holds (default: the setting's value as JSON);
            `DERIVED` when the fingerprint computes it from the tests folder.
    """

    kind: Kind
    why: str
    key: str | None = None
    value: Callable[[JudgeConfig], Any] | str | None = None


def _verdict(key: str, why: str, value: Callable[[JudgeConfig], Any] | str | None = None) -> Effect:
    return Effect("verdict", why, key, value)


def _score(why: str) -> Effect:
    return Effect("score", why)


def _none(why: str) -> Effect:
    return Effect("none", why)


def _sampled(read: Callable[[JudgeConfig], Any]) -> Callable[[JudgeConfig], Any]:
    """Only a sampled run (JUDGE_SAMPLES > 1 or JUDGE_PANEL) records it: a run asking every row once keeps its fingerprint."""
    return lambda c: read(c) if c.sampled else OMIT


PATHS = "where the files are; what they hold is fingerprinted (the rubric, prompt and instruction here, the deliverables by the batch's instance fingerprint)"
WHEN = "decides whether or when a verdict is reached, not which one (an unjudged row says why)"

EFFECTS: dict[str, Effect] = {
    # ---- what the judge is asked, of what, how often: the verdicts
    "backend": _verdict("backend", "the agent that reads the deliverables"),
    "model": _verdict("model", "the model answers"),
    "base_url": _verdict("endpoint", "the endpoint answers (masked: a token in the URL is not part of it)",
                         lambda c: mask_url(c.base_url) if c.base_url else None),
    "batch": _verdict("sampling.batch", "rows per conversation"),
    "max_turns": _verdict("sampling.max_turns", "turns per attempt"),
    "resplit": _verdict("sampling.resplit", "a failed block is asked again row by row"),
    "chat_fallback": _verdict("sampling.chat_fallback", "what is judged when no file was delivered"),
    "lenient_delivery": _verdict("sampling.lenient_delivery", "which files are judged"),
    "evidence_sec": _verdict("sampling.evidence", "deck evidence on or off (its budget decides only whether it is reached)",
                             lambda c: c.evidence_sec > 0),
    "aux_files": _verdict("sampling.aux_files", "files copied into every judge workspace", lambda c: list(c.aux_files)),
    "instruction_file": _verdict("instruction_sha256", "the judge instruction (by its text)", DERIVED),
    "response_file": _verdict("response_file", "which file holds the agent's final message"),
    "skip": _verdict("skip", "JUDGE_SKIP archives without judging (reward SKIPPED)"),
    "guard_row": _verdict("guard_row", "adds a model-judged row to the agentic blocks"),
    "samples": _verdict("sampling.samples", "asks per row", _sampled(lambda c: c.samples)),
    "sampling": _verdict("sampling.sampling_mode", "which rows are asked again", _sampled(lambda c: c.sampling)),
    "sample_temperature": _verdict("sampling.temperature", "the temperature of the asks",
                                   _sampled(lambda c: c.sample_temperature if c.samples > 1 else None)),
    "panel": _verdict("sampling.panel", "the judges asked (name, model, masked endpoint, weight; never a key)",
                      _sampled(lambda c: [{"name": j.name, "model": j.model, "endpoint": mask_url(j.base_url) if j.base_url else None,
                                           "weight": j.weight} for j in c.panel])),
    "panel_vote": _verdict("sampling.panel_vote", "how the judges' answers combine", _sampled(lambda c: c.panel_vote)),
    # ---- how stored verdicts become the reward and the document: re-scored on resume
    "scoring.reward_mode": _score("continuous or binary reward"),
    "scoring.pass_threshold": _score("the score that passes"),
    "scoring.pass_compare": _score("≥ or > the threshold"),
    "scoring.unjudged_negative": _score("what an unjudged deduction or hurdle counts as"),
    "scoring.ungrounded": _score("what a credited verdict whose quote is not in the evidence counts as (grounded is stored)"),
    "scoring.systemic_fraction": _score("when unjudged rows make an exit_code"),
    "scoring.systemic_min": _score("when unjudged rows make an exit_code"),
    "guard": Effect("score", "flag or penalize is applied to the stored findings; off does not scan (in the fingerprint)",
                    "guard_scan", lambda c: c.guard != "off"),
    "metric_id": _score("the document's metric_id"),
    "prices": _score("judge_cost, re-priced from the stored tokens per model"),
    # ---- whether or when a verdict is reached, where files are, how the endpoint is reached
    "api_key": _none("a credential: which key pays, not what is answered"),
    "gateway_auth": _none("a credential: how the gateway is authenticated"),
    "concurrency": _none(WHEN),
    "workflow_concurrency": _none(WHEN),
    "per_timeout_sec": _none(WHEN),
    "code_timeout_sec": _none(WHEN),
    "deadline_sec": _none(WHEN),
    "workflow_deadline_share": _none(WHEN),
    "start_jitter_sec": _none(WHEN),
    "workflow_start_jitter_sec": _none(WHEN),
    "retry.max_tries": _none(WHEN),
    "retry.backoff_max_sec": _none(WHEN),
    "limiter_url": _none(WHEN),
    "fleet_rpm": _none(WHEN),
    "fleet_tpm": _none(WHEN),
    "limiter_key": _none(WHEN),
    "verdict_cache_dir": _none("a cached verdict is the verdict of the same question by the same judge (its key)"),
    "soffice": _none("which renderer makes deck evidence; whether it is made is recorded (judge_evidence_pages)"),
    "chromium": _none("which renderer makes deck evidence; whether it is made is recorded (judge_evidence_pages)"),
    "requested_version": _none("what test.sh installed; the version that judged is in the fingerprint"),
    "version_source": _none("where test.sh's version came from; the version that judged is in the fingerprint"),
    "instance_id": _none("a label sent to the endpoint (JUDGE_SEND_INSTANCE_ID)"),
    "send_instance_id": _none("whether that label is sent"),
    "app_dir": _none(PATHS),
    "logs_dir": _none(PATHS),
    "tests_dir": _none(PATHS),
    "work_dir": _none(PATHS),
    "alt_output_dir": _none(PATHS),
}
"""Setting (as `config.judge_config.ENV_NAMES` names it) → its `Effect`."""


def setting_value(config: JudgeConfig, name: str) -> Any:
    """The value of setting `name` (dotted for a nested policy's field) in `config`."""
    value: Any = config
    for part in name.split("."):
        value = getattr(value, part)
    return value


def fingerprint_settings(config: JudgeConfig) -> dict[str, Any]:
    """The part of `config` that decides verdicts, nested by `Effect.key`
    (``{"model": …, "sampling": {"batch": …}}``); `DERIVED` keys are left to the caller."""
    out: dict[str, Any] = {}
    for name, effect in EFFECTS.items():
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
