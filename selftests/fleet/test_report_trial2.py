"""Issue 39, trial 2 leftovers: ``report`` on a folder without result.json says what it expects
and where result.json usually is (and the one it found below, if any)."""

from __future__ import annotations

import json
import subprocess
import sys

from fleet.factory import make_doc, write


def report(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cowork_judge", "report", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


def test_a_logs_folder_names_the_verifier_folder_below_it(tmp_path):
    verifier = tmp_path / "trial" / "logs" / "verifier"
    write(verifier / "result.json", make_doc())
    for given in (tmp_path / "trial" / "logs", tmp_path / "trial"):
        proc = report(str(given))
        assert proc.returncode == 2
        assert proc.stderr == (f"cowork-judge report: {given} holds no result.json, but {verifier} does: "
                               f"cowork-judge report {verifier}\n"), proc.stderr
    assert json.loads((verifier / "result.json").read_text())  # untouched
    assert report(str(verifier)).returncode == 0


def test_a_verifier_folder_without_result_json_points_to_exit_message(tmp_path):
    verifier = tmp_path / "logs" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "test-stdout.txt").write_text("pip: no matching distribution\n")
    proc = report(str(verifier))
    assert proc.returncode == 2
    assert proc.stderr == (f"cowork-judge report: {verifier} holds no result.json: the judge wrote none there (a run cut "
                           f"short, or a test.sh that never ran the judge); `cowork-judge exit-message {verifier}` infers "
                           "why from its logs\n"), proc.stderr


def test_any_other_folder_says_where_result_json_usually_is(tmp_path):
    proc = report(str(tmp_path))
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith(f"cowork-judge report: {tmp_path} holds no result.json: give a run's verifier folder, "
                                  "where `cowork-judge run` writes result.json (<logs-dir>/verifier/, /logs/verifier in a "
                                  "Harbor container, <job>/<trial>/verifier/ in a Harbor job)"), proc.stderr


def test_a_result_json_that_is_a_fifo_or_a_device_is_named_as_such_not_missing(tmp_path):
    """Trial 14 F6: "holds no result.json" sent the user looking for a file that is there (a FIFO, a link to
    /dev/zero). It is named for what it is, as summarize and rescore name it; no hang."""
    import os

    fifo, device = tmp_path / "v", tmp_path / "v2"
    fifo.mkdir()
    device.mkdir()
    os.mkfifo(fifo / "result.json")
    (device / "result.json").symlink_to("/dev/zero")
    for folder, kind in ((fifo, "(a FIFO)"), (device, "(a character device, through a link)")):
        proc = report(str(folder))
        assert proc.returncode == 2, proc.stderr
        assert f"{folder / 'result.json'} is not a regular file {kind}" in proc.stderr
        assert "holds no result.json" not in proc.stderr and "Traceback" not in proc.stderr
