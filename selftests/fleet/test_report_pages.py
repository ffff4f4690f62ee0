"""The report's per-row costs and per-page row levels, unit level (`fleet.report_pages`)."""

from __future__ import annotations

import math

import pytest

from cowork_judge.core.page_detail import PageAggregate, PageFinding
from cowork_judge.core.result import RowResult
from cowork_judge.fleet.report_pages import (
    RowCost,
    loss_causes,
    passed_despite,
    points_lost,
    row_costs,
    rows_on_page,
    split_by_page,
)
from cowork_judge.workflow._contract import power_mean
from cowork_judge.workflow.ppt_judge.aggregate import snap_down


def row(rid: str, *, weight: float = 6.0, level: float = 1.0, below: dict | None = None,
        findings: list[PageFinding] | None = None, judged: int = 3) -> RowResult:
    agg = PageAggregate(p=-2.0, critical=True, pages_judged=judged, mean=level, level=level, findings=findings or [])
    return RowResult(id=rid, hit=level > 0, level=level, judged=True, reason="", method="workflow", error_kind=None,
                     gate=None, weight=weight, contribution=weight * level, pages_below=below or {}, aggregate=agg,
                     evidence=["evidence/pages/d.pptx/page-002.png"])


def pf(page: int, check: str, role: str, level: float | None, measured: bool = True, conf: float = 0.9) -> PageFinding:
    return PageFinding(page=page, check=check, measured=measured, confidence=conf, role=role, level=level, message="m")


def test_levels_on_a_page_and_the_findings_behind_them():
    clipped = row("CLIP", level=0.0, below={"2": 0.0}, findings=[pf(2, "text_overflow", "decided", 0.0)])
    overlap = row("OVER", findings=[pf(3, "text_overlap", "informed", 1.0, conf=0.45)])
    whole = RowResult(id="AG", hit=True, level=None, judged=True, reason="", method="agentic", error_kind=None, gate=None,
                      weight=2.0, contribution=0.0)
    results = [clipped, overlap, whole]
    page2 = rows_on_page(results, "d.pptx", 2, ["d.pptx"])
    assert [(r.id, r.level, [f.check for f in r.decided]) for r in page2] == [("CLIP", 0.0, ["text_overflow"]),
                                                                               ("OVER", 1.0, [])]
    assert points_lost(clipped) == 6.0 and points_lost(whole) == 2.0 and points_lost(overlap) == 0.0
    page3 = rows_on_page(results, "d.pptx", 3, ["d.pptx"])
    notes = passed_despite(page3, [{"check": "text_overlap", "measured": True}], True)
    assert notes == [("measured text_overlap here, but no row lost points on this page (OVER: the finding is below the "
                      "row's min_confidence, so the model judged the page and said 1)")]
    untied = passed_despite(page3, [{"check": "tiny_font", "measured": True}], True)
    assert "no row is decided by tiny_font" in untied[0]
    assert passed_despite(page3, [{"check": "text_overflow", "measured": False}], True) == []  # estimated: no note
    assert passed_despite(page2, [{"check": "text_overflow", "measured": True}], True) == []  # it cost CLIP its level


def test_a_cost_line_says_where_a_measured_defect_did_not_cost():
    from types import SimpleNamespace

    from cowork_judge.fleet.report_pages import row_costs

    clipped = row("CLIP", level=0.0, below={"2": 0.0, "5": 0.5}, findings=[pf(2, "text_overflow", "decided", 0.0)])
    overlap = row("OVER", findings=[pf(3, "text_overlap", "informed", 1.0, conf=0.45)])
    doc = SimpleNamespace(results=[clipped, overlap], details=SimpleNamespace(weight_total=12.0))
    costs = row_costs(doc, ["d.pptx"])
    assert costs[0] == RowCost(id="CLIP", level=0.0, lost=6.0, share=0.5, pages=[(2, 0.0), (5, 0.5)], deck="d.pptx",
                               mean=0.0, snap_changed=0.0, p=-2.0, critical=True, passed_measured=[],
                               page_points=[6.0, 0.0])  # critical: the page at 0 takes the whole loss
    assert (costs[1].lost, costs[1].pages, costs[1].passed_measured) == (0.0, [], [3])


# (weight, pages below 1, pages judged, p) → points lost on each page (the rest, if any, is the snap's)
SPLITS = [
    (6.0, [(3, 0.5)], 4, 1.0, [0.75]),  # a normal row: (1 − 0.5) × 6 / 4 pages
    (6.0, [(2, 0.0), (5, 0.5)], 4, 1.0, [1.5, 0.75]),
    (4.0, [(1, 0.25), (2, 0.5), (3, 0.75)], 3, 1.0, [1.0, 2 / 3, 1 / 3]),
    (6.0, [(2, 0.0), (5, 0.5)], 4, -2.0, [6.0, 0.0]),  # critical: a page at 0 decides the mean alone
    (6.0, [(2, 0.5), (5, 0.8)], 2, -2.0, None),  # computed below: shares by |1 − level^p|
    (6.0, [(2, 0.5), (5, 0.25)], 2, 0.0, None),  # geometric mean: shares by −ln level
]


@pytest.mark.parametrize("weight,pages,judged,p,expected", SPLITS)
def test_a_rows_loss_is_split_by_page(weight, pages, judged, p, expected):
    levels = [lv for _, lv in pages] + [1.0] * (judged - len(pages))
    mean = power_mean(levels, p)
    level = snap_down(mean)
    agg = PageAggregate(p=p, pages_judged=judged, mean=mean, level=level, snap_changed=mean - level)
    lost = weight * (1 - level)
    split = split_by_page(weight, lost, pages, agg)
    assert split is not None
    per_page, snap = split
    assert math.fsum(per_page) + snap == pytest.approx(lost)  # every point lost is accounted for
    assert snap == pytest.approx(weight * (mean - level))
    if expected is not None:
        assert per_page == pytest.approx(expected)
    low = min(range(len(pages)), key=lambda i: pages[i][1])
    assert per_page[low] == max(per_page)  # the worst page costs the most


def test_a_loss_that_is_not_the_pages_is_not_split():
    agg = PageAggregate(p=1.0, pages_judged=2, mean=0.5, level=0.5)
    assert split_by_page(6.0, 6.0, [(1, 0.0)], agg) is None  # a closed gate took the rest
    assert split_by_page(6.0, 3.0, [], agg) is None and split_by_page(0.0, 0.0, [(1, 0.0)], agg) is None


def test_the_causes_of_losses_no_page_accounts_for():
    from types import SimpleNamespace

    deck = RowResult(id="V1", hit=False, level=0.0, judged=True, method="workflow", error_kind=None, gate=None, weight=6.0,
                     contribution=0.0, reason="[deck] the deck is broken and cannot be rendered (encrypted: x)")
    lost = RowResult(id="V2", hit=None, level=None, judged=False, method="workflow", error_kind="render_env", gate=None,
                     weight=3.0, contribution=0.0, reason="LibreOffice is not installed")
    fine = RowResult(id="A1", hit=False, level=None, judged=True, method="agentic", error_kind=None, gate=None, weight=2.0,
                     contribution=0.0, reason="no title slide")
    evidence = {"decks": [{"deck": "deck.pptx", "status": "encrypted", "pages_rendered": 0,
                           "skipped": ["render: deck_broken (password-protected)"]},
                          {"deck": "ok.pptx", "status": "ok", "pages_rendered": 3}]}
    doc = SimpleNamespace(results=[deck, lost, fine], details=SimpleNamespace(evidence=evidence, weight_total=11.0))
    causes = loss_causes(doc)
    assert [(c.rows, c.lost) for c in causes] == [([], 0.0), (["V1"], 6.0), (["V2"], 3.0)]
    assert causes[0].text == ("the deck deck.pptx could not be read: its status is encrypted and no page was rendered "
                              "(render: deck_broken (password-protected))")
    assert causes[1].text.startswith("1 row(s) scored for the whole deck, not page by page, because the deck could not "
                                     "be read: the deck is broken")
    assert causes[2].text == "1 row(s) not judged (render_env): LibreOffice is not installed"
    costs = {c.id: c for c in row_costs(doc, ["deck.pptx"])}
    assert costs["V1"].deck_whole and costs["V2"].not_judged == "render_env" and not costs["A1"].deck_whole
