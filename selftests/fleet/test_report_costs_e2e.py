"""The report answers "which page cost me what", end to end: the 10-page deck with one
measured clipped slide (`selftests/fixtures/severity/`) is judged by `cowork-judge run` with
the gen-ppt-rubrics rows (real LibreOffice render, the simulator passing every row over the
real ``openai`` client), reported by `cowork-judge report`, and opened in a real Chromium:
the row line of the critical row names page 10 and the points it lost there, and page 10's
card shows the row's level there and the measured finding that decided it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import skip_without_soffice, write_task

from cowork_judge.authoring.gen_ppt_rubrics import generate, load_template

from .test_report_e2e import CHROMIUM, CHROMIUM_ARGS

DECK = Path(__file__).resolve().parents[1] / "fixtures" / "severity" / "ten-clipped.pptx"
GATE = {"id": "C-DECK", "description": "One slide deck is delivered.", "weight": 1, "judge_method": "code",
        "code_method_name": "locate_deck"}


def test_the_report_shows_per_row_the_pages_that_cost_it_points(judge_run, tmp_path):
    skip_without_soffice()
    rubric = generate({"rubrics": [GATE]}, load_template(), gates=["C-DECK"]).document
    tests = write_task(tmp_path, rubric, "Make a ten-slide quarterly review deck.\n") / "tests"
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    shutil.copy(DECK, rollout / "app" / "output" / "deck.pptx")
    oracle = {r["id"]: {"hit": True, "level": 1.0, "reason": "fine"} for r in rubric["rubrics"] if r["id"].startswith("V-")}
    run = judge_run(tests, rollout, oracle=oracle, env={"JUDGE_EVIDENCE": "240"}, work_dir=tmp_path / "work", timeout=400)
    assert run.returncode == 0, run.stderr
    doc = json.loads((run.verifier / "result.json").read_text())
    rows = {r["id"]: r for r in doc["results"]}
    clipped = rows["V-LAYOUT-CLIPPED"]
    assert clipped["level"] == 0.0 and clipped["pages_below"] == {"10": 0.0}
    assert clipped["aggregate"]["p"] == -2.0 and clipped["aggregate"]["findings"][0]["measured"] is True
    assert all(r["level"] == 1.0 for k, r in rows.items() if k.startswith("V-") and k != "V-LAYOUT-CLIPPED")
    assert doc["task_score"] == pytest.approx(1 - 6 / 55, abs=1e-3)  # the gate (1) + 14 visual rows (54): 6 lost

    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--work-dir", str(run.work)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    report = Path(proc.stdout.strip())
    html = report.read_text(encoding="utf-8")
    costs = html.split("Where the points went")[1].split("<h2>")[0]
    line = costs.split("<code>V-LAYOUT-CLIPPED</code>")[1].split("</tr>")[0]
    assert 'href="#p-deck-pptx-10">p10</a>' in line and ">6<" in line and "critical" in line
    card = html.split('id="p-deck-pptx-10"')[1].split('<div class="page"')[0]
    assert "<code>V-LAYOUT-CLIPPED</code> level <b>0</b> here" in card and "decided by text_overflow (measured" in card
    assert "no row tied to this page" not in html

    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    shot = tmp_path / "report.png"
    problems: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.goto(report.as_uri(), wait_until="load")
            page.screenshot(path=str(shot), full_page=True)
            cost_line = page.evaluate("""() => Array.from(document.querySelectorAll('table.costs tr'))
                .map(tr => tr.innerText).find(t => t.startsWith('V-LAYOUT-CLIPPED'))""")
            card = page.evaluate("() => document.getElementById('p-deck-pptx-10').innerText")
        finally:
            browser.close()
    assert problems == []
    assert "p10" in cost_line and f"{6 / 55:.1%}" in cost_line  # 6 of W = 55 lost, on page 10
    assert "V-LAYOUT-CLIPPED level 0 here" in card and "text_overflow" in card
    assert shot.stat().st_size > 20_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
