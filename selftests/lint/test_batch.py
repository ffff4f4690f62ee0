"""``--batch``: discovery (folder tree, JSONL), per-instance results and family checks F001–F004."""

from __future__ import annotations

import json

import pytest

from cowork_judge.commands.lint import main
from cowork_judge.lint import batch
from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_ROWS, BASE_SH, BASE_TOML

STUB_ROW = {"id": "W1", "description": "Slides are legible.", "weight": 1, "judge_method": "workflow", "workflow_name": "stub",
            "depends_on": ["C-DECK"]}
FILE_ROW = {"id": "C-JSON", "description": "The data file parses.", "weight": 1, "judge_method": "code",
            "code_method_name": "json_valid"}


def _lint(entry: batch.Entry):
    return lint_instance(entry.tests_dir, display=entry.display)


def _family(make_instance, tmp_path, variants):
    """A folder `fam/` of instances, one per variant (make_instance keyword changes)."""
    made = [make_instance(name=f"fam/i{n}", **v) for n, v in enumerate(variants)]
    return tmp_path / "fam", made


@pytest.mark.parametrize(
    "code,odd",
    [
        ("F001", {"toml": BASE_TOML.replace(":-0.1.0", ":-0.2.0")}),
        ("F002", {"sh": BASE_SH.replace("cowork-judge[workflow]==", "cowork-judge[pptx,workflow]==")}),
        ("F003", {"rubric": [*BASE_ROWS, FILE_ROW]}),
        ("F004", {"rubric": [*BASE_ROWS, STUB_ROW]}),
    ],
)
def test_one_odd_instance_in_a_family(make_instance, tmp_path, code, odd):
    root, made = _family(make_instance, tmp_path, [{}, {}, odd])
    entries, problems = batch.discover(root)
    assert problems == [] and [e.tests_dir for e in entries] == made
    reports, families = batch.run(entries, _lint)
    assert all(r.findings == [] for r in reports)
    (family,) = families
    assert [(f.code, f.file) for f in family.findings] == [(code, str(made[2]))]
    assert "2 of 3 use" in family.findings[0].message


def test_unpinned_member_disagrees_with_pinned_ones(make_instance, tmp_path):
    unpinned = {"sh": "pip install cowork-judge && cowork-judge run\n", "toml": BASE_TOML.replace(":-0.1.0", ":-")}
    root, _ = _family(make_instance, tmp_path, [{}, unpinned])
    reports, families = batch.run(batch.discover(root)[0], _lint)
    assert "S002" in [f.code for f in reports[1].findings]
    assert [(f.code, f.message) for f in families[0].findings] == [
        ("F001", "judge version none differs from family '.': 1 of 2 use 0.1.0")]


def test_folders_are_families(make_instance, tmp_path):
    made = [make_instance(name=n) for n in ("ppt/a", "ppt/b", "word/c", "word/d")]
    made.append(make_instance(name="word/e", toml=BASE_TOML.replace(":-0.1.0", ":-0.2.0")))
    entries, _ = batch.discover(tmp_path)
    assert [(e.family, e.tests_dir) for e in entries] == [("ppt", made[0]), ("ppt", made[1]), ("word", made[2]),
                                                           ("word", made[3]), ("word", made[4])]
    _, families = batch.run(entries, _lint)
    assert [(f.name, f.instances, [x.code for x in f.findings]) for f in families] == [
        ("ppt", 2, []), ("word", 3, ["F001"])]
    assert families[1].majority["version"] == "0.1.0" and families[0].majority["code_methods"] == ["locate_deck"]


def test_jsonl_lines_paths_and_families(make_instance, tmp_path):
    a, b = make_instance(name="a"), make_instance(name="b", toml=BASE_TOML.replace(":-0.1.0", ":-0.2.0"))
    listing = tmp_path / "batch.jsonl"
    listing.write_text("\n".join([
        json.dumps(str(a)),                                   # a tests dir
        json.dumps({"tests": "b", "family": "x"}),            # an instance dir, relative to the file
        json.dumps({"path": str(a), "family": "x"}),
        "",
        "{not json",
        json.dumps({"family": "x"}),
    ]) + "\n")
    entries, problems = batch.discover(listing)
    assert [(e.tests_dir, e.family) for e in entries] == [(a, "(all)"), (b, "x"), (a, "x")]
    assert [(f.code, f.field) for f in problems] == [("B001", "line 5"), ("B001", "line 6")]
    _, families = batch.run(entries, _lint)
    assert [[f.code for f in fam.findings] for fam in families] == [[], ["F001"]]


@pytest.mark.parametrize("setup", ["missing", "empty-dir", "empty-jsonl"])
def test_unusable_batch_input_is_b001(tmp_path, capsys, setup):
    source = tmp_path / ("batch.jsonl" if setup == "empty-jsonl" else "batch")
    if setup == "empty-dir":
        source.mkdir()
    elif setup == "empty-jsonl":
        source.write_text("\n")
    assert main(["--batch", str(source)]) == 1
    assert "ERROR B001" in capsys.readouterr().out


def test_batch_json_document(make_instance, tmp_path, capsys):
    make_instance(name="fam/a")
    make_instance(name="fam/b", rubric=[*BASE_ROWS, {"id": "X", "description": "Again", "weight": 1, "depends_on": ["nope"]}])
    assert main(["--batch", str(tmp_path), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "cowork-judge.lint/1" and doc["exit_status"] == 1 and doc["errors"] == 1
    assert [i["errors"] for i in doc["instances"]] == [0, 1]
    assert doc["instances"][1]["findings"][0] == {
        "code": "D001", "level": "ERROR", "file": f"{tmp_path}/fam/b/tests/rubric.json", "row": "X",
        "field": "depends_on", "message": "names no row: 'nope' (the gate fails closed: this row never scores)"}
    assert doc["families"][0]["family"] == "fam" and doc["families"][0]["majority"]["version"] == "0.1.0"
