"""Issue 39, trial 6: a folder of symbolic links to instances or trials is read like the
folders themselves by `batch` and `summarize` (F8: they were skipped without a word), and a
tag value that is a list or an object is refused by `batch`, naming the line (F3). The real
command line; answers decided by code (no model call) against the simulator on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil

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


def test_a_folder_of_links_to_instances_is_a_batch_of_those_instances(instances, tmp_path, capsys):
    linked = tmp_path / "linked"
    linked.mkdir()
    for i in (0, 1):
        (linked / f"answers-{i}").symlink_to(instances / f"answers-{i}")
    shutil.copytree(instances / "answers-2", linked / "answers-2")
    (linked / "loop").symlink_to(linked)  # a loop ends; its instances are found once, under their own names
    out = tmp_path / "runs"
    assert main(["batch", str(linked), "--out", str(out), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    assert "batch: 3 of 3 instance(s) to judge (3 new)" in err, err
    assert sorted(json.loads((out / "instance_tags.json").read_text())) == ["answers-0", "answers-1", "answers-2"]


def test_a_folder_of_links_to_trials_is_summarized_like_the_trials(instances, tmp_path, capsys):
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    trials = tmp_path / "trials"  # a fleet's trials assembled as links beside a real one
    trials.mkdir()
    shutil.copytree(out / "answers-2", trials / "answers-2")
    for i in (0, 1):
        (trials / f"answers-{i}").symlink_to(out / f"answers-{i}")
    (trials / "again").symlink_to(out / "answers-0")  # the same trial twice: read once
    assert main(["summarize", str(trials), "--out", str(tmp_path / "s.json")]) == 0
    capsys.readouterr()
    accounting = json.loads((tmp_path / "s.json").read_text())["accounting"]
    assert accounting["inputs"] == 3 and accounting["scored"] == 3, accounting


def test_one_instance_reached_twice_through_links_is_refused_naming_both(instances, tmp_path, capsys):
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "a").symlink_to(instances / "answers-0")
    (linked / "b").symlink_to(instances / "answers-0")
    assert main(["batch", str(linked), "--out", str(tmp_path / "runs"), "--draws", "0"]) == 2
    err = capsys.readouterr().err
    assert f"{linked / 'b'} and {linked / 'a'} are the same instance folder" in err, err
    assert not (tmp_path / "runs" / "a").exists()


@pytest.mark.parametrize("tags, kind", [({"d": [1, 2]}, "a list"), ({"d": {"x": 1}}, "an object")])
def test_a_tag_value_that_is_a_list_or_an_object_is_refused_naming_the_line(instances, tmp_path, capsys, tags, kind):
    listed = tmp_path / "l.jsonl"
    listed.write_text(json.dumps({"instance": str(instances / "answers-0"), "tags": {"d": "hard"}}) + "\n"
                      + json.dumps({"instance": str(instances / "answers-1"), "tags": tags}) + "\n")
    assert main(["batch", str(listed), "--out", str(tmp_path / "runs"), "--draws", "0"]) == 2
    err = capsys.readouterr().err
    assert f"{listed}:2: tag 'd' holds {kind}: a tag value is a string, number, boolean or null" in err, err
    assert not (tmp_path / "runs" / "answers-0").exists()
    # a list of 'key:value' strings under the key 'tags' (as `import` writes it) is read, as before
    listed.write_text(json.dumps({"instance": str(instances / "answers-0"), "tags": {"tags": ["topic:x"], "n": None}}) + "\n")
    assert main(["batch", str(listed), "--out", str(tmp_path / "runs"), "--draws", "0"]) == 0
    capsys.readouterr()


def test_summarize_says_which_tag_values_it_cannot_group_by(instances, tmp_path, capsys):
    """instance_tags.json written by hand (or by an older batch) with list and object values:
    summarize names them, and never lists a key as valid while refusing it."""
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    tags_file = out / "instance_tags.json"
    tags = json.loads(tags_file.read_text())
    for name, value in zip(sorted(tags), ([1, 2], [3], {"x": 1})):
        tags[name]["d"] = value
    tags_file.write_text(json.dumps(tags))
    capsys.readouterr()
    assert main(["summarize", str(out), "--out", str(tmp_path / "s.json"), "--group-by", "d", "--draws", "0"]) == 2
    err = capsys.readouterr().err
    assert ("--group-by d: 3 document(s) carry it only as a list or an object, which cannot be grouped "
            "(give each instance a string, number or boolean); valid keys here:") in err, err
    valid = err.split("valid keys here:", 1)[1].split("\n", 1)[0]
    assert " d," not in valid and not valid.rstrip().endswith(" d"), valid

    for name, value in zip(sorted(tags), ("hard", {"x": 1}, None)):
        tags[name]["d"] = value
    tags_file.write_text(json.dumps(tags))
    assert main(["summarize", str(out), "--out", str(tmp_path / "s2.json"), "--group-by", "d", "--draws", "0"]) == 0
    err = capsys.readouterr().err
    assert ("summarize: warning: --group-by d: 1 document(s) carry it as a list or an object, which cannot be grouped: "
            "counted in (none) (groups.d.not_groupable)") in err, err
    group = json.loads((tmp_path / "s2.json").read_text())["groups"]["d"]
    assert group["not_groupable"] == 1 and "hard" in json.dumps(group["documents"])


def test_a_batch_with_a_key_no_http_header_can_carry_is_refused_before_judging(instances, tmp_path, capsys, monkeypatch):
    """Trial 6 F22 in a batch: the key is named with what is wrong (never quoted), nothing is judged."""
    monkeypatch.setenv("JUDGE_API_KEY", "sk-abc\ndef-9f8e7d6c5b4a")
    assert main(["batch", str(instances), "--out", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert ("JUDGE_BASE_URL is set but JUDGE_API_KEY holds a line break at character 7 of 23, so the judge ignores it: "
            "every instance would end in judge:no_credential. Fix JUDGE_API_KEY to judge with your endpoint") in err, err
    assert "9f8e7d6c5b4a" not in err and not (tmp_path / "runs" / "answers-0").exists()
