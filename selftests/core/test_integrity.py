"""Issue 39 item 4b: stored results are checked against what the judge wrote before they are trusted.

A real run (the real command line against the simulator) writes a sealed result; hostile edits
of it are refused by ``rescore`` and counted, never averaged, by ``summarize``; a document
written before seals is still read, with a warning.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fleet.factory import make_doc, write
from fleet.test_rescore_guard import _run

from cowork_judge.core import integrity
from cowork_judge.commands import main
from cowork_judge.core.scoring import ScoringPolicy


def _rescore(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["rescore", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_deleted_guard_block_does_not_raise_the_reward(judge_run, tmp_path, capsys):
    """The issue's case: delete the ``guard`` block of a penalized result.json, then
    ``rescore --guard penalize`` (was: reward 0 → 1.0). Refused, nothing written; also with
    the seal removed too, and for a reward.txt edited beside an intact document."""
    run = _run(judge_run, tmp_path, "penalize", gullible=True)  # a confirmed attempt: penalized
    stored = run.verifier / "result.json"
    doc = json.loads(stored.read_text())
    assert doc["task_score"] == 0.0 and doc["guard"]["penalized"]
    assert doc["integrity"]["schema"] == integrity.INTEGRITY_SCHEMA
    assert integrity.check(doc, (run.verifier / "reward.txt").read_bytes(), (run.verifier / "reward.json").read_bytes()).state == "verified"
    code, out, err = _rescore(capsys, str(stored), "--guard", "penalize")  # the intact document: reward stays 0
    assert code == 0 and json.loads(Path(out.strip()).read_text())["task_score"] == 0.0
    Path(out.strip()).unlink()

    edited = {k: v for k, v in doc.items() if k != "guard"}
    stored.write_text(json.dumps(edited, indent=2))
    code, out, err = _rescore(capsys, str(stored), "--guard", "penalize")
    assert code == 1 and out == "" and not (run.verifier / "result.rescored.json").exists()
    assert "refused: " in err and "no longer matches what the judge wrote (its integrity digest)" in err

    edited.pop("integrity")  # the seal removed as well: its judge seals every document
    stored.write_text(json.dumps(edited, indent=2))
    code, out, err = _rescore(capsys, str(stored), "--guard", "penalize")
    assert code == 1 and "the digest was removed" in err and not (run.verifier / "result.rescored.json").exists()

    stored.write_text(json.dumps(doc, indent=4))  # re-indented: the same values, the seal holds
    (run.verifier / "reward.txt").write_text("1.0\n")
    code, out, err = _rescore(capsys, str(stored))
    assert code == 1 and "reward.txt no longer matches what the judge wrote" in err


def test_summarize_counts_a_tampered_document_and_leaves_it_out(judge_run, tmp_path, capsys):
    run = _run(judge_run, tmp_path, "flag")
    job = tmp_path / "job"
    for name, reward in (("a__0000001", None), ("b__0000002", 1.0)):
        verifier = job / name / "verifier"
        verifier.mkdir(parents=True)
        for f in ("result.json", "reward.txt", "reward.json"):
            (verifier / f).write_bytes((run.verifier / f).read_bytes())
        if reward is not None:  # a consistent hand edit of the pair
            doc = json.loads((verifier / "result.json").read_text())
            doc["task_score"] = reward
            (verifier / "result.json").write_text(json.dumps(doc, indent=2))
            (verifier / "reward.txt").write_text("1.0\n")
    old = write(job / "c__0000003" / "verifier" / "result.json", make_doc())  # written before seals
    assert "integrity" not in json.loads(old.read_text())
    assert main(["summarize", str(job), "--out", str(tmp_path / "s.json"), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"]["tampered"] == 1 and summary["accounting"]["inputs"] == 3 and "tampered 1" in err
    assert summary["integrity"] == {"verified": 1, "unsealed": 1, "mismatch": 1}
    assert summary["reward"]["documents"] == 2 and summary["reward"]["mean"] == (0.5 + 1.0) / 2
    assert [(p["input"].split("/")[-3], p["class"]) for p in summary["problems"]] == [("b__0000002", "tampered")]
    assert summary["scoring"]["mixed"] is False and summary["scoring"]["policies"][0]["documents"] == 2
    assert "1 document(s) without an integrity digest" in err and "different policies" not in err
    write(job / "d__0000004" / "verifier" / "result.json", make_doc(policy=ScoringPolicy(reward_mode="binary")))
    assert main(["summarize", str(job), "--out", str(tmp_path / "s2.json"), "--draws", "0"]) == 0
    assert "scored under 2 different policies" in capsys.readouterr().err
    assert json.loads((tmp_path / "s2.json").read_text())["scoring"]["mixed"] is True
    reward = job / "a__0000001" / "verifier" / "reward.txt"  # a reward file no reader can take for one
    reward.unlink()
    os.mkfifo(reward)
    assert main(["summarize", str(job), "--out", str(tmp_path / "s3.json"), "--draws", "0"]) == 0
    capsys.readouterr()
    problems = json.loads((tmp_path / "s3.json").read_text())["problems"]
    assert [p["class"] for p in problems] == ["tampered", "tampered"] and "reward.txt beside" in problems[0]["error"]

    code, out, err = _rescore(capsys, str(old), "--threshold", "0.5")  # an older judge's document is still read
    assert code == 0 and integrity.UNSEALED_NOTE in err
    new = json.loads(Path(out.strip()).read_text())
    assert integrity.check(new).state == "verified"  # the rescored document is sealed


def test_the_seal_covers_values_not_layout():
    text = json.dumps({"schema": "x", "task_score": 0.5, "nested": {"b": 1, "a": [1.5, "é"]}}, indent=2) + "\n"
    sealed = integrity.seal(text, "0.5\n", '{"reward": 0.5}\n')
    doc = json.loads(sealed)
    assert sealed.startswith(text.rstrip()[:-1].rstrip()) and list(doc)[-1] == "integrity"
    assert integrity.check(doc, b"0.5\n", b'{"reward": 0.5}\n').state == "verified"
    assert integrity.check(json.loads(json.dumps(doc))).state == "verified"  # compact: the same values
    assert integrity.check(dict(doc, task_score=1.0)).state == "mismatch"
    assert integrity.check(doc, b"1.0\n").state == "mismatch"
    assert integrity.check(dict(doc, integrity={"schema": "forged"})).state == "mismatch"
    assert integrity.check(json.loads(integrity.seal(sealed))).state == "verified"  # sealed again: replaced, not stacked
    assert integrity.check({"schema": "x"}).state == "unsealed"
