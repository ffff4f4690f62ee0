"""ppt_judge's ``run`` on real evidence (a deck rendered once by the evidence layer) with
the run's real workflow transport against the simulator: checks-decided rows cost no
call, findings reach the page prompts, missing rows are asked again alone, a failed call
loses one page, the budget loses the last pages, and each deck problem gets its blame."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cowork_judge.authoring.gen_ppt_rubrics import generate, load_template
from cowork_judge.core.retry import RetryPolicy
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.evidence import build_evidence, probe_capabilities
from cowork_judge.sim import FaultPlan, LatencyModel, OraclePolicy, SimServer
from cowork_judge.transport.stats import CallStats
from cowork_judge.workflow.caller import WorkflowCalls
from cowork_judge.workflow import ppt_judge
from cowork_judge.workflow._contract import WorkflowContext

KEY = "sk-ppt-judge-workflow-test-0001"
CHECKED = {"V-LAYOUT-CLIPPED", "V-TYPE-GARBLED", "V-TYPE-SIZE", "V-COMPLETE-BLANK", "V-COMPLETE-PLACEHOLDER"}


def template_rows(settings: dict | None = None):
    doc = generate(None, load_template()).document
    return list(normalize_rubric(doc).criteria)


VLM_ROWS = [c.id for c in template_rows() if c.id not in CHECKED]
ORACLE = {r: {"hit": True, "level": 1.0} for r in VLM_ROWS}


def defect_deck(path: Path) -> None:
    """4 slides: clean; text overflowing its box; blank; lorem ipsum."""
    from pptx import Presentation
    from pptx.enum.text import MSO_AUTO_SIZE
    from pptx.util import Inches, Pt

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)

    def box(slide, x, y, w, h, text, size=20):
        tf = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h)).text_frame
        tf.word_wrap, tf.auto_size = True, MSO_AUTO_SIZE.NONE
        tf.text = text
        for p in tf.paragraphs:
            for r in p.runs:
                r.font.size, r.font.name = Pt(size), "Calibri"

    blank = prs.slide_layouts[6]
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 11, 1, "Quarterly results", 36)
    box(s, 1, 2.5, 11, 3, "Revenue grew in every region this quarter.")
    s = prs.slides.add_slide(blank)
    box(s, 1, 0.5, 11, 1, "Pipeline", 36)
    box(s, 1, 2, 5, 0.8, "\n".join(f"Line {i}: regional sales pipeline review and forecast" for i in range(12)))
    prs.slides.add_slide(blank)
    s = prs.slides.add_slide(blank)
    box(s, 1, 1, 11, 1, "Next steps", 36)
    box(s, 1, 2.5, 11, 2, "Lorem ipsum dolor sit amet, consectetur adipiscing elit.")
    prs.save(path)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, Any]:
    """The defect deck's evidence, built once for the module (LibreOffice + PyMuPDF)."""
    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice is not installed")
    root = tmp_path_factory.mktemp("ppt-defects")
    out = root / "output"
    out.mkdir()
    defect_deck(out / "deck.pptx")
    summary = build_evidence([out / "deck.pptx"], root / "evidence", budget_sec=180, width_px=400, root=out)
    assert summary.pages_rendered == 4
    return {"evidence": root / "evidence", "artifacts": {"deck_path": str(out / "deck.pptx"), "deck_kind": "pptx",
                                                          "deck_rel": "deck.pptx"}}


class Audit:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict]] = []

    def append(self, name: str, record: dict) -> None:
        self.records.append((name, record))


def judge(evidence: Path, artifacts: dict, *, oracle: dict | None = None, settings: dict | None = None, rows=None,
          faults: FaultPlan | None = None, latency: LatencyModel | None = None, limit: int = 1, budget: float = 60.0,
          tries: int = 3, delivered: tuple[str, ...] = ("deck.pptx",)):
    """Run ppt_judge once; returns (verdicts by id, the simulator's log entries in arrival order, audit)."""
    server = SimServer(OraclePolicy.from_dict(oracle if oracle is not None else ORACLE), faults=faults, latency=latency,
                       api_key=KEY).start()
    audit, cancel = Audit(), threading.Event()
    calls = WorkflowCalls(api_key=KEY, base_url=server.url, model="sim", limit=limit, jitter_sec=0.0, per_timeout_sec=20.0,
                          retry=RetryPolicy(max_tries=tries, backoff_max_sec=1.0), stats=CallStats(),
                          deadline_at=time.monotonic() + 600, redact=lambda s: s, rng=random.Random(5),
                          log=logging.getLogger("test"))
    ctx = WorkflowContext(
        name="ppt_judge", settings=settings or {}, artifacts=artifacts, evidence_dir=evidence, work_dir=evidence.parent,
        delivery=SimpleNamespace(files=[SimpleNamespace(rel=r) for r in delivered]), deadline_at=time.monotonic() + 600,
        cancel=cancel, transport=calls.caller("ppt_judge", audit, cancel=cancel, budget_end=time.monotonic() + budget),
        audit=audit)
    try:
        verdicts = ppt_judge.run(rows if rows is not None else template_rows(), ctx, budget)
    finally:
        calls.close()
        server.stop()
    return {v.id: v for v in verdicts}, sorted(server.log.entries(), key=lambda e: e.seq), audit


def test_checks_decide_their_rows_without_a_call_and_their_findings_reach_the_prompts(rendered):
    v, log, audit = judge(rendered["evidence"], rendered["artifacts"], settings={"mode": "split"})
    # measured: overflow on page 2, blank page 3, lorem ipsum on page 4; the critical rows fold their pages with
    # p = -2 (a page at 0 gives 0), the normal placeholder row with the mean; the blank slide 3 shows no text, so it is
    # N/A for the rows the checks decide about text (trial 14 F5): placeholder (1 + 1 + 0) / 3 → 0.65, clipped 3 pages
    assert (v["V-LAYOUT-CLIPPED"].level, v["V-COMPLETE-BLANK"].level, v["V-COMPLETE-PLACEHOLDER"].level) == (0.0, 0.0, 0.65)
    assert "N/A on page(s) 3" in v["V-COMPLETE-PLACEHOLDER"].reason
    assert v["V-LAYOUT-CLIPPED"].pages_below == {"2": 0.0} and v["V-COMPLETE-BLANK"].pages_below == {"3": 0.0}
    agg = v["V-LAYOUT-CLIPPED"].aggregate
    assert (agg.p, agg.critical, agg.mean, agg.level, agg.pages_judged, agg.pages_na) == (-2.0, True, 0.0, 0.0, 3, 1)
    assert [(f.page, f.check, f.role, f.measured) for f in agg.findings] == [(2, "text_overflow", "decided", True)]
    assert (v["V-TYPE-GARBLED"].level, v["V-TYPE-SIZE"].level) == (1.0, 1.0)
    assert "p2 0: measured: text_overflow" in v["V-LAYOUT-CLIPPED"].reason
    assert v["V-LAYOUT-CLIPPED"].evidence == ["evidence/pages/deck.pptx/page-002.png"]
    assert all(v[r].level == 1.0 for r in VLM_ROWS)
    assert len(log) == 4 * len(VLM_ROWS) == 36  # split: pages × VLM rows; no call for a checks-decided row
    assert not {r for e in log for r in e.row_ids} & CHECKED and all(len(e.row_ids) == 1 for e in log)
    prompts = {r["label"]: json.dumps(r["request"]) for name, r in audit.records if name == "calls"}
    assert "text_overflow" in prompts["page-002/row-V-LAYOUT-OVERLAP"] and "blank_page" in prompts["page-003/row-V-LAYOUT-ALIGN"]
    assert "none measured on this page" in prompts["page-001/row-V-LAYOUT-ALIGN"]


def test_rows_missing_from_a_reply_are_asked_again_alone_for_that_page(rendered):
    oracle = {**ORACLE, "V-LAYOUT-ALIGN@1": {"hit": True, "level": 0.4}}
    v, log, _ = judge(rendered["evidence"], rendered["artifacts"], oracle=oracle, settings={"mode": "combined"},
                      faults=FaultPlan(script=["truncated_json"]))
    # page 1's reply is cut in its 2nd row: the 1st row is salvaged, the other 8 are asked alone, before page 2
    assert [e.page for e in log] == [1] * 9 + [2, 3, 4]
    assert [len(e.row_ids) for e in log] == [9] + [1] * 8 + [9, 9, 9]
    assert sorted(r for e in log[1:9] for r in e.row_ids) == sorted(VLM_ROWS[1:])
    assert v["V-LAYOUT-ALIGN"].level == 0.85  # (0.4 + 1 + 1 + 1) / 4
    assert all(x.judged for x in v.values()) and not any("not judged" in x.reason for x in v.values())


def test_a_call_that_fails_after_its_retries_loses_that_page_only(rendered):
    v, log, _ = judge(rendered["evidence"], rendered["artifacts"], settings={"mode": "combined"}, tries=2,
                      faults=FaultPlan(script=["ok", "http_5xx", "http_5xx"]))
    assert [e.page for e in log] == [1, 2, 2, 3, 4]
    for r in VLM_ROWS:
        assert v[r].judged and v[r].level == 1.0 and "1 of 4 pages not judged (vlm_error: page 2)" in v[r].reason
    assert v["V-COMPLETE-BLANK"].level == 0.0 and "not judged" not in v["V-COMPLETE-BLANK"].reason  # checks: no call lost


def test_the_budget_loses_the_last_pages_not_the_rows(rendered):
    # page 3's call hangs until the budget ends; page 4's is never made
    v, log, _ = judge(rendered["evidence"], rendered["artifacts"], settings={"mode": "combined"}, budget=4.0,
                      faults=FaultPlan(script=["ok", "ok", "hang"]))
    assert [e.page for e in log] == [1, 2, 3]
    for r in VLM_ROWS:
        assert v[r].judged and "2 of 4 pages not judged (timeout: pages 3-4)" in v[r].reason


def test_pages_lost_to_rate_limiting_say_so(rendered):
    """A call refused with 429 until its tries ran out: the rows' kind is the transport's
    ``rate_limit`` (what a fleet masks rate-limited rows on), not ``vlm_error``."""
    v, log, _ = judge(rendered["evidence"], rendered["artifacts"], settings={"mode": "combined"}, tries=1,
                      faults=FaultPlan({"http_429": 1.0}))
    assert len(log) == 4 and all(e.status == 429 for e in log)
    assert all(v[r].error_kind == "rate_limit" and "4 of 4 pages not judged (rate_limit: pages 1-4)" in v[r].reason
               for r in VLM_ROWS)


def test_no_page_judged_is_unjudged_with_the_cause(rendered):
    v, log, _ = judge(rendered["evidence"], rendered["artifacts"], settings={"mode": "combined"}, tries=1,
                      faults=FaultPlan({"http_5xx": 1.0}))
    assert len(log) == 4
    assert all(v[r].error_kind == "vlm_error" and "4 of 4 pages not judged" in v[r].reason for r in VLM_ROWS)
    assert all(v[r].judged for r in CHECKED)


def test_na_pages_and_the_na_policy(rendered):
    oracle = {**ORACLE, "V-IMAGE-QUALITY": {"hit": False, "na": True}, "V-IMAGE-QUALITY@2": {"hit": True, "level": 0.5},
              "V-IMAGE-CHARTS": {"hit": False, "na": True}}
    rows = [c.model_copy(update={"workflow": c.workflow.model_copy(update={"na_policy": "fail"})}) if c.id == "V-IMAGE-CHARTS" else c for c in template_rows()]
    v, _, _ = judge(rendered["evidence"], rendered["artifacts"], oracle=oracle, rows=rows, settings={"mode": "grouped"})
    assert v["V-IMAGE-QUALITY"].level == 0.5 and "N/A on page(s) 1, 3-4" in v["V-IMAGE-QUALITY"].reason
    assert v["V-IMAGE-CHARTS"].level == 0.0 and "na_policy fail" in v["V-IMAGE-CHARTS"].reason


def test_bad_settings_and_a_bad_decided_by_warn_and_fall_back(rendered, caplog):
    rows = [c.model_copy(update={"workflow": c.workflow.model_copy(update={"decided_by": {"checks": ["empty_deck"]}})}) if c.id == "V-TYPE-SIZE"
            else c.model_copy(update={"type": "binary", "levels": None, "level_choices": None}) if c.id == "V-COLOUR-HARMONY"
            else c for c in template_rows()]
    with caplog.at_level(logging.WARNING, logger="cowork_judge"):
        v, log, audit = judge(rendered["evidence"], rendered["artifacts"], rows=rows,
                              oracle={**ORACLE, "V-TYPE-SIZE": {"hit": True}},
                              settings={"mode": "everything", "group_size": -1})
    text = caplog.text
    assert "workflow_config.ppt_judge.mode" in text and "group_size" in text and "judged by the VLM instead" in text
    assert "'V-COLOUR-HARMONY' is not graded" in text
    assert len(log) == 4 * 4  # default mode grouped: pages × the 4 clusters with VLM rows (V-TYPE-SIZE joins typography)
    assert any("V-TYPE-SIZE" in e.row_ids for e in log) and v["V-TYPE-SIZE"].level == 1.0
    plan = next(r for name, r in audit.records if name == "plan")
    assert plan["mode"] == "grouped" and plan["calls_planned"] == 16


# ---------------------------------------------------------------- whose fault: no page to judge

def rows_verdicts(evidence: Path, artifacts: dict, **kw):
    v, log, _ = judge(evidence, artifacts, **kw)
    assert log == []  # nothing to judge: no model call
    return v


def test_no_evidence_is_render_env_and_no_deck_is_the_deliverables_fault(tmp_path):
    (tmp_path / "evidence").mkdir()
    v = rows_verdicts(tmp_path / "evidence", {"deck_path": str(tmp_path / "deck.pptx"), "deck_rel": "deck.pptx"})
    assert all(x.error_kind == "render_env" and "JUDGE_EVIDENCE=0" in x.reason for x in v.values())
    v = rows_verdicts(tmp_path / "evidence", {}, delivered=())
    assert all(x.judged and x.level == 0.0 and "no deck was delivered" in x.reason for x in v.values())


def test_a_broken_deck_scores_zero_and_a_missing_renderer_is_render_env(tmp_path):
    out = tmp_path / "output"
    out.mkdir()
    (out / "deck.pptx").write_bytes(b"PK\x03\x04" + b"\x00" * 64)  # a zip signature and nothing after it
    build_evidence([out / "deck.pptx"], tmp_path / "ev1", budget_sec=60, root=out)
    artifacts = {"deck_path": str(out / "deck.pptx"), "deck_rel": "deck.pptx"}
    v = rows_verdicts(tmp_path / "ev1", artifacts)
    assert all(x.judged and x.level == 0.0 and "broken" in x.reason for x in v.values())
    defect_deck(out / "deck.pptx")
    caps = probe_capabilities("/nonexistent/soffice")
    build_evidence([out / "deck.pptx"], tmp_path / "ev2", budget_sec=60, root=out, capabilities=caps)
    v = rows_verdicts(tmp_path / "ev2", artifacts)
    assert all(not x.judged and x.error_kind == "render_env" and "soffice" in x.reason for x in v.values())


def test_a_deck_without_slides_scores_zero(tmp_path):
    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice is not installed")
    from pptx import Presentation

    out = tmp_path / "output"
    out.mkdir()
    Presentation().save(out / "empty.pptx")
    build_evidence([out / "empty.pptx"], tmp_path / "ev", budget_sec=120, width_px=300, root=out)
    v = rows_verdicts(tmp_path / "ev", {"deck_path": str(out / "empty.pptx"), "deck_rel": "empty.pptx"})
    assert all(x.judged and x.level == 0.0 and "no slides" in x.reason for x in v.values())


def test_a_pdf_deck_sends_rows_whose_checks_need_the_structure_to_the_vlm(rendered, tmp_path):
    out = tmp_path / "output"
    out.mkdir()
    (out / "deck.pdf").write_bytes((rendered["evidence"] / "deck.pptx" / "render.pdf").read_bytes())
    build_evidence([out / "deck.pdf"], tmp_path / "ev", budget_sec=60, width_px=400, root=out)
    oracle = {**ORACLE, "V-LAYOUT-CLIPPED": {"hit": True, "level": 0.9}}
    v, log, _ = judge(tmp_path / "ev", {"deck_path": str(out / "deck.pdf"), "deck_rel": "deck.pdf"}, oracle=oracle,
                      settings={"mode": "split"}, delivered=("deck.pdf",))
    # a PDF has no frames: text_overflow and off_slide cannot run, so the VLM judges V-LAYOUT-CLIPPED, except on the
    # blank page 3, which shows no text and is measured blank: N/A there without a call (trial 14 F5)
    assert len(log) == 4 * (len(VLM_ROWS) + 1) - 1 and {r for e in log for r in e.row_ids} & CHECKED == {"V-LAYOUT-CLIPPED"}
    assert v["V-LAYOUT-CLIPPED"].level == 0.9
    assert (v["V-COMPLETE-BLANK"].level, v["V-COMPLETE-PLACEHOLDER"].level) == (0.0, 0.65)  # still measured on the PDF
