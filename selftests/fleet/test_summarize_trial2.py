"""Issue 39, trial 2 leftovers: ``summarize --group-by`` refuses a key nothing carries, and an
``--out`` that is a folder is named as the user gave it, never as a staging file."""

from __future__ import annotations

import json
import subprocess
import sys

from fleet.test_summarize import build_job


def summarize(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", *args], capture_output=True, text=True, timeout=120)


def test_an_unknown_group_by_key_is_refused_naming_the_valid_keys(tmp_path):
    job = build_job(tmp_path)
    proc = summarize(str(job), "--out", str(tmp_path / "s.json"), "--group-by", "tag,nosuchkey", "--draws", "0")
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.splitlines()[-1]
    assert line.startswith("cowork-judge summarize: --group-by nosuchkey: no document or row carries this key; valid keys here: "
                           "class, task, status, "), line
    assert "axis" in line and "difficulty" in line and "Traceback" not in proc.stderr  # keys these documents carry
    assert not (tmp_path / "s.json").exists()
    # a key some document carries is kept, as before
    proc = summarize(str(job), "--out", str(tmp_path / "s.json"), "--group-by", "axis", "--draws", "0")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "s.json").read_text())["groups"]["axis"]


def test_a_folder_given_as_out_is_named_not_the_staging_file(tmp_path):
    job = build_job(tmp_path)
    (tmp_path / "adir").mkdir()
    for args in (("--out", str(tmp_path / "adir")), ("--out", str(tmp_path / "s.json"), "--html", str(tmp_path / "adir"))):
        proc = summarize(str(job), *args, "--force", "--draws", "0")
        assert proc.returncode == 1
        line = proc.stderr.strip()
        assert line.startswith(f"cowork-judge summarize: cannot write {tmp_path / 'adir'}: is a folder, not a file"), line
        assert "staging" not in proc.stderr and "Errno" not in proc.stderr and "\n" not in line


def test_write_file_names_the_target_when_publishing_fails(tmp_path):
    from cowork_judge.fleet.outputs import write_file

    (tmp_path / "adir").mkdir()
    try:
        write_file(tmp_path / "adir", b"{}", force=True)
    except IsADirectoryError as exc:
        assert exc.filename == str(tmp_path / "adir") and "staging" not in str(exc)
    else:
        raise AssertionError("a folder was written over")
    assert [p.name for p in tmp_path.iterdir()] == ["adir"]
