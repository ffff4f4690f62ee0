"""Fleet summary: many result documents → one deterministic accounting and statistics.

Pure: `Summarizer` folds already-read inputs (`fleet.documents.Item`) one at a time into
bounded counters (per document only a float for the reward quantiles and its run id, to
know a second copy of one run, and per cluster a few integers are kept) and `Summarizer.result` computes the summary, including the clustered
bootstrap intervals of `fleet.stats`. Reading files and writing outputs happen in
``commands/summarize.py``.

Every input lands in exactly one accounting class, tested in this order:

=================  ============================================================
``unreadable``     the bytes could not be read or are not UTF-8 JSON
``invalid``        JSON that is not a result document
``duplicate``      a file reached twice through different arguments (read once); or,
                   tested after ``tampered``, an intact copy of a document an earlier
                   input already carried (the same ``details.run_id`` and seal digest:
                   one run exported twice, a copied ``verifier`` folder; a re-score
                   of the run is another document), named in ``problems``
``no_result``      a document expected and not there: a ``verifier`` folder without
                   ``result.json`` (the verifier timed out or is still running), an
                   instance a batch's ``--out`` lists without one; named in ``problems``
``tampered``       a document (or the reward file beside it) that no longer matches
                   the digests its judge sealed it with (`cowork_judge.core.integrity`):
                   named in ``problems``, never in a statistic
``skipped``        ``status == "skipped"`` (JUDGE_SKIP; no reward)
``systemic``       an ``exit_code`` is set (or ``status == "error"``)
``delivery_missing``  nothing was delivered (reward 0, no model call; SPEC §6)
``degraded``       ``judge_degraded`` (or ``judge_coverage < 1``) without an exit code:
                   rows not judged, or judged on fewer answers than a sampled
                   run asked for (a lost sample, a panel judge down)
``scored``         everything else: a clean, fully judged result
=================  ============================================================

so the class counts always add up to the inputs. Rewarded documents are those with a
``task_score`` (every parsed class but ``skipped``): ``reward.mean`` averages them (what
Harbor's job mean shows); ``reward.mean_clean`` keeps only ``scored`` and
``delivery_missing`` (what remains when degraded and systemic samples are masked, SPEC §0.2).
Pass rates follow the same two populations; coverage, error kinds, methods and row tables
cover every parsed document but ``skipped`` ones.

Intervals: one cluster per task key (`fleet.documents.task_key`) that has a parsed
document, in order of first appearance; every statistic is a ratio of per-cluster sums
(`fleet.stats`), so a task's rollouts are resampled together and a cluster contributing
nothing to a statistic (e.g. only skipped documents) simply adds nothing to it.
A statistic to which fewer than `fleet.stats.MIN_CLUSTERS` clusters contribute gets no
interval (``null``), the rule ``calibrate`` follows too: ``intervals`` says how many were
given and withheld, and the ``reward``, ``pass`` and ``coverage`` blocks say why in ``ci_note``.

Output keys: ``schema``, ``generator``, ``options``, ``accounting``,
``systemic_exit_codes``, ``problems`` (every unreadable, invalid or duplicate input, named),
``clusters``, ``intervals``, ``reward``, ``pass``, ``coverage``, ``error_kinds`` (per document and per
row), ``methods``, ``unjudged``, ``rows`` (by row id), ``tags`` (by row ``tag``),
``groups`` (``--group-by``), ``grounding`` (credited rows whose quote was found — ``grounded`` —,
not found after one re-ask — ``ungrounded``, of them ``withdrawn`` by JUDGE_UNGROUNDED=miss —, ``exempt``
ones, and ``documents_with_ungrounded``), ``integrity`` (documents ``verified``, ``unsealed`` — written before
seals — and ``mismatch``: the ``tampered`` ones; ``added_keys``: top-level keys a fleet added beside the judge's, by documents, outside the seal), ``scoring`` (every scoring policy and guard mode
the documents were scored under, with their counts; ``mixed`` when more than one; ``settings_invalid``: the documents scored under a default because a reward setting held an invalid value, by variable), ``sampling`` (only when some document was sampled or priced:
`fleet.sampling.SamplingStats`), ``reasons`` (only with ``--include-reasons``), ``inputs``
(path, SHA-256, bytes and document count of every file).
"""

from __future__ import annotations

import math
import os
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge import __version__
from cowork_judge.core.result import ResultDocument, counts_as_passed
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.fleet.documents import TASK_TAG, FileDigest, Item, TaskKeySource, task_key
from cowork_judge.fleet.sampling import SamplingStats
from cowork_judge.fleet.stats import MIN_CLUSTERS, SCALE, RatioStat, bootstrap_ci, contributing, interval_note, percentile, quantize
from cowork_judge.fleet.tables import (
    NONE,
    RESULT_KEYS,
    DocTable,
    ReasonSamples,
    RowTable,
    row_keys,
    row_values,
    scalar_text,
    tag_keys,
    tag_list_values,
)

SUMMARY_SCHEMA = "cowork-judge/summary/v1"
CLUSTER_UNIT = "task(s) (clusters)"
"""What a bootstrap cluster of the summary is, in its notes (`fleet.stats.interval_note`)."""
CLASSES = ("scored", "degraded", "systemic", "delivery_missing", "skipped", "invalid", "unreadable", "duplicate", "tampered",
           "no_result")
"""Accounting classes, in the order of the output."""
CLEAN_CLASSES = frozenset({"scored", "delivery_missing"})
REWARD_BINS = 20
"""Reward histogram: 20 bins of width 0.05 over [0, 1] (the last one closed)."""
COVERAGE_BINS = 10
QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
CI_DIGITS = 6
"""Interval ends are rounded to 6 decimals: the bootstrap sums rewards quantized to 2⁻²⁴ ≈ 6e-8."""
DOCUMENT_KEYS = ("status", "exit_code", "judge_model", "judge_backend", "metric_id", "version", "version_source")
"""Result-document fields `--group-by` can name directly (besides ``class`` and ``task``)."""
GROUP_KEYS = ("class", "task", *DOCUMENT_KEYS, "tag", "criterion_type", "criterion_necessity", "judge_method", "type",
              *sorted(RESULT_KEYS))
"""`--group-by` keys every summary knows, found or not; any other key must be carried by some
document or row (issue 39: an unknown key is refused, never one silent empty group)."""
MAX_FOUND_KEYS = 200
_MODEL_FIELDS = frozenset(ResultDocument.model_fields) | {"schema"}


@dataclass(frozen=True)
class SummaryOptions:
    """How to summarize.

    Attributes:
        task_key: cluster key mode (`fleet.documents.task_key`).
        group_by: extra keys to tabulate (row- and/or instance-level).
        seed, draws, confidence: the bootstrap (``draws=0`` turns intervals off).
        include_reasons: keep sample reason texts (row-level text) in the output.
        instance_tags: task name → {tag: value} read from ``--instance-tags``.
        folder_tags: a batch's ``--out`` folder (its real path) → that batch's
            ``instance_tags.json`` (name → {tag: value}): a document below such a folder takes
            its instance tags from there, not from `instance_tags` (trial 12 F2: two batch
            folders sharing instance names had their tags merged by name, the later winning).
    """

    task_key: str = "auto"
    group_by: tuple[str, ...] = ()
    seed: int = 0
    draws: int = 1000
    confidence: float = 0.95
    include_reasons: bool = False
    instance_tags: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    folder_tags: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)


def classify(doc: ResultDocument) -> str:
    """The accounting class of a valid document (see the module docstring)."""
    if doc.status == "skipped":
        return "skipped"
    if doc.exit_code is not None or doc.status == "error":
        return "systemic"
    if doc.extra_fields.delivery_missing:
        return "delivery_missing"
    if doc.extra_fields.judge_degraded or doc.extra_fields.judge_coverage < 1.0:
        return "degraded"
    return "scored"


@dataclass
class _Mean:
    """Running mean of a population plus its per-cluster integer sums for the bootstrap."""

    n: int = 0
    total: float = 0.0
    num: array[int] = field(default_factory=lambda: array("q"))
    den: array[int] = field(default_factory=lambda: array("q"))

    def add(self, cluster: int, value: float, quantized: int) -> None:
        """Add one document's `value` (and its integer form for the bootstrap) to `cluster`."""
        while len(self.den) <= cluster:
            self.num.append(0)
            self.den.append(0)
        self.n += 1
        self.total += value
        self.num[cluster] += quantized
        self.den[cluster] += 1

    def mean(self) -> float | None:
        """The plain mean; None when the population is empty."""
        return self.total / self.n if self.n else None

    def stat(self, k: int, scale: int) -> RatioStat:
        """The mean as a ratio statistic over `k` clusters."""
        pad = k - len(self.den)
        return RatioStat(list(self.num) + [0] * pad, list(self.den) + [0] * pad, scale=scale)


class Summarizer:
    """Folds inputs into a fleet summary (bounded memory; see the module docstring)."""

    def __init__(self, options: SummaryOptions | None = None) -> None:
        self.options = options or SummaryOptions()
        self.classes: Counter[str] = Counter()
        self.problems: list[dict[str, str]] = []
        self.files: list[FileDigest] = []
        self.exit_codes: Counter[str] = Counter()
        self.clusters: dict[str, int] = {}
        self.cluster_sources: Counter[str] = Counter()
        self.rewards = array("d")
        self.raw_scores = array("d")
        self.reward_bins = [0] * REWARD_BINS
        self.coverage_bins = [0] * COVERAGE_BINS
        self.means = {name: _Mean() for name in ("reward_all", "reward_clean", "pass_all", "pass_clean", "coverage")}
        self.doc_error_kinds: Counter[str] = Counter()
        self.row_error_kinds: Counter[str] = Counter()
        self.methods: dict[str, list[int]] = {}
        self.unjudged_rows = 0
        self.rows_total = 0
        self.unjudged_weight_sum = 0.0
        self.unjudged_weight_docs = 0
        self.rows = RowTable(clustered=False)
        self.tags = RowTable(clustered=True)
        self.row_groups = {key: RowTable(clustered=True) for key in self.options.group_by}
        self.doc_groups = {key: DocTable() for key in self.options.group_by}
        self.reasons = ReasonSamples() if self.options.include_reasons else None
        self.exit_reasons = ReasonSamples() if self.options.include_reasons else None
        self.guard: Counter[str] = Counter()
        self.guard_kinds: Counter[str] = Counter()
        self.sampling = SamplingStats()
        self.integrity: Counter[str] = Counter()
        self.added_keys: Counter[str] = Counter()  # keys a fleet added beside the judge's (outside the seal)
        self.policies: dict[str, list[Any]] = {}
        self.settings_invalid: Counter[str] = Counter()  # variable → documents scored under its default instead
        self.settings_invalid_docs = 0
        self.grounding: Counter[str] = Counter()
        self.keys_found: set[str] = set()
        self.runs: dict[str, str] = {}  # "<details.run_id>:<seal digest>" → the input that carried it first
        self.batch_folders: dict[str, str | None] = {}  # a document's real folder → its `folder_tags` folder
        self.not_groupable: Counter[str] = Counter()  # group key → documents whose value is a list or an object

    def unknown_group_keys(self) -> list[str]:
        """The ``group_by`` keys no document or row carried (and not in `GROUP_KEYS`)."""
        return [k for k in self.options.group_by
                if k not in GROUP_KEYS and not self.doc_groups[k].seen_values and not self.row_groups[k].seen_values]

    def known_group_keys(self) -> list[str]:
        """`GROUP_KEYS`, then the other keys the folded documents and rows carry with a value
        that can be grouped (a string, number or boolean; sorted; at most `MAX_FOUND_KEYS`,
        collected only while some ``group_by`` key was not found)."""
        given = [*self.options.instance_tags.values(), *(t for m in self.options.folder_tags.values() for t in m.values())]
        found = self.keys_found | {k for tags in given if isinstance(tags, Mapping)
                                   for k, v in tags.items() if k != "tags" and scalar_text(v) is not None}
        return [*GROUP_KEYS, *sorted(found - set(GROUP_KEYS) - {"id", "reason"})]

    def _collect_keys(self, item: Item, doc: ResultDocument) -> None:
        """Note the keys this document carries, while some ``group_by`` key is still unfound."""
        if len(self.keys_found) >= MAX_FOUND_KEYS or not self.unknown_group_keys():
            return
        raw = item.raw
        self.keys_found.update(k for k, v in raw.items() if k not in _MODEL_FIELDS and scalar_text(v) is not None)
        self.keys_found.update(tag_keys(raw.get("tags")))
        for crit in doc.criteria:
            self.keys_found.update(row_keys(crit))

    def _add_policy(self, doc: ResultDocument) -> None:
        """Count the policy the document was scored under: its scoring policy (the default
        for a 0.1.0 document) and its guard's mode."""
        policy = {**(doc.details.policy or ScoringPolicy()).model_dump(), "guard": doc.guard.mode}
        key = repr(sorted(policy.items()))
        self.policies.setdefault(key, [policy, 0])[1] += 1
        if doc.details.settings_invalid:
            self.settings_invalid_docs += 1
            self.settings_invalid.update(set(doc.details.settings_invalid))

    # ------------------------------------------------------------------ folding

    def add_file(self, digest: FileDigest) -> None:
        """Record one input file's digest (called after its items)."""
        self.files.append(digest)

    def add(self, item: Item) -> str:
        """Fold one input; returns its accounting class."""
        if item.problem is not None or item.doc is None:
            problem = item.problem or "invalid"
            self.classes[problem] += 1
            self.problems.append({"input": item.source, "class": problem, "error": item.error or ""})
            return problem
        seal = item.seal
        self.integrity[seal.state] += 1
        self.added_keys.update(seal.added)
        if not seal.ok:
            self.classes["tampered"] += 1
            self.problems.append({"input": item.source, "class": "tampered", "error": seal.problem or ""})
            return "tampered"
        doc = item.doc
        if (first := self._first_copy(item, doc)) is not None:
            self.classes["duplicate"] += 1
            self.problems.append({"input": item.source, "class": "duplicate",
                                  "error": f"the same run's document as {first} (details.run_id {doc.details.run_id}); "
                                           "counted once"})
            return "duplicate"
        cls = classify(doc)
        self.classes[cls] += 1
        self._add_policy(doc)
        self._add_guard(doc)
        instance, source = task_key(item, self.options.task_key)
        key, source = self._task_of(item, instance, source)
        cluster = self.clusters.setdefault(key, len(self.clusters))
        self.cluster_sources[source] += 1
        if cls == "systemic":
            self.exit_codes[doc.exit_code or "(none)"] += 1
            if self.exit_reasons is not None and doc.exit_reason:
                self.exit_reasons.add(doc.exit_code or "(none)", "exit_reason", doc.exit_reason)
        reward = doc.task_score if cls != "skipped" else None
        ef = doc.extra_fields
        coverage = ef.judge_coverage if cls != "skipped" else None
        if cls != "skipped":
            self._add_judging(doc, cluster)
            self.sampling.add(doc)
        if reward is not None:
            self._add_reward(reward, counts_as_passed(doc), cls, cluster)
            raw = doc.score_raw
            self.raw_scores.append(raw if raw is not None and math.isfinite(raw) else reward)
        self._add_groups(item, doc, cls, key, instance, cluster, reward, coverage)
        self._collect_keys(item, doc)
        return cls

    def _first_copy(self, item: Item, doc: ResultDocument) -> str | None:
        """The input that already carried this very document — the same run
        (``details.run_id``) and the same sealed content (``integrity.result_sha256``) —, else
        None (and it is remembered as `item`'s). A re-score of the run under another policy or
        rubric is another document (counted, and ``scoring`` says the policies are mixed);
        documents without a run id (before 2.0, the fallback document) are never taken for
        copies: two runs can judge alike."""
        run_id = doc.details.run_id
        integrity = item.raw.get("integrity")
        sealed = integrity.get("result_sha256") if isinstance(integrity, dict) else None
        if run_id is None:
            return None
        key = f"{run_id}:{sealed}"
        first = self.runs.setdefault(key, item.source)
        return first if first != item.source else None

    def _add_guard(self, doc: ResultDocument) -> None:
        """Count the guard's record (issue 27): samples scanned, flagged, penalized, and the
        kinds of their flagging findings (each kind once per sample)."""
        g = doc.guard
        self.guard[f"mode_{g.mode}"] += 1
        if g.scanned:
            self.guard["scanned"] += 1
        if g.flagged:
            self.guard["flagged"] += 1
            self.guard_kinds.update(g.kinds)
        if g.penalized:
            self.guard["penalized"] += 1

    def _add_judging(self, doc: ResultDocument, cluster: int) -> None:
        ef = doc.extra_fields
        self.means["coverage"].add(cluster, ef.judge_coverage, quantize(ef.judge_coverage))
        self.coverage_bins[min(int(ef.judge_coverage * COVERAGE_BINS), COVERAGE_BINS - 1)] += 1
        if ef.judge_error_kind:
            self.doc_error_kinds[ef.judge_error_kind] += 1
        for method, st in ef.judge_methods.items():
            acc = self.methods.setdefault(method, [0, 0])
            acc[0] += st.n
            acc[1] += st.judged
        self.unjudged_rows += ef.judge_unjudged
        self.rows_total += len(doc.results)
        self.unjudged_weight_sum += ef.judge_unjudged_weight_frac
        self.unjudged_weight_docs += 1
        criteria = {str(c.get("id")): c for c in doc.criteria}
        ungrounded = 0
        for r in doc.results:
            if r.grounded is not None:
                self.grounding["grounded" if r.grounded else "ungrounded"] += 1
                ungrounded += r.grounded is False
                if (r.grounded is False and r.counted_hit is not None and r.counted_hit != r.hit
                        and r.gate != "closed"):
                    self.grounding["withdrawn"] += 1
            elif r.grounding:
                self.grounding["exempt"] += 1
            if not r.judged:
                self.row_error_kinds[r.error_kind or "no_verdict"] += 1
            crit = criteria.get(r.id, {})
            self.rows.add(r.id, r, cluster)
            self.tags.add(scalar_text(crit.get("tag")) or NONE, r, cluster)
            for key, table in self.row_groups.items():
                values = row_values(crit, r, key)
                table.seen_values = table.seen_values or bool(values)
                for value in values or (NONE,):
                    table.add(value, r, cluster)
            if self.reasons is not None and r.reason:
                outcome = "hit" if r.judged and r.hit else ("miss" if r.judged else "unjudged")
                self.reasons.add(r.id, outcome, r.reason)
        self.grounding["documents"] += ungrounded > 0

    def _add_reward(self, reward: float, passed: bool, cls: str, cluster: int) -> None:
        self.rewards.append(reward)
        self.reward_bins[min(max(int(reward * REWARD_BINS), 0), REWARD_BINS - 1)] += 1
        q = quantize(reward)
        self.means["reward_all"].add(cluster, reward, q)
        self.means["pass_all"].add(cluster, float(passed), int(passed))
        if cls in CLEAN_CLASSES:
            self.means["reward_clean"].add(cluster, reward, q)
            self.means["pass_clean"].add(cluster, float(passed), int(passed))

    def _tags_of(self, item: Item, instance: str) -> Mapping[str, Any] | None:
        """The instance tags of `item`, whose instance key is `instance` (``kind:name``): its batch
        folder's (`SummaryOptions.folder_tags`) when the document lies below one, else
        ``--instance-tags``'s by name; None when neither names it."""
        name = instance.split(":", 1)[1]
        if self.options.folder_tags:
            folder = self._batch_folder(item.file.path)
            if folder is not None:
                return self.options.folder_tags[folder].get(name)
        return self.options.instance_tags.get(name)

    def _batch_folder(self, path: Path) -> str | None:
        """The `SummaryOptions.folder_tags` folder `path` lies below (the innermost), or None."""
        parent = os.path.realpath(path.parent)
        if parent not in self.batch_folders:
            inside = [f for f in self.options.folder_tags if parent == f or parent.startswith(f.rstrip(os.sep) + os.sep)]
            self.batch_folders[parent] = max(inside, key=len) if inside else None
        return self.batch_folders[parent]

    def _task_of(self, item: Item, instance: str, source: TaskKeySource) -> tuple[str, TaskKeySource]:
        """The cluster of a document whose key `instance` came from `source` (`task_key`): under
        ``--task-key auto``, an instance named by its path whose instance tags carry a
        `TASK_TAG` (a batch writes one for every instance: `batch.instances.instance_tag_map`)
        joins that task's cluster, source ``tag`` (trial 10, F7: k rollouts of one task judged by
        ``batch`` were k clusters, and their intervals as narrow as k tasks'); else `instance`."""
        if self.options.task_key != "auto" or source != "path":
            return instance, source
        tags = self._tags_of(item, instance)
        task = tags.get(TASK_TAG) if isinstance(tags, Mapping) else None
        if isinstance(task, (str, int)) and not isinstance(task, bool) and str(task):
            return f"task:{task}", "tag"
        return instance, source

    def _add_groups(self, item: Item, doc: ResultDocument, cls: str, key: str, instance: str, cluster: int,
                    reward: float | None, coverage: float | None) -> None:
        for name, table in self.doc_groups.items():
            values = self.document_values(item, doc, name, cls, key, instance)
            if not values and self._holds_unscalar(item, name, instance):
                self.not_groupable[name] += 1  # counted in (none), said in groups.<key>.not_groupable and on stderr
            table.seen_values = table.seen_values or bool(values)
            table.add(values or [NONE], cls, reward, counts_as_passed(doc), coverage, cluster,
                      cls in CLEAN_CLASSES)

    def _benchmark_aggregate(self) -> dict[str, Any] | None:
        """HealthBench's overall score beside ours: the mean of the unclipped per-example scores
        (``score_raw``; a document without one counts its reward), clipped to [0, 1] — the
        benchmark's own aggregate (openai/simple-evals ``healthbench_eval.py``: the clip is
        applied to the mean, not to each example). ``reward.mean`` clips each example first,
        so the two differ whenever some example scores below 0 (negative-point criteria)."""
        n = len(self.raw_scores)
        if not n:
            return None
        mean = math.fsum(self.raw_scores) / n
        return {"documents": n, "raw_mean": mean, "clipped_raw_mean": min(1.0, max(0.0, mean)),
                "definition": "clip(mean(score_raw), 0, 1): HealthBench's overall score (openai/simple-evals)"}

    def document_values(self, item: Item, doc: ResultDocument, name: str, cls: str, key: str,
                        instance: str | None = None) -> list[str]:
        """Instance-level values of `name` for one document, first found of: ``class``;
        ``task`` (the cluster key `key`); a result-document field (`DOCUMENT_KEYS`); a top-level
        field the producer added (e.g. JSONL rows carrying ``difficulty``); the document's
        top-level ``tags`` (an object, or a ``key:value`` list); ``--instance-tags`` of the
        instance key `instance` (`task_key`; default `key`)."""
        if name == "class":
            return [cls]
        if name == "task":
            return [key.split(":", 1)[1]]
        if name in DOCUMENT_KEYS:
            text = scalar_text(getattr(doc, name))
            return [text] if text is not None else []
        if name not in _MODEL_FIELDS:
            text = scalar_text(item.top_level(name))
            if text is not None:
                return [text]
        tags = item.top_level("tags")
        if isinstance(tags, dict):
            text = scalar_text(tags.get(name))
            if text is not None:
                return [text]
        values = tag_list_values(tags, name)
        if values:
            return values
        given = self._tags_of(item, instance or key)
        if isinstance(given, Mapping):
            text = scalar_text(given.get(name))
            return [text] if text is not None else tag_list_values(given.get("tags"), name)
        return []

    def _holds_unscalar(self, item: Item, name: str, key: str) -> bool:
        """Whether the document carries `name` with a list or an object as its value (a
        top-level field, its ``tags`` object, or ``--instance-tags``): no group can hold it
        (trial 6 F3: such a value landed in ``(none)`` without a word)."""
        tags = item.top_level("tags")
        instance = self._tags_of(item, key)
        places = [item.top_level(name) if name not in _MODEL_FIELDS else None,
                  tags.get(name) if isinstance(tags, dict) else None,
                  instance.get(name) if isinstance(instance, Mapping) else None]
        return any(isinstance(v, (list, dict)) for v in places)

    # ------------------------------------------------------------------ the summary

    def result(self) -> dict[str, Any]:
        """The summary document (``schema`` `SUMMARY_SCHEMA`); deterministic for the same
        inputs in the same order.

        Raises:
            RuntimeError: the class counts do not add up to the inputs (a bug).
        """
        total = sum(self.classes.values())
        k = len(self.clusters)
        stats, names = self._stats(k)
        opts = self.options
        bootstrap = self._bootstrap(stats, names, k)
        intervals, clusters, ci, note = bootstrap.intervals, bootstrap.clusters, bootstrap.ci, bootstrap.note
        counts = {cls: self.classes.get(cls, 0) for cls in CLASSES}
        if sum(counts.values()) != total:
            raise RuntimeError(f"accounting does not add up: {counts} vs {total} inputs")
        means = self.means
        ordered = sorted(self.rewards)
        out: dict[str, Any] = {
            "schema": SUMMARY_SCHEMA,
            "generator": f"cowork-judge {__version__}",
            "options": {"task_key": opts.task_key, "group_by": list(opts.group_by), "seed": opts.seed, "draws": opts.draws,
                        "confidence": opts.confidence, "min_clusters": MIN_CLUSTERS, "include_reasons": opts.include_reasons},
            "accounting": {"inputs": total, **counts},
            "systemic_exit_codes": dict(sorted(self.exit_codes.items())),
            "problems": self.problems,
            "clusters": {"key": opts.task_key, "clusters": k, "by_source": dict(sorted(self.cluster_sources.items()))},
            "intervals": self._intervals_record(clusters),
            "reward": {
                "documents": means["reward_all"].n,
                "mean": means["reward_all"].mean(), "mean_ci": ci("reward_all"),
                "documents_clean": means["reward_clean"].n,
                "mean_clean": means["reward_clean"].mean(), "mean_clean_ci": ci("reward_clean"),
                "clusters": clusters[("reward_all",)], "clusters_clean": clusters[("reward_clean",)],
                "ci_note": note(("mean", "reward_all"), ("mean_clean", "reward_clean")),
                "quantiles": {f"p{round(q * 100)}": percentile(ordered, q) for q in QUANTILES} if ordered else None,
                "histogram": {"edges": [i / REWARD_BINS for i in range(REWARD_BINS + 1)], "counts": list(self.reward_bins)},
                "benchmark_aggregate": self._benchmark_aggregate(),
            },
            "pass": {"rate": means["pass_all"].mean(), "rate_ci": ci("pass_all"),
                     "rate_clean": means["pass_clean"].mean(), "rate_clean_ci": ci("pass_clean"),
                     "ci_note": note(("rate", "pass_all"), ("rate_clean", "pass_clean"))},
            "coverage": {"documents": means["coverage"].n, "mean": means["coverage"].mean(), "mean_ci": ci("coverage"),
                         "clusters": clusters[("coverage",)], "ci_note": note(("mean", "coverage")),
                         "histogram": {"edges": [i / COVERAGE_BINS for i in range(COVERAGE_BINS + 1)],
                                       "counts": list(self.coverage_bins)}},
            "error_kinds": {"documents": dict(sorted(self.doc_error_kinds.items())),
                            "rows": dict(sorted(self.row_error_kinds.items()))},
            "methods": {m: {"rows": n, "judged": j, "coverage": j / n if n else None} for m, (n, j) in sorted(self.methods.items())},
            "unjudged": {"rows": self.unjudged_rows, "rows_total": self.rows_total,
                         "weight_frac_mean": (self.unjudged_weight_sum / self.unjudged_weight_docs) if self.unjudged_weight_docs else None},
            "rows": self.rows.report(),
            "tags": self.tags.report(_table(intervals, "tags", "") if opts.draws > 0 else None),
            "groups": self._groups(intervals),
            "guard": {"scanned": self.guard["scanned"], "flagged": self.guard["flagged"], "penalized": self.guard["penalized"],
                      "modes": {m: self.guard[f"mode_{m}"] for m in ("off", "flag", "penalize") if self.guard[f"mode_{m}"]},
                      "kinds": dict(sorted(self.guard_kinds.items()))},
        }
        out["grounding"] = {"grounded": self.grounding["grounded"], "ungrounded": self.grounding["ungrounded"],
                            "withdrawn": self.grounding["withdrawn"], "exempt": self.grounding["exempt"],
                            "documents_with_ungrounded": self.grounding["documents"]}
        integrity: dict[str, Any] = {state: self.integrity[state] for state in ("verified", "unsealed", "mismatch")}
        if self.added_keys:
            integrity["added_keys"] = dict(sorted(self.added_keys.items()))
        out["integrity"] = integrity
        policies = [{**policy, "documents": n} for policy, n in self.policies.values()]
        out["scoring"] = {"policies": policies, "mixed": len(policies) > 1,
                          "settings_invalid": {"documents": self.settings_invalid_docs,
                                               "by_variable": dict(sorted(self.settings_invalid.items()))}}
        if self.sampling.seen:  # only for fleets judged with JUDGE_SAMPLES, JUDGE_PANEL or JUDGE_PRICES
            out["sampling"] = self.sampling.report()
        if self.reasons is not None and self.exit_reasons is not None:
            out["reasons"] = {"rows": self.reasons.report(), "exit_codes": self.exit_reasons.report()}
        out["inputs"] = {"files": len(self.files),
                         "list": [{"path": f.name, "sha256": f.sha256, "bytes": f.bytes, "documents": f.documents}
                                  for f in self.files]}
        return out

    def _bootstrap(self, stats: list[RatioStat], names: list[tuple[Any, ...]], k: int) -> _Intervals:
        """The bootstrap intervals of `stats` (named `names`) over `k` clusters (none with
        ``draws`` 0); an interval is withheld when fewer than ``MIN_CLUSTERS`` clusters
        contribute to its statistic."""
        opts = self.options
        intervals: dict[tuple[Any, ...], tuple[float, float] | None] = {}
        clusters = {name: contributing(stat) for name, stat in zip(names, stats)}
        if opts.draws > 0:
            drawn = bootstrap_ci(stats, k, draws=opts.draws, seed=opts.seed, confidence=opts.confidence)
            intervals = {name: (round(ci[0], CI_DIGITS), round(ci[1], CI_DIGITS))
                         if ci and clusters[name] >= MIN_CLUSTERS else None for name, ci in zip(names, drawn)}
        return _Intervals(intervals, clusters, drawn=opts.draws > 0)

    def _intervals_record(self, clusters: Mapping[tuple[Any, ...], int]) -> dict[str, Any]:
        """The ``intervals`` block: the rule, and how many intervals it gave and withheld."""
        opts = self.options
        withheld = sum(1 for n in clusters.values() if n < MIN_CLUSTERS) if opts.draws > 0 else 0
        fewest = min(clusters.values(), default=0)
        return {"min_clusters": MIN_CLUSTERS, "given": len(clusters) - withheld if opts.draws > 0 else 0, "withheld": withheld,
                "note": None if opts.draws > 0 and not withheld else
                ("no intervals: --draws 0" if opts.draws == 0 else
                 f"{withheld} of {len(clusters)} interval(s) withheld: a statistic gets one only when at least "
                 f"{MIN_CLUSTERS} {CLUSTER_UNIT} contribute (the fewest here: {fewest})")}

    def _stats(self, k: int) -> tuple[list[RatioStat], list[tuple[Any, ...]]]:
        """Every statistic to bootstrap (all on the same draws) and its name:
        ``(mean,)``, ``("tags", "", key)``, ``("rows", group, key)``, ``("documents", group, key)``."""
        stats: list[RatioStat] = []
        names: list[tuple[Any, ...]] = []
        for name, scale in (("reward_all", SCALE), ("reward_clean", SCALE), ("pass_all", 1), ("pass_clean", 1),
                            ("coverage", SCALE)):
            stats.append(self.means[name].stat(k, scale))
            names.append((name,))
        tables: list[tuple[str, str, RowTable | DocTable]] = [("tags", "", self.tags)]
        tables += [("rows", g, t) for g, t in self.row_groups.items() if t.seen_values]
        tables += [("documents", g, t) for g, t in self.doc_groups.items() if t.seen_values]
        for kind, group, table in tables:
            for key, stat in table.stats():
                stats.append(stat)
                names.append((kind, group, key))
        return stats, names

    def _groups(self, intervals: Mapping[tuple[Any, ...], tuple[float, float] | None]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        with_ci = self.options.draws > 0
        for name in self.options.group_by:
            entry: dict[str, Any] = {}
            if self.doc_groups[name].seen_values:
                entry["documents"] = self.doc_groups[name].report(_table(intervals, "documents", name) if with_ci else None)
            if self.row_groups[name].seen_values:
                entry["rows"] = self.row_groups[name].report(_table(intervals, "rows", name) if with_ci else None)
            if self.not_groupable[name]:
                entry["not_groupable"] = self.not_groupable[name]
            out[name] = entry
        return out


@dataclass(frozen=True)
class _Intervals:
    """The intervals of one summary by statistic name (None: withheld), the clusters that
    contribute to each statistic, and whether intervals were drawn at all (``draws`` > 0)."""

    intervals: dict[tuple[Any, ...], tuple[float, float] | None]
    clusters: dict[tuple[Any, ...], int]
    drawn: bool

    def ci(self, name: str) -> list[float] | None:
        """The interval of the statistic `name` as ``[low, high]``, None when withheld."""
        interval = self.intervals.get((name,))
        return list(interval) if interval is not None else None

    def note(self, *parts: tuple[str, str]) -> str | None:
        """Why the intervals of one block are withheld: ``(label, statistic name)`` each."""
        if not self.drawn:
            return None
        notes = {label: interval_note(self.clusters[(name,)], CLUSTER_UNIT) for label, name in parts}
        if len(set(notes.values())) == 1:  # one reason for all (or none): said once
            return next(iter(notes.values()))
        return "; ".join(f"{label}: {text}" for label, text in notes.items() if text)


def _table(intervals: Mapping[tuple[Any, ...], tuple[float, float] | None], kind: str, group: str) -> dict[Any, Any]:
    """The intervals of one table, by the table's own key."""
    return {name[2]: value for name, value in intervals.items() if len(name) == 3 and name[0] == kind and name[1] == group}


def summarize(items: Sequence[Item], digests: Sequence[FileDigest] = (), options: SummaryOptions | None = None) -> dict[str, Any]:
    """Convenience: fold `items` and `digests` and return the summary (tests, notebooks)."""
    summarizer = Summarizer(options)
    for item in items:
        summarizer.add(item)
    for digest in digests:
        summarizer.add_file(digest)
    return summarizer.result()
