"""A row whose gate closes at scoring (its dependency was asked in the same block and missed, or a
``depends_on`` cycle) is reported as earning nothing: ``counted_hit: false``, a ``[gate]`` reason
naming the dependency, a failed CTRF test with ``rawStatus`` ``gate closed``; the reward is the
gate formula's, unchanged (trial 3, M2 and its side note)."""

from __future__ import annotations

import json

from testkit import ROLLOUTS


def test_a_same_block_gate_and_a_cycle_are_reported_as_withheld(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    rows = [
        {"id": "A", "description": "The answer gives a number.", "weight": 2},
        {"id": "B", "description": "The answer gives a speed in km/h.", "weight": 1},
        {"id": "C", "description": "The answer gives a speed in metres.", "weight": 1, "depends_on": ["B"]},
        {"id": "D", "description": "The answer names the unit.", "weight": 1, "depends_on": ["E"]},
        {"id": "E", "description": "The answer rounds the result.", "weight": 1, "depends_on": ["D"]},
    ]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    oracle = {"A": {"hit": True}, "B": {"hit": False}, "C": {"hit": True}, "D": {"hit": False}, "E": {"hit": True}}
    run = judge_run(tests, ROLLOUTS / "chat", oracle=oracle)
    asked = {i for e in run.sim.log.entries() for i in e.row_ids}
    assert {"B", "C"} <= asked  # C was asked with its dependency (same block)
    assert run.reward == 2 / 6  # the gate formula: only A earns; C and E are hit but gated
    v = run.verdicts
    for rid, dep in (("C", "B"), ("E", "D")):
        row = v[rid]
        assert row["hit"] is True and row["gate"] == "closed" and row["contribution"] == 0.0
        assert row["counted_hit"] is False, row
        assert row["reason"].startswith("[gate]") and f"{dep} was judged and missed" in row["reason"], row["reason"]
    assert v["A"]["counted_hit"] is True and not v["A"]["reason"].startswith("[gate]")
    ctrf = {t["name"].split(":")[0]: t for t in json.loads((run.verifier / "ctrf.json").read_text())["results"]["tests"]}
    for rid in ("C", "E"):
        assert ctrf[rid]["status"] == "failed" and ctrf[rid]["rawStatus"] == "gate closed"
        assert ctrf[rid]["message"].startswith("[gate]")
    assert ctrf["A"]["status"] == "passed"
    rows_legacy = {r["rubric_number"]: r for r in run.doc["details"]["results"]}
    assert rows_legacy["C"]["gained"] == 0 and rows_legacy["C"]["justification"].startswith("[gate]")


def test_a_trajectory_that_is_not_utf8_is_warned_with_the_offset(judge_run, tmp_path):
    """Trial 3 L2: the undecodable byte is read as U+FFFD, and details.warnings names the file
    and the first bad byte's offset."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": [{"id": "A", "description": "Gives a speed.", "weight": 1}]}))
    raw = b'{"steps": [{"source": "agent", "message": "Answer: 25 m/s \xff"}]}'

    def setup(root):
        for old in (root / "logs" / "agent").iterdir():
            old.unlink()
        (root / "logs" / "agent" / "trajectory.json").write_bytes(raw)

    run = judge_run(tests, ROLLOUTS / "chat", oracle={"A": {"hit": True}}, setup=setup)
    warnings = run.doc["details"]["warnings"]
    offset = raw.index(b"\xff")
    assert any("trajectory.json is not UTF-8" in w and f"offset {offset}" in w for w in warnings), warnings
