"""Trial 13 L4: a UTF-8 byte-order mark (PowerShell's ``Out-File -Encoding utf8``, Notepad's "UTF-8 with
BOM") made ``summarize`` count a result document ``unreadable`` ("Unexpected UTF-8 BOM") and refuse
``--instance-tags``; ``rescore`` the same document. The fleet's JSON inputs are read by one reader
(`cowork_judge._util.jsontext`) that accepts the mark at the start of a file."""

from __future__ import annotations

import json

from fleet.factory import dump, make_doc, verdicts

from cowork_judge.commands import main

UTF8_BOM = b"\xef\xbb\xbf"


def _with_bom(path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(UTF8_BOM + text.encode("utf-8"))
    return path


def test_summarize_reads_json_and_jsonl_documents_and_tags_with_a_bom(tmp_path, capsys):
    doc = json.dumps(dump(make_doc()))
    one = _with_bom(tmp_path / "a" / "result.json", doc)
    many = _with_bom(tmp_path / "docs.jsonl", doc + "\n" + json.dumps(dump(make_doc(verdicts(r1=False)))) + "\n")
    tags = _with_bom(tmp_path / "tags.json", json.dumps({"a": {"split": "dev"}}))
    out = tmp_path / "summary.json"
    code = main(["summarize", str(one), str(many), "--instance-tags", str(tags), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.splitlines()[0] == "summarize: 3 inputs: scored 3" and "BOM" not in err
    assert json.loads(out.read_text())["problems"] == []


def test_rescore_reads_a_document_with_a_bom(tmp_path, capsys):
    stored = _with_bom(tmp_path / "run" / "verifier" / "result.json", json.dumps(dump(make_doc(verdicts(r3=0.5)))))
    code = main(["rescore", str(stored), "--mode", "binary", "--threshold", "0.5"])
    out, err = capsys.readouterr()
    target = stored.with_name("result.rescored.json")
    assert code == 0, err
    assert out.strip() == str(target) and json.loads(target.read_text())["task_score"] == 1.0
