"""Issue 39, trial 3 H1/H2/L6: ``rescore --out`` never writes over the judge's own files nor
over one of its inputs (``report --out`` neither), even with ``--force``; ``rescore --rubric``
does not reuse a stored verdict for a row that now asks another question; ``rescore``'s choice
options are read the way the configuration reads them (case and spaces)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fleet.factory import RUBRIC, make_doc, write

from cowork_judge.core.layout import JUDGE_FILE_NAMES


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", *args], capture_output=True, text=True, timeout=120)


def verifier(tmp_path: Path) -> Path:
    """A verifier folder with every file the judge writes (result.json a real document)."""
    folder = tmp_path / "logs" / "verifier"
    write(folder / "result.json", make_doc())
    for name in JUDGE_FILE_NAMES[1:]:
        (folder / name).write_text(f"judge's own {name}\n")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("name", JUDGE_FILE_NAMES[1:])
def test_rescore_out_never_writes_over_a_judge_file_even_with_force(tmp_path, name):
    folder = verifier(tmp_path)
    before = snapshot(folder)
    proc = cli("rescore", str(folder / "result.json"), "--mode", "binary", "--out", str(folder / name), "--force")
    assert proc.returncode == 2, proc.stderr
    assert "is a file the judge itself writes in a verifier folder" in proc.stderr and "even with --force" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert snapshot(folder) == before and proc.stdout == ""


def test_rescore_out_never_writes_over_its_rubric_or_its_input_even_with_force(tmp_path):
    folder = verifier(tmp_path)
    rubric = tmp_path / "r2.json"
    rubric.write_text(json.dumps(RUBRIC))
    linked = tmp_path / "doc.json"  # the stored document under another name (a link)
    linked.symlink_to(folder / "result.json")
    before = snapshot(folder)
    for out in (rubric, linked):
        proc = cli("rescore", str(folder / "result.json"), "--rubric", str(rubric), "--out", str(out), "--force")
        assert proc.returncode == 2, proc.stderr
        assert "is one of the inputs" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert json.loads(rubric.read_text()) == RUBRIC and snapshot(folder) == before
    # another file with --force is still fine, and so is a result.json outside any verifier folder
    elsewhere = tmp_path / "other" / "result.json"
    elsewhere.parent.mkdir()
    proc = cli("rescore", str(folder / "result.json"), "--mode", "binary", "--out", str(elsewhere))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(elsewhere.read_text())["details"]["policy"]["reward_mode"] == "binary"


def test_report_out_never_writes_over_a_judge_file_even_with_force(tmp_path):
    folder = verifier(tmp_path)
    before = snapshot(folder)
    for name in ("reward.txt", "reward.json", "ctrf.json"):
        proc = cli("report", str(folder), "--out", str(folder / name), "--force")
        assert proc.returncode == 2, proc.stderr
        assert "is a file the judge itself writes in a verifier folder" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert snapshot(folder) == before


def rescored(tmp_path: Path, rows: list[dict]) -> tuple[subprocess.CompletedProcess[str], dict]:
    folder = tmp_path / "verifier"
    path = write(folder / "result.json", make_doc())  # every row hit, R3 at level 1, N1 missed
    rubric = tmp_path / "new.json"
    rubric.write_text(json.dumps(rows))
    proc = cli("rescore", str(path), "--rubric", str(rubric), "--out", str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads((tmp_path / "out.json").read_text())


@pytest.mark.parametrize(("edit", "what"), [
    ({"description": "contains a wrong figure"}, "description"),
    ({"description": "contains a wrong figure", "weight": -3}, "polarity positive → negative"),
    ({"hurdle": True}, "hurdle False → True"),
    ({"type": "gradient", "levels": {"0": "none", "1": "all"}}, "type binary → gradient"),
])
def test_a_row_whose_question_changed_is_no_verdict_and_named(tmp_path, edit, what):
    rows = [dict(r) for r in RUBRIC]
    rows[0].update(edit)
    proc, doc = rescored(tmp_path, rows)
    r1 = next(r for r in doc["results"] if r["id"] == "R1")
    assert r1["judged"] is False and r1["error_kind"] == "no_verdict", r1
    assert what in r1["reason"], r1["reason"]
    warning = next(w for w in doc["details"]["warnings"] if w.startswith("row 'R1' changed"))
    assert what in warning and "no_verdict" in warning
    assert "row 'R1' changed since it was judged" in proc.stderr and what in proc.stderr
    assert not any(w.startswith("row 'R2'") for w in doc["details"]["warnings"])
    assert doc["task_score"] is not None and doc["extra_fields"]["judge_coverage"] < 1


def test_a_new_level_table_is_no_verdict(tmp_path):
    rows = [dict(r) for r in RUBRIC]
    rows[2]["levels"] = {"0": "unclear", "0.4": "some", "0.6": "most", "1": "clear"}
    _, doc = rescored(tmp_path, rows)
    r3 = next(r for r in doc["results"] if r["id"] == "R3")
    assert r3["error_kind"] == "no_verdict" and "levels" in r3["reason"]


def test_a_new_weight_of_the_same_sign_keeps_the_verdict(tmp_path):
    rows = [dict(r) for r in RUBRIC]
    rows[0]["weight"], rows[3]["weight"] = 30, -7
    proc, doc = rescored(tmp_path, rows)
    assert all(r["judged"] for r in doc["results"]), doc["results"]
    assert not any(w.startswith("row ") for w in doc["details"]["warnings"])
    assert "changed since it was judged" not in proc.stderr


@pytest.mark.parametrize("args", [("--mode", "BINARY"), ("--mode", " binary "), ("--compare", "GT"),
                                  ("--unjudged-negative", "Ignore"), ("--samples-vote", "UNANIMOUS"), ("--guard", "FLAG")])
def test_rescore_choices_read_like_the_configuration(tmp_path, args):
    path = write(tmp_path / "verifier" / "result.json", make_doc())
    proc = cli("rescore", str(path), *args, "--out", str(tmp_path / "out.json"))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    if args[0] == "--mode":
        assert doc["details"]["policy"]["reward_mode"] == "binary"
    if args[0] == "--guard":
        assert doc["guard"]["mode"] == "flag"
