"""The report's per-row costs and per-page row levels, unit level (`fleet.report_pages`)."""

from __future__ import annotations

from cowork_judge.core.page_detail import PageAggregate, PageFinding
from cowork_judge.core.result import RowResult
from cowork_judge.fleet.report_pages import RowCost, passed_despite, points_lost, rows_on_page


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
                               mean=0.0, snap_changed=0.0, p=-2.0, critical=True, passed_measured=[])
    assert (costs[1].lost, costs[1].pages, costs[1].passed_measured) == (0.0, [], [3])
