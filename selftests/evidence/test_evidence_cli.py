"""``cowork-judge evidence``: summary output, exit codes, no tracebacks for bad input."""

from __future__ import annotations

import json

from cowork_judge.evidence.cli import main

from .conftest import make_pdf_deck, require_decks


def test_cli_builds_evidence_for_a_pdf(tmp_path, capsys):
    pdf = make_pdf_deck(tmp_path / "talk.pdf")
    assert main([str(pdf), "--out", str(tmp_path / "ev"), "--width-px", "400", "--budget-sec", "60"]) == 0
    out = capsys.readouterr().out
    assert "talk.pdf: ok_pdf" in out and "pages 2/2" in out
    index = json.loads((tmp_path / "ev" / "index.json").read_text())
    assert index["pages_rendered"] == 2


def test_cli_folder_and_json(tmp_path, capsys):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    make_pdf_deck(tmp_path / "in" / "sub" / "a.pdf")
    (tmp_path / "in" / "readme.txt").write_text("not a deck")
    assert main([str(tmp_path / "in"), "--out", str(tmp_path / "ev"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [d["source"] for d in summary["decks"]] == ["sub/a.pdf"]
    assert summary["decks"][0]["deck"] == "sub__a.pdf"


def test_cli_broken_deck_exits_1(tmp_path, capsys):
    deck = require_decks() / "31__Open-XML-SDK__encrypted_pptx.pptx"
    assert main([str(deck), "--out", str(tmp_path / "ev")]) == 1
    assert "encrypted" in capsys.readouterr().out


def test_cli_usage_errors_exit_2_without_traceback(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x")
    cases = [[str(tmp_path / "missing.pptx"), "--out", str(tmp_path)],
             [str(tmp_path / "notes.txt"), "--out", str(tmp_path)],
             [str(tmp_path / "missing.pptx")],
             ["--out", str(tmp_path)],
             [str(tmp_path), "--out", str(tmp_path / "ev")],
             ["x.pdf", "--out", str(tmp_path), "--width-px", "0"]]
    for argv in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "error:" in err and "Traceback" not in err
