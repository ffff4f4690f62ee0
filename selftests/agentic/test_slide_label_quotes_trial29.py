"""A label the judge's side wrote inside the spotlighted deck text grounds no quote (trial 29, P-7).

The evidence summary puts ``slide N — `` heads and the speaker-notes marker ``[NOT VISIBLE to a
viewer (speaker notes); not content of the slide]: `` between the agent-text markers, so a quote
``"slide 2"`` grounded any credited verdict on any deck. Checked over HTTP: a real run (deck
evidence on) against the simulator, whose oracle quotes those labels and, for other rows, the
agent's own slide text and speaker notes (which still ground).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit import write_task

from cowork_judge.agentic.block_prompt import agent_spans, fence
from cowork_judge.core import grounding

QUOTES = {  # row → (the quote its credit gives, whether it must ground)
    "A-LABEL": ("slide 2", False),  # the summary's head of slide 2
    "A-SPAN": ("slide 1 — Quarterly results", False),  # head + the agent's title: not in the agent's text alone
    "A-MARKER": ("not content of the slide", False),  # the speaker-notes marker
    "A-TEXT": ("Revenue grew 12% over Q2", True),  # slide text
    "A-NOTES": ("Mention the supplier risk", True),  # the agent's speaker notes
}


def _deck(path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    prs = pptx.Presentation()
    for title, body, notes in (("Quarterly results", "Revenue grew 12% over Q2", ""),
                               ("Next steps", "Hire two engineers", "Mention the supplier risk")):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def test_a_slide_label_or_the_notes_marker_grounds_no_credit_over_http(judge_run, tmp_path: Path) -> None:
    rows = [{"id": rid, "description": f"The deck covers point {rid}.", "weight": 1} for rid in QUOTES]
    task = write_task(tmp_path / "task", rows, "Make a short quarterly deck.")
    rollout = tmp_path / "rollout"
    _deck(rollout / "app" / "output" / "deck.pptx")
    oracle = {rid: {"hit": True, "reason": "labelled", "quote": quote} for rid, (quote, _) in QUOTES.items()}
    run = judge_run(task / "tests", rollout, oracle=oracle, env={"JUDGE_EVIDENCE": "180", "JUDGE_UNGROUNDED": "miss"},
                    timeout=240)
    assert run.returncode == 0, run.stderr
    doc = json.loads((run.verifier / "result.json").read_text())
    got = {r["id"]: r for r in doc["results"]}
    for rid, (quote, grounds) in QUOTES.items():
        assert got[rid]["quote"] == quote, got[rid]  # the oracle's quote reached the judge as given
        assert got[rid]["grounded"] is grounds, got[rid]
    assert doc["reward"] == pytest.approx(0.4)  # only the two rows quoting the agent's text keep their credit


def test_labels_are_cut_from_every_span_written_inside_the_markers() -> None:
    summary = fence("evidence_summary", "slide 1 — Quarterly results\nRevenue grew\nslide 2 (hidden)\n"
                    "[NOT VISIBLE to a viewer (speaker notes); not content of the slide]: Say hello")
    tool = fence("tool_output", "--- slide 1 ---\nRevenue grew\n[alt text, not shown on the slide] A chart")
    seen = grounding.evidence_of(agent_spans(summary + "\n" + tool))
    for quote in ("slide 1", "slide 2", "(hidden)", "not content of the slide", "--- slide 1 ---", "alt text, not shown",
                  "slide 1 — Quarterly"):
        assert not grounding.quote_found(quote, seen), quote
    for quote in ("Quarterly results", "Revenue grew", "Say hello", "A chart"):
        assert grounding.quote_found(quote, seen), quote


def test_the_simulators_honest_judge_quotes_no_label_and_mirrors_the_judges() -> None:
    from cowork_judge.agentic.block_prompt import JUDGE_LABELS
    from cowork_judge.sim import quotes

    assert quotes.JUDGE_LABELS.pattern == JUDGE_LABELS.pattern  # the simulator's copy (it imports nothing of the package)
    text = fence("evidence_summary", "slide 1 — Building effective agents\nWhy agents matter")
    assert quotes.evidence_lines(text) == ["Building effective agents", "Why agents matter"]
    assert quotes.honest_quote({"description": "y"}, quotes.evidence_lines(text)) == "Building effective agents"
