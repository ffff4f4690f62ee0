"""Trial 37 P-3 (HIGH): a good deck whose slides are pictures (no slide text, no notes) and no final message scored
0.0 with ``status: success``: with the judge's slide labels cut out (trial 29 P-7) the request held no text of the
agent at all, so every credit had nothing to quote and was withdrawn, a fault-worded hurdle's "no fault" included,
which zeroed the reward. A request that showed no agent text is now exempt (`grounding.EXEMPT_NO_TEXT`), as a
page-image request is: its verdicts stand unchecked. Over HTTP: a real run (deck evidence on) against the simulator."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from testkit import write_task

from cowork_judge.core import grounding
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.verdicts import Verdict

ROWS = [{"id": "A-STAGES", "description": "The deck explains the two stages of photosynthesis.", "weight": 2},
        {"id": "H-PLACEHOLDER", "description": "The deck contains leftover template placeholder text.", "weight": 0,
         "hurdle": True}]


def _picture_deck(path: Path) -> None:
    """Two slides, each one picture and nothing else (no text frame, no notes)."""
    pptx = pytest.importorskip("pptx")
    image = pytest.importorskip("PIL.Image")
    prs = pptx.Presentation()
    for colour in ("red", "blue"):
        buf = io.BytesIO()
        image.new("RGB", (320, 240), colour).save(buf, format="PNG")
        buf.seek(0)
        slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank layout
        slide.shapes.add_picture(buf, 0, 0, width=prs.slide_width, height=prs.slide_height)
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def test_a_request_with_no_agent_text_is_exempt_not_withdrawn():
    rows = normalize_rubric(ROWS).criteria
    verdicts = {"A-STAGES": Verdict(id="A-STAGES", hit=True, judged=True, reason="r", quote="light reactions"),
                "H-PLACEHOLDER": Verdict(id="H-PLACEHOLDER", hit=False, judged=True, reason="r", quote=None)}
    for blank in ("", "\n \n"):
        out = grounding.ground(rows, verdicts, blank)
        assert all((x.grounded, x.grounding) == (None, grounding.EXEMPT_NO_TEXT) for x in out.values()), out
    text = grounding.ground(rows, verdicts, grounding.evidence_of(["Some slide text"]))
    assert text["A-STAGES"].grounded is False and text["H-PLACEHOLDER"].grounded is False  # text sent: checked


def test_a_picture_deck_keeps_its_credits_and_its_hurdle_does_not_fire_over_http(judge_run, tmp_path: Path) -> None:
    task = write_task(tmp_path / "task", ROWS, "Make a short deck about photosynthesis.")
    rollout = tmp_path / "rollout"
    _picture_deck(rollout / "app" / "output" / "deck.pptx")
    oracle = {"A-STAGES": {"hit": True, "reason": "the diagrams show both stages"},
              "H-PLACEHOLDER": {"hit": False, "reason": "no placeholder seen"}}
    run = judge_run(task / "tests", rollout, oracle=oracle, env={"JUDGE_EVIDENCE": "180", "JUDGE_UNGROUNDED": "miss"},
                    timeout=240)
    assert run.returncode == 0, run.stderr
    doc = json.loads((run.verifier / "result.json").read_text())
    got = {r["id"]: r for r in doc["results"]}
    assert doc["fatal"] is False and doc["reward"] == pytest.approx(1.0), (doc["reward"], got)
    for rid in ("A-STAGES", "H-PLACEHOLDER"):
        assert (got[rid].get("grounded"), got[rid].get("grounding")) == (None, grounding.EXEMPT_NO_TEXT), got[rid]
