"""Trial 13 F3: a deck whose pages reach pass A (the slide text) empty was judged on its first
3 pages only, silently. A legacy ``.ppt`` (python-pptx cannot read it) now takes each page's
text from the PDF LibreOffice rendered; a ``.pptx`` of picture slides (no text at all) now has
every such page shown to pass B (the page images).

Both run the real command line, LibreOffice and PyMuPDF on a deck built here with python-pptx
(the ``.ppt`` converted by LibreOffice), against the simulator: the required content is on
page 6 of 6, beyond the 3 pages pass B used to look at."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from testkit import EXAMPLE_TESTS

from cowork_judge.evidence import probe_capabilities

ROW = "T1-ROUTING"
GATES = ["C-LOCATE-DECK", "C-DECK-OPENABLE"]
FILLER = ["Quarterly overview of the garden club: membership grew and the spring fair sold out early.",
          "Budget summary for the library renovation: shelving, lighting and new reading chairs.",
          "Volunteer schedule for the summer months, with contact names for each weekend shift.",
          "Photographs from the harvest festival and thanks to everyone who baked for the stall.",
          "Upcoming lectures on local history, the old mill, and the canal towpath restoration."]
COVERED = "Routing: an input is classified and sent to a specialised follow-up task."
ENV = {"JUDGE_EVIDENCE": "180", "JUDGE_WORKFLOW_START_JITTER": "0", "JUDGE_WORKFLOW_CONCURRENCY": "2"}


@pytest.fixture
def soffice() -> str:
    caps = probe_capabilities()
    if not caps.soffice.available or caps.soffice.path is None:
        pytest.skip("LibreOffice is not installed")
    return caps.soffice.path


def instance(tmp_path: Path) -> Path:
    """The example's two deck gates and one type1 content row, with the example's content checks."""
    tests = tmp_path / "instance" / "tests"
    shutil.copytree(EXAMPLE_TESTS, tests)
    doc = json.loads((tests / "rubric.json").read_text())
    doc["rubrics"] = [r for r in doc["rubrics"] if r["id"] in (*GATES, ROW)]
    for r in doc["rubrics"]:
        if r["id"] == "C-LOCATE-DECK":
            r["code_method_params"] = {"prefer": ["pptx", "ppt"], "allow_multiple": False}
    doc["workflow_config"] = {"ppt_judge": {"render_resolution": "800x450"}}
    (tests / "rubric.json").write_text(json.dumps(doc, indent=2))
    return tests


def text_deck(path: Path) -> Path:
    """Six text slides; the routing content is on slide 6."""
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    for n, body in enumerate([*FILLER, COVERED], start=1):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        box = slide.shapes.add_textbox(Inches(0.7), Inches(1.0), Inches(8.6), Inches(3.0))
        box.text_frame.word_wrap = True
        box.text_frame.text = f"Slide {n}. {body}"
        box.text_frame.paragraphs[0].runs[0].font.size = Pt(24)
    prs.save(str(path))
    return path


def picture_deck(path: Path) -> Path:
    """Six slides, each one picture and no text frame (the content is drawn into the picture)."""
    from PIL import Image, ImageDraw
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    for n, body in enumerate([*FILLER, COVERED], start=1):
        img = Image.new("RGB", (1000, 560), "white")
        ImageDraw.Draw(img).text((40, 260), body, fill="black")
        png = path.parent / f"slide-{n}.png"
        img.save(png)
        prs.slides.add_slide(prs.slide_layouts[6]).shapes.add_picture(str(png), 0, 0, Inches(10), Inches(5.6))
        png.unlink()
    prs.save(str(path))
    return path


def to_ppt(pptx: Path, soffice: str, tmp_path: Path) -> Path:
    """The deck converted to a legacy binary .ppt by LibreOffice (a private profile)."""
    out = tmp_path / "converted"
    profile = (tmp_path / "lo-profile").as_uri()
    subprocess.run([soffice, "--headless", f"-env:UserInstallation={profile}", "--convert-to", "ppt", "--outdir",
                    str(out), str(pptx)], check=True, capture_output=True, timeout=180)
    ppt = out / f"{pptx.stem}.ppt"
    assert ppt.read_bytes()[:8] == bytes.fromhex("d0cf11e0a1b11ae1")  # a CFB container: binary PowerPoint
    return ppt


def deliver(deck: Path):
    def setup(root: Path) -> None:
        (root / "app" / "output").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(deck, root / "app" / "output" / deck.name)
    return setup


def test_a_legacy_ppt_gets_its_page_text_from_the_render_and_is_covered_on_page_6(judge_run, tmp_path, soffice):
    ppt = to_ppt(text_deck(tmp_path / "deck.pptx"), soffice, tmp_path)
    run = judge_run(instance(tmp_path), setup=deliver(ppt), env=ENV, timeout=300)  # the word-overlap simulator
    v = run.verdicts[ROW]
    assert run.doc["extra_fields"]["judge_coverage"] == 1.0
    assert v["judged"] and v["hit"] is True, v["reason"]
    assert v["reason"].startswith("covered") and "(pass A, slide text" in v["reason"], v["reason"]
    page6 = json.loads(next(run.verifier.rglob("slide-006.json")).read_text())  # page 6's text, from the render
    assert "sent to a specialised follow-up task" in " ".join(page6["text"].split())

def test_a_deck_of_picture_slides_shows_every_page_to_pass_b(judge_run, tmp_path, soffice):
    deck = picture_deck(tmp_path / "pictures.pptx")
    oracle = {ROW: {"hit": False, "reason": "not in the slide text"},  # pass A: the text is empty
              f"{ROW}@6": {"hit": True, "reason": "page 6 shows routing"}}
    run = judge_run(instance(tmp_path), setup=deliver(deck), oracle=oracle, env=ENV, timeout=300)
    v = run.verdicts[ROW]
    assert run.doc["extra_fields"]["judge_coverage"] == 1.0
    assert v["judged"] and v["hit"] is True, v["reason"]
    assert "covered on page(s) 6 (pass B, page image)" in v["reason"], v["reason"]
    assert sorted({e.page for e in run.sim.log.entries() if e.page is not None}) == [1, 2, 3, 4, 5, 6]


def test_a_miss_on_picture_slides_names_every_page_it_looked_at(judge_run, tmp_path, soffice):
    deck = picture_deck(tmp_path / "pictures.pptx")
    run = judge_run(instance(tmp_path), setup=deliver(deck), oracle={ROW: {"hit": False, "reason": "absent"}},
                    env=ENV, timeout=300)
    v = run.verdicts[ROW]
    assert v["judged"] and v["hit"] is False
    assert "pass B looked at page(s) 1-6" in v["reason"] and "no text for pass A" in v["reason"], v["reason"]
