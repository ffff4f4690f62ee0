"""Deck kinds live in one place (`cowork_judge.evidence.kinds`), and a deck named by any of them
gets evidence — main had three suffix lists and only one knew ``.pot``, so a legacy template
deck was located by ``locate_deck`` but got no rendered evidence."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from cowork_judge.code_methods import decks
from cowork_judge.engine import judge
from cowork_judge.evidence.kinds import is_deck_name
from cowork_judge.evidence import build, kinds, sniff

from .conftest import require_decks, require_tools

SRC = Path(__file__).resolve().parents[2] / "src" / "cowork_judge"
POWERPOINT_SUFFIXES = {s for s, k in kinds.SUFFIX_KIND.items() if k in kinds.POWERPOINT_KINDS}


def test_every_deck_test_reads_the_one_table() -> None:
    assert judge.DECK_SUFFIXES is kinds.DECK_SUFFIXES
    assert build.DECK_SUFFIXES is kinds.DECK_SUFFIXES
    assert sniff._EXT_KIND is kinds.SUFFIX_KIND
    assert set(decks.DECK_SUFFIXES) == set(kinds.DECK_SUFFIXES)
    assert ".pot" in kinds.DECK_SUFFIXES and ".pps" in kinds.DECK_SUFFIXES


def test_no_other_module_spells_a_powerpoint_suffix() -> None:
    spelled = []
    for path in SRC.rglob("*.py"):
        if path.name == "kinds.py" and path.parent.name == "evidence":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in POWERPOINT_SUFFIXES:
                spelled.append(f"{path.relative_to(SRC)}:{node.lineno} {node.value}")
    assert spelled == []


@pytest.mark.parametrize("suffix", [".pot", ".POT", ".pps"])
def test_a_legacy_template_deck_gets_evidence(suffix: str, tmp_path: Path) -> None:
    decks_dir = require_decks()
    require_tools("soffice")
    deck = tmp_path / f"deck{suffix}"
    shutil.copyfile(decks_dir / "29__poi__44296.ppt", deck)  # a real legacy binary deck
    assert is_deck_name(deck.name) and build.is_deck(deck)  # the run's evidence step reads is_deck_name
    summary = build.build_evidence([deck.name], tmp_path / "evidence", budget_sec=180, width_px=640, root=tmp_path)
    assert [d.deck for d in summary.decks] == [deck.name]
    assert summary.decks[0].kind == "ppt", summary.decks[0]
    assert summary.pages_rendered >= 1
