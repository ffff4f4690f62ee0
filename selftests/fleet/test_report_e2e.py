"""The one-job report end to end: a deck whose text and verdict reasons carry script
injections is judged by `cowork-judge run` (evidence on, pages kept in --work-dir), reported
by `cowork-judge report`, and the page is opened in a real Chromium: it loads without a
console error, is screenshotted, and no injected script ran."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import skip_without_soffice, write_task


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
TITLE_INJECTION = "<script>window.__pwned=1</script>"
REASON_INJECTION = '<img src=x onerror="window.__pwned=2">'
FILE_INJECTION = "<svg onload=window.__pwned=3>.txt"
RUBRIC = {"rubrics": [
    {"id": "C-DECK", "description": "One slide deck is delivered.", "weight": 1, "judge_method": "code",
     "code_method_name": "locate_deck"},
    {"id": "A-TITLE", "description": "The deck opens with a title slide.", "weight": 2, "depends_on": ["C-DECK"], "tag": "structure"},
    {"id": "A-LAYOUT", "description": "No text boxes overlap.", "weight": 2, "depends_on": ["C-DECK"], "tag": "layout"},
    {"id": "A-FONTS", "description": "Text is readable.", "weight": 2, "type": "gradient",
     "levels": {"0": "unreadable", "0.5": "some tiny text", "1": "readable"}, "tag": "layout"},
]}
ORACLE = {
    "A-TITLE": {"hit": True, "reason": f"slide 1 is titled {TITLE_INJECTION}"},
    "A-LAYOUT": {"hit": False, "reason": "the two text boxes on slide 2 overlap"},
    "A-FONTS": {"hit": True, "level": 0.5, "reason": f"a 5 pt footnote on page 3 {REASON_INJECTION}"},
}


def make_deck(path: Path) -> None:
    """Slide 1: a title holding a script tag; slide 2: overlapping text; slide 3: a 5 pt footnote."""
    import pptx
    from pptx.util import Inches, Pt

    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = TITLE_INJECTION
    s.placeholders[1].text = "A deck with hostile text"
    for texts in (("First overlapping sentence", "Second overlapping sentence"), ("Readable heading", "tiny footnote text")):
        s = prs.slides.add_slide(prs.slide_layouts[6])
        for n, text in enumerate(texts):
            box = s.shapes.add_textbox(Inches(1), Inches(1 + (0.1 if texts[0].startswith("First") else 3) * n), Inches(5), Inches(1))
            box.text_frame.text = text
            box.text_frame.paragraphs[0].runs[0].font.size = Pt(24 if n == 0 or texts[0].startswith("First") else 5)
    prs.save(path)


def deck_task(tmp_path: Path) -> tuple[Path, Path]:
    """``(tests dir, rollout dir)`` under `tmp_path`: `RUBRIC` with a three-slide prompt, and `make_deck`'s deck as the
    rollout's ``app/output/deck.pptx``. Skips the calling test where LibreOffice is not available."""
    skip_without_soffice()
    tests = write_task(tmp_path, RUBRIC, "Make a three-slide deck.\n") / "tests"
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    make_deck(rollout / "app" / "output" / "deck.pptx")
    return tests, rollout


@pytest.fixture
def judged_deck(judge_run, tmp_path):
    tests, rollout = deck_task(tmp_path)
    (rollout / "app" / "output" / FILE_INJECTION).write_text("notes")
    run = judge_run(tests, rollout, oracle=ORACLE, env={"JUDGE_EVIDENCE": "180"}, work_dir=tmp_path / "work", timeout=300)
    assert run.returncode == 0, run.stderr
    return run


def test_report_of_a_deck_job_in_a_real_chromium(judged_deck, tmp_path):
    run = judged_deck
    assert_evidence_of_another_job_is_not_used(run, tmp_path)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--work-dir", str(run.work)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = Path(proc.stdout.strip())
    assert report == run.verifier / "report.html"
    html = report.read_text(encoding="utf-8")
    again = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--work-dir", str(run.work),
                            "--out", str(tmp_path / "again.html")], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and (tmp_path / "again.html").read_text(encoding="utf-8") == html  # byte-identical rerun
    assert "<script" not in html.lower() and "onerror=" not in html.replace("onerror=&quot;", "") and "<svg onload" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html  # slide title and reason, shown as text
    assert len(re.findall(r'<img src="data:image/(?:jpeg|png);base64,', html)) == 3
    assert "<code>A-TITLE</code> (mentioned)" in html.split('id="p-deck-pptx-1"')[1].split('id="p-deck-pptx-2"')[0]
    page2 = html.split('id="p-deck-pptx-2"')[1].split('id="p-deck-pptx-3"')[0]
    assert "<code>A-LAYOUT</code> (mentioned)" in page2 and "<rect" in page2 and "text_overlap" in page2
    page3 = html.split('id="p-deck-pptx-3"')[1]
    assert "<code>A-FONTS</code> (mentioned)" in page3 and "tiny_font" in page3

    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    shot = tmp_path / "report.png"
    problems: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("request", lambda r: problems.append(f"request {r.url}") if not r.url.startswith(("file:", "data:")) else None)
            page.goto(report.as_uri(), wait_until="load")
            page.screenshot(path=str(shot), full_page=True)
            state = page.evaluate("""() => ({
                pwned: window.__pwned === undefined ? null : window.__pwned,
                scripts: document.scripts.length,
                images: Array.from(document.images).map(i => i.complete && i.naturalWidth > 0),
                text: document.body.innerText})""")
        finally:
            browser.close()
    assert problems == []
    assert state["pwned"] is None and state["scripts"] == 0
    assert state["images"] == [True, True, True]
    assert TITLE_INJECTION in state["text"] and REASON_INJECTION in state["text"] and FILE_INJECTION in state["text"]
    assert shot.stat().st_size > 20_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def assert_evidence_of_another_job_is_not_used(run, tmp_path: Path) -> None:
    other = tmp_path / "other-evidence"
    shutil.copytree(run.work / "evidence", other)
    index = json.loads((other / "index.json").read_text())
    index["decks"][0]["deck"] = "someone-else.pptx"
    (other / "index.json").write_text(json.dumps(index))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--evidence-dir", str(other),
                           "--out", str(tmp_path / "r.html")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "is for other decks (someone-else.pptx) than this result (deck.pptx); not used" in proc.stderr
    # the copy the run keeps beside its verifier outputs stands in, and says so
    assert "using the evidence from the verifier dir instead" in proc.stderr
    assert "data:image" in (tmp_path / "r.html").read_text()
    shutil.rmtree(run.verifier / "evidence")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--evidence-dir", str(other),
                           "--out", str(tmp_path / "r2.html")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "not used" in proc.stderr and "instead" not in proc.stderr
    assert "data:image" not in (tmp_path / "r2.html").read_text()
