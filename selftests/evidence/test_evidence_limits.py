"""Evidence work stays bounded: the budget stops structure and checks between slides (named,
never raised), pairwise checks see a bounded number of frames, and findings are capped.

Budget behaviour is asserted by outcome with a fake clock (each slide "takes" one second),
never by measuring time.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from cowork_judge.evidence import Capabilities, build_evidence
from cowork_judge.evidence import build as build_mod
from cowork_judge.evidence import checks as checks_mod
from cowork_judge.evidence import structure as structure_mod
from cowork_judge.evidence.checks import (
    FINDINGS_PER_CHECK_CAP,
    FINDINGS_PER_SLIDE_CAP,
    MAX_TEXT_FRAMES_PER_SLIDE,
    DeckView,
    run_checks,
)
from cowork_judge.evidence.documents import Box, Paragraph, Run, ShapeDoc, SlideDoc, TextFrame
from cowork_judge.evidence.pdftext import PdfLine, text_key
from cowork_judge.evidence.structure import BUDGET_CHECK_EVERY_SHAPES, extract_structure

IN = 914400


def _deck(path: Path, slides: list[list[tuple[float, float, float, float, str]]]) -> Path:
    """Text boxes ``(x, y, w, h, text)`` in inches, one list per slide (10 x 7.5 in slides)."""
    import pptx
    from pptx.util import Inches

    prs = pptx.Presentation()
    for boxes in slides:
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        for n, (x, y, w, h, text) in enumerate(boxes):
            tb = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h))
            tb.text_frame.text = text
            tb.name = f"Box {n}"
    prs.save(path)
    return path


def _stacked(n: int, text: str = "stacked text") -> list[tuple[float, float, float, float, str]]:
    """``n`` text boxes piled on one spot: every pair overlaps."""
    return [(1 + 0.001 * i, 1, 4, 1, f"{text} {i}") for i in range(n)]


class _Clock:
    """A monotonic clock that only moves when a slide is read or checked (1 s each)."""

    def __init__(self) -> None:
        self.t = 0.0

    def monotonic(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch):
    c = _Clock()
    fake = SimpleNamespace(monotonic=c.monotonic)
    for mod in (structure_mod, checks_mod, build_mod):
        monkeypatch.setattr(mod, "time", fake)
    read = structure_mod._SlideReader.read

    def slow_read(self):
        c.t += 1.0
        return read(self)

    frames = checks_mod._text_frames

    def slow_frames(slide, doc):
        c.t += 1.0
        return frames(slide, doc)

    monkeypatch.setattr(structure_mod._SlideReader, "read", slow_read)
    monkeypatch.setattr(checks_mod, "_text_frames", slow_frames)
    return c


def test_structure_stops_between_slides_when_the_budget_is_spent(tmp_path, clock):
    deck = _deck(tmp_path / "d.pptx", [[(1, 1, 3, 1, f"slide {i}")] for i in range(1, 7)])
    res = extract_structure(deck, strict=False, deadline=2.5)  # slides read at t = 0, 1, 2
    assert res.ok and res.budget_cut and res.slides_total == 6
    assert [s.index for s in res.slides] == [1, 2, 3] and res.slides[2].text == "slide 3"
    budget = [e for e in res.errors if e.field == "budget"]
    assert [(e.slide, e.error) for e in budget] == [(4, "evidence budget spent: slides 4-6 (3 of 6) not extracted")]


def test_structure_stops_inside_a_huge_slide_and_keeps_what_it_read(tmp_path, monkeypatch):
    deck = _deck(tmp_path / "d.pptx", [[(0.01 * i, 1, 1, 1, f"t{i}") for i in range(200)], [(1, 1, 1, 1, "next")]])
    calls = {"n": 0}

    def ticking() -> float:  # every look at the clock is one second later
        calls["n"] += 1
        return float(calls["n"] - 1)

    monkeypatch.setattr(structure_mod, "time", SimpleNamespace(monotonic=ticking))
    # t=0 before slide 1; t=1 at its 64th shape; t=2 at its 128th shape: spent
    res = extract_structure(deck, strict=False, deadline=2.0)
    kept = 2 * BUDGET_CHECK_EVERY_SHAPES - 1
    assert res.budget_cut and len(res.slides) == 1
    assert [s.name for s in res.slides[0].shapes] == [f"Box {i}" for i in range(kept)]
    assert {(e.slide, e.field) for e in res.errors} == {(1, "budget"), (2, "budget")}
    assert f"first {kept} shapes" in next(e.error for e in res.errors if e.slide == 1)


def test_checks_stop_between_slides_and_keep_earlier_findings(tmp_path, clock):
    deck = _deck(tmp_path / "d.pptx", [[(8.5, 1, 3, 1, f"off the edge {i}")] for i in range(1, 7)])
    res = extract_structure(deck, strict=False)
    clock.t = 0.0
    doc = run_checks("d", DeckView(res.slides, res.slide_width_emu, res.slide_height_emu), deadline=2.5)
    assert sorted(f.slide for f in doc.findings if f.check == "off_slide") == [1, 2, 3]
    budget = [lim for lim in doc.limits if lim.kind == "budget"]
    assert [(lim.slide, lim.count) for lim in budget] == [(4, 3)]
    assert "off_slide" in doc.checks_run


def test_checks_with_the_budget_already_spent_check_nothing(tmp_path, clock):
    deck = _deck(tmp_path / "d.pptx", [[(8.5, 1, 3, 1, "off the edge")]])
    res = extract_structure(deck, strict=False)
    clock.t = 10.0
    doc = run_checks("d", DeckView(res.slides, res.slide_width_emu, res.slide_height_emu), deadline=5.0)
    assert doc.findings == [] and doc.checks_run == []
    assert doc.checks_skipped["off_slide"].startswith("evidence budget spent")
    assert [(lim.kind, lim.count) for lim in doc.limits] == [("budget", 1)]


def test_build_records_budget_skips_and_keeps_what_was_extracted(tmp_path, clock):
    src = _deck(tmp_path / "deck.pptx", [[(8.5, 1, 3, 1, f"slide {i}")] for i in range(1, 7)])
    out = tmp_path / "ev"
    summary = build_evidence([src], out, budget_sec=3.5, capabilities=Capabilities())  # slides 1-4 read
    deck = summary.decks[0]
    assert deck.structure_ok and deck.slide_count == 6
    skips = {(s.layer, s.kind): s.reason for s in deck.layers_skipped}
    assert skips[("structure", "budget")] == "evidence budget spent: 4 of 6 slides extracted"
    assert ("render", "budget") in skips and ("checks", "budget") in skips
    assert sorted(p.name for p in (out / deck.deck / "pages").iterdir()) == [f"slide-00{i}.json" for i in range(1, 5)]
    digest = json.loads((out / deck.digest).read_text())
    assert len(digest["slides"]) == 4 and digest["slide_count"] == 6
    assert [e["slide"] for e in digest["extract_errors"] if e["field"] == "budget"] == [5]
    checks = json.loads((out / deck.checks).read_text())
    assert checks["findings"] == [] and checks["limits"][0]["kind"] == "budget"
    index = json.loads((out / "index.json").read_text())
    assert ["checks", "budget"] in [[s["layer"], s["kind"]] for s in index["decks"][0]["layers_skipped"]]


def test_pairwise_checks_see_only_the_largest_frames_of_a_crowded_slide(tmp_path):
    extra = 25
    big = _stacked(MAX_TEXT_FRAMES_PER_SLIDE)
    small = [(1.5, 1.2, 0.2, 0.2, f"tiny box {i}") for i in range(extra)]  # inside the pile, smallest
    res = extract_structure(_deck(tmp_path / "d.pptx", [small[:10] + big + small[10:]]), strict=False)
    doc = run_checks("d", DeckView(res.slides, res.slide_width_emu, res.slide_height_emu))
    overlaps = [f for f in doc.findings if f.check == "text_overlap"]
    assert len(overlaps) == FINDINGS_PER_SLIDE_CAP
    pairs = MAX_TEXT_FRAMES_PER_SLIDE * (MAX_TEXT_FRAMES_PER_SLIDE - 1) // 2
    assert doc.findings_dropped == {"text_overlap": pairs - FINDINGS_PER_SLIDE_CAP}
    after = 10 + MAX_TEXT_FRAMES_PER_SLIDE  # shape-tree position of the first tiny box after the pile
    tiny_names = {f"Box {i}" for i in [*range(10), *range(after, after + extra - 10)]}
    assert not {f.shape_name for f in overlaps} & tiny_names
    assert not {f.measure["other_shape_name"] for f in overlaps} & tiny_names
    caps = [(lim.kind, lim.slide, lim.count) for lim in doc.limits if lim.kind == "text_frame_cap"]
    assert caps == [("text_frame_cap", 1, extra)]


def test_findings_are_capped_per_deck_round_robin_over_slides(tmp_path):
    slides, per_slide = 11, 8  # 28 colliding pairs a slide: 20 kept, then 220 > the deck cap
    src = _deck(tmp_path / "crowded.pptx", [_stacked(per_slide) for _ in range(slides)])
    out = tmp_path / "ev"
    summary = build_evidence([src], out, budget_sec=600, capabilities=Capabilities())
    deck = summary.decks[0]
    doc = json.loads((out / deck.checks).read_text())
    overlaps = [f for f in doc["findings"] if f["check"] == "text_overlap"]
    assert len(overlaps) == FINDINGS_PER_CHECK_CAP == deck.findings_by_check["text_overlap"]
    per = {s: sum(1 for f in overlaps if f["slide"] == s) for s in range(1, slides + 1)}
    assert min(per.values()) >= FINDINGS_PER_CHECK_CAP // slides  # later slides are not starved
    dropped = slides * (per_slide * (per_slide - 1) // 2 - FINDINGS_PER_SLIDE_CAP) + slides * FINDINGS_PER_SLIDE_CAP \
        - FINDINGS_PER_CHECK_CAP
    assert doc["findings_dropped"] == {"text_overlap": dropped} == deck.findings_dropped
    assert [(lim["kind"], lim["count"]) for lim in doc["limits"]] == [("finding_cap", dropped)]
    assert [f["slide"] for f in overlaps] == sorted(f["slide"] for f in overlaps)  # written in slide order
    assert not [s for s in deck.layers_skipped if s.kind == "budget"]


def _frame(sid: str, x: float, y: float, w: float, h: float, rot: float = 0.0) -> ShapeDoc:
    text = TextFrame(paragraphs=[Paragraph(text=f"t{sid}", runs=[Run(text=f"t{sid}")])])
    return ShapeDoc(id=sid, name=f"S{sid}", kind="sp", rot_deg=rot, text=text,
                    box=Box(x_emu=int(x), y_emu=int(y), cx_emu=int(w), cy_emu=int(h)))


def test_sweep_finds_exactly_the_pairs_a_full_comparison_finds(monkeypatch):
    monkeypatch.setattr(checks_mod, "FINDINGS_PER_SLIDE_CAP", 10**6)
    rnd = random.Random(7)
    shapes = [_frame(str(i), rnd.randint(0, 8 * IN), rnd.randint(0, 6 * IN), rnd.randint(IN // 10, 2 * IN),
                     rnd.randint(IN // 10, IN), rnd.choice([0.0, 0.0, 90.0, 30.0])) for i in range(150)]
    slide = SlideDoc(index=1, shapes=shapes)
    found, dropped = checks_mod._overlap(slide, None, checks_mod._text_frames(slide, checks_mod.ChecksDoc(deck="d")), None)
    got = {(f.shape_id, f.measure["other_shape_id"]) for f in found}
    want = set()
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            fa, fb = a.footprint_pt(), b.footprint_pt()
            inter = max(0.0, min(fa[2], fb[2]) - max(fa[0], fb[0])) * max(0.0, min(fa[3], fb[3]) - max(fa[1], fb[1]))
            small = min((fa[2] - fa[0]) * (fa[3] - fa[1]), (fb[2] - fb[0]) * (fb[3] - fb[1]))
            if inter > 0 and inter / small >= checks_mod.OVERLAP_MIN_FRAC:
                want.add((a.id, b.id))
    assert len(want) > 50 and got == want and dropped == 0


def test_rendered_lines_past_the_page_cap_are_not_matched(tmp_path, monkeypatch):
    res = extract_structure(_deck(tmp_path / "d.pptx", [[(1, 1, 4, 1, "hello world")]]), strict=False)
    # python-pptx text boxes grow to fit (spAutoFit) and seven lines in a one-inch frame is a
    # stale height, not an overflow: make it a fixed frame, the case this test is about
    res.slides[0].shapes[0].text.autofit = "none"
    # frame: 72-360 pt x 72-144 pt; four lines inside it, three running on below it
    lines = [PdfLine(1, (72.0, 72.0 + 18 * k, 300.0, 90.0 + 18 * k), "hello world", key=text_key("hello world"),
                     fonts={"Calibri"}, sizes_pt=[18.0]) for k in range(7)]
    monkeypatch.setattr(checks_mod, "read_lines", lambda pdf: ({1: lines}, {1: (720.0, 540.0)}))
    monkeypatch.setattr(checks_mod, "glyph_problems", lambda pdf: {})
    view = DeckView(res.slides, res.slide_width_emu, res.slide_height_emu, pdf=tmp_path / "x.pdf", page_to_slide={1: 1})
    uncapped = run_checks("d", view)
    assert [(f.check, f.measure["bottom_pt"]) for f in uncapped.findings if f.check == "text_overflow"] == \
        [("text_overflow", 54.0)]
    monkeypatch.setattr(checks_mod, "MAX_LINES_PER_PAGE", 4)
    capped = run_checks("d", view)
    assert not [f for f in capped.findings if f.check == "text_overflow"]
    assert [(lim.kind, lim.page, lim.count) for lim in capped.limits] == [("line_cap", 1, 3)]
