"""Issue 39 item 22, end to end through `cowork-judge run` (real render, the simulator over the
real ``openai`` client) and `cowork-judge report`: in "Where the points went" a normal
(p = 1) per-page row's loss is split by page, and for an unreadable deck the cause comes
first, before the per-row list, and no row claims it was "judged whole"."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge.authoring.gen_ppt_rubrics import generate, load_template
from cowork_judge.evidence import probe_capabilities

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GATE = {"id": "C-DECK", "description": "One slide deck is delivered.", "weight": 1, "judge_method": "code",
        "code_method_name": "locate_deck"}


def _judge_and_report(judge_run, tmp_path: Path, deck: Path, overrides: dict) -> tuple[dict, str]:
    caps = probe_capabilities()
    if not caps.soffice.available:
        pytest.skip(f"LibreOffice unavailable: {caps.soffice.reason}")
    tests = tmp_path / "tests"
    tests.mkdir()
    rubric = generate({"rubrics": [GATE]}, load_template(), gates=["C-DECK"]).document
    (tests / "rubric.json").write_text(json.dumps(rubric))
    (tests / "task_prompt.md").write_text("Make a ten-slide quarterly review deck.\n")
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    shutil.copy(deck, rollout / "app" / "output" / "deck.pptx")
    oracle = {r["id"]: {"hit": True, "level": 1.0, "reason": "fine"} for r in rubric["rubrics"] if r["id"].startswith("V-")}
    oracle.update(overrides)
    run = judge_run(tests, rollout, oracle=oracle, env={"JUDGE_EVIDENCE": "240"}, work_dir=tmp_path / "work", timeout=400)
    assert run.returncode == 0, run.stderr
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier), "--work-dir", str(run.work)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    html = Path(proc.stdout.strip()).read_text(encoding="utf-8")
    return json.loads((run.verifier / "result.json").read_text()), html.split("Where the points went")[1].split("<h2>")[0]


def _line(costs: str, row: str) -> str:
    return costs.split(f"<code>{row}</code>")[1].split("</tr>")[0]


def test_a_normal_rows_loss_is_split_by_page(judge_run, tmp_path):
    """V-LAYOUT-ALIGN (weight 3, p = 1) at 0.5 on page 3 and 0.25 on page 7 of ten: mean 0.875,
    snapped down to 0.85, 0.45 points lost = 0.225 on page 7 + 0.15 on page 3 + 0.075 for the snap."""
    overrides = {"V-LAYOUT-ALIGN@3": {"hit": True, "level": 0.5, "reason": "two boxes off the grid"},
                 "V-LAYOUT-ALIGN@7": {"hit": True, "level": 0.25, "reason": "nothing aligns"}}
    doc, costs = _judge_and_report(judge_run, tmp_path, FIXTURES / "severity" / "ten-clipped.pptx", overrides)
    row = {r["id"]: r for r in doc["results"]}["V-LAYOUT-ALIGN"]
    assert row["pages_below"] == {"3": 0.5, "7": 0.25} and row["aggregate"]["mean"] == pytest.approx(0.875)
    assert row["level"] == 0.85 and row["contribution"] == pytest.approx(2.55)
    line = _line(costs, "V-LAYOUT-ALIGN")
    assert 'p7</a>&nbsp;0.25&nbsp;(−0.225&nbsp;pts)' in line and 'p3</a>&nbsp;0.5&nbsp;(−0.15&nbsp;pts)' in line
    assert line.index(">p7<") < line.index(">p3<")  # lowest first
    assert "snapped down by 0.0250 to the grid (−0.075 pts)" in line and ">0.45<" in line
    clipped = _line(costs, "V-LAYOUT-CLIPPED")  # critical: its zero page takes the whole loss
    assert 'p10</a>&nbsp;0&nbsp;(−6&nbsp;pts)' in clipped
    assert '<p class="warn">' not in costs.split("<table")[0]  # a readable deck: no cause to put first
    # a deck run keeps the page vocabulary a chat run drops (trial 42 P-3, test_report_chat_costs_trial42)
    assert "Pages are those below level 1, lowest first" in costs and "<th>pages that cost it</th>" in costs


def test_an_unreadable_decks_cause_comes_before_the_rows(judge_run, tmp_path):
    doc, costs = _judge_and_report(judge_run, tmp_path, FIXTURES / "decks" / "31__Open-XML-SDK__encrypted_pptx.pptx", {})
    visual = [r for r in doc["results"] if r["id"].startswith("V-")]
    assert visual and all(r["reason"].startswith("[deck] ") and r["level"] == 0.0 for r in visual)
    head, rows = costs.split("<table", 1)
    assert "the deck deck.pptx could not be read: its status is encrypted and no page was rendered" in head
    assert (f"{len(visual)} row(s) scored for the whole deck, not page by page, because the deck could not be read: the "
            "deck is broken and cannot be rendered (encrypted") in head
    lost = sum(r["weight"] for r in visual)
    assert f"— {lost:g} point(s) lost ({lost / doc['details']['weight_total']:.1%} of the maximum score W)" in head
    assert "judged whole (no per-page levels)" not in rows
    assert rows.count("scored for the whole deck: the deck could not be read (see the cause above)") == len(visual)
