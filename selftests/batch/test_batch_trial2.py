"""Issue 39, trial 2 leftovers: a resumed batch plans its split over what is left and says
"kept" for what it did not judge; instance folders of an earlier list are named, not counted."""

from __future__ import annotations

import json
import os

import pytest
from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import OraclePolicy, SimServer

PROBLEMS = [("3 km", "easy"), ("7 km", "hard"), ("3 km", "hard")]  # numeric answers: code decides, no model call


@pytest.fixture
def instances(tmp_path, monkeypatch, capsys):
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps({"problem_id": i, "problem": f"Problem {i}: how far?", "problem_answer": ["(a) 3 km"],
                                          "response": f"Answer: (a) {answer}", "difficulty": difficulty}) + "\n"
                              for i, (answer, difficulty) in enumerate(PROBLEMS)))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst")]) == 0
    server = SimServer(OraclePolicy.from_dict({}), api_key=SIM_KEY).start()
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0"}.items():
        monkeypatch.setenv(k, v)
    capsys.readouterr()
    yield tmp_path / "inst"
    server.stop()


def test_a_resumed_batch_splits_the_limit_over_what_is_left_and_says_kept(instances, tmp_path, capsys):
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    assert "3 run(s) x 2 call(s) in flight (limit 8)" in capsys.readouterr().err
    (out / "answers-1" / "logs" / "verifier" / "result.json").unlink()
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    # one instance left: one run with the whole limit, as a fresh batch of one would
    assert "batch: 3 instance(s): complete 1, kept 2; 1 run(s) x 8 call(s) in flight (limit 8)" in err, err
    assert "answers-0: kept (complete from an earlier run, not judged again)" in err and "skipped" not in err
    record = json.loads((out / "batch.json").read_text())
    assert record["limits"] == {"max_in_flight": 8, "jobs": 1, "per_run": 8}
    assert record["states"] == {"complete": 1, "kept": 2}


def test_folders_of_an_earlier_list_are_named_and_not_counted(instances, tmp_path, capsys):
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    two = tmp_path / "two.jsonl"
    two.write_text("".join(json.dumps(str(instances / f"answers-{i}")) + "\n" for i in (0, 1)))
    capsys.readouterr()
    assert main(["batch", str(two), "--out", str(out), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    assert (f"batch: 1 instance folder(s) in {out} from an earlier batch are not in this list and not counted in "
            "summary.json: answers-2") in err, err
    assert json.loads((out / "batch.json").read_text())["not_counted"] == ["answers-2"]
    assert json.loads((out / "summary.json").read_text())["accounting"]["inputs"] == 2
    assert main(["summarize", str(out), "--out", str(tmp_path / "s.json"), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    assert (f"summarize: warning: {out} is a batch's --out and 1 instance folder(s) in it are not in its last list "
            "(counted here, not in its summary.json): answers-2") in err, err


def test_an_out_that_is_a_regular_file_is_one_clear_line(instances, tmp_path, capsys):
    (tmp_path / "afile").write_text("mine\n")
    assert main(["batch", str(instances), "--out", str(tmp_path / "afile")]) == 2
    err = capsys.readouterr().err
    assert err == (f"cowork-judge batch: --out {tmp_path / 'afile'} exists and is not a folder: give a folder (it is made "
                   "when missing) for the instances' results and summary.json\n")
    assert (tmp_path / "afile").read_text() == "mine\n"
    assert main(["batch", str(instances), "--out", str(tmp_path / "afile" / "sub")]) == 2
    err = capsys.readouterr().err
    assert err == f"cowork-judge batch: cannot create --out {tmp_path / 'afile' / 'sub'}: Not a directory\n" and "Errno" not in err
