"""The fleet summary over folded documents of every accounting class: exact counts that add
up, exact means, hit rates, groups, and bootstrap intervals recomputed independently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fleet.factory import NOTHING, make_doc, verdicts, write
from fleet.test_stats import reference_ci as exact_ci

from cowork_judge.fleet.documents import discover, read_items
from cowork_judge.fleet.stats import SCALE, quantize
from cowork_judge.fleet.summarize import CLASSES, Summarizer, SummaryOptions, classify

R_B = 4 / 6  # R1 + R2 hit, R3 unjudged, N1 clean: E = 3 + 1 over W = 6


def reference_ci(num, den, **kwargs) -> tuple[float, float]:
    """The independent interval, rounded as the summary reports it (6 decimals)."""
    low, high = exact_ci(num, den, **kwargs)
    return round(low, 6), round(high, 6)


def build_job(root: Path) -> Path:
    """Seven tasks, eight documents, plus an invalid and an unreadable file (sorted order = cluster order)."""
    job = root / "job"
    write(job / "taskA__aaaaaa1/verifier/result.json", make_doc(verdicts(reasons={"R1": "REASON-MARKER on slide 2"})))
    write(job / "taskA__aaaaaa2/verifier/result.json", make_doc(verdicts(r1=False, r3=0.5, n1=True)))  # E = 0 + 0 + 1 − 1
    write(job / "taskB__bbbbbb1/verifier/result.json", make_doc(verdicts(unjudged={"R3": "rate_limit"})), difficulty="easy")
    write(job / "taskC__cccccc1/verifier/result.json", make_doc(verdicts(unjudged={"R1": "timeout", "R2": "timeout", "R3": "timeout"})))
    write(job / "taskD__dddddd1/verifier/result.json", make_doc(verdicts(r1=False, r2=False, r3=0.0), delivery=NOTHING,
                                                                exit_note="nothing delivered"))
    write(job / "taskE__eeeeee1/verifier/result.json", make_doc(skipped=True))
    write(job / "taskF__ffffff1/verifier/result.json", make_doc(failure="judge:no_credential"))
    (job / "zbad__0000001/verifier").mkdir(parents=True)
    (job / "zbad__0000001/verifier/result.json").write_text('{"schema": "something else"}')
    (job / "zbroken__000001/verifier").mkdir(parents=True)
    (job / "zbroken__000001/verifier/result.json").write_text('{"status": ')
    return job


def run(root: Path, **options) -> dict:
    summarizer = Summarizer(SummaryOptions(**options))
    for item in read_items(discover([str(build_job(root))]), on_file=summarizer.add_file):
        summarizer.add(item)
    return summarizer.result()


def test_every_input_is_accounted_for_once(tmp_path):
    s = run(tmp_path, draws=0)
    assert s["accounting"] == {"inputs": 9, "scored": 2, "degraded": 1, "systemic": 2, "delivery_missing": 1, "skipped": 1,
                               "invalid": 1, "unreadable": 1, "duplicate": 0, "tampered": 0, "no_result": 0}
    assert sum(s["accounting"][c] for c in CLASSES) == s["accounting"]["inputs"]
    assert s["systemic_exit_codes"] == {"judge:no_credential": 1, "judge:timeout": 1}
    assert [(p["input"].split("/")[-3], p["class"]) for p in s["problems"]] == [("zbad__0000001", "invalid"),
                                                                               ("zbroken__000001", "unreadable")]
    assert s["inputs"]["files"] == 9 and all(len(f["sha256"]) == 64 for f in s["inputs"]["list"])


def test_reward_pass_and_coverage_statistics_are_exact(tmp_path):
    s = run(tmp_path, draws=0)
    r = s["reward"]
    assert r["documents"] == 6 and r["mean"] == pytest.approx((1.0 + 0.0 + R_B + 0 + 0 + 0) / 6, abs=1e-15)
    assert r["documents_clean"] == 3 and r["mean_clean"] == pytest.approx(1 / 3, abs=1e-15)
    assert r["histogram"]["counts"][0] == 4 and r["histogram"]["counts"][13] == 1 and r["histogram"]["counts"][19] == 1
    assert r["quantiles"]["p0"] == 0.0 and r["quantiles"]["p100"] == 1.0 and r["quantiles"]["p50"] == 0.0
    assert s["pass"]["rate"] == pytest.approx(1 / 6) and s["pass"]["rate_clean"] == pytest.approx(1 / 3)
    assert s["coverage"]["documents"] == 6 and s["coverage"]["mean"] == pytest.approx((1 + 1 + 0.75 + 0.25 + 1 + 0) / 6)
    assert s["coverage"]["histogram"]["counts"] == [1, 0, 1, 0, 0, 0, 0, 1, 0, 3]
    assert s["error_kinds"] == {"documents": {"no_credential": 1, "rate_limit": 1, "timeout": 1},
                                "rows": {"no_credential": 4, "rate_limit": 1, "timeout": 3}}
    assert s["methods"] == {"agentic": {"rows": 24, "judged": 16, "coverage": 16 / 24}}
    assert s["unjudged"]["rows"] == 8 and s["unjudged"]["rows_total"] == 24
    assert s["clusters"] == {"key": "auto", "clusters": 6, "by_source": {"path": 7}}


def test_per_row_and_per_tag_hit_rates(tmp_path):
    s = run(tmp_path, draws=0)
    r1 = s["rows"]["R1"]
    assert (r1["rows"], r1["judged"], r1["hits"], r1["unjudged"], r1["hit_rate"]) == (6, 4, 2, 2, 0.5)
    assert r1["error_kinds"] == {"no_credential": 1, "timeout": 1}
    r3 = s["rows"]["R3"]  # levels 1.0, 0.5, 0.0 where judged (A1, A2, D)
    assert (r3["judged"], r3["hits"], r3["level_mean"]) == (3, 2, 0.5)
    content = s["tags"]["content"]  # R1 + R2
    assert (content["rows"], content["judged"], content["hits"]) == (12, 8, 2 + 3)
    assert s["tags"]["accuracy"]["hits"] == 1 and s["tags"]["style"]["rows"] == 6


def test_group_by_row_tags_instance_fields_and_instance_tag_files(tmp_path):
    tags = {"taskA": {"difficulty": "hard"}, "taskC": {"tags": ["difficulty:hard"]}}
    s = run(tmp_path, draws=0, group_by=("axis", "difficulty", "class", "judge_model"), instance_tags=tags)
    axis = s["groups"]["axis"]
    assert set(axis) == {"rows"} and axis["rows"]["completeness"]["rows"] == 6 and axis["rows"]["accuracy"]["hits"] == 3
    assert axis["rows"]["(none)"]["rows"] == 12  # R3 and N1 carry no axis
    difficulty = s["groups"]["difficulty"]["documents"]
    assert difficulty["hard"]["documents"] == 3 and difficulty["hard"]["rewarded"] == 3
    assert difficulty["hard"]["reward_mean"] == pytest.approx(1 / 3)
    assert difficulty["easy"]["classes"] == {"degraded": 1} and difficulty["easy"]["reward_mean"] == pytest.approx(R_B)
    assert difficulty["(none)"]["documents"] == 3  # D, E (skipped), F
    classes = s["groups"]["class"]["documents"]
    assert {k: v["documents"] for k, v in classes.items()} == {"degraded": 1, "delivery_missing": 1, "scored": 2,
                                                                "skipped": 1, "systemic": 2}
    assert s["groups"]["judge_model"]["documents"]["sim-judge"]["documents"] == 7


def test_bootstrap_intervals_match_an_independent_computation(tmp_path):
    s = run(tmp_path, draws=400, seed=3)
    # clusters in input order: A (2 docs), B, C, D, E (skipped: no reward), F
    num = [quantize(1.0) + quantize(0.0), quantize(R_B), 0, 0, 0, 0]
    den = [2, 1, 1, 1, 0, 1]
    assert s["reward"]["mean_ci"] == list(reference_ci(num, den, draws=400, seed=3, scale=SCALE))
    assert s["pass"]["rate_ci"] == list(reference_ci([1, 0, 0, 0, 0, 0], den, draws=400, seed=3))
    # 5 clusters contribute to those; 2 to the clean mean (den [2, 0, 0, 1, 0, 0]) and 3 to the
    # content tag's hit rate (den [4, 2, 0, 2, 0, 0]): fewer than MIN_CLUSTERS, so no interval
    assert s["reward"]["mean_clean_ci"] is None and s["pass"]["rate_clean_ci"] is None
    assert (s["reward"]["clusters"], s["reward"]["clusters_clean"]) == (5, 2)
    assert s["reward"]["ci_note"] == "mean_clean: no interval: 2 task(s) (clusters) contribute, fewer than the minimum of 5"
    assert s["tags"]["content"]["hit_rate_ci"] is None
    # every document its own cluster: a different (here narrower) interval
    alone = run(tmp_path / "alone", draws=400, seed=3, task_key="none")
    assert alone["clusters"]["clusters"] == 7 and alone["reward"]["mean_ci"] != s["reward"]["mean_ci"]


def test_reason_text_appears_only_when_asked(tmp_path):
    plain = json.dumps(run(tmp_path / "a", draws=0))
    assert "REASON-MARKER" not in plain and "while judging" not in plain
    asked = run(tmp_path / "b", draws=0, include_reasons=True)
    samples = asked["reasons"]["rows"]["R1"]
    assert samples["hit"]["first"][0] == {"reason": "REASON-MARKER on slide 2", "count": 1}
    assert samples["unjudged"]["first"] == [{"reason": "timeout while judging", "count": 1}, {"reason": "no key", "count": 1}]
    assert asked["reasons"]["exit_codes"]["judge:no_credential"]["exit_reason"]["first"][0]["reason"] == "no key"


def test_the_summary_is_deterministic(tmp_path):
    build_job(tmp_path)
    files = discover([str(tmp_path / "job")])

    def once() -> str:
        summarizer = Summarizer(SummaryOptions(draws=200, group_by=("axis",)))
        for item in read_items(files, on_file=summarizer.add_file):
            summarizer.add(item)
        return json.dumps(summarizer.result())

    assert once() == once()


@pytest.mark.parametrize("kwargs, expected", [
    ({}, "scored"),
    ({"skipped": True}, "skipped"),
    ({"failure": "judge:api_error"}, "systemic"),
    ({"delivery": NOTHING}, "delivery_missing"),
])
def test_classify(kwargs, expected):
    assert classify(make_doc(**kwargs)) == expected
    assert classify(make_doc(verdicts(unjudged={"R1": "rate_limit"}))) == "degraded"
