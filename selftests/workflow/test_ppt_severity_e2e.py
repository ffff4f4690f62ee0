"""Issue 24's decks end to end: rendered once by the real evidence layer (LibreOffice +
PyMuPDF), judged by ``ppt_judge`` over the real workflow transport (the official ``openai``
client over HTTP) against the simulator with an oracle that passes every row, so every lost
point comes from the measured defects alone.

- one measured clipped slide costs the critical row ``V-LAYOUT-CLIPPED`` at least half its
  level on a 1-, 10- and 45-page deck alike, and the same deck without it scores 1.0;
- a deck whose only finding is estimated (a shrink-to-fit body that visibly fits) loses
  nothing unless the model's page verdict says so;
- a grow-to-fit box whose rendered text runs into the box below is found (the stored frames
  do not meet) and decides ``V-LAYOUT-OVERLAP`` on that page.

The decks are built by ``selftests/fixtures/severity/make_decks.py`` (committed with them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cowork_judge.evidence import build_evidence, probe_capabilities
from cowork_judge.evidence.documents import ChecksDoc, SlideDoc
from cowork_judge.evidence.matching import inter

from .test_ppt_workflow import judge, template_rows

DECKS = Path(__file__).resolve().parents[1] / "fixtures" / "severity"
NAMES = ["one-clipped.pptx", "one-clean.pptx", "ten-clipped.pptx", "ten-clean.pptx", "long-clipped.pptx",
         "long-clean.pptx", "grow-collide.pptx", "shrink-fits.pptx"]
ALL_PASS = {c.id: {"hit": True, "level": 1.0, "reason": "looks fine"} for c in template_rows()}
CLIPPED_PAGE = {"one": 1, "ten": 10, "long": 20}


@pytest.fixture(scope="module")
def evidence(tmp_path_factory) -> dict[str, Any]:
    """Every deck of the issue rendered and checked ONCE for the module."""
    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice is not installed")
    root = tmp_path_factory.mktemp("severity")
    out = root / "output"
    out.mkdir()
    for name in NAMES:
        shutil.copy(DECKS / name, out / name)
    summary = build_evidence([out / n for n in NAMES], root / "evidence", budget_sec=600, width_px=320, root=out)
    assert summary.pages_rendered == 1 + 1 + 10 + 10 + 45 + 45 + 1 + 1
    checks = {d.source: ChecksDoc.model_validate_json((root / "evidence" / d.checks).read_text()) for d in summary.decks}
    return {"root": root, "out": out, "checks": checks}


def run(evidence: dict[str, Any], name: str, oracle: dict | None = None):
    artifacts = {"deck_path": str(evidence["out"] / name), "deck_kind": "pptx", "deck_rel": name}
    return judge(evidence["root"] / "evidence", artifacts, oracle=oracle or ALL_PASS, delivered=(name,), limit=4,
                 budget=240.0)


def test_the_decks_findings_and_whether_each_was_measured(evidence):
    checks = evidence["checks"]
    for size, page in CLIPPED_PAGE.items():
        [f] = checks[f"{size}-clipped.pptx"].findings
        assert (f.check, f.slide, f.shape_name, f.measured) == ("text_overflow", page, "Notes", True)
        assert f.measure["past_slide_edge_pt"] > 150  # ~190 pt off the bottom of the slide
        assert checks[f"{size}-clean.pptx"].findings == []  # a clean deck stays clean
    [f] = checks["shrink-fits.pptx"].findings
    assert (f.check, f.measured, f.measure.get("estimated")) == ("text_overflow", False, True)
    [f] = checks["grow-collide.pptx"].findings
    assert (f.check, f.shape_name, f.measure["other_shape_name"], f.measured) == ("text_overlap", "Growing", "Below", True)
    slide = SlideDoc.model_validate_json(next((evidence["root"] / "evidence").glob("grow-collide*/pages/slide-001.json"))
                                         .read_text())
    frames = {s.name: s.footprint_pt() for s in slide.shapes}
    assert inter(frames["Growing"], frames["Below"]) == 0  # only the rendered extents meet
    stored = json.loads((evidence["root"] / "evidence" / "grow-collide.pptx" / "checks.json").read_text())
    assert stored["findings"][0]["measured"] is True  # written into checks.json


@pytest.mark.parametrize("size", ["one", "ten", "long"])
def test_one_measured_clipped_page_costs_the_critical_row_at_least_half_at_any_length(evidence, size):
    clipped, _log, _ = run(evidence, f"{size}-clipped.pptx")
    row = clipped["V-LAYOUT-CLIPPED"]
    page = CLIPPED_PAGE[size]
    assert row.judged and row.level <= 0.5, row.reason
    assert row.pages_below == {str(page): 0.0}
    assert [(f.page, f.check, f.role, f.measured) for f in row.aggregate.findings] == [(page, "text_overflow", "decided", True)]
    assert all(v.level == 1.0 for k, v in clipped.items() if k != "V-LAYOUT-CLIPPED")  # the oracle passes the rest
    clean, _log, _ = run(evidence, f"{size}-clean.pptx")
    assert all(v.judged and v.level == 1.0 for v in clean.values()), {k: v.reason for k, v in clean.items() if v.level != 1}
    assert clean["V-LAYOUT-CLIPPED"].pages_below == {}


def test_an_estimated_finding_alone_costs_nothing_without_a_model_verdict_saying_so(evidence):
    v, log, _ = run(evidence, "shrink-fits.pptx")
    assert "V-LAYOUT-CLIPPED" in {r for e in log for r in e.row_ids}  # the model was asked, with the finding
    row = v["V-LAYOUT-CLIPPED"]
    assert row.level == 1.0 and row.pages_below == {}
    [f] = row.aggregate.findings
    assert (f.role, f.measured, f.level) == ("informed", False, 1.0)
    says_so = {**ALL_PASS, "V-LAYOUT-CLIPPED": {"hit": True, "level": 0.25, "reason": "the last lines are cut off"}}
    v, _log, _ = run(evidence, "shrink-fits.pptx", oracle=says_so)
    assert v["V-LAYOUT-CLIPPED"].level == 0.25 and v["V-LAYOUT-CLIPPED"].pages_below == {"1": 0.25}


def test_a_growing_box_running_into_the_next_decides_the_overlap_row(evidence):
    v, _log, _ = run(evidence, "grow-collide.pptx")
    row = v["V-LAYOUT-OVERLAP"]
    assert row.level == 0.0 and row.pages_below == {"1": 0.0} and "text_overlap" in row.reason
