"""``--fix-closure``: only depends_on changes, the file keeps its look, a second run changes nothing."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from cowork_judge.commands.lint import main
from cowork_judge.lint.fix import FixRefused, fix_closure, read_spans

CHAIN = [
    {"id": "a", "description": "A", "weight": 1},
    {"id": "b", "description": "B", "weight": 1, "depends_on": ["a"]},
    {"id": "c", "description": "C", "weight": 1, "depends_on": ["b"]},
    {"id": "d", "description": "D", "weight": 1, "depends_on": ["c"]},
]
CLOSED = {"a": [], "b": ["a"], "c": ["b", "a"], "d": ["c", "a", "b"]}


def _deps(path: Path) -> dict[str, list[str]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {r["id"]: r.get("depends_on", []) for r in doc["rubrics"]}


@pytest.mark.parametrize(
    "dump",
    [
        lambda doc: json.dumps(doc, indent=2),
        lambda doc: json.dumps(doc, indent=4).replace("\n", "\r\n"),
        lambda doc: json.dumps(doc),
        lambda doc: json.dumps(doc, separators=(",", ":")),
        lambda doc: json.dumps(doc, indent="\t", ensure_ascii=False),
    ],
    ids=["indent-2", "indent-4-crlf", "one-line", "compact", "tabs"],
)
def test_closure_keeps_the_formatting(tmp_path, dump):
    path = tmp_path / "rubric.json"
    before = dump({"rubrics": CHAIN})
    path.write_bytes(before.encode())
    result = fix_closure(path)
    assert result.changed and result.rows == {"c": ["a"], "d": ["a", "b"]}
    # the rewrite is byte for byte what the same writer makes of the closed rubric
    closed = [{**row, "depends_on": CLOSED[row["id"]]} if "depends_on" in row else row for row in CHAIN]
    assert result.new_text == dump({"rubrics": closed})
    path.write_bytes(result.new_text.encode())
    assert _deps(path) == CLOSED
    assert fix_closure(path).changed is False  # idempotent


def test_one_id_per_line_arrays_stay_one_id_per_line(tmp_path):
    path = tmp_path / "rubric.json"
    path.write_text(json.dumps({"rubrics": CHAIN}, indent=2))
    new = fix_closure(path).new_text
    assert '"depends_on": [\n        "c",\n        "a",\n        "b"\n      ]' in new


def test_only_depends_on_changes_byte_for_byte(tmp_path):
    text = ('{ "workflow_config": {"stub": {}},\n  "rubrics": [\n'
            '  {"id": "a", "description": "A  with   spaces", "weight": 1.50},\n'
            '  {"id": "b", "description": "B", "weight": 1, "depends_on": ["a"]},  \n'
            '  {"id": "c", "description": "Ü", "depends_on" : [ "b" ] , "weight": 2e0}\n  ]\n}\n')
    path = tmp_path / "rubric.json"
    path.write_text(text, encoding="utf-8")
    new = fix_closure(path).new_text
    assert new == text.replace('[ "b" ]', '[ "b", "a" ]')


def test_mapping_shape_and_scalar_depends_on(tmp_path):
    path = tmp_path / "rubric.json"
    path.write_text('{"a": {"description": "A", "weight": 1}, "b": {"description": "B", "weight": 1, "depends_on": "a"},'
                    ' "c": {"description": "C", "weight": 1, "depends_on": "b"}}')
    new = fix_closure(path).new_text
    assert '"depends_on": ["b", "a"]' in new and '"depends_on": "a"' in new


@pytest.mark.parametrize(
    "rows,needle",
    [
        ([{"id": "a", "description": "A", "depends_on": ["zz"]}, {"id": "b", "description": "B", "depends_on": ["a"]}],
         "names no row"),
        ([{"id": "a", "description": "A", "depends_on": ["b"]}, {"id": "b", "description": "B", "depends_on": ["a"]}],
         "cycle"),
        ([{"id": "a", "description": "A"}, {"id": "a", "description": "B"}], "duplicate"),
    ],
)
def test_refuses_what_has_no_closure(tmp_path, rows, needle):
    path = tmp_path / "rubric.json"
    path.write_text(json.dumps({"rubrics": rows}))
    with pytest.raises(FixRefused, match=needle):
        fix_closure(path)


def test_refuses_unreadable_files(tmp_path):
    with pytest.raises(FixRefused, match="not found"):
        fix_closure(tmp_path / "rubric.json")
    (tmp_path / "rubric.json").write_text("{nope")
    with pytest.raises(FixRefused, match="Expecting"):
        fix_closure(tmp_path / "rubric.json")


def test_span_reader_agrees_with_json():
    text = '{"x": [1, 2.5e3, "s\\"q", true, null, {"y": []}], "x": {}}'
    root = read_spans(text)
    assert [k for k, _ in root.members] == ["x", "x"] and text[root.members[0][1].start:root.members[0][1].end].startswith("[1")


def test_cli_prints_the_diff_writes_atomically_and_keeps_the_mode(make_instance, capsys):
    tests = make_instance(rubric=CHAIN)
    rubric = tests / "rubric.json"
    rubric.chmod(0o640)
    assert main([str(tests), "--fix-closure", "--dry-run"]) == 1  # dry run: still not closed
    out = capsys.readouterr().out
    assert '+        "a"' in out and "would add 3 id(s) to 2 row(s)" in out and "ERROR D003" in out
    assert _deps(rubric)["d"] == ["c"]
    assert main([str(tests), "--fix-closure"]) == 0
    out = capsys.readouterr().out
    assert "added 3 id(s) to 2 row(s)" in out and "0 errors" in out
    assert _deps(rubric) == CLOSED and stat.S_IMODE(rubric.stat().st_mode) == 0o640
    assert main([str(tests), "--fix-closure"]) == 0
    assert "already closed" in capsys.readouterr().out
    assert [p.name for p in tests.iterdir() if p.name.startswith(".rubric.")] == []


def test_cli_refusal_is_a_message_not_a_traceback(make_instance, capsys):
    tests = make_instance(rubric=[{"id": "a", "description": "A", "weight": 1, "depends_on": ["a"]}])
    assert main([str(tests), "--fix-closure"]) == 1
    captured = capsys.readouterr()
    assert "left the file unchanged: depends_on has a cycle" in captured.err and "Traceback" not in captured.err


def test_a_nan_elsewhere_does_not_block_the_closure(tmp_path):
    path = tmp_path / "rubric.json"
    path.write_text('[{"id": "a", "description": "A", "page_mean_p": NaN}, {"id": "b", "description": "B", "depends_on": ["a"]},'
                    ' {"id": "c", "description": "C", "depends_on": ["b"]}]')
    assert fix_closure(path).rows == {"c": ["a"]}
