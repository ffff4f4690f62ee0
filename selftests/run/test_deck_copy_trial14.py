"""Trial 14 F16: under ``JUDGE_LENIENT_DELIVERY=1`` a byte-identical copy of the deck left at
``/app`` beside ``/app/output/deck.pptx`` counted as a second deck: ``locate_deck`` was
"ambiguous", every gated row closed and a good deck scored 0. Byte-identical candidates (same
size and SHA-256) are one deck: the output folder's copy is kept and the reason names the copy.
Two different decks stay ambiguous.

Real ``cowork-judge run`` child processes on a code-only rubric (no model call), decks built
with python-pptx."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pptx = pytest.importorskip("pptx", reason="python-pptx builds the decks")

ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one deck.", "weight": 1, "judge_method": "code",
     "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"], "allow_multiple": False}},
    {"id": "C-PAGES", "description": "Two or three slides.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "page_count_between",
     "code_method_params": {"min_pages": 2, "max_pages": 3}},
]


def _deck(path: Path, titles: tuple[str, ...]) -> None:
    prs = pptx.Presentation()
    for title in titles:
        prs.slides.add_slide(prs.slide_layouts[1]).shapes.title.text = title
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def _judge(judge_run, tmp_path: Path, root_titles: tuple[str, ...] | None) -> dict:
    """A 3-slide deck in output/ and at the app root either a byte-identical copy (None) or
    another deck with `root_titles`; judged with lenient delivery. Returns the rows by id."""
    tests = tmp_path / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))

    def lay_out(root: Path) -> None:
        deck = root / "app" / "output" / "water-cycle.pptx"
        _deck(deck, ("Water cycle", "Evaporation", "Rain"))
        if root_titles is None:
            shutil.copyfile(deck, root / "app" / "water-cycle.pptx")
        else:
            _deck(root / "app" / "water-cycle.pptx", root_titles)

    run = judge_run(tests, sim=False, setup=lay_out, env={"JUDGE_EVIDENCE": "0", "JUDGE_LENIENT_DELIVERY": "1"})
    assert run.returncode == 0, run.stderr
    assert run.doc["status"] == "success", run.doc
    return {r["id"]: r for r in run.doc["results"]}


def test_a_byte_identical_copy_at_the_app_root_is_one_deck(judge_run, tmp_path):
    rows = _judge(judge_run, tmp_path, None)
    locate = rows["C-LOCATE-DECK"]
    assert locate["hit"] is True, locate["reason"]
    assert locate["reason"].startswith("deck is water-cycle.pptx (pptx)"), locate["reason"]
    assert "water-cycle.pptx at the app root is a byte-identical copy of water-cycle.pptx: one deck" in locate["reason"]
    assert rows["C-PAGES"]["hit"] is True, rows["C-PAGES"]["reason"]


def test_a_different_deck_at_the_app_root_stays_ambiguous(judge_run, tmp_path):
    rows = _judge(judge_run, tmp_path, ("Another", "Deck"))
    locate = rows["C-LOCATE-DECK"]
    assert locate["hit"] is False and "ambiguous: 2 pptx decks" in locate["reason"], locate["reason"]
    assert "byte-identical" not in locate["reason"]
