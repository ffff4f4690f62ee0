"""The one-job report, unit level: page references, finding geometry, audit page views, and
the page itself (every rollout text escaped, formula terms shown)."""

from __future__ import annotations

import json

import pytest
from fleet.factory import make_doc, verdicts, write

from cowork_judge.commands import main
from cowork_judge.core.result import DeliveryDetails
from cowork_judge.fleet.job import Job, audit_page_views, load_job
from cowork_judge.fleet.pagemap import PageRef, finding_overlays, mentions, parse_evidence_ref, resolve, rows_by_page
from cowork_judge.fleet.report import render_report

HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'


@pytest.mark.parametrize("ref, expected", [
    ("evidence/pages/deck.pptx/page-003.png", PageRef("deck.pptx", "page", 3)),
    ("pages/My_Deck.pdf/page-012.png", PageRef("My_Deck.pdf", "page", 12)),
    ("page:4", PageRef(None, "page", 4)),
    ("p1", PageRef(None, "page", 1)),
    ("slide-7", PageRef(None, "slide", 7)),
    ("deck.pptx#slide 2", PageRef("deck.pptx", "slide", 2)),
    ("output/deck.pptx", None),
    ("", None),
])
def test_evidence_references(ref, expected):
    assert parse_evidence_ref(ref) == expected


@pytest.mark.parametrize("reason, expected", [
    ("the chart on slide 4 is clipped", [("slide", 4)]),
    ("Slides 2 and 5 repeat the title", [("slide", 2), ("slide", 5)]),
    ("pages 3-5 are empty", [("page", 3), ("page", 4), ("page", 5)]),
    ("see page #2, slide 9", [("page", 2), ("slide", 9)]),
    ("slides 1-500 look alike", [("slide", 1), ("slide", 500)]),  # a range that long is not expanded
    ("no slide number here; 12 pages in all", []),
])
def test_mentions_in_reasons(reason, expected):
    assert [(m.kind, m.number) for m in mentions(reason)] == expected


def test_references_resolve_through_the_page_to_slide_map():
    decks = {"d.pptx": {1: 1, 2: 3, 3: 4}}  # slide 2 hidden: not rendered
    assert resolve(PageRef(None, "slide", 3), decks) == [("d.pptx", 2)]
    assert resolve(PageRef(None, "slide", 2), decks) == []
    assert resolve(PageRef(None, "page", 3), decks) == [("d.pptx", 3)]
    assert resolve(PageRef("other.pdf", "page", 1), decks) == []
    assert resolve(PageRef(None, "page", 1), {**decks, "e.pdf": {1: None}}) == []  # which deck? none


def test_rows_by_page_labels_each_trace():
    decks = {"d.pptx": {1: 1, 2: 2, 3: 3}}
    results = [{"id": "A", "evidence": ["pages/d.pptx/page-002.png"], "reason": "title on slide 1"},
               {"id": "B", "evidence": [], "reason": "pages 2-3 overflow"}]
    ties = rows_by_page(results, decks, {("d.pptx", 3): {"A"}, ("d.pptx", 9): {"B"}})
    assert ties == {("d.pptx", 1): {"A": ["mentioned"]}, ("d.pptx", 2): {"A": ["evidence"], "B": ["mentioned"]},
                    ("d.pptx", 3): {"A": ["viewed"], "B": ["mentioned"]}}


def test_finding_overlays_in_page_fractions():
    shapes = {"2": {"box": {"x_emu": 914400, "y_emu": 914400, "cx_emu": 4572000, "cy_emu": 914400}, "rot_deg": 0.0},
              "3": {"box": {"x_emu": 0, "y_emu": 0, "cx_emu": 9144000, "cy_emu": 1}, "rot_deg": 90.0}}
    size = (9144000, 6858000)  # 10 x 7.5 in
    overlap = {"check": "text_overlap", "shape_id": "2", "measure": {"other_shape_id": "3"}, "message": "collide"}
    a, b = finding_overlays(overlap, shapes, size)
    assert (a.x, a.y, a.w, a.h, a.rot_deg) == (0.1, 914400 / 6858000, 0.5, 914400 / 6858000, 0.0)
    assert (b.x, b.w, b.rot_deg) == (0.0, 1.0, 90.0)
    overflow = {"check": "text_overflow", "shape_id": "2", "measure": {"bottom_pt": 54.0}, "message": "runs past"}
    frame, region = finding_overlays(overflow, shapes, size)
    assert region.dashed and region.y == frame.y + frame.h and region.h == 54 * 12700 / 6858000 and region.w == frame.w
    blank = finding_overlays({"check": "blank_page", "shape_id": None, "message": "blank"}, {}, None)
    assert [(o.x, o.y, o.w, o.h) for o in blank] == [(0.0, 0.0, 1.0, 1.0)]
    assert finding_overlays({"check": "tiny_font", "shape_id": "9", "message": "?"}, shapes, size) == []


def test_audit_page_views(tmp_path):
    block = tmp_path / "judge" / "block-01"
    block.mkdir(parents=True)
    (block / "verdicts.json").write_text(json.dumps({"A": {}, "B": {}}))
    calls = [{"id": "1", "name": "view_image", "arguments": json.dumps({"path": "evidence/pages/d.pptx/page-002.png"})},
             {"id": "2", "name": "pptx_text", "arguments": "{}"},
             {"id": "3", "name": "view_image", "arguments": "not json"}]
    (block / "attempt-1.jsonl").write_text(json.dumps({"turn": 1, "reply": {"tool_calls": calls}}) + "\nnot json view_image\n")
    (tmp_path / "judge" / "block-02").mkdir()  # no verdicts.json: skipped
    assert audit_page_views(tmp_path / "judge") == {("d.pptx", 2): {"A", "B"}}
    assert audit_page_views(tmp_path / "nothing") == {}


def test_every_rollout_text_is_escaped_and_the_formula_is_shown(tmp_path):
    doc = make_doc(verdicts(r3=0.5, reasons={"R1": HOSTILE}))
    delivery = DeliveryDetails(files=[f"{HOSTILE}.md"], missing=False, from_chat=False, stray=["<b>stray</b>.txt"])
    doc = doc.model_copy(update={"details": doc.details.model_copy(update={"delivery": delivery})})
    html = render_report(Job(verifier_dir=tmp_path, doc=doc, doc_sha256="0" * 64))
    assert "<script" not in html.lower() and "<img" not in html and "<b>stray" not in html
    assert html.count("&lt;script&gt;window.__pwned=1&lt;/script&gt;") == 2  # the reason and the file name
    assert "W (positive weight)</td><td>6" in html and "E (earned, deductions included)</td><td>5" in html
    assert "reward (continuous) = score_normalized</td><td>0.8333" in html
    assert "passed = score_normalized ≥ 0.75 and status not error</td><td>yes" in html


def test_report_without_page_images_says_where_to_find_them(tmp_path, capsys):
    doc = make_doc()
    evidence = {"decks": [{"deck": "d.pptx", "source": "d.pptx", "status": "ok", "pages_rendered": 3, "findings": {},
                           "skipped": []}]}
    doc = doc.model_copy(update={"details": doc.details.model_copy(update={"evidence": evidence})})
    write(tmp_path / "verifier" / "result.json", doc)
    job = load_job(tmp_path / "verifier", work_dir=tmp_path / "gone")
    assert job.evidence_note.startswith(f"no evidence index at {tmp_path / 'gone' / 'evidence' / 'index.json'} (from --work-dir): ")
    assert "cowork-judge run --work-dir DIR or JUDGE_WORK_DIR" in job.evidence_note
    assert main(["report", str(tmp_path / "verifier")]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == str(tmp_path / "verifier" / "report.html") and err.startswith("report: page images not found")


@pytest.mark.parametrize("content, message", [
    (None, "holds no result.json: the judge wrote none there"),  # a verifier folder without one (issue 39)
    ("{", "unreadable: not JSON"),
    ("[]", "invalid: not a result document"),
])
def test_unreadable_input_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    verifier = tmp_path / "verifier"
    verifier.mkdir()
    if content is not None:
        (verifier / "result.json").write_text(content)
    assert main(["report", str(verifier)]) == 2
    out, err = capsys.readouterr()
    named = verifier if content is None else verifier / "result.json"
    assert out == "" and err.startswith(f"cowork-judge report: {named}") and message in err
    assert len(err.strip().splitlines()) == 1


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "example:\n  cowork-judge run --logs-dir run1/logs --work-dir run1/work" in capsys.readouterr().out


def test_out_over_an_unrelated_file_is_refused_without_force(tmp_path, capsys):
    """Trial finding 8: `report --out precious/important.txt` wrote over the user's file."""
    write(tmp_path / "verifier" / "result.json", make_doc())
    precious = tmp_path / "precious" / "important.txt"
    precious.parent.mkdir()
    precious.write_text("data\n")
    assert main(["report", str(tmp_path / "verifier"), "--out", str(precious)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and precious.read_text() == "data\n"
    assert err.strip() == (f"cowork-judge report: {precious} exists (use --force to overwrite); "
                           "it is not a report page written by cowork-judge report")
    assert sorted(p.name for p in precious.parent.iterdir()) == ["important.txt"]  # no staging file left
    # a report this command wrote is its own to replace; anything else only with --force
    page = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "verifier"), "--out", str(page)]) == 0
    assert main(["report", str(tmp_path / "verifier"), "--out", str(page)]) == 0
    assert main(["report", str(tmp_path / "verifier"), "--out", str(precious), "--force"]) == 0
    assert precious.read_bytes().startswith(b"<!doctype html>")


def test_the_guard_of_a_code_only_run_says_why_it_was_not_scanned(tmp_path):
    """Issue 38: a rubric of code rows only is not scanned; the report says why, and a run
    with model rows that was not scanned (JUDGE_GUARD=off) keeps the plain line."""
    from cowork_judge.core.findings import GuardReport
    from cowork_judge.core.fold import RunFacts, fold
    from cowork_judge.core.rubric import normalize_rubric
    from cowork_judge.core.scoring import ScoringPolicy
    from cowork_judge.core.verdicts import Verdict
    from fleet.factory import DELIVERED, IDENTITY

    rows = normalize_rubric([{"id": "C1", "description": "a report", "weight": 1, "judge_method": "code",
                              "code_method_name": "file_exists", "code_method_params": {"glob": "*.md"}}]).criteria
    code_only = fold(rows, {"C1": Verdict(id="C1", hit=True, judged=True, reason="found", method="code")}, ScoringPolicy(),
                     RunFacts(identity=IDENTITY, delivery=DELIVERED, guard=GuardReport(mode="flag")))
    html = render_report(Job(verifier_dir=tmp_path, doc=code_only, doc_sha256="0" * 64))
    assert "JUDGE_GUARD=flag: not scanned (no model-judged row: nothing the agent wrote reached a model judge)" in html
    off = make_doc().model_copy(update={"guard": GuardReport(mode="off")})
    assert "JUDGE_GUARD=off: not scanned</p>" in render_report(Job(verifier_dir=tmp_path, doc=off, doc_sha256="0" * 64))
