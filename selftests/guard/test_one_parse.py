"""A deck is parsed once per run (issue 38): the guard's scan reads a deck's structure through
the run's `StructureReads`, and the evidence build reuses that read instead of parsing the deck
again. A real python-pptx deck, the real guard and the real evidence build (no renderer: only the
structure layer and the checks run)."""

from __future__ import annotations

import pytest
from hidden_decks import build_visibility_deck

from cowork_judge.evidence import build_evidence, probe_capabilities
from cowork_judge.evidence import structure
from cowork_judge.evidence.reads import StructureReads
from cowork_judge.guard.gather import guard_delivery


@pytest.fixture
def parses(monkeypatch):
    """The decks `extract_structure` parsed, in order."""
    seen = []
    real = structure.extract_structure

    def counting(path, **kwargs):
        seen.append(path.name)
        return real(path, **kwargs)

    monkeypatch.setattr(structure, "extract_structure", counting)
    return seen


def test_the_evidence_build_reuses_the_guards_read_of_a_deck(tmp_path, parses):
    out = tmp_path / "output"
    out.mkdir()
    deck = build_visibility_deck(out / "deck.pptx", ["notes", "grey"], text="secret {case} payload")
    reads = StructureReads()
    report = guard_delivery([("deck.pptx", deck)], None, mode="flag", reads=reads)
    assert report.scanned and report.channels.get("hidden_text", 0) > 0  # the speaker notes were read
    caps = probe_capabilities("/nonexistent/soffice", "/nonexistent/chromium")
    summary = build_evidence([deck], tmp_path / "evidence", budget_sec=60, root=out, capabilities=caps, reads=reads)
    assert parses == ["deck.pptx"]  # one parse for the guard and the evidence together
    assert reads.parsed == 1
    (entry,) = summary.decks
    assert entry.structure_ok and entry.slide_count == 2
    assert len(list((tmp_path / "evidence").rglob("slide-*.json"))) == 2  # the evidence wrote the guard's read


def test_a_changed_or_partial_read_is_read_again(tmp_path, parses):
    out = tmp_path / "output"
    out.mkdir()
    deck = build_visibility_deck(out / "deck.pptx", ["grey"])
    reads = StructureReads()
    reads.read(deck, strict=False, deadline=0.0)  # a budget already spent: a partial read is not kept
    reads.read(deck, strict=False)
    reads.read(deck, strict=False)
    assert reads.parsed == 2
    build_visibility_deck(deck, ["grey", "notes"])  # the file changed: read anew
    assert len(reads.read(deck, strict=False).slides) == 2 and reads.parsed == 3
