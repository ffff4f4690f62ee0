"""Trial 3 on ``summarize``: a batch's ``--out`` folder brings its own instance tags (M7), and a
fleet where every sampled row agreed names no "least stable row" (L9)."""

from __future__ import annotations

import json

from fleet.test_sampling_summary import _doc

from cowork_judge.commands import main


def _write(path, doc) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc.model_dump_json(by_alias=True))


def _batch_out(tmp_path):
    out = tmp_path / "b1"
    for name, grp in (("i1", "a"), ("i2", "b")):
        _write(out / name / "logs" / "verifier" / "result.json", _doc([True] * 3, [False] * 3))
    (out / "batch.json").write_text("{}")
    (out / "instance_tags.json").write_text(json.dumps({"i1": {"grp": "a"}, "i2": {"grp": "b"}}))
    return out


def test_a_batch_folder_brings_its_instance_tags(tmp_path, capsys):
    out = _batch_out(tmp_path)
    code = main(["summarize", str(out), "--out", str(tmp_path / "s.json"), "--group-by", "grp"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"instance tags read from {out / 'instance_tags.json'}" in err
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["options"]["instance_tags"]["path"] == str(out / "instance_tags.json")
    assert "grp" in json.dumps(summary["groups"])


def test_an_unknown_group_key_names_instance_tags(tmp_path, capsys):
    out = tmp_path / "docs"
    _write(out / "r1" / "verifier" / "result.json", _doc([True] * 3, [False] * 3))
    code = main(["summarize", str(out), "--out", str(tmp_path / "s.json"), "--group-by", "grp"])
    err = capsys.readouterr().err
    assert code == 2 and "--instance-tags" in err, err


def test_full_agreement_names_no_least_stable_row(tmp_path, capsys):
    out = tmp_path / "docs"
    _write(out / "r1" / "verifier" / "result.json", _doc([True] * 3, [False] * 3))
    _write(out / "r2" / "verifier" / "result.json", _doc([True] * 3, [True] * 3))
    code = main(["summarize", str(out), "--out", str(tmp_path / "s.json")])
    err = capsys.readouterr().err
    assert code == 0, err
    line = next(x for x in err.splitlines() if x.startswith("summarize: sampling:"))
    assert "least stable row" not in line and "no row disagreed" in line, line
    _write(out / "r3" / "verifier" / "result.json", _doc([True, True, False], [True] * 3))
    code = main(["summarize", str(out), "--out", str(tmp_path / "s2.json")])
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith("summarize: sampling:"))
    assert "least stable row A" in line, line
