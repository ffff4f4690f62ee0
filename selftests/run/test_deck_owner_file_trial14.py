"""Trial 14 F1: the ~165-byte owner file ``~$deck.pptx`` PowerPoint writes beside a deck it has
open (not a zip: no document at all) made ``locate_deck`` ambiguous ("2 pptx decks"), every
gated row closed and a good deck scored a clean 0. A candidate whose CONTENT is no document
does not count toward "exactly one" when another candidate is a real deck; the reason names
what was set aside. Two real decks stay ambiguous; a corrupt file alone is still the deck, which
the open check calls broken. Trial 14 F5: a ``.odp`` is no deck candidate, and the miss says so.

Real ``cowork-judge run`` child processes on code-only rubrics (no model call), decks built
with python-pptx."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pptx = pytest.importorskip("pptx", reason="python-pptx builds the decks")

OWNER_FILE = b"\x0bJohn Smith" + b" " * 150 + b"\x0b\x00J\x00o\x00h\x00n\x00"
"""What PowerPoint's owner file holds: a length-prefixed user name, padded (no magic bytes)."""
ROWS = [
    {"id": "C-LOCATE-DECK", "description": "Exactly one deck.", "weight": 1, "judge_method": "code",
     "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"], "allow_multiple": False}},
    {"id": "C-DECK-OPENABLE", "description": "The deck opens.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "check_deck_openable"},
    {"id": "C-PAGES", "description": "Two or three slides.", "weight": 1, "depends_on": ["C-LOCATE-DECK"],
     "judge_method": "code", "code_method_name": "page_count_between",
     "code_method_params": {"min_pages": 2, "max_pages": 3}},
]


def _deck(path: Path, titles: tuple[str, ...] = ("Water cycle", "Evaporation", "Rain")) -> None:
    prs = pptx.Presentation()
    for title in titles:
        prs.slides.add_slide(prs.slide_layouts[1]).shapes.title.text = title
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def _judge(judge_run, tmp_path: Path, files: dict[str, bytes | None]) -> tuple[dict, dict]:
    """Judge `files` (name → bytes, None: a real 3-slide deck) in output/; returns the result
    document and its rows by id."""
    tests = tmp_path / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))

    def lay_out(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            if data is None:
                _deck(out / name)
            else:
                (out / name).write_bytes(data)

    run = judge_run(tests, sim=False, setup=lay_out, env={"JUDGE_EVIDENCE": "0"})
    assert run.returncode == 0, run.stderr
    doc = run.doc
    assert doc["status"] == "success", doc
    return doc, {r["id"]: r for r in doc["results"]}


def test_an_owner_file_beside_a_good_deck_is_set_aside_and_named(judge_run, tmp_path):
    doc, rows = _judge(judge_run, tmp_path, {"deck.pptx": None, "~$deck.pptx": OWNER_FILE})
    locate = rows["C-LOCATE-DECK"]
    assert locate["hit"] is True, locate["reason"]
    assert locate["reason"].startswith("deck is deck.pptx (pptx)"), locate["reason"]
    assert "~$deck.pptx set aside, not a second deck: no document by its content" in locate["reason"]
    assert f"({len(OWNER_FILE)} bytes, unrecognised magic bytes 0b4a6f686e20536d)" in locate["reason"]
    assert rows["C-DECK-OPENABLE"]["hit"] is True, rows["C-DECK-OPENABLE"]["reason"]
    assert rows["C-PAGES"]["hit"] is True, rows["C-PAGES"]["reason"]
    assert doc["task_score"] == 1.0


def test_a_text_note_named_pptx_beside_the_deck_is_no_second_deck_either(judge_run, tmp_path):
    _, rows = _judge(judge_run, tmp_path, {"slides.pptx": None, "notes.pptx": b"TODO: fix slide 2\n"})
    assert rows["C-LOCATE-DECK"]["hit"] is True, rows["C-LOCATE-DECK"]["reason"]
    assert "deck is slides.pptx" in rows["C-LOCATE-DECK"]["reason"]
    assert "notes.pptx set aside, not a second deck" in rows["C-LOCATE-DECK"]["reason"]


def test_two_real_decks_stay_ambiguous(judge_run, tmp_path):
    _deck(tmp_path / "edited.pptx", ("Water cycle", "Evaporation", "Rain", "Snow"))  # other bytes: a
    # byte-identical copy is one deck (trial 14 F16, test_deck_copy_trial14.py)
    edited = (tmp_path / "edited.pptx").read_bytes()
    doc, rows = _judge(judge_run, tmp_path, {"deck.pptx": None, "deck (1).pptx": edited})
    locate = rows["C-LOCATE-DECK"]
    assert locate["hit"] is False
    assert locate["reason"].startswith("ambiguous: 2 pptx decks (deck (1).pptx, deck.pptx); exactly one is required")
    assert "set aside" not in locate["reason"]
    assert doc["task_score"] == 0.0


def test_a_broken_zip_beside_a_real_deck_is_a_document_and_stays_ambiguous(judge_run, tmp_path):
    _deck(tmp_path / "whole.pptx")
    truncated = (tmp_path / "whole.pptx").read_bytes()[:2000]
    _, rows = _judge(judge_run, tmp_path, {"deck.pptx": None, "draft.pptx": truncated})
    assert rows["C-LOCATE-DECK"]["hit"] is False
    assert rows["C-LOCATE-DECK"]["reason"].startswith("ambiguous: 2 pptx decks (deck.pptx, draft.pptx)")


def test_a_lone_owner_file_is_still_the_deck_and_the_open_check_says_it_is_broken(judge_run, tmp_path):
    doc, rows = _judge(judge_run, tmp_path, {"~$deck.pptx": OWNER_FILE})
    assert rows["C-LOCATE-DECK"]["hit"] is True and "deck is ~$deck.pptx" in rows["C-LOCATE-DECK"]["reason"]
    opened = rows["C-DECK-OPENABLE"]
    assert opened["hit"] is False and "unknown_format" in opened["reason"], opened["reason"]
    assert doc["task_score"] < 1.0


def test_two_owner_files_and_no_real_deck_stay_ambiguous(judge_run, tmp_path):
    _, rows = _judge(judge_run, tmp_path, {"~$a.pptx": OWNER_FILE, "~$b.pptx": OWNER_FILE + b"x"})
    assert rows["C-LOCATE-DECK"]["hit"] is False
    assert rows["C-LOCATE-DECK"]["reason"].startswith("ambiguous: 2 pptx decks")


def _odp() -> bytes:
    """A minimal OpenDocument presentation package (its ``mimetype`` member first, stored)."""
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.presentation", compress_type=zipfile.ZIP_STORED)
        zf.writestr("content.xml", '<?xml version="1.0"?><office:document-content xmlns:office='
                    '"urn:oasis:names:tc:opendocument:xmlns:office:1.0"><office:body><office:presentation/>'
                    '</office:body></office:document-content>')
    return buf.getvalue()


def test_an_odp_is_no_deck_candidate_and_the_miss_says_so(judge_run, tmp_path):
    doc, rows = _judge(judge_run, tmp_path, {"good.odp": _odp()})
    reason = rows["C-LOCATE-DECK"]["reason"]
    assert rows["C-LOCATE-DECK"]["hit"] is False
    assert reason.startswith("no deck among the deliverables (looked for pptx); good.odp (.odp: an OpenDocument "
                             "presentation) is not a deck candidate: only a file named .pptx, "), reason
    assert reason.endswith(".htm is one (its content then gives its kind)"), reason


def test_the_same_odp_named_pptx_is_located_and_the_open_check_names_it(judge_run, tmp_path):
    _, rows = _judge(judge_run, tmp_path, {"odp-named.pptx": _odp()})
    assert rows["C-LOCATE-DECK"]["hit"] is True, rows["C-LOCATE-DECK"]["reason"]
    opened = rows["C-DECK-OPENABLE"]
    assert opened["hit"] is False and "an OpenDocument presentation (.odp) named .pptx" in opened["reason"], opened["reason"]
