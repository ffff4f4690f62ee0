"""Issue 25: public data as it really is (items 8-10), calibrate's exclusions and label checks
(items 4-7), and hostile inputs (items 13-21) — each a clear error or an unreadable line,
never a traceback, a hang or a kept wrong number."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testkit import FIXTURES, SIM_KEY

from cowork_judge.commands import main
from cowork_judge.core.fold import RunFacts, RunIdentity, fold
from cowork_judge.core.rubric import load_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict
from cowork_judge.fleet.calibrate import Label, calibrate_instance, report
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OracleDirPolicy

QUIRKS = FIXTURES / "devai" / "quirks"
HB = FIXTURES / "healthbench"
ID = RunIdentity(metric_id="m", requested_version=None, version_source="package", judge_backend="openai", judge_model="x")


def _judge_env(monkeypatch, server: SimServer) -> None:
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_MODEL": "sim-judge", "JUDGE_EVIDENCE": "0",
                 "JUDGE_BATCH": "40", "JUDGE_SEND_INSTANCE_ID": "1"}.items():
        monkeypatch.setenv(k, v)


def _write_result(folder: Path, doc) -> Path:
    verifier = folder / "logs" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "result.json").write_text(json.dumps(doc.model_dump(mode="json", by_alias=True)))
    (verifier / "reward.txt").write_text(f"{doc.task_score}\n")
    return verifier / "result.json"


# --------------------------------------------------------------------------- public data


def test_devai_45_imports_with_its_self_prerequisite_dropped_and_scores_like_its_reference(tmp_path, capsys, monkeypatch):
    """Item 8: ``R03 → R03`` (and ``R04 → R04``) is dropped with a warning kept in instance.json; a real
    cycle stays an error; judged against its human labels the instance scores like them."""
    files = tmp_path / "files" / "45_Product_Recommendation_MatrixFactorization_AmazonReviews_ML"
    files.mkdir(parents=True)
    (files / "README.md").write_text("work\n")
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(QUIRKS / "instances" / "45_Product_Recommendation_MatrixFactorization_AmazonReviews_ML.json", src)
    assert main(["import", "devai", str(src), "--out", str(tmp_path / "tasks"), "--labels", str(QUIRKS / "human_labels"),
                 "--deliverables", str(tmp_path / "files")]) == 0
    err = capsys.readouterr().err
    assert "R03 lists itself as a prerequisite" in err and "1 instance(s) written" in err
    inst = tmp_path / "tasks" / "45_Product_Recommendation_MatrixFactorization_AmazonReviews_ML"
    meta = json.loads((inst / "instance.json").read_text())
    assert any("R03 lists itself" in w for w in meta["warnings"]) and any("R04 lists itself" in w for w in meta["warnings"])
    rows = {r["id"]: r for r in json.loads((inst / "tests" / "rubric.json").read_text())["rubrics"]}
    assert rows["R03"]["depends_on"] == ["R00", "R02"] and "R04" not in rows["R04"]["depends_on"]

    server = SimServer(OracleDirPolicy(tmp_path / "tasks"), api_key=SIM_KEY).start()  # <name>/oracle.json per instance
    try:
        _judge_env(monkeypatch, server)
        assert main(["calibrate", str(tmp_path / "tasks"), "--out", str(tmp_path / "runs"), "--report",
                     str(tmp_path / "cal.json"), "--draws", "0"]) == 0
    finally:
        server.stop()
    line = json.loads((tmp_path / "cal.json").read_text())["per_instance"][0]
    assert line["agreement"] == 1.0 and line["judge_reward"] == pytest.approx(line["human_reward"])
    assert line["pairs"] == 6

    task = json.loads((QUIRKS / "instances" / f"{files.name}.json").read_text())
    task["requirements"][0]["prerequisites"] = [1]  # R00 → R01 → R00: a real cycle
    (src / f"{files.name}.json").write_text(json.dumps(task))
    assert main(["import", "devai", str(src), "--out", str(tmp_path / "again")]) == 1
    assert "prerequisite cycle: R00 -> R01 -> R00" in capsys.readouterr().err


def test_devai_52_labels_are_matched_by_id_and_text(tmp_path, capsys):
    """Item 5: task 52 has 4 requirements and 5 labels with shifted texts: only labels whose text is
    their requirement's are kept; each dropped one is named with both texts."""
    assert main(["import", "devai", str(QUIRKS / "instances" / "52_Devin_AI_Trains_an_AI.json"), "--out", str(tmp_path / "t"),
                 "--labels", str(QUIRKS / "human_labels")]) == 0
    err = capsys.readouterr().err
    oracle = json.loads((tmp_path / "t" / "52_Devin_AI_Trains_an_AI" / "oracle.json").read_text())
    assert oracle == {}  # the labels were written for another version of the task: not one text is its row's
    assert "label R00 dropped: its text 'The instructions in the repository" in err
    assert "label R03 dropped: its text 'The finetuning process is completed" in err  # R02's text, shifted by one
    assert "label R04 dropped: the task has no requirement R04" in err
    meta = json.loads((tmp_path / "t" / "52_Devin_AI_Trains_an_AI" / "instance.json").read_text())
    assert len(meta["warnings"]) == 5


def test_calibrate_drops_a_label_whose_text_is_another_rows():
    rows = load_rubric_rows([{"id": "R00", "description": "The data is loaded.", "weight": 1},
                             {"id": "R01", "description": "The model is trained.", "weight": 1}])
    doc = _doc(rows, {"R00": True, "R01": True})
    one = calibrate_instance("x", doc, {"R00": Label(True, criterion="the DATA is `loaded`"),
                                        "R01": Label(False, criterion="A report is written.")})
    assert one.confusion.n == 1 and len(one.text_mismatches) == 1 and "'A report is written.'" in one.text_mismatches[0]


def load_rubric_rows(rows):
    from cowork_judge.core.rubric import normalize_rubric

    return normalize_rubric(rows).criteria


def _doc(criteria, hits, **facts):
    verdicts = {c.id: Verdict(id=c.id, hit=h, judged=True, reason="r", method="agentic") for c, h in
                ((c, hits[c.id]) for c in criteria)}
    return fold(criteria, verdicts, ScoringPolicy(), RunFacts(identity=ID, **facts))


def test_healthbench_without_ideal_completion_is_counted_apart_or_skipped(tmp_path, capsys):
    """Item 9: 3 of the 10 fixtures have no ideal completion: said at import, or skipped by flag."""
    assert main(["import", "healthbench", str(HB), "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "10 instance(s) written" in err and "3 without a response (nothing delivered" in err
    without = [p for p in (tmp_path / "a").iterdir() if not (p / "rollout" / "logs" / "agent" / "trajectory.json").exists()]
    assert len(without) == 3 and all(json.loads((p / "instance.json").read_text())["warnings"] for p in without)
    assert main(["import", "healthbench", str(HB), "--out", str(tmp_path / "b"), "--no-ideal", "skip"]) == 0
    err = capsys.readouterr().err
    assert "7 instance(s) written" in err and "3 skipped (no ideal completion)" in err and err.count(": skipped: ") == 3


def test_summarize_offers_healthbench_aggregate_beside_ours(tmp_path, capsys):
    """Item 10: simple-evals clips the MEAN of unclipped scores; the summary gives that beside the
    mean of clipped rewards, from the score_raw every document stores."""
    assert main(["import", "healthbench", str(HB), "--out", str(tmp_path / "t"), "--response", "none"]) == 0
    capsys.readouterr()
    raws, rewards = [], []
    for n, inst in enumerate(sorted((tmp_path / "t").iterdir())):
        criteria = load_rubric(inst / "tests" / "rubric.json").criteria
        hits = {c.id: (c.weight < 0) if n % 2 else (c.weight > 0 and i % 3 == 0) for i, c in enumerate(criteria)}
        doc = _doc(criteria, hits)
        raws.append(doc.score_raw)
        rewards.append(doc.task_score)
        _write_result(tmp_path / "runs" / inst.name, doc)
    assert min(raws) < 0  # examples whose negative criteria all hit score below 0
    assert main(["summarize", str(tmp_path / "runs"), "--out", str(tmp_path / "s.json"), "--draws", "0"]) == 0
    reward = json.loads((tmp_path / "s.json").read_text())["reward"]
    agg = reward["benchmark_aggregate"]
    assert agg["documents"] == 10 and agg["raw_mean"] == pytest.approx(sum(raws) / 10)
    assert agg["clipped_raw_mean"] == pytest.approx(min(1, max(0, sum(raws) / 10)))
    assert reward["mean"] == pytest.approx(sum(rewards) / 10) and reward["mean"] != pytest.approx(agg["clipped_raw_mean"])


# --------------------------------------------------------------------------- calibrate


def test_calibrate_without_deliverables_exits_non_zero_with_the_reason(tmp_path, capsys, monkeypatch):
    """Item 4 as reported: the README's DevAI example without --deliverables, a perfect judge."""
    src = tmp_path / "src"
    src.mkdir()
    for p in sorted((FIXTURES / "devai" / "instances").glob("*.json"))[:3]:
        shutil.copy(p, src)
    assert main(["import", "devai", str(src), "--out", str(tmp_path / "tasks"), "--labels",
                 str(FIXTURES / "devai" / "human_labels")]) == 0
    server = SimServer(OracleDirPolicy(tmp_path / "tasks"), api_key=SIM_KEY).start()
    try:
        _judge_env(monkeypatch, server)
        capsys.readouterr()
        code = main(["calibrate", str(tmp_path / "tasks"), "--out", str(tmp_path / "runs"), "--report", str(tmp_path / "c.json")])
        requests = len(server.log)
    finally:
        server.stop()
    err = capsys.readouterr().err
    assert code == 1 and requests == 0 and not (tmp_path / "c.json").exists()
    assert "nothing to calibrate" in err and "3 with nothing delivered" in err and err.count("nothing delivered (no files") == 3


def test_calibrate_with_labels_naming_no_row_exits_non_zero(tmp_path, capsys):
    rows = load_rubric_rows([{"id": "A", "description": "a", "weight": 1}])
    out = tmp_path / "runs" / "x"
    _write_result(out, _doc(rows, {"A": True}))
    tests = tmp_path / "inst" / "x" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [{"id": "A", "description": "a", "weight": 1}]}))
    (tmp_path / "inst" / "x" / "oracle.json").write_text(json.dumps({"Z1": {"hit": True}, "Z2": {"hit": False}}))
    assert main(["calibrate", str(tmp_path / "inst"), "--results", str(tmp_path / "runs"),
                 "--report", str(tmp_path / "c.json")]) == 1
    err = capsys.readouterr().err
    assert "none of its 2 label(s) names a row" in err and "1 whose labels name no row" in err and "MAE" not in err


def test_intervals_need_enough_clusters_and_report_their_count():
    """Item 6: a tag drawn from 2 instances gets no interval (reason given); every interval has its count."""
    rows = load_rubric_rows([{"id": "A", "description": "a", "weight": 1, "tag": "common"},
                             {"id": "B", "description": "b", "weight": 1, "tag": "rare"}])
    insts = []
    for n in range(8):
        doc = _doc(rows, {"A": n % 2 == 0, "B": True})
        labels = {"A": Label(n % 3 == 0)} | ({"B": Label(True)} if n < 2 else {})
        insts.append(calibrate_instance(f"i{n}", doc, labels))
    doc = report(insts, draws=200, seed=1)
    assert doc["tags"]["common"]["clusters"] == 8 and doc["tags"]["common"]["accuracy_ci"] is not None
    assert doc["tags"]["rare"]["clusters"] == 2 and doc["tags"]["rare"]["accuracy_ci"] is None
    assert "2 instance(s) contribute, fewer than the minimum of 5" in doc["tags"]["rare"]["ci_note"]
    # trial 10 F2: only the 2 fully labelled instances have a human reward
    assert doc["agreement"]["clusters"] == 8 and doc["reward"]["clusters"] == 2 and doc["options"]["min_clusters"] == 5


def test_out_of_range_reward_is_invalid_not_summarized(tmp_path, capsys):
    """Item 7: task_score −3 is not a reward: the document is invalid, the mean is the others'."""
    rows = load_rubric_rows([{"id": "A", "description": "a", "weight": 1}])
    _write_result(tmp_path / "runs" / "good", _doc(rows, {"A": True}))
    bad = _doc(rows, {"A": True}).model_dump(mode="json", by_alias=True)
    bad["task_score"] = -3
    (tmp_path / "runs" / "bad" / "logs" / "verifier").mkdir(parents=True)
    (tmp_path / "runs" / "bad" / "logs" / "verifier" / "result.json").write_text(json.dumps(bad))
    assert main(["summarize", str(tmp_path / "runs"), "--out", str(tmp_path / "s.json"), "--draws", "50"]) == 0
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"]["invalid"] == 1 and summary["reward"]["mean"] == 1.0
    assert "task_score -3 is outside [0, 1]" in json.dumps(summary["problems"])


# --------------------------------------------------------------------------- hostile inputs


SURROGATE = "\\ud83d"  # as a JSON escape: json.loads gives a lone surrogate


@pytest.mark.parametrize("fmt", ["healthbench", "devai", "answers"])
def test_a_lone_surrogate_is_a_clear_error(tmp_path, capsys, fmt):
    """Item 13."""
    if fmt == "healthbench":
        text = (HB / "example_02.json").read_text().replace('"criterion": "', f'"criterion": "{SURROGATE} ', 1)
        name = "ex.json"
    elif fmt == "devai":
        text = (FIXTURES / "devai" / "instances" / "01_Image_Classification_ResNet18_Fashion_MNIST_DL.json").read_text()
        text = text.replace('"query": "', f'"query": "{SURROGATE}', 1)
        name = "task.json"
    else:
        text = json.dumps({"id": 1, "question": "q", "reference_answer": "4", "response": "x"}).replace('"x"', f'"{SURROGATE}"')
        name = "p.jsonl"
    assert SURROGATE in text
    (tmp_path / name).write_text(text)
    assert main(["import", fmt, str(tmp_path / name), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "lone surrogate (U+D83D)" in err and "Traceback" not in err and "0 instance(s) written" in err
    assert not any(p for p in (tmp_path / "out").glob("*") if not p.name.startswith(".")) if (tmp_path / "out").exists() else True


def test_a_paperbench_tree_nested_5000_deep_is_a_clear_error(tmp_path, capsys):
    """Item 14 (and a 100-deep tree that parses, beyond the depth cap)."""
    for depth, needle in ((5000, "nested too deeply"), (100, "nested deeper than 64 levels")):
        node: dict = {"id": "leaf", "requirements": "r", "weight": 1, "score": 1}
        for n in range(depth):
            node = {"id": f"n{n}", "requirements": "r", "weight": 1, "sub_tasks": [node]}
        (tmp_path / "tree.json").write_text(json.dumps(node) if depth < 900 else _deep_json(depth))
        assert main(["import", "paperbench", str(tmp_path / "tree.json"), "--out", str(tmp_path / f"out{depth}")]) == 1
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err


def _deep_json(depth: int) -> str:
    return '{"id": "n", "weight": 1, "sub_tasks": [' * depth + '{"id": "leaf", "score": 1}' + "]}" * depth


def _hostile_runs(tmp_path: Path) -> Path:
    """Two good results and one hostile one (a 100,000-deep JSON) under runs/."""
    rows = load_rubric_rows([{"id": "A", "description": "a", "weight": 1}])
    for name in ("a", "b"):
        _write_result(tmp_path / "runs" / name, _doc(rows, {"A": name == "a"}))
    deep = tmp_path / "runs" / "deep" / "logs" / "verifier"
    deep.mkdir(parents=True)
    (deep / "result.json").write_text('{"a": ' * 100_000 + "1" + "}" * 100_000)
    return tmp_path / "runs"


def test_deeply_nested_result_is_one_unreadable_line(tmp_path, capsys):
    """Item 15: summarize keeps going; rescore and report say unreadable."""
    runs = _hostile_runs(tmp_path)
    assert main(["summarize", str(runs), "--out", str(tmp_path / "s.json"), "--draws", "0"]) == 0
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"]["unreadable"] == 1 and summary["accounting"]["scored"] == 2
    assert "nested too deeply" in json.dumps(summary["problems"])
    deep = runs / "deep" / "logs" / "verifier"
    assert main(["rescore", str(deep / "result.json"), "--out", str(tmp_path / "r.json")]) == 1
    assert main(["report", str(deep), "--out", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("nested too deeply") == 3 and "Traceback" not in err  # summarize names it on stderr too


def test_a_fifo_named_result_json_does_not_hang(tmp_path):
    """Item 16: summarize, rescore and report (real processes, under a timeout) read around it."""
    runs = _hostile_runs(tmp_path)
    shutil.rmtree(runs / "deep")
    fifo = runs / "pipe" / "logs" / "verifier"
    fifo.mkdir(parents=True)
    os.mkfifo(fifo / "result.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    for args, code in ((["summarize", str(runs), "--out", str(tmp_path / "s.json"), "--draws", "0"], 0),
                       (["rescore", str(fifo / "result.json"), "--out", str(tmp_path / "r.json")], 2),
                       (["report", str(fifo), "--out", str(tmp_path / "r.html")], 2)):
        done = subprocess.run([sys.executable, "-m", "cowork_judge", *args], env=env, capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == code, (args, done.stderr)
        assert "Traceback" not in done.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["accounting"]["unreadable"] == 1 and "not a regular file (a FIFO)" in json.dumps(summary["problems"])


def test_healthbench_nan_points_are_refused(tmp_path, capsys):
    """Item 17: no folder is written with ``"weight": NaN``."""
    text = (HB / "example_02.json").read_text()
    doc = json.loads(text)
    doc["rubrics"][1]["points"] = float("nan")
    (tmp_path / "ex.json").write_text(json.dumps(doc))
    assert main(["import", "healthbench", str(tmp_path / "ex.json"), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "rubric 2: 'points' is nan, not a finite number" in err and "0 instance(s) written" in err


@pytest.mark.parametrize("value", [None, "", "  ", []])
def test_answers_without_a_reference_answer_are_refused(tmp_path, capsys, value):
    """Item 18."""
    (tmp_path / "p.jsonl").write_text(json.dumps({"id": 1, "question": "q", "reference_answer": value,
                                                  "reference_solution": "s", "response": "r"}) + "\n")
    assert main(["import", "answers", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "there is no reference answer to compare the response with" in err and "0 instance(s) written" in err


def test_config_masks_secrets_in_the_base_url(capsys, monkeypatch):
    """Item 20."""
    for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("JUDGE_BASE_URL", "https://alice:pa55-w0rd-x@gw.example/v1?token=t0k3n-abc&api-version=2024")
    for args in ([], ["--json"]):
        assert main(["config", *args]) == 0
        out = capsys.readouterr().out
        assert "pa55-w0rd-x" not in out and "t0k3n-abc" not in out and "alice" not in out
        assert "https://***@gw.example/v1?token=***&api-version=2024" in out


def test_a_20_mb_reply_and_a_30_mb_reason_are_capped_keeping_head_and_tail(tmp_path):
    """Item 21: the audit copy and the HTML report keep both ends and say how much was cut."""
    from cowork_judge.fleet.job import load_job
    from cowork_judge.fleet.report import render_report
    from cowork_judge.safety.redact import Redactor
    from cowork_judge.segment.audit import AUDIT_TEXT_CAP_CHARS, AuditLog

    reply = "HEAD-" + "x" * 20_000_000 + "-TAIL"
    audit = AuditLog(tmp_path / "judge", Redactor())
    audit.append("block-01/turns", {"reply": reply, "parsed": [{"reason": reply}]})
    audit.write_json("block-01/verdicts", {"A": {"reason": reply}})
    size = sum(p.stat().st_size for p in (tmp_path / "judge").rglob("*") if p.is_file())
    assert size < 3.2 * AUDIT_TEXT_CAP_CHARS
    text = (tmp_path / "judge" / "block-01" / "turns.jsonl").read_text()
    assert "HEAD-" in text and "-TAIL" in text and "of 20000010 characters cut]" in text

    rows = load_rubric_rows([{"id": "A", "description": "a", "weight": 1}])
    doc = _doc(rows, {"A": True}).model_dump(mode="json", by_alias=True)
    doc["results"][0]["reason"] = "START " + "y" * 30_000_000 + " END"
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "result.json").write_text(json.dumps(doc))
    html = render_report(load_job(tmp_path / "v"))
    assert len(html) < 1_000_000 and "START" in html and "END" in html and "characters cut]" in html
