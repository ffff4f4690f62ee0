"""Rows decided by the deterministic checks: measured defects first, no model call.

A visual row may declare that the evidence layer's findings decide it::

    "decided_by": {"checks": ["text_overflow", "off_slide"], "min_confidence": 0.5, "clean_pages": "pass"}

Each page's cell of such a row is then decided without a VLM call:

- level 0 when the page has a **measured** finding (``measured: true`` in checks.json,
  `cowork_judge.evidence.checks.is_measured`) of one of those kinds with confidence ≥
  ``min_confidence`` (default `DEFAULT_MIN_CONFIDENCE`);
- level 1 when every one of those kinds ran on the page and found nothing there, unless
  the row says ``"clean_pages": "model"`` (the checks see only part of what the row asks,
  e.g. text running into text but not a picture drawn over text): then a clean page goes
  to the VLM;
- N/A (no model call) when the page shows no text at all (its text layer was read and is
  empty, `deck.Page.textless`) and the row's kinds are all `TEXT_KINDS`, or the page is
  measured blank: a page without text has no clipped, garbled, small or placeholder text
  to find, and calling it clean would pay a deck of blank slides for these rows (trial 14
  F5). A measured finding still sets 0 first; a row whose clean pages go to the model
  (``"clean_pages": "model"``) is asked as before. All pages N/A ⇒ the row's ``na_policy``;
- otherwise the cell goes to the VLM like any other row's (the checks could not run on the
  page — skipped, cut by the evidence budget or a per-slide cap — or found only estimated
  or low-confidence evidence: a spill inferred from a shrink-to-fit frame's stored scale, a
  spill measured with a substituted typeface, a grouped frame off the slide); the findings
  travel in that page's prompt and the model's page verdict decides. An estimated finding
  never sets a cell to 0 by itself.

Only kinds in `DECIDING_KINDS` may decide a row: each met ≥ 0.95 precision and recall,
with 0 of 170 clean slides flagged, on the labelled synthetic benchmark
(``bench/RESULTS-checks.md``). A malformed ``decided_by`` (unknown kind, wrong shape) gets
a warning and the row is judged by the VLM on every page.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cowork_judge.evidence.checks import FINDINGS_PER_CHECK_CAP
from cowork_judge.evidence.documents import ChecksDoc, Finding

DECIDING_KINDS: tuple[str, ...] = (
    "off_slide", "text_overlap", "text_overflow", "tiny_font", "placeholder_text", "missing_glyph", "blank_page",
)
"""Check kinds that met the ≥ 0.95 precision/recall bar (bench/RESULTS-checks.md, all seven)."""
TEXT_KINDS = frozenset({"text_overflow", "text_overlap", "tiny_font", "placeholder_text", "missing_glyph"})
"""Kinds that only measure text: on a page with no text they have nothing to look at, so a
row decided by them alone is N/A there, not clean. ``off_slide`` also measures pictures and
shapes, so a row with it is N/A only on a page the checks measured blank."""
DEFAULT_MIN_CONFIDENCE = 0.5
"""A finding decides a cell from this confidence up. 0.5 keeps every finding measured with
the requested (or a metric-compatible) typeface — direct measures carry 0.6–0.95 — and the
TODO/TBD markers (0.5); it sends to the VLM the measures the evidence layer itself marks as
unsure: spills measured with a substituted typeface (× 0.55) and off-slide frames whose
rendered text is on the slide (0.4)."""
CAPPED_KINDS = {"text_frame_cap": ("text_overlap", "text_overflow"), "line_cap": ("text_overlap", "text_overflow", "tiny_font")}
"""Limits that leave part of a slide unmeasured by these kinds (`cowork_judge.evidence.checks`)."""


@dataclass(frozen=True)
class CheckRule:
    """A row's ``decided_by``: the kinds whose findings decide it, and the confidence floor."""

    kinds: tuple[str, ...]
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    clean_pages: str = "pass"
    """``pass``: a page the kinds looked at and found clean is level 1 with no model call;
    ``model``: the VLM judges it (only measured findings are decided)."""


def read_rule(row_id: str, extra: Mapping[str, Any]) -> tuple[CheckRule | None, str | None]:
    """The row's rule from its ``decided_by`` field (an unknown rubric key, kept in ``extra``).

    Returns:
        ``(rule, None)``; ``(None, None)`` when the row has no ``decided_by``; ``(None,
        warning)`` when it is malformed (the row is then judged by the VLM).
    """
    spec = extra.get("decided_by")
    if spec is None:
        return None, None
    fallback = "; the row is judged by the VLM instead"
    if not isinstance(spec, Mapping) or not isinstance(spec.get("checks"), list) or not spec["checks"]:
        return None, f"row {row_id!r}: decided_by must be {{\"checks\": [kind, ...]}}, got {spec!r:.80}{fallback}"
    unknown = sorted({str(k) for k in spec["checks"] if k not in DECIDING_KINDS})
    if unknown:
        return None, (f"row {row_id!r}: decided_by names check kind(s) {', '.join(unknown)} that may not decide a row "
                      f"(allowed: {', '.join(DECIDING_KINDS)}){fallback}")
    extra_keys = sorted(str(k) for k in spec if k not in ("checks", "min_confidence", "clean_pages"))
    if extra_keys:
        return None, f"row {row_id!r}: decided_by has unknown key(s) {', '.join(extra_keys)}{fallback}"
    floor = spec.get("min_confidence", DEFAULT_MIN_CONFIDENCE)
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not math.isfinite(floor) or not 0 < floor <= 1:
        return None, f"row {row_id!r}: decided_by.min_confidence must be a number in (0, 1], got {floor!r}{fallback}"
    clean = spec.get("clean_pages", "pass")
    if clean not in ("pass", "model"):
        return None, f"row {row_id!r}: decided_by.clean_pages must be \"pass\" or \"model\", got {clean!r:.40}{fallback}"
    return CheckRule(tuple(dict.fromkeys(str(k) for k in spec["checks"])), float(floor), clean), None


@dataclass(frozen=True)
class Decision:
    """One cell decided by the checks: ``level`` 0 or 1 (or ``na``: the row does not apply to
    the page, level then 0 and meaningless), a reason, the findings behind it."""

    level: float
    reason: str
    findings: tuple[Finding, ...] = ()
    na: bool = False


class PageChecks:
    """The deck's findings by page, and where each check kind could not look.

    Args:
        checks: the deck's ``checks.json`` (None: no check ran, nothing is decided).
        page_to_slide: the render's page → slide map.
    """

    def __init__(self, checks: ChecksDoc | None, page_to_slide: Mapping[int, int | None]) -> None:
        self.checks = checks
        self.page_to_slide = dict(page_to_slide)
        slide_to_page = {s: p for p, s in self.page_to_slide.items() if s is not None}
        self.by_page: dict[int, list[Finding]] = {}
        for f in checks.findings if checks is not None else []:
            page = f.page if f.page is not None else slide_to_page.get(f.slide) if f.slide is not None else None
            if page is not None:
                self.by_page.setdefault(page, []).append(f)
        self._saturated = set()
        if checks is not None:
            for check in checks.findings_dropped:
                units = {(f.slide, f.page) for f in checks.findings if f.check == check}
                if len(units) >= FINDINGS_PER_CHECK_CAP:  # the deck cap may have dropped every finding of a page
                    self._saturated.add(check)

    def findings(self, page: int) -> list[Finding]:
        """Every finding on `page`, highest confidence first."""
        return sorted(self.by_page.get(page, []), key=lambda f: -f.confidence)

    def measured_blank(self, page: int) -> bool:
        """Whether the checks measured `page` blank (a ``blank_page`` finding on it)."""
        return any(f.check == "blank_page" and f.measured for f in self.by_page.get(page, []))

    def blind_spot(self, kind: str, page: int) -> str | None:
        """Why `kind` cannot vouch for `page` being clean, or None when it looked at all of it."""
        doc = self.checks
        if doc is None:
            return "no checks ran"
        if kind not in doc.checks_run:
            return f"{kind} did not run ({doc.checks_skipped.get(kind, 'not run')})"
        slide = self.page_to_slide.get(page)
        for lim in doc.limits:
            if lim.kind == "budget" and lim.check in (None, kind):
                if lim.slide is not None and (slide is None or slide >= lim.slide):
                    return f"{kind}: {lim.reason}"
                if lim.page is not None and page >= lim.page:
                    return f"{kind}: {lim.reason}"
                if lim.slide is None and lim.page is None:
                    return f"{kind}: {lim.reason}"
            elif lim.kind in CAPPED_KINDS and kind in CAPPED_KINDS[lim.kind] and (
                    (lim.page is not None and lim.page == page) or (lim.slide is not None and lim.slide == slide)):
                return f"{kind}: {lim.reason}"
        if kind in self._saturated:
            return (f"{kind}: more findings than checks.json keeps ({FINDINGS_PER_CHECK_CAP}); "
                    "this page's may be among those left out")
        return None

    def decide(self, rule: CheckRule, page: int, *, textless: bool = False) -> Decision | None:
        """The cell of a row with `rule` on `page`, or None when the VLM must judge it.

        `textless`: the page's text layer was read and shows no text (`deck.Page.textless`);
        a row of text kinds is then N/A on it (``Decision.na``) unless a finding decides.
        """
        mine = [f for f in self.findings(page) if f.check in rule.kinds]
        decisive = [f for f in mine if f.measured and f.confidence >= rule.min_confidence]
        if decisive:
            return Decision(0.0, "measured: " + _describe(decisive), tuple(decisive))
        if mine:
            return None  # only estimated or unsure evidence: the VLM looks, with the findings in its prompt
        if rule.clean_pages == "model":
            return None
        if textless and (set(rule.kinds) <= TEXT_KINDS or self.measured_blank(page)):
            return Decision(0.0, f"the page shows no text: {'/'.join(rule.kinds)} has nothing to measure",
                            na=True)
        if any(self.blind_spot(kind, page) for kind in rule.kinds):
            return None
        return Decision(1.0, f"measured: no {'/'.join(rule.kinds)} finding on this page")


def _describe(findings: Iterable[Finding], limit: int = 2) -> str:
    items = list(findings)
    text = "; ".join(f"{f.check}: {f.message} (confidence {f.confidence:g})" for f in items[:limit])
    return text + (f"; +{len(items) - limit} more" if len(items) > limit else "")
