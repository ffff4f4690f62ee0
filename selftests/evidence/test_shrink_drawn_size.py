"""Issue 35: shrink-to-fit text is judged at the size LibreOffice drew it (from the rendered
PDF's text layer), not at the size the file stores. Pinned on one deck rendered once through
the real LibreOffice + PyMuPDF (16:9, 13.333 x 7.5 in: the body limit is 9 pt), each slide a
``normAutofit`` body placeholder, as blind round 6 built them (bench/deckblind/make_round6.py):

- ``drawn_tiny``: 61 bullets with a stored ``fontScale`` of 25 % (8 pt stored): LibreOffice
  re-fits them at ~4 pt. Before: an estimate at the stored 8 pt (``source: structure``), which
  never decides the text-size row. Now: measured at the drawn size, stored size beside it;
- ``fits``: five bullets, ``fontScale`` 92.5 %, drawn at ~26 pt: no finding;
- ``shrunk_readable``: no stored scale, twice the text the frame holds: LibreOffice shrinks
  it to ~14 pt, still readable: no finding;
- ``stored_tiny_drawn_big``: three bullets with a stored ``fontScale`` of 25 % that LibreOffice
  draws at the full 32 pt (it ignores the stored scale): the 8 pt PowerPoint shows until the
  text is edited stays an estimate the model decides, with the drawn size beside it.
"""

from __future__ import annotations

import json

import pytest

from cowork_judge.evidence import build_evidence
from cowork_judge.evidence.checks import is_measured
from cowork_judge.evidence.documents import Finding, SlideDoc
from cowork_judge.evidence.textchecks import tiny_findings

from .conftest import require_tools

CASES = ["drawn_tiny", "fits", "shrunk_readable", "stored_tiny_drawn_big"]
"""Slide order (slide n = CASES[n - 1])."""
BODY = ["Revenue grew 14 % year on year, led by the services segment.",
        "Operating margin held at 21 % despite higher input costs.",
        "Two new regions opened in Q3; both reached break-even in Q4.",
        "Customer churn fell from 6.1 % to 4.8 %.",
        "Next year: focus on retention and the partner channel."]
W_PT, H_PT = 960.0, 540.0


def shrink_deck(path, cases):
    """A 16:9 deck with one "Title and Content" slide per case of ``cases`` (see the module
    docstring), the body placeholder's ``a:bodyPr`` reduced to one ``a:normAutofit``."""
    import pptx
    from pptx.util import Inches

    spec = {"drawn_tiny": (61, {"fontScale": "25000", "lnSpcReduction": "20000"}),
            "fits": (5, {"fontScale": "92500", "lnSpcReduction": "10000"}),
            "shrunk_readable": (14, {}),
            "stored_tiny_drawn_big": (3, {"fontScale": "25000"})}
    prs = pptx.Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    for case in cases:
        count, scale = spec[case]
        s = prs.slides.add_slide(prs.slide_layouts[1])
        s.shapes.title.text = f"Slide about {case.replace('_', ' ')}"
        tf = s.placeholders[1].text_frame
        tf.text = BODY[0]
        for i in range(1, count):
            tf.add_paragraph().text = BODY[i % len(BODY)]
        body_pr = tf._txBody.bodyPr
        for child in list(body_pr):
            body_pr.remove(child)
        body_pr.append(body_pr.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}normAutofit", scale))
    prs.save(path)
    return path


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    require_tools("soffice", "pymupdf")
    src = tmp_path_factory.mktemp("shrink-src")
    shrink_deck(src / "shrink.pptx", CASES)
    out = tmp_path_factory.mktemp("shrink-evidence")
    summary = build_evidence(["shrink.pptx"], out, budget_sec=600, width_px=320, root=src)
    found = json.loads((out / summary.decks[0].checks).read_text())["findings"]
    by_case: dict[str, list[dict]] = {c: [] for c in CASES}
    for f in found:
        if f["slide"]:
            by_case[CASES[f["slide"] - 1]].append(f)
    return {"findings": by_case, "pages": out / "shrink.pptx" / "pages"}


def _tiny(fs: list[dict]) -> list[dict]:
    return [f for f in fs if f["check"] == "tiny_font"]


def test_defect_shrink_to_fit_drawn_at_4_pt_is_measured_at_the_drawn_size(rendered):
    (f,) = _tiny(rendered["findings"]["drawn_tiny"])
    m = f["measure"]
    assert (f["source"], f["measured"]) == ("render", True) and f["confidence"] >= 0.5  # decides the row
    assert is_measured(Finding.model_validate(f))
    assert 3.0 <= m["drawn_size_pt"] <= 5.5 and m["size_pt"] == m["drawn_size_pt"]  # LibreOffice drew ~4 pt
    assert (m["stored_size_pt"], m["font_scale"], m["autofit"], m["limit_pt"]) == (8.0, 0.25, "norm", 9.0)
    assert "as LibreOffice drew this shrink-to-fit frame, 8.0 pt as stored" in f["message"]


@pytest.mark.parametrize("case", ["fits", "shrunk_readable"])
def test_clean_shrink_to_fit_drawn_at_a_readable_size_is_not_flagged(rendered, case):
    assert _tiny(rendered["findings"][case]) == []


def test_stored_tiny_scale_drawn_readable_stays_an_estimate_with_both_sizes(rendered):
    (f,) = _tiny(rendered["findings"]["stored_tiny_drawn_big"])
    m = f["measure"]
    assert (f["source"], f["measured"], m["size_pt"], m["stored_size_pt"]) == ("structure", False, 8.0, 8.0)
    assert m["drawn_size_pt"] >= 9.0 and "LibreOffice re-fit it at" in f["message"]


def test_shrink_to_fit_text_not_matched_on_the_page_stays_an_estimate_and_says_so(rendered):
    """The same slide with no rendered lines matched to its frames (what a page past the line
    cap or a dropped text layer leaves): the stored size, an estimate, the drawn size unknown."""
    slide = SlideDoc.model_validate_json((rendered["pages"] / "slide-001.json").read_text())
    (f,) = [f for f in tiny_findings(slide, 1, {}, W_PT, H_PT) if f.shape_name != "Title 1"]
    assert (f.source, f.measure["size_pt"], f.measure["drawn_size_pt"]) == ("structure", 8.0, None)
    assert not is_measured(f) and "not matched on the rendered page" in f.message


GATE = {"id": "C-DECK", "description": "One slide deck is delivered.", "weight": 1, "judge_method": "code",
        "code_method_name": "locate_deck"}


def _run_deck(judge_run, tmp_path, cases):
    """``cowork-judge run`` on a rollout delivering a deck of ``cases`` alone, with the gate and
    the gen-ppt-rubrics rows, against the simulator passing every visual row on every page
    (the judge a defect must not fool); returns the result document."""
    from cowork_judge.authoring.gen_ppt_rubrics import generate, load_template

    tests = tmp_path / "tests"
    tests.mkdir()
    rubric = generate({"rubrics": [GATE]}, load_template(), gates=["C-DECK"]).document
    (tests / "rubric.json").write_text(json.dumps(rubric))
    (tests / "task_prompt.md").write_text("Make a short deck presenting the year's results.\n")
    out = tmp_path / "rollout" / "app" / "output"
    out.mkdir(parents=True)
    shrink_deck(out / "deck.pptx", cases)
    oracle = {r["id"]: {"hit": True, "level": 1.0, "reason": "all-pass vision judge"} for r in rubric["rubrics"]
              if r["id"].startswith("V-")}
    run = judge_run(tests, tmp_path / "rollout", oracle=oracle, env={"JUDGE_EVIDENCE": "240"},
                    work_dir=tmp_path / "work", timeout=400)
    assert run.returncode == 0, run.stderr
    return json.loads((run.verifier / "result.json").read_text())


def test_defect_a_shrink_to_fit_body_drawn_at_4_pt_lowers_the_text_size_row_in_a_whole_run(judge_run, tmp_path):
    require_tools("soffice", "pymupdf")
    doc = _run_deck(judge_run, tmp_path, ["drawn_tiny"])
    rows = {r["id"]: r for r in doc["results"]}
    size = rows["V-TYPE-SIZE"]
    assert size["level"] == 0.0 and size["pages_below"] == {"1": 0.0}
    [f] = [f for f in size["aggregate"]["findings"] if f["check"] == "tiny_font"]
    assert (f["role"], f["measured"]) == ("decided", True)
    assert all(r["level"] == 1.0 for k, r in rows.items() if k.startswith("V-") and k != "V-TYPE-SIZE")
    assert doc["task_score"] == pytest.approx(1 - 3 / 55, abs=1e-3)  # the gate (1) + 14 visual rows (54): 3 lost


def test_clean_shrink_to_fit_bodies_drawn_readable_lose_nothing_in_a_whole_run(judge_run, tmp_path):
    require_tools("soffice", "pymupdf")
    doc = _run_deck(judge_run, tmp_path, ["fits", "shrunk_readable", "stored_tiny_drawn_big"])
    assert doc["task_score"] == 1.0
    size = {r["id"]: r for r in doc["results"]}["V-TYPE-SIZE"]
    assert size["pages_below"] == {}
    # the stored 8 pt of slide 3 only informed the model's page verdict
    assert [(f["page"], f["role"], f["measured"]) for f in size["aggregate"]["findings"]] == [(3, "informed", False)]
