"""``cowork-judge import``: public formats → instances that lint clean; labels as oracle files;
round trips (PaperBench root score to 1e-9, HealthBench's per-example formula) through the
real command line against the simulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.authoring.importers import devai, healthbench, paperbench
from cowork_judge.commands import main
from cowork_judge.lint.instance import lint_instance

PB_ENV = {"JUDGE_BATCH": "40", "JUDGE_CONCURRENCY": "4"}


def _import(capsys, *argv: str) -> tuple[int, list[Path], str]:
    code = main(["import", *argv])
    captured = capsys.readouterr()
    return code, [Path(line) for line in captured.out.splitlines()], captured.err


def _oracle(instance: Path) -> dict:
    return json.loads((instance / "oracle.json").read_text())


def _deliverables(root: Path, names: list[str]) -> Path:
    for name in names:
        (root / name / "src").mkdir(parents=True)
        (root / name / "src" / "main.py").write_text("print('the agent's work')\n")
    return root


def test_fixtures_import_lint_clean(fixtures_dir, tmp_path, capsys):
    code, made, err = _import(capsys, "healthbench", str(fixtures_dir / "healthbench"), "--out", str(tmp_path / "hb"))
    # one measured false positive each of the row-wording WARNs (trial 22 P-1; test_real_rubrics.py names them)
    assert code == 0 and len(made) == 10 and "lint: 0 error(s), 1 warning(s)" in err
    code, pb, err = _import(capsys, "paperbench", str(fixtures_dir / "paperbench"), "--out", str(tmp_path / "pb"), "--with-labels")
    assert code == 0 and len(pb) == 2 and "(2 with labels)" in err and "lint: 0 error(s), 1 warning(s)" in err
    code, dv, err = _import(capsys, "devai", str(fixtures_dir / "devai" / "instances"), "--out", str(tmp_path / "dv"),
                            "--labels", str(fixtures_dir / "devai" / "human_labels"))
    assert code == 0 and len(dv) == 20 and "(20 with labels)" in err and "lint: 0 error(s), 0 warning(s)" in err
    for instance in made + pb + dv:  # every file a Harbor task and the judge need
        assert [f.code for f in lint_instance(instance / "tests").findings if f.code not in ("R026", "R027")] == []
        for rel in ("instruction.md", "task.toml", "instance.json", "tests/rubric.json", "tests/task_prompt.md",
                    "tests/judge_instruction.md", "tests/test.sh"):
            assert (instance / rel).is_file(), (instance, rel)
    # HealthBench: the rollout is the physician-written ideal completion, when the example has one
    with_ideal = [m for m in made if (m / "rollout/logs/agent/trajectory.json").is_file()]
    assert len(with_ideal) == 7
    # the example instance shipped with the repository is exactly what the importer writes
    example = next(m for m in made if m.name == "healthbench-bbd759b4")
    shipped = Path(__file__).resolve().parents[2] / "examples" / "healthbench-bbd759b4"
    assert json.loads((example / "tests/rubric.json").read_text()) == json.loads((shipped / "tests/rubric.json").read_text())
    assert (example / "tests/task_prompt.md").read_text() == (shipped / "tests/task_prompt.md").read_text()
    traj = json.loads((example / "rollout/logs/agent/trajectory.json").read_text())
    assert traj["steps"][-1]["message"] == json.loads((shipped / "rollout/logs/agent/trajectory.json").read_text())["steps"][-1]["message"]


def test_devai_rows_labels_and_closure(fixtures_dir, tmp_path, capsys):
    code, made, _ = _import(capsys, "devai", str(fixtures_dir / "devai" / "instances" / "14_Customer_Churn_Prediction_LogisticRegression_Telco_ML.json"),
                            "--out", str(tmp_path), "--labels", str(fixtures_dir / "devai" / "human_labels"))
    assert code == 0
    [instance] = made
    rows = {r["id"]: r for r in json.loads((instance / "tests/rubric.json").read_text())["rubrics"]}
    task = json.loads((fixtures_dir / "devai" / "instances" / f"{instance.name}.json").read_text())
    direct = {r["id"]: r.get("depends_on", []) for r in devai.rubric_rows(task)}
    # every direct prerequisite is kept first, and the closure is complete (lint D003 would say otherwise)
    for row_id, row in rows.items():
        assert row.get("depends_on", [])[:len(direct[row_id])] == direct[row_id]
        for dep in row.get("depends_on", []):
            assert set(rows[dep].get("depends_on", [])) <= set(row["depends_on"])
    labels = json.loads((fixtures_dir / "devai" / "human_labels" / f"{instance.name}.json").read_text())
    assert _oracle(instance) == devai.oracle(labels)
    assert json.loads((instance / "instance.json").read_text())["tags"]["collection"] == "devai"


def test_paperbench_round_trip_reproduces_the_stored_root_score(fixtures_dir, tmp_path, capsys, judge_run):
    names = ["semantic-self-consistency", "stay-on-topic-with-classifier-free-guidance"]
    files = _deliverables(tmp_path / "submissions", names)
    code, made, _ = _import(capsys, "paperbench", str(fixtures_dir / "paperbench"), "--out", str(tmp_path / "pb"),
                            "--with-labels", "--deliverables", str(files))
    assert code == 0 and [m.name for m in made] == names
    for instance in made:
        tree = json.loads((fixtures_dir / "paperbench" / f"{instance.name}.json").read_text())
        rubric = json.loads((instance / "tests/rubric.json").read_text())["rubrics"]
        assert all("paperbench_score" not in r for r in rubric)  # the grades are labels, not rubric text
        assert (instance / "rollout/app/output/src/main.py").is_file()
        run = judge_run(instance / "tests", instance / "rollout", oracle=_oracle(instance), env=PB_ENV, timeout=300)
        assert run.returncode == 0, run.stderr
        assert run.doc["extra_fields"]["judge_coverage"] == 1.0
        assert abs(run.doc["score_raw"] - tree["score"]) < 1e-9 and abs(run.reward - tree["score"]) < 1e-9


def _graded_record(example: dict, met: list[bool], response: str) -> dict:
    return {"prompt_id": example["prompt_id"], "prompt": example["prompt"], "example_tags": example["example_tags"],
            "completion": [{"role": "assistant", "content": response}],
            "rubric_items": [{**r, "criteria_met": m, "explanation": f"grader says {m}"} for r, m in zip(example["rubrics"], met)]}


def test_healthbench_graded_record_reproduces_the_public_formula(fixtures_dir, tmp_path, capsys, judge_run):
    example = json.loads((fixtures_dir / "healthbench" / "example_10.json").read_text())
    points = [r["points"] for r in example["rubrics"]]
    met = [i % 3 != 1 for i in range(len(points))]  # a fixed mix of met and unmet, negatives included
    record = _graded_record(example, met, "Rest, fluids, and see a clinic if the fever lasts over 3 days.")
    graded = tmp_path / "graded.jsonl"
    graded.write_text(json.dumps(record) + "\n")
    code, [instance], _ = _import(capsys, "healthbench", str(graded), "--out", str(tmp_path / "hb"), "--with-labels")
    assert code == 0
    oracle = _oracle(instance)
    assert [oracle[f"HB{i:02d}"]["hit"] for i in range(1, len(met) + 1)] == met
    by_hand = sum(p for p, m in zip(points, met) if m) / sum(p for p in points if p > 0)
    assert healthbench.example_score(example, met) == pytest.approx(by_hand, abs=1e-15)
    run = judge_run(instance / "tests", instance / "rollout", oracle=oracle)
    assert run.returncode == 0, run.stderr
    assert run.doc["score_raw"] == pytest.approx(by_hand, abs=1e-12)
    assert run.reward == pytest.approx(min(1.0, max(0.0, by_hand)), abs=1e-12)
    traj = json.loads((instance / "rollout/logs/agent/trajectory.json").read_text())
    assert traj["steps"][-1]["message"] == record["completion"][0]["content"]  # the graded completion is the rollout


def test_healthbench_labels_from_a_separate_allresults_file(fixtures_dir, tmp_path, capsys):
    example = json.loads((fixtures_dir / "healthbench" / "example_03.json").read_text())
    allresults = {"score": 0.5, "metadata": {"example_level_metadata": [_graded_record(example, [True, False], "See a doctor.")]}}
    labels = tmp_path / "run_allresults.json"
    labels.write_text(json.dumps(allresults))
    code, [instance], _ = _import(capsys, "healthbench", str(fixtures_dir / "healthbench" / "example_03.json"),
                                  "--out", str(tmp_path / "hb"), "--labels", str(labels))
    assert code == 0
    assert _oracle(instance) == {"HB01": {"hit": True, "reason": "HealthBench grade: grader says True"},
                                 "HB02": {"hit": False, "reason": "HealthBench grade: grader says False"}}
    assert json.loads((instance / "rollout/logs/agent/trajectory.json").read_text())["steps"][-1]["message"] == "See a doctor."


def test_answers_import(tmp_path, capsys):
    source = tmp_path / "problems.jsonl"
    lines = [{"problem_id": 7, "problem": "A stone falls 20 m. Speed at the ground?", "problem_answer": "19.8 m/s",
              "problem_solution": "v = sqrt(2 g h) = 19.8 m/s", "response": "Final answer: 19.8 m/s", "difficulty": "easy",
              "problem_tags": ["mechanics"], "collection": "phys", "verdict": "correct"},
             {"id": "b", "question": "Two parts", "reference_answer": ["(a) 1 J", "(b) 2 J"], "verdict": "partially_correct"}]
    source.write_text("".join(json.dumps(x) + "\n" for x in lines) + "not json\n")
    code, made, err = _import(capsys, "answers", str(source), "--out", str(tmp_path / "out"), "--with-labels", "--process")
    assert code == 1 and len(made) == 2  # the bad line is named, the others are written
    assert f"{source}:3: not JSON" in err and "Traceback" not in err
    first = json.loads((made[0] / "tests/rubric.json").read_text())["rubrics"]
    assert [r["id"] for r in first] == ["ANSWER", "PROCESS"] and [r["weight"] for r in first] == [0.3, 0.7]
    assert first[0]["answer_match"]["reference"] == "19.8 m/s" and first[0]["difficulty"] == "easy"
    assert first[0]["tags"] == ["topic:mechanics"]
    assert _oracle(made[0]) == {"ANSWER": {"hit": True, "level": 1.0, "reason": "stored verdict: correct"}}
    assert _oracle(made[1])["ANSWER"]["level"] == 0.5
    second = json.loads((made[1] / "tests/rubric.json").read_text())["rubrics"]
    assert [r["id"] for r in second] == ["ANSWER"] and second[0]["weight"] == 1.0  # no solution: no PROCESS row
    meta = json.loads((made[0] / "instance.json").read_text())
    assert meta["name"] == "phys-7" and meta["tags"] == {"collection": "phys", "difficulty": "easy", "tags": ["topic:mechanics"]}
    assert all(lint_instance(m / "tests").findings == [] for m in made)


def test_bad_input_is_one_line_and_a_nonzero_exit(fixtures_dir, tmp_path, capsys):
    code, made, err = _import(capsys, "devai", str(tmp_path / "missing"), "--out", str(tmp_path / "o"))
    assert code == 2 and made == [] and err.strip() == f"cowork-judge import: error: {tmp_path / 'missing'}: no such file or folder"
    code, _, err = _import(capsys, "paperbench", str(fixtures_dir / "paperbench"), "--out", str(tmp_path / "o"), "--labels", "x")
    assert code == 2 and "keeps its grades in the tree" in err
    code, _, err = _import(capsys, "answers", str(fixtures_dir / "paperbench"), "--out", str(tmp_path / "o"), "--rel-tol", "5")
    assert code == 2 and "--rel-tol" in err
    (tmp_path / "bad.json").write_text('{"rubrics": "nope"}')
    code, made, err = _import(capsys, "healthbench", str(tmp_path / "bad.json"), "--out", str(tmp_path / "o"))
    assert code == 1 and made == [] and "not a HealthBench example" in err and "Traceback" not in err
    one = fixtures_dir / "paperbench" / "semantic-self-consistency.json"
    assert _import(capsys, "paperbench", str(one), "--out", str(tmp_path / "p"))[0] == 0
    code, _, err = _import(capsys, "paperbench", str(one), "--out", str(tmp_path / "p"))
    assert code == 1 and "exists (use --force to replace it)" in err
    code, [again], _ = _import(capsys, "paperbench", str(one), "--out", str(tmp_path / "p"), "--force", "--with-labels")
    assert code == 0 and (again / "oracle.json").is_file()
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["semantic-self-consistency"]  # no staging left


def test_paperbench_fractional_grade_becomes_a_level():
    tree = {"id": "root", "weight": 1, "score": 0.55, "sub_tasks": [
        {"id": "a", "weight": 1, "requirements": "A is done.", "score": 1.0, "sub_tasks": []},
        {"id": "b", "weight": 3, "requirements": "B is done.", "score": 0.4, "sub_tasks": []}]}
    rows, oracle = paperbench.rubric_and_oracle(tree)
    assert rows[1]["type"] == "gradient" and rows[1]["levels"]["0.4"] and oracle["b"] == {"hit": True, "level": 0.4,
                                                                                          "reason": "PaperBench human grade"}
    from cowork_judge.core.rubric import normalize_rubric
    from cowork_judge.core.scoring import score
    from cowork_judge.core.verdicts import Verdict

    verdicts = {k: Verdict(id=k, hit=v["hit"], level=v.get("level"), judged=True) for k, v in oracle.items()}
    assert score(normalize_rubric(rows).criteria, verdicts).score_raw == pytest.approx(0.25 * 1.0 + 0.75 * 0.4, abs=1e-12)
