"""Trial 34 P-4: ``gen-ppt-rubrics --no-checklist --gate C-LOCATE-DEK …`` (a typo) was refused without a "did you
mean", after it had written the empty checklist, which lint then warned about (A001) though the author never meant
to keep it. Now the refusal names the close id and removes what the call wrote; a checklist folder that was there
before is left alone. Real CLI in a subprocess."""

from __future__ import annotations

from authoring.test_gen_ppt_no_checklist_trial18 import TCD, _cli, _deck_task


def test_a_mistyped_gate_names_the_close_id_and_leaves_nothing_behind(tmp_path):
    task = _deck_task(tmp_path)
    before = (task / "tests" / "rubric.json").read_text()
    gen = _cli("gen-ppt-rubrics", str(task), "--no-checklist", "--gate", "C-LOCATE-DEK", "C-DECK-OPENABLE")
    assert gen.returncode == 2, gen.stderr
    assert ("--gate names no row of the rubric: C-LOCATE-DEK (did you mean 'C-LOCATE-DECK'?) (a dangling gate is "
            "always closed; nothing written)") in gen.stderr, gen.stderr
    assert not (task / "tests" / "workflow_assets").exists(), list((task / "tests").rglob("*"))
    assert (task / "tests" / "rubric.json").read_text() == before


def test_an_asset_folder_that_was_there_is_kept(tmp_path):
    task = _deck_task(tmp_path)
    other = task / "tests" / "workflow_assets" / "ppt_judge" / "notes.md"
    other.parent.mkdir(parents=True)
    other.write_text("mine\n")
    gen = _cli("gen-ppt-rubrics", str(task), "--no-checklist", "--gate", "C-LOCATE-DEK")
    assert gen.returncode == 2, gen.stderr
    assert other.read_text() == "mine\n" and not (task / "tests" / TCD).exists()


def test_a_comma_separated_gate_list_is_read_as_its_ids(tmp_path):
    """Trial 38 P-5: ``--gate C-LOCATE-DECK,C-DECK-OPENABLE`` was refused ("names no row") though both rows exist."""
    import json

    task = _deck_task(tmp_path)
    gen = _cli("gen-ppt-rubrics", str(task), "--no-checklist", "--gate", "C-LOCATE-DECK,C-DECK-OPENABLE")
    assert gen.returncode == 0, gen.stderr
    rows = json.loads((task / "tests" / "rubric.json").read_text())["rubrics"]
    judged = [r for r in rows if r.get("workflow_name") == "ppt_judge"]
    assert judged and all(set(r["depends_on"]) >= {"C-LOCATE-DECK", "C-DECK-OPENABLE"} for r in judged), judged[:2]
