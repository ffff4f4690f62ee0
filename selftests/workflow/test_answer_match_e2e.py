"""answer_match end to end: the real command line against the simulator (one seam: HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.workflow.answer_match.rows import answer_row, process_row

ENV = {"JUDGE_WORKFLOW_START_JITTER": "0"}


def _instance(root: Path, rubric: list[dict], *, message: str | None = None, files: dict[str, bytes] | None = None) -> tuple[Path, Path]:
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}, ensure_ascii=False))
    (tests / "task_prompt.md").write_text("# Task\n\nA ball falls from rest. What is its acceleration?\n")
    (rollout / "logs" / "agent").mkdir(parents=True)
    if message is not None:
        (rollout / "logs" / "agent" / "final_answer.txt").write_text(message, encoding="utf-8")
    for rel, data in (files or {}).items():
        target = rollout / "app" / "output" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return tests, rollout


def test_numeric_answers_are_decided_by_code_with_zero_calls(judge_run, tmp_path):
    rubric = [answer_row("G", "9.8 m/s^2", weight=1), answer_row("H", "120 m", weight=2, rel_tol=0.01),
              answer_row("PARTS", ["(a) 3 km", "(b) 40 s"], weight=1)]
    message = "Work…\n\nFinal answer: 9.81 m·s⁻²\n"  # only G is stated: H and PARTS go to the model
    tests, rollout = _instance(tmp_path / "one", rubric, message=message)
    run = judge_run(tests, rollout, oracle={"H": {"hit": False, "level": 0}, "PARTS#a": {"hit": True, "level": 1},
                                            "PARTS#b": {"hit": True, "level": 1}}, env=ENV)
    assert run.returncode == 0, run.stderr
    assert run.verdicts["G"]["level"] == 1.0 and run.verdicts["G"]["reason"].startswith("[code, no model call]")
    assert run.model_requests == 2  # H and PARTS: one call each; G none
    assert run.reward == pytest.approx((1 * 1 + 2 * 0 + 1 * 1) / 4, abs=1e-12)

    # every answer numeric and stated: not one request reaches the endpoint
    cases = [([answer_row("PARTS", ["(a) 3 km", "(b) 40 s"])], "(a) \\boxed{3.1\\,\\mathrm{km}} … (b) \\boxed{41\\ \\text{s}}", 1.0),
             ([answer_row("H", "120 m", rel_tol=0.01)], "so h = 121 m.\n\n**Answer:** 121 m", 1.0),   # 0.83 % < 1 %
             ([answer_row("H", "120 m", rel_tol=0.01)], "Answer: 122 m", 0.0),                          # 1.7 % > 1 %
             ([answer_row("PARTS", ["(a) 3 km", "(b) 40 s"])], "Answer: (a) 3000 m; (b) 50 s", 0.5)]     # one part of two
    for n, (rubric, message, reward) in enumerate(cases):
        tests, rollout = _instance(tmp_path / f"case{n}", rubric, message=message)
        run = judge_run(tests, rollout, oracle={}, env=ENV)
        assert run.model_requests == 0 and run.doc["extra_fields"]["judge_calls"] == 0, message
        assert run.reward == reward and run.doc["extra_fields"]["judge_coverage"] == 1.0, message


def test_model_path_parts_and_process(judge_run, tmp_path):
    rubric = [answer_row("ANSWER", ["(a) v = sqrt(2 g h)", "(b) t = sqrt(2 h / g)"], weight=0.3, solution="energy…"),
              process_row("PROCESS", "Energy conservation gives v; kinematics gives t.", weight=0.7,
                          steps=["energy conservation m g h = m v^2 / 2", "solve for v", "h = g t^2 / 2 solved for t"])]
    tests, rollout = _instance(tmp_path / "i", rubric, message="v = sqrt(2gh), t = sqrt(h/g)")
    oracle = {"ANSWER#a": {"hit": True, "level": 1}, "ANSWER#b": {"hit": False, "level": 0},
              "PROCESS#s1": {"hit": True, "level": 1}, "PROCESS#s2": {"hit": True, "level": 1},
              "PROCESS#s3": {"hit": True, "level": 0.5}}
    run = judge_run(tests, rollout, oracle=oracle, env=ENV)
    assert run.returncode == 0, run.stderr
    v = run.verdicts
    assert v["ANSWER"]["level"] == 0.5 and v["ANSWER"]["hit"] is True  # one part of two: partially correct
    assert v["PROCESS"]["level"] == pytest.approx(0.85)  # mean 2.5 / 3 = 0.833 → the 21-step grid
    assert run.reward == pytest.approx((0.3 * 0.5 + 0.7 * 0.85) / 1.0, abs=1e-12)
    assert run.model_requests == 2 and run.doc["extra_fields"]["judge_calls"] == 2
    labels = sorted(e.row_ids[0] for e in run.sim.log.entries())
    assert labels == ["ANSWER#a", "PROCESS#s1"]
    audit = run.verifier / "judge" / "workflow-answer_match"
    assert audit.is_dir()


def test_all_parts_correct_is_correct_and_process_without_steps(judge_run, tmp_path):
    rubric = [answer_row("ANSWER", ["x = 2y", "a circle"], weight=1), process_row("PROCESS", "the solution", weight=1)]
    tests, rollout = _instance(tmp_path / "i", rubric, message="x = 2y and a circle")
    run = judge_run(tests, rollout, oracle={"ANSWER#a": {"hit": True, "level": 1}, "ANSWER#b": {"hit": True, "level": 1}}, env=ENV)
    assert run.verdicts["ANSWER"]["level"] == 1.0
    # the simulator's generic answer to "name the key steps" holds none: the row is unjudged, the rest scores
    p = run.verdicts["PROCESS"]
    assert p["judged"] is False and p["error_kind"] == "parse_error" and "named no key steps" in p["reason"]
    assert run.doc["extra_fields"]["judge_coverage"] == 0.5 and run.reward == 0.5


def test_empty_response_is_a_judged_miss_not_an_error(judge_run, tmp_path):
    rubric = [answer_row("ANSWER", "9.8 m/s^2"), process_row("PROCESS", "solution", steps=["a", "b", "c"])]
    # a deliverable that is not text, and no final message: the response is empty
    tests, rollout = _instance(tmp_path / "i", rubric, files={"plot.png": b"\x89PNG\r\n\x1a\n" + b"\0" * 16})
    run = judge_run(tests, rollout, oracle={}, env=ENV)
    doc = run.doc
    assert run.returncode == 0 and doc["status"] == "success" and doc["exit_code"] is None
    assert all(r["judged"] and r["hit"] is False and r["level"] == 0.0 for r in doc["results"])
    assert "empty response" in run.verdicts["ANSWER"]["reason"]
    assert run.model_requests == 0 and run.reward == 0.0 and doc["extra_fields"]["judge_coverage"] == 1.0

    # nothing at all delivered: the engine's own path (reward 0, no call, success)
    tests, rollout = _instance(tmp_path / "j", rubric)
    run = judge_run(tests, rollout, oracle={}, env=ENV)
    assert run.reward == 0.0 and run.model_requests == 0 and run.doc["extra_fields"]["delivery_missing"] is True
    assert run.doc["status"] == "success"


def test_a_later_mid_line_answer_sends_the_row_to_the_model(judge_run, tmp_path):
    """Trial 6 F4: 'Answer: 12 km' then 'Wait, I made an error. Answer: 3.5 km' states two final
    answers; code is not sure which one counts, so the model reads the whole message."""
    rubric = [answer_row("DIST", "3.5 km", weight=1)]
    message = "Answer: 12 km\nWait, I made an error. Answer: 3.5 km"
    tests, rollout = _instance(tmp_path / "corrected", rubric, message=message)
    run = judge_run(tests, rollout, oracle={"DIST": {"hit": True, "level": 1}}, env=ENV)
    assert run.returncode == 0, run.stderr
    assert run.model_requests == 1 and not run.verdicts["DIST"]["reason"].startswith("[code")
    assert run.reward == 1.0
    # the same answer said twice (a line-start and a mid-line marker) is still one clear answer
    tests, rollout = _instance(tmp_path / "repeated", rubric, message="So: answer = 3.5 km.\nAnswer: 3.5 km")
    run = judge_run(tests, rollout, oracle={}, env=ENV)
    assert run.model_requests == 0 and run.reward == 1.0


def test_an_answer_read_from_a_file_says_so_in_the_row_and_the_run_warning(judge_run, tmp_path):
    """Trial 20 P-3: no final message, the answer in a deliverable: the row still reads it (docs/answer-match.md, where
    the answer is read from), but its reason and one run warning name the file, never a silent credit."""
    tests, rollout = _instance(tmp_path / "f", [answer_row("ANSWER", "499 s")], files={"notes.md": b"Answer: 499 s\n"})
    run = judge_run(tests, rollout, oracle={}, env=ENV)
    assert run.returncode == 0, run.stderr
    row = run.verdicts["ANSWER"]
    assert row["level"] == 1.0 and "answer read from output/notes.md: no final message was given" in row["reason"], row
    said = [w for w in run.doc["details"]["warnings"] if "answer_match row ANSWER: answer read from output/notes.md" in w]
    assert len(said) == 1 and "no final message was given" in said[0], run.doc["details"]["warnings"]
    tests, rollout = _instance(tmp_path / "m", [answer_row("ANSWER", "499 s")], message="Answer: 499 s",
                               files={"notes.md": b"Answer: 3 s\n"})
    run = judge_run(tests, rollout, oracle={}, env=ENV)
    assert run.verdicts["ANSWER"]["level"] == 1.0 and "read from" not in run.verdicts["ANSWER"]["reason"]
