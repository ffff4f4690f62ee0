"""The fleet's view of sampling and cost (issue 28): agreement, the least stable rows, what it cost. Pure.

`SamplingStats` folds the result documents of a sampled or priced fleet (documents with
``details.sampling`` or ``judge_cost``) one at a time into bounded counters — per row id
three numbers, per document nothing kept — and reports (``summary.json`` → ``sampling``):

- ``documents``: documents sampled, and documents priced;
- ``agreement``: the documents' ``judge_agreement`` (mean, quantiles, a 10-bin histogram)
  and the rows' ``agreement`` (mean and histogram);
- ``least_stable_rows``: the `LEAST_STABLE` row ids with the lowest mean agreement across
  the fleet (each with its mean, the rows it averages, and how many of them were not
  unanimous) — the rubric rows a judge cannot answer the same way twice;
- ``lost``: what the judged rows asked for and did not get (``details.sampling.lost``):
  documents with a lost answer, documents where a panel judge gave no answer on some row,
  judged rows that kept fewer answers, lost samples by error kind, and per judge the rows it
  gave no answer on — such documents are ``degraded`` in the accounting;
- ``cost``: dollars over the documents whose cost is known, documents whose cost is not
  (a model without a price), the models without a price, and tokens per model.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from cowork_judge.core.result import ResultDocument
from cowork_judge.core.sampling import sampling_loss
from cowork_judge.fleet.stats import percentile

AGREEMENT_BINS = 10
"""Agreement histograms: 10 bins of width 0.1 over [0, 1] (the last one closed)."""
LEAST_STABLE = 20
"""Row ids listed as the least stable."""
QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def _bin(value: float) -> int:
    return min(max(int(value * AGREEMENT_BINS), 0), AGREEMENT_BINS - 1)


class SamplingStats:
    """Accumulates the sampling and cost fields of many documents (module docstring)."""

    def __init__(self) -> None:
        self.seen = 0
        self.sampled = 0
        self.doc_agreements: list[float] = []
        self.doc_bins = [0] * AGREEMENT_BINS
        self.row_bins = [0] * AGREEMENT_BINS
        self.row_sum = 0.0
        self.row_n = 0
        self.rows: dict[str, list[float]] = {}  # id → [sum, n, not unanimous]
        self.priced = 0
        self.unpriced_docs = 0
        self.usd = 0.0
        self.unpriced_models: Counter[str] = Counter()
        self.tokens: dict[str, Counter[str]] = {}
        self.votes: Counter[str] = Counter()
        self.samples: Counter[int] = Counter()
        self.lost: Counter[str] = Counter()  # documents, documents_judge_lost, rows, samples
        self.lost_kinds: Counter[str] = Counter()
        self.lost_judges: Counter[str] = Counter()

    def add(self, doc: ResultDocument) -> None:
        """Fold one document (a document neither sampled nor priced adds nothing)."""
        sampling, cost = doc.details.sampling, doc.judge_cost
        if sampling is None and cost is None:
            return
        self.seen += 1
        if sampling is not None:
            self.sampled += 1
            self.votes[sampling.vote] += 1
            self.samples[sampling.samples] += 1
            self._add_lost(doc)
            if doc.judge_agreement is not None and math.isfinite(doc.judge_agreement):
                self.doc_agreements.append(doc.judge_agreement)
                self.doc_bins[_bin(doc.judge_agreement)] += 1
            for r in doc.results:
                if r.agreement is None:
                    continue
                self.row_sum += r.agreement
                self.row_n += 1
                self.row_bins[_bin(r.agreement)] += 1
                acc = self.rows.setdefault(r.id, [0.0, 0, 0])
                acc[0] += r.agreement
                acc[1] += 1
                acc[2] += r.agreement < 1.0
        if cost is not None:
            if cost.usd is None:
                self.unpriced_docs += 1
                self.unpriced_models.update(cost.unpriced)
            else:
                self.priced += 1
                self.usd += cost.usd
            for model, used in cost.models.items():
                tally = self.tokens.setdefault(model, Counter())
                tally.update({"calls": used.calls, "input_tokens": used.input_tokens,
                              "cached_input_tokens": used.cached_input_tokens, "output_tokens": used.output_tokens,
                              "unsplit_tokens": used.unsplit_tokens})

    def _add_lost(self, doc: ResultDocument) -> None:
        """Count the answers a sampled document's judged rows lost (its ``details.sampling.lost``,
        recomputed from the rows for documents written before the record existed)."""
        lost = doc.details.sampling.lost if doc.details.sampling is not None else None
        if lost is None:
            lost = sampling_loss([(r.judged, r.samples) for r in doc.results])
        if not lost.rows:
            return
        self.lost.update({"documents": 1, "rows": lost.rows, "samples": lost.samples,
                          "documents_judge_lost": 1 if lost.judges else 0})
        self.lost_kinds.update(lost.error_kinds)
        self.lost_judges.update(lost.judges)

    def report(self) -> dict[str, Any]:
        """The ``sampling`` section of the summary (deterministic for the same inputs in the same order)."""
        ordered = sorted(self.doc_agreements)
        edges = [i / AGREEMENT_BINS for i in range(AGREEMENT_BINS + 1)]
        stable = sorted(((acc[0] / acc[1], rid, acc) for rid, acc in self.rows.items() if acc[1]), key=lambda t: (t[0], t[1]))
        return {
            "documents": {"sampled": self.sampled, "priced": self.priced, "unpriced": self.unpriced_docs,
                          "samples": {str(k): n for k, n in sorted(self.samples.items())}, "votes": dict(sorted(self.votes.items()))},
            "agreement": {
                "documents": len(ordered),
                "mean": sum(ordered) / len(ordered) if ordered else None,
                "quantiles": {f"p{round(q * 100)}": percentile(ordered, q) for q in QUANTILES} if ordered else None,
                "histogram": {"edges": edges, "counts": list(self.doc_bins)},
                "rows": {"rows": self.row_n, "mean": self.row_sum / self.row_n if self.row_n else None,
                         "histogram": {"edges": edges, "counts": list(self.row_bins)}},
            },
            "least_stable_rows": [{"id": rid, "agreement_mean": round(mean, 6), "rows": int(acc[1]),
                                   "not_unanimous": int(acc[2])} for mean, rid, acc in stable[:LEAST_STABLE]],
            "lost": {"documents": self.lost["documents"], "documents_judge_lost": self.lost["documents_judge_lost"],
                     "rows": self.lost["rows"], "samples": self.lost["samples"],
                     "error_kinds": dict(sorted(self.lost_kinds.items())), "judges": dict(sorted(self.lost_judges.items()))},
            "cost": {"usd": round(self.usd, 8) if self.priced else None, "documents_priced": self.priced,
                     "documents_unpriced": self.unpriced_docs, "unpriced_models": dict(sorted(self.unpriced_models.items())),
                     "models": {m: dict(sorted(t.items())) for m, t in sorted(self.tokens.items())}},
        }


__all__ = ["AGREEMENT_BINS", "LEAST_STABLE", "SamplingStats"]
