"""Pages with no text are N/A for the rows the checks decide about text (trial 14 F5).

The real command line renders python-pptx decks with LibreOffice and judges them with the
example's own gates and visual rows against a simulator that credits nothing (oracle
``{}``): whatever a deck earns comes from the gates and the checks. Before, a deck of blank
slides earned V-LAYOUT-CLIPPED, V-TYPE-GARBLED, V-TYPE-SIZE and V-COMPLETE-PLACEHOLDER at
1.0 ("no finding on this page") while V-COMPLETE-BLANK measured the same pages blank.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS

from cowork_judge.evidence import probe_capabilities

TEXT_ROWS = ("V-LAYOUT-CLIPPED", "V-TYPE-GARBLED", "V-TYPE-SIZE", "V-COMPLETE-PLACEHOLDER")
GATES = ("C-LOCATE-DECK", "C-DECK-OPENABLE")


@pytest.fixture
def soffice() -> None:
    if not probe_capabilities().soffice.available:
        pytest.skip("LibreOffice is not installed")


def _instance(tmp_path: Path) -> Path:
    """The example's tests/ with its two gates and its 14 visual rows (as shipped)."""
    tests = tmp_path / "instance" / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests, ignore=shutil.ignore_patterns("workflow_assets"))
    doc = json.loads((tests / "rubric.json").read_text())
    doc["rubrics"] = [r for r in doc["rubrics"] if r["id"] in GATES or r["id"].startswith("V-")]
    doc["workflow_config"] = {"ppt_judge": {"render_resolution": "800x450"}}
    (tests / "rubric.json").write_text(json.dumps(doc, indent=2))
    return tests


def _rollout(tmp_path: Path, slides: list[str]) -> Path:
    """A rollout whose deck has one slide per entry: ``blank`` or ``text`` (a title and two lines)."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    for kind in slides:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        if kind == "text":
            frame = slide.shapes.add_textbox(Inches(0.8), Inches(1), Inches(8), Inches(3)).text_frame
            frame.word_wrap = True
            frame.text = "Annual results"
            for line in ("Revenue grew 14 % year on year.", "Costs stayed flat."):
                frame.add_paragraph().text = line
            for para in frame.paragraphs:
                para.runs[0].font.size = Pt(24)
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    prs.save(rollout / "app" / "output" / "deck.pptx")
    (rollout / "logs" / "agent" / "response.md").write_text("I saved the deck as output/deck.pptx.\n")
    return rollout


def test_a_deck_of_blank_slides_earns_nothing_from_the_text_rows(judge_run, tmp_path, soffice):
    run = judge_run(_instance(tmp_path), _rollout(tmp_path, ["blank"] * 3), oracle={}, timeout=300,
                    env={"JUDGE_EVIDENCE": "180", "JUDGE_WORKFLOW_START_JITTER": "0"})
    assert run.returncode == 0, run.stderr[-2000:]
    v = run.verdicts
    assert v["V-COMPLETE-BLANK"]["level"] == 0.0
    for rid in TEXT_ROWS:
        assert v[rid]["judged"] is True and v[rid]["level"] == 0.0, (rid, v[rid])
        assert "all 3 judged page(s) N/A" in v[rid]["reason"] and "na_policy fail" in v[rid]["reason"], v[rid]["reason"]
    doc = run.doc
    assert doc["extra_fields"]["judge_coverage"] == 1.0
    earned = {r["id"] for r in doc["results"] if r.get("contribution")}
    assert earned == set(GATES), earned  # the gates and nothing else
    assert run.reward == pytest.approx(2 / doc["details"]["weight_total"])


def test_a_blank_page_among_text_pages_is_left_out_of_the_text_rows(judge_run, tmp_path, soffice):
    run = judge_run(_instance(tmp_path), _rollout(tmp_path, ["text", "blank", "text"]), oracle={}, timeout=300,
                    env={"JUDGE_EVIDENCE": "180", "JUDGE_WORKFLOW_START_JITTER": "0"})
    assert run.returncode == 0, run.stderr[-2000:]
    v = run.verdicts
    assert v["V-COMPLETE-BLANK"]["level"] == 0.0 and "2" in v["V-COMPLETE-BLANK"]["pages_below"]
    for rid in TEXT_ROWS:
        assert v[rid]["level"] == 1.0, (rid, v[rid])
        assert "of 2 judged page(s), 2 decided by the checks" in v[rid]["reason"], v[rid]["reason"]
        assert "N/A on page(s) 2" in v[rid]["reason"], v[rid]["reason"]
