"""Per-key counters of a fleet summary: rows by id, rows by tag or any row field, documents
by any instance field. Pure; bounded (at most `MAX_TABLE_KEYS` distinct keys per table).

A row table counts, per key, rows seen, judged, hit, unjudged, the mean level of graded
rows and the mean contribution; it also keeps hits and judged rows per cluster so that
`summarize` can bootstrap the hit rate. A document table counts, per key, documents by
accounting class and keeps reward / pass sums per cluster.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cowork_judge.fleet.stats import SCALE, RatioStat, quantize

MAX_TABLE_KEYS = 5000
"""Distinct keys kept per table (first seen, in input order); later ones count under `OTHER`."""
OTHER = "(other)"
RESULT_KEYS = frozenset({"method", "error_kind", "gate"})
"""Verdict fields a row can be grouped by."""
NONE = "(none)"
MAX_REASON_CHARS = 300
MAX_REASONS = 3
"""Distinct reasons kept per row id and outcome with ``--include-reasons`` (first seen)."""


def scalar_text(value: Any) -> str | None:
    """A group value as text: strings as they are, numbers and booleans in JSON spelling;
    None for anything else (lists, objects, null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value) if not isinstance(value, str) else value
    return None


def tag_list_values(tags: Any, key: str) -> list[str]:
    """Values of ``key:value`` entries of a tag list (HealthBench's ``axis:accuracy``)."""
    if not isinstance(tags, list):
        return []
    prefix = key + ":"
    return [t[len(prefix):] for t in tags if isinstance(t, str) and t.startswith(prefix)]


def row_values(criterion: Mapping[str, Any], result: Any, key: str) -> list[str]:
    """The values of `key` on one row: a field of the normalized row (``tag``,
    ``criterion_type``, ``judge_method``, ``type``…), of its verdict (``method``,
    ``error_kind``), of the row's carried-through ``extra`` keys, or ``key:value`` entries
    of an ``extra.tags`` list. Empty when the row does not carry it."""
    for value in (criterion.get(key), getattr(result, key, None) if key in RESULT_KEYS else None):
        text = scalar_text(value)
        if text is not None:
            return [text]
    extra = criterion.get("extra") or {}
    text = scalar_text(extra.get(key)) if isinstance(extra, dict) else None
    if text is not None:
        return [text]
    return tag_list_values(extra.get("tags") if isinstance(extra, dict) else None, key)


def row_keys(criterion: Mapping[str, Any]) -> set[str]:
    """Every key `row_values` can find on one normalized row: its scalar fields, the
    scalar keys of its ``extra`` and the ``key`` of each ``key:value`` entry of ``extra.tags``
    (what ``summarize --group-by`` lists when it refuses an unknown key)."""
    keys = {k for k, v in criterion.items() if scalar_text(v) is not None}
    extra = criterion.get("extra")
    if isinstance(extra, dict):
        keys.update(k for k, v in extra.items() if scalar_text(v) is not None)
        keys.update(tag_keys(extra.get("tags")))
    return keys


def tag_keys(tags: Any) -> set[str]:
    """The keys of a document's or row's ``tags``: an object's scalar keys, a list's
    ``key:value`` prefixes."""
    if isinstance(tags, dict):
        return {k for k, v in tags.items() if scalar_text(v) is not None}
    if isinstance(tags, list):
        return {t.split(":", 1)[0] for t in tags if isinstance(t, str) and ":" in t}
    return set()


@dataclass
class RowCell:
    """Counters of one key of a row table."""

    rows: int = 0
    judged: int = 0
    hits: int = 0
    level_sum: float = 0.0
    levels: int = 0
    contribution_sum: float = 0.0
    error_kinds: Counter[str] = field(default_factory=Counter)
    hits_by_cluster: dict[int, int] = field(default_factory=dict)
    judged_by_cluster: dict[int, int] = field(default_factory=dict)


class RowTable:
    """Rows counted under one or more keys each (e.g. by id, by tag)."""

    def __init__(self, *, clustered: bool) -> None:
        self.cells: dict[str, RowCell] = {}
        self.clustered = clustered
        self.seen_values = False

    def add(self, key: str, result: Any, cluster: int) -> None:
        """Count one row (a ``results[]`` entry: ``judged``, ``hit``, ``level``,
        ``contribution``, ``error_kind`` attributes) under `key`."""
        cell = self.cells.get(key) or self._cell(key)
        cell.rows += 1
        if result.judged and result.hit is not None:
            cell.judged += 1
            hit = 1 if result.hit else 0
            cell.hits += hit
            if self.clustered:
                cell.judged_by_cluster[cluster] = cell.judged_by_cluster.get(cluster, 0) + 1
                cell.hits_by_cluster[cluster] = cell.hits_by_cluster.get(cluster, 0) + hit
            if result.level is not None:
                cell.level_sum += result.level
                cell.levels += 1
        elif result.error_kind:
            cell.error_kinds[result.error_kind] += 1
        cell.contribution_sum += result.contribution

    def _cell(self, key: str) -> RowCell:
        cell = self.cells.get(key)
        if cell is None:
            if len(self.cells) >= MAX_TABLE_KEYS:
                key = OTHER
                cell = self.cells.get(key)
            if cell is None:
                cell = self.cells[key] = RowCell()
        return cell

    def stats(self) -> list[tuple[str, RatioStat]]:
        """(key, hit rate) statistics to bootstrap, in sorted key order."""
        return [(k, RatioStat(c.hits_by_cluster, c.judged_by_cluster)) for k, c in sorted(self.cells.items())]

    def report(self, intervals: Mapping[str, tuple[float, float] | None] | None = None) -> dict[str, Any]:
        """key → {rows, judged, hits, unjudged, hit_rate, [hit_rate_ci], level_mean,
        contribution_mean, error_kinds}, keys sorted."""
        out: dict[str, Any] = {}
        for key, c in sorted(self.cells.items()):
            entry: dict[str, Any] = {
                "rows": c.rows, "judged": c.judged, "hits": c.hits, "unjudged": c.rows - c.judged,
                "hit_rate": c.hits / c.judged if c.judged else None,
            }
            if intervals is not None:
                entry["hit_rate_ci"] = _pair(intervals.get(key))
            entry["level_mean"] = c.level_sum / c.levels if c.levels else None
            entry["contribution_mean"] = c.contribution_sum / c.rows if c.rows else None
            entry["error_kinds"] = dict(sorted(c.error_kinds.items()))
            out[key] = entry
        return out


@dataclass
class DocCell:
    """Counters of one key of a document table."""

    classes: Counter[str] = field(default_factory=Counter)
    rewarded: int = 0
    reward_sum: float = 0.0
    passed: int = 0
    clean: int = 0
    clean_reward_sum: float = 0.0
    coverage_sum: float = 0.0
    reward_q: dict[int, int] = field(default_factory=dict)
    passed_by_cluster: dict[int, int] = field(default_factory=dict)
    rewarded_by_cluster: dict[int, int] = field(default_factory=dict)


class DocTable:
    """Documents counted under the values of one instance-level key."""

    def __init__(self) -> None:
        self.cells: dict[str, DocCell] = {}
        self.seen_values = False

    def add(self, keys: Iterable[str], cls: str, reward: float | None, passed: bool, coverage: float | None,
            cluster: int, clean: bool) -> None:
        """Count one document (accounting class `cls`) under each of `keys`."""
        for key in keys:
            cell = self.cells.get(key)
            if cell is None:
                if len(self.cells) >= MAX_TABLE_KEYS:
                    key = OTHER
                cell = self.cells.setdefault(key, DocCell())
            cell.classes[cls] += 1
            if coverage is not None:
                cell.coverage_sum += coverage
            if reward is None:
                continue
            cell.rewarded += 1
            cell.reward_sum += reward
            cell.passed += passed
            cell.reward_q[cluster] = cell.reward_q.get(cluster, 0) + quantize(reward)
            cell.rewarded_by_cluster[cluster] = cell.rewarded_by_cluster.get(cluster, 0) + 1
            cell.passed_by_cluster[cluster] = cell.passed_by_cluster.get(cluster, 0) + passed
            if clean:
                cell.clean += 1
                cell.clean_reward_sum += reward

    def stats(self) -> list[tuple[tuple[str, str], RatioStat]]:
        """((key, ``reward``), mean reward) and ((key, ``pass``), pass rate) statistics."""
        out = []
        for key, c in sorted(self.cells.items()):
            out.append(((key, "reward"), RatioStat(c.reward_q, c.rewarded_by_cluster, scale=SCALE)))
            out.append(((key, "pass"), RatioStat(c.passed_by_cluster, c.rewarded_by_cluster)))
        return out

    def report(self, intervals: Mapping[Any, tuple[float, float] | None] | None = None) -> dict[str, Any]:
        """key → {documents, classes, rewarded, reward_mean, [reward_ci], pass_rate,
        [pass_rate_ci], reward_mean_clean, coverage_mean}, keys sorted."""
        out: dict[str, Any] = {}
        for key, c in sorted(self.cells.items()):
            n = sum(c.classes.values())
            scored_n = n - c.classes.get("skipped", 0)
            entry: dict[str, Any] = {"documents": n, "classes": dict(sorted(c.classes.items())), "rewarded": c.rewarded,
                                     "reward_mean": c.reward_sum / c.rewarded if c.rewarded else None}
            if intervals is not None:
                entry["reward_ci"] = _pair(intervals.get((key, "reward")))
            entry["pass_rate"] = c.passed / c.rewarded if c.rewarded else None
            if intervals is not None:
                entry["pass_rate_ci"] = _pair(intervals.get((key, "pass")))
            entry["reward_mean_clean"] = c.clean_reward_sum / c.clean if c.clean else None
            entry["coverage_mean"] = c.coverage_sum / scored_n if scored_n else None
            out[key] = entry
        return out


class ReasonSamples:
    """``--include-reasons``: the first `MAX_REASONS` distinct reasons per key and outcome,
    each with how often it occurred (later distinct reasons are only counted as ``other``)."""

    def __init__(self) -> None:
        self.samples: dict[str, dict[str, dict[str, int]]] = {}
        self.other: Counter[tuple[str, str]] = Counter()

    def add(self, key: str, outcome: str, reason: str) -> None:
        """Count one reason (cut to `MAX_REASON_CHARS`) of `key` with `outcome` (hit/miss/unjudged)."""
        text = reason[:MAX_REASON_CHARS]
        by_outcome = self.samples.setdefault(key, {}).setdefault(outcome, {})
        if text in by_outcome:
            by_outcome[text] += 1
        elif len(by_outcome) < MAX_REASONS and len(self.samples) <= MAX_TABLE_KEYS:
            by_outcome[text] = 1
        else:
            self.other[(key, outcome)] += 1

    def report(self) -> dict[str, Any]:
        """key → outcome → {first: [{reason, count}], other: count of later distinct reasons}."""
        out: dict[str, Any] = {}
        for key in sorted(self.samples):
            out[key] = {
                outcome: {"first": [{"reason": r, "count": n} for r, n in texts.items()],
                          "other": self.other.get((key, outcome), 0)}
                for outcome, texts in sorted(self.samples[key].items())
            }
        return out


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return list(interval) if interval is not None else None
