"""The seed's per-difficulty / per-tag / per-collection accuracy tables, out of ``summarize
--group-by`` over imported and batched reference-answer instances.

The seed script counts verdicts per group and reports ``accuracy`` (correct / total) and
``accuracy_with_partial`` ((correct + partially correct) / total). With one ANSWER row per
instance (levels 1 / 0.5 / 0) the summary's instance table gives the first as the pass rate
(reward ≥ 0.75 only when correct) and its row table the second as the hit rate (hit = level
> 0), with the mean level as the seed's mean score; a problem with several tags counts in
each (``topic:<tag>`` entries).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

import pytest
from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import OraclePolicy, SimServer

# id → (difficulty, tags, collection, outcome); every answer is numeric, so code decides it
PROBLEMS = {
    0: ("easy", ["kinematics"], "A", "correct"), 1: ("easy", ["kinematics", "energy"], "A", "correct"),
    2: ("easy", ["energy"], "B", "partially_correct"), 3: ("easy", ["optics"], "B", "incorrect"),
    4: ("medium", ["kinematics"], "A", "correct"), 5: ("medium", ["energy", "optics"], "A", "partially_correct"),
    6: ("medium", ["optics"], "B", "partially_correct"), 7: ("hard", ["energy"], "A", "incorrect"),
    8: ("hard", ["kinematics", "optics"], "B", "correct"), 9: ("hard", ["energy"], "B", "incorrect"),
    10: ("hard", ["kinematics"], "A", "incorrect"), 11: ("hard", ["optics"], "B", "partially_correct"),
}
RESPONSES = {"correct": "Answer: (a) 3.02 km; (b) 40 s", "partially_correct": "Answer: (a) 3 km; (b) 55 s",
             "incorrect": "Answer: (a) 7 km; (b) 90 s"}
SCORE = {"correct": 1.0, "partially_correct": 0.5, "incorrect": 0.0}


def seed_tables() -> dict[str, dict[str, dict[str, float]]]:
    """What the seed script's summary computes, by hand from the table above."""
    groups: dict[str, dict[str, list[str]]] = {"difficulty": defaultdict(list), "topic": defaultdict(list),
                                                "collection": defaultdict(list)}
    for difficulty, tags, collection, outcome in PROBLEMS.values():
        groups["difficulty"][difficulty].append(outcome)
        groups["collection"][collection].append(outcome)
        for tag in tags:
            groups["topic"][tag].append(outcome)
    return {name: {key: {"total": len(v), "accuracy": v.count("correct") / len(v),
                         "accuracy_with_partial": (v.count("correct") + v.count("partially_correct")) / len(v),
                         "mean_score": sum(SCORE[o] for o in v) / len(v)} for key, v in table.items()}
            for name, table in groups.items()}


def test_seed_accuracy_tables_from_summarize(tmp_path, monkeypatch, capsys):
    source = tmp_path / "problems.jsonl"
    source.write_text("".join(json.dumps({
        "problem_id": i, "problem": f"Problem {i}: how far, and how long?", "problem_answer": ["(a) 3 km", "(b) 40 s"],
        "response": RESPONSES[outcome], "difficulty": difficulty, "problem_tags": tags, "collection": collection,
        "verdict": outcome}) + "\n" for i, (difficulty, tags, collection, outcome) in PROBLEMS.items()))
    assert main(["import", "answers", str(source), "--out", str(tmp_path / "inst")]) == 0
    server = SimServer(OraclePolicy.from_dict({}), api_key=SIM_KEY).start()
    try:
        for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
            monkeypatch.delenv(k)
        for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0"}.items():
            monkeypatch.setenv(k, v)
        assert main(["batch", str(tmp_path / "inst"), "--out", str(tmp_path / "runs"), "--max-in-flight", "4",
                     "--group-by", "difficulty,topic,collection", "--draws", "0"]) == 0
        assert len(server.log) == 0  # every answer was decided by code
    finally:
        server.stop()
    capsys.readouterr()
    summary = json.loads((tmp_path / "runs" / "summary.json").read_text())
    assert summary["accounting"]["scored"] == len(PROBLEMS)
    for name, table in seed_tables().items():
        docs, rows = summary["groups"][name]["documents"], summary["groups"][name]["rows"]
        assert set(docs) == set(table) == set(rows), name
        for key, want in table.items():
            assert docs[key]["documents"] == rows[key]["rows"] == want["total"], (name, key)
            assert docs[key]["pass_rate"] == pytest.approx(want["accuracy"]), (name, key)
            assert rows[key]["hit_rate"] == pytest.approx(want["accuracy_with_partial"]), (name, key)
            assert rows[key]["level_mean"] == pytest.approx(want["mean_score"]) == docs[key]["reward_mean"], (name, key)
    # the same tables from a plain `summarize` of the batch folder with its instance tags
    assert main(["summarize", str(tmp_path / "runs"), "--out", str(tmp_path / "again.json"), "--draws", "0",
                 "--group-by", "difficulty,topic,collection", "--instance-tags", str(tmp_path / "runs" / "instance_tags.json")]) == 0
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["groups"] == summary["groups"]
