"""Calibration: how a judge's verdicts agree with human labels, and what that does to rewards. Pure.

Inputs per instance: the judge's result document (``result.json`` as ``run`` wrote it) and
the human labels in the simulator's oracle format (``{row id: {"hit", "level"?}}``, SPEC
§20; ``cowork-judge import --with-labels`` writes them). Per row:

- a row with a label and a judged verdict is a PAIR (judge hit, human hit); graded rows
  whose label has a ``level`` also pair their levels. A graded row with a ``pass_level``
  pairs hits by its bar: each side is hit when its level is at or above it (a label's
  ``hit`` counts only when it gives no level), as the scorer's gates read it;
- a row with a label but no verdict (unjudged) is counted, not paired: coverage is
  reported by ``summarize``, agreement here is over what the judge answered;
- rows without a label and labels naming no row are counted.

Rewards: the judge's reward is the document's (none when its ``exit_code`` is set: a judge
failure is no opinion of the work, counted in ``reward.judge_failed``); the human reward is the same rubric scored
with the labels as verdicts, through the one scoring function (`core.scoring.score`) under
the document's own policy. A code row without a label takes the judge's verdict there (a
code method decides it, not a model: nobody labels it; counted ``from_code``); any other row
without a label leaves the instance's human reward out (None: an unlabelled row is no human
judgement — neither a miss nor, for a hurdle or deduction, a violation; the instance is marked
``human_reward_partial``, left out of the reward effect, and the headline says so; trial 10 F2).
A graded row's label level that is not one of the row's levels is read snapped (as the judge's)
but paired as written in level agreement, with a warning (trial 10 F3).
Statistics and intervals: `fleet.agreement`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cowork_judge import __version__
from cowork_judge.core.fold import stored_run
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.scoring import ScoringError, score
from cowork_judge.core.verdicts import Verdict, graded_hit, label_verdict
from cowork_judge.fleet.agreement import Confusion, bootstrap, mean_abs_error, mean_error, spearman
from cowork_judge.fleet.stats import MIN_CLUSTERS, interval_note

CALIBRATION_SCHEMA = "cowork-judge/calibration/v1"
NO_TAG = "(none)"


def normalize_text(text: str) -> str:
    """Criterion text for comparing a label with its row: casefolded, every character but
    letters and digits removed (quotes, backticks, Markdown, punctuation, whitespace: DevAI's
    label files re-type some criteria with or without backticks around paths)."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


class LabelError(ValueError):
    """A labels document is not in the oracle format (the message names the key)."""


@dataclass(frozen=True)
class Label:
    """One human label: hit, and the level of a graded row when given."""

    hit: bool
    level: float | None = None
    criterion: str | None = None
    """The text the label was given for, when the labels file says (``"criterion"``)."""


def read_labels(data: Any, source: str = "labels") -> dict[str, Label]:
    """Labels from a decoded oracle document (``{row id: {"hit", "level"?, …}}``); per-page
    keys (``"<id>@<page>"``) are left out: calibration compares whole rows.

    Raises:
        LabelError: not an object, an entry without a boolean ``hit``, or a level outside [0, 1].
    """
    if not isinstance(data, dict):
        raise LabelError(f"{source}: expected an object of row id → {{\"hit\": true|false}}")
    out = {}
    for key, entry in data.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("hit"), bool):
            raise LabelError(f"{source}: entry {key!r} needs a boolean 'hit'")
        level = entry.get("level")
        if level is not None and (isinstance(level, bool) or not isinstance(level, (int, float))
                                  or not math.isfinite(level) or not 0 <= level <= 1):
            raise LabelError(f"{source}: entry {key!r}: 'level' must be a number in [0, 1]")
        row_id, sep, page = str(key).rpartition("@")
        if sep and row_id and page.isdigit():
            continue
        criterion = entry.get("criterion")
        out[str(key)] = Label(entry["hit"], None if level is None else float(level),
                              criterion if isinstance(criterion, str) and criterion.strip() else None)
    return out


@dataclass(frozen=True)
class InstanceCalibration:
    """One instance's pairs and rewards (see the module docstring)."""

    name: str
    confusion: Confusion
    by_tag: dict[str, Confusion]
    levels: tuple[tuple[float, float], ...]
    judge_reward: float | None
    human_reward: float | None
    unjudged: int = 0
    unlabelled: int = 0
    unknown_labels: int = 0
    unknown_label_ids: tuple[str, ...] = ()
    """The ids of the labels that name no row of the rubric (sorted; trial 12 F8: only counted)."""
    human_reward_partial: bool = False
    tags: Mapping[str, Any] = field(default_factory=dict)
    not_sent: int = 0
    """Labelled rows whose verdict was never asked of a model (``method: delivery``: nothing was delivered)."""
    text_mismatches: tuple[str, ...] = ()
    """One line per label dropped because its ``criterion`` text is not its row's description."""
    label_conflicts: tuple[str, ...] = ()
    """One line per label whose level contradicts its hit, or gives a level to a row scored by hit: how it is
    read (`core.verdicts.label_verdict`, the rule the judge's answers are read by)."""
    from_code: int = 0
    """Code rows without a label whose human verdict is the judge's (a code method decided them)."""
    judge_failed: str | None = None
    """The document's ``exit_code`` (the judge failed: its reward is left out of the reward effect), or None."""

    def summary(self) -> dict[str, Any]:
        """The per-instance line of the report."""
        return {"name": self.name, "pairs": self.confusion.n, "agreement": self.confusion.accuracy(),
                "unjudged": self.unjudged, "unlabelled": self.unlabelled, "unknown_labels": self.unknown_labels,
                "unknown_label_ids": list(self.unknown_label_ids),
                "judge_reward": self.judge_reward, "human_reward": self.human_reward,
                "human_reward_partial": self.human_reward_partial}


def calibrate_instance(name: str, doc: ResultDocument, labels: Mapping[str, Label],
                       tags: Mapping[str, Any] | None = None) -> InstanceCalibration:
    """Pair one instance's verdicts with its labels and score the labels."""
    criteria, verdicts, policy, _ = stored_run(doc)
    pairs: list[tuple[bool, bool]] = []
    by_tag: dict[str, list[tuple[bool, bool]]] = {}
    levels = []
    unjudged = unlabelled = from_code = 0
    human: dict[str, Verdict] = {}
    not_sent = 0
    mismatches: list[str] = []
    conflicts: list[str] = []
    for c in criteria:
        label = labels.get(c.id)
        if label is not None and label.criterion is not None and normalize_text(label.criterion) != normalize_text(c.description):
            mismatches.append(f"label {c.id!r} dropped: its text {label.criterion[:200]!r} is not the row's "
                              f"{c.description[:200]!r}")
            label = None
        if label is None:
            stored = verdicts.get(c.id)
            if c.judge_method == "code" and stored is not None:  # decided by a code method: the same for a human
                from_code += 1
                human[c.id] = stored
                continue
            unlabelled += 1
            human[c.id] = Verdict.unjudged(c.id, "no_verdict", "no human label", method=c.judge_method)
            continue
        human[c.id], conflict = label_verdict(c, label.hit, label.level, method=c.judge_method)
        if conflict is not None:  # one reading in agreement, the human reward and the level pairs (trial 9 F3)
            conflicts.append(f"label {c.id!r}: {conflict}")
        written = _off_grid(c, label.level, human[c.id].level)
        if written is not None:  # trial 10 F3: a snapped level is said, and paired as written (never an exact match)
            conflicts.append(f"label {c.id!r}: {written}")
        v = verdicts.get(c.id)
        if v is not None and v.method == "delivery":  # decided without a model: not the judge's answer
            not_sent += 1
            continue
        if v is None or not v.judged or v.hit is None:
            unjudged += 1
            continue
        # a graded row with a pass bar is hit at or above it, on both sides (a label's hit is read from its level)
        judge_hit = bool(graded_hit(c, v.hit, v.level))
        read = human[c.id]
        human_hit = bool(graded_hit(c, read.hit, read.level))
        pairs.append((judge_hit, human_hit))
        by_tag.setdefault(c.tag or NO_TAG, []).append((judge_hit, human_hit))
        if c.graded and read.level is not None and v.level is not None:
            levels.append((float(v.level), float(read.level if label.level is None else label.level)))
    unknown = tuple(sorted(k for k in labels if k not in human))
    human_reward: float | None = None
    if not unlabelled:  # trial 10 F2: an unlabelled row is no human miss (nor, for a hurdle, a human hit): withheld
        try:
            human_reward = score(criteria, human, policy).reward
        except ScoringError:
            human_reward = None
    # a judge failure's reward (exit_code set) is no judge's opinion of the work: out of the reward effect (trial 5, F18)
    judge_reward = doc.task_score if doc.status != "skipped" and doc.exit_code is None else None
    return InstanceCalibration(
        name=name, confusion=Confusion.of(pairs), by_tag={t: Confusion.of(p) for t, p in sorted(by_tag.items())},
        levels=tuple(levels), judge_reward=judge_reward, human_reward=human_reward, unjudged=unjudged, unlabelled=unlabelled,
        unknown_labels=len(unknown), unknown_label_ids=unknown, human_reward_partial=unlabelled > 0, tags=dict(tags or {}),
        not_sent=not_sent, text_mismatches=tuple(mismatches), label_conflicts=tuple(conflicts), from_code=from_code, judge_failed=doc.exit_code)


def _off_grid(row: Criterion, written: float | None, read: float | None) -> str | None:
    """One line when a graded row's label level is not one of the row's levels (it was snapped to
    `read`), else None (trial 10 F3: the snap was silent and counted as exact level agreement)."""
    if written is None or read is None or not row.graded or math.isclose(written, read, abs_tol=1e-9):
        return None
    if any(math.isclose(written, float(lv), abs_tol=1e-9) for lv in row.level_choices or ()):
        return None
    grid = ", ".join(f"{float(lv):g}" for lv in sorted(row.level_choices or ()))
    return (f"level {written:g} is not one of the row's levels {grid}: read as {read:g} in agreement and the human "
            f"reward, paired as written ({written:g}) in level agreement")


def _total(sample: Sequence[InstanceCalibration]) -> Confusion:
    out = Confusion()
    for inst in sample:
        out = out + inst.confusion
    return out


def _tag_total(sample: Sequence[InstanceCalibration], tag: str) -> Confusion:
    out = Confusion()
    for inst in sample:
        out = out + inst.by_tag.get(tag, Confusion())
    return out


def _rewards(sample: Sequence[InstanceCalibration]) -> tuple[list[float], list[float]]:
    both = [(i.judge_reward, i.human_reward) for i in sample if i.judge_reward is not None and i.human_reward is not None]
    return [j for j, _ in both], [h for _, h in both]


def report(instances: Sequence[InstanceCalibration], *, draws: int = 1000, seed: int = 0, confidence: float = 0.95,
           missing: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """The calibration report (schema `CALIBRATION_SCHEMA`); deterministic for the same inputs.

    Args:
        instances: the calibrated instances (the bootstrap's clusters).
        draws, seed, confidence: the cluster bootstrap (``draws=0``: no intervals).
        missing: ``{"result": [names], "labels": [names], "delivery": [names], "no_match": [names]}``
            — instances left out (no result, no labels, nothing delivered, labels naming no row), for the record.
    """
    total = _total(instances)
    tags = sorted({t for i in instances for t in i.by_tag})
    stats: dict[str, Any] = {
        "accuracy": lambda s: _total(s).accuracy(), "kappa": lambda s: _total(s).kappa(),
        "precision": lambda s: _total(s).precision(), "recall": lambda s: _total(s).recall(), "f1": lambda s: _total(s).f1(),
        "reward_mae": lambda s: mean_abs_error(*_rewards(s)), "reward_bias": lambda s: mean_error(*_rewards(s)),
        "reward_spearman": lambda s: spearman(*_rewards(s)),
    }
    for t in tags:
        stats[f"tag:{t}:accuracy"] = lambda s, t=t: _tag_total(s, t).accuracy()
        stats[f"tag:{t}:kappa"] = lambda s, t=t: _tag_total(s, t).kappa()
    intervals = bootstrap(list(instances), stats, draws=draws, seed=seed, confidence=confidence) if draws > 0 else {}

    def ci(name: str, clusters: int) -> list[float] | None:
        value = intervals.get(name)
        if clusters < MIN_CLUSTERS:
            return None
        return [round(value[0], 6), round(value[1], 6)] if value else None

    def note(clusters: int) -> str | None:  # the fleet's one rule (`fleet.stats.MIN_CLUSTERS`), as summarize
        return interval_note(clusters, "instance(s)") if draws > 0 else None

    paired = sum(1 for i in instances if i.confusion.n)
    agreement = total.as_dict()
    for name in ("accuracy", "kappa", "precision", "recall", "f1"):
        agreement[f"{name}_ci"] = ci(name, paired)
    agreement["clusters"], agreement["ci_note"] = paired, note(paired)
    by_tag = {}
    for t in tags:
        entry = _tag_total(instances, t).as_dict()
        clusters = sum(1 for i in instances if i.by_tag.get(t, Confusion()).n)
        entry["accuracy_ci"], entry["kappa_ci"] = ci(f"tag:{t}:accuracy", clusters), ci(f"tag:{t}:kappa", clusters)
        entry["clusters"], entry["ci_note"] = clusters, note(clusters)
        by_tag[t] = entry
    judge, human = _rewards(instances)
    rewarded = len(judge)
    levels = [pair for i in instances for pair in i.levels]
    return {
        "schema": CALIBRATION_SCHEMA,
        "generator": f"cowork-judge {__version__}",
        "options": {"draws": draws, "seed": seed, "confidence": confidence, "min_clusters": MIN_CLUSTERS},
        "instances": {"calibrated": len(instances), "without_result": sorted((missing or {}).get("result", [])),
                      "without_labels": sorted((missing or {}).get("labels", [])),
                      "delivery_missing": sorted((missing or {}).get("delivery", [])),
                      "labels_match_no_row": sorted((missing or {}).get("no_match", [])),
                      "result_mismatch": sorted((missing or {}).get("mismatch", [])),
                      "fingerprint_unchecked": sorted((missing or {}).get("unchecked", []))},
        "rows": {"pairs": total.n, "unjudged": sum(i.unjudged for i in instances),
                 "unlabelled": sum(i.unlabelled for i in instances), "unknown_labels": sum(i.unknown_labels for i in instances),
                 "unknown_label_ids": {i.name: list(i.unknown_label_ids) for i in instances if i.unknown_label_ids},
                 "from_code": sum(i.from_code for i in instances),
                 "not_sent": sum(i.not_sent for i in instances),
                 "label_text_mismatch": sum(len(i.text_mismatches) for i in instances),
                 "label_conflicts": sum(len(i.label_conflicts) for i in instances)},
        "agreement": agreement,
        "levels": {"pairs": len(levels), "exact": (sum(1 for a, b in levels if a == b) / len(levels)) if levels else None,
                   "mae": mean_abs_error([a for a, _ in levels], [b for _, b in levels])},
        "tags": by_tag,
        "reward": {"instances": len(judge), "judge_mean": math.fsum(judge) / len(judge) if judge else None,
                   "human_mean": math.fsum(human) / len(human) if human else None,
                   "mae": mean_abs_error(judge, human), "mae_ci": ci("reward_mae", rewarded),
                   "bias": mean_error(judge, human), "bias_ci": ci("reward_bias", rewarded),
                   "spearman": spearman(judge, human), "spearman_ci": ci("reward_spearman", rewarded),
                   "clusters": rewarded, "ci_note": note(rewarded),
                   "human_partial": sum(1 for i in instances if i.human_reward_partial),
                   "judge_failed": sorted(i.name for i in instances if i.judge_failed)},
        "per_instance": [i.summary() for i in instances],
    }
