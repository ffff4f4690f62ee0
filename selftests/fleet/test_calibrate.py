"""``cowork-judge calibrate`` proven with the simulator: a judge flipping a known fraction of the
human labels (DevAI and PaperBench fixtures) shows the agreement that fraction implies, within
its interval; a judge flipping none agrees exactly; reading stored results gives the same report."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from testkit import FIXTURES, SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import FlipPolicy, OraclePolicy, RoutedPolicy

RATE, SEED = 0.3, 1


def implied(rate: float, pi: float) -> tuple[float, float]:
    """(accuracy, κ) of a judge flipping each label with probability `rate`, human hit rate `pi`."""
    judge = pi * (1 - rate) + (1 - pi) * rate
    p_o, p_e = 1 - rate, pi * judge + (1 - pi) * (1 - judge)
    return p_o, (p_o - p_e) / (1 - p_e)


def _import(root: Path, paperbench_only: bool = False) -> Path:
    tasks, files = root / "tasks", root / "files"
    names = [] if paperbench_only else [p.stem for p in (FIXTURES / "devai" / "instances").glob("*.json")]
    names += [p.stem for p in (FIXTURES / "paperbench").glob("*.json")]
    for name in names:  # a stand-in workspace: the simulator answers from the labels, not from files
        (files / name).mkdir(parents=True)
        (files / name / "README.md").write_text(f"work of {name}\n")
    if not paperbench_only:
        assert main(["import", "devai", str(FIXTURES / "devai" / "instances"), "--out", str(tasks), "--labels",
                     str(FIXTURES / "devai" / "human_labels"), "--deliverables", str(files)]) == 0
    assert main(["import", "paperbench", str(FIXTURES / "paperbench"), "--out", str(tasks), "--with-labels",
                 "--deliverables", str(files)]) == 0
    return tasks


def _server(tasks: Path, rate: float) -> SimServer:
    routes = []
    for n, inst in enumerate(sorted(tasks.iterdir())):
        marker = (inst / "tests" / "task_prompt.md").read_text().splitlines()[0]  # "# Task: <name>"
        routes.append((marker, FlipPolicy(OraclePolicy.from_dict(json.loads((inst / "oracle.json").read_text())), rate,
                                          seed=SEED * 1000 + n)))
    return SimServer(RoutedPolicy(routes), api_key=SIM_KEY).start()


def _env(monkeypatch, server: SimServer) -> None:
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim-judge", "JUDGE_EVIDENCE": "0",
                 "JUDGE_BATCH": "40"}.items():
        monkeypatch.setenv(k, v)


@pytest.fixture(scope="module")
def flipped(tmp_path_factory):
    """DevAI + PaperBench judged once against a simulator flipping 30 % of the labels."""
    root = tmp_path_factory.mktemp("calibrate")
    mp = pytest.MonkeyPatch()
    tasks = _import(root)
    server = _server(tasks, RATE)
    try:
        _env(mp, server)
        code = main(["calibrate", str(tasks), "--out", str(root / "runs"), "--report", str(root / "report.json"),
                     "--seed", str(SEED), "--draws", "1000", "--max-in-flight", "8"])
        requests = len(server.log)
    finally:
        server.stop()
        mp.undo()
    assert code == 0
    return root, tasks, json.loads((root / "report.json").read_text()), requests


def test_a_known_flip_rate_gives_the_agreement_it_implies(flipped):
    _, _, doc, requests = flipped
    a = doc["agreement"]
    assert doc["instances"]["calibrated"] == 22 and a["n"] == 122 + 79 + 116 - 1 and doc["rows"]["unjudged"] == 0
    # - 1: task 13's label R02 names another requirement ("pre-trained VGG16" against the task's "Perceptual
    # loss model"): dropped at import (issue 25 item 5), so 316 of its 317 labels pair
    assert requests > 0
    accuracy, kappa = implied(RATE, a["human_hit_rate"])
    assert a["accuracy_ci"][0] <= accuracy <= a["accuracy_ci"][1]
    assert a["kappa_ci"][0] <= kappa <= a["kappa_ci"][1]
    assert a["recall_ci"][0] <= 1 - RATE <= a["recall_ci"][1]
    assert 0.0 < doc["reward"]["mae"] and doc["reward"]["mae_ci"][0] > 0  # disagreement moves rewards
    assert set(doc["tags"]) >= {"Dataset or Environment", "Code Development", "Result Analysis"}
    assert sum(t["n"] for t in doc["tags"].values()) == a["n"]


def test_reading_stored_results_gives_the_same_report(flipped, tmp_path, capsys):
    root, tasks, doc, _ = flipped
    labels = tmp_path / "labels"
    labels.mkdir()
    for inst in tasks.iterdir():  # labels kept apart from the instances, one <name>.json each
        shutil.copyfile(inst / "oracle.json", labels / f"{inst.name}.json")
    assert main(["calibrate", str(tasks), "--results", str(root / "runs"), "--labels", str(labels),
                 "--report", str(tmp_path / "again.json"), "--seed", str(SEED)]) == 0
    assert json.loads((tmp_path / "again.json").read_text()) == doc
    out, err = capsys.readouterr()
    assert out.strip() == str(tmp_path / "again.json")
    assert err.startswith("calibrate: 316 row pairs over 22 instance(s): accuracy")


def test_no_flip_agrees_exactly_and_reproduces_paperbench(tmp_path, monkeypatch):
    tasks = _import(tmp_path, paperbench_only=True)
    server = _server(tasks, 0.0)
    try:
        _env(monkeypatch, server)
        assert main(["calibrate", str(tasks), "--out", str(tmp_path / "runs"), "--report", str(tmp_path / "r.json"),
                     "--draws", "200"]) == 0
    finally:
        server.stop()
    doc = json.loads((tmp_path / "r.json").read_text())
    a, r = doc["agreement"], doc["reward"]
    assert (a["accuracy"], a["kappa"], a["f1"]) == (1.0, 1.0, 1.0)
    # two trees are two clusters: too few for an interval (issue 25 item 6), and the report says so
    assert a["accuracy_ci"] is None and a["clusters"] == 2 and "fewer than the minimum of 5" in a["ci_note"]
    assert r["mae"] == pytest.approx(0.0, abs=1e-12) and r["spearman"] == 1.0
    for line in doc["per_instance"]:  # the judge's reward is the stored root score of the tree
        tree = json.loads((FIXTURES / "paperbench" / f"{line['name']}.json").read_text())
        assert abs(line["judge_reward"] - tree["score"]) < 1e-9 and abs(line["human_reward"] - tree["score"]) < 1e-9


def test_usage_errors(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path), "--report", str(tmp_path / "r.json")]) == 2
    assert "one of the arguments --results --out is required" in capsys.readouterr().err
    (tmp_path / "r.json").write_text("{}")
    assert main(["calibrate", str(tmp_path), "--results", str(tmp_path), "--report", str(tmp_path / "r.json")]) == 1
    assert "exists (use --force to overwrite)" in capsys.readouterr().err
    assert main(["calibrate", str(tmp_path / "none"), "--results", str(tmp_path), "--report", str(tmp_path / "s.json")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
