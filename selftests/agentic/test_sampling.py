"""Repeated sampling and judge panels end to end (issue 28): the real engine and the real
``openai`` client over HTTP against simulators on 127.0.0.1 whose answers are flipped per
request (``--flip``) or come from different oracles."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cowork_judge.core.legacy import LEGACY_RESULT_PROPERTIES
from cowork_judge.core.fold import fold, stored_run
from cowork_judge.core.result import ResultDocument
from cowork_judge.engine import judge
from cowork_judge.config.judge_config import load_config
from cowork_judge.run.paths import RunPaths
from cowork_judge.sim import SimServer
from cowork_judge.sim.faults import FaultPlan
from cowork_judge.sim.policies import OraclePolicy, RequestFlip

KEY_A = "sk-sim-judge-a-0123456789"
KEY_B = "sk-sim-judge-b-0123456789"
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "src/cowork_judge/schemas/result.schema.json").read_text())
SAMPLING_KEYS = ("samples", "agreement")
DOCUMENT_KEYS = ("judge_agreement", "judge_cost_usd", "judge_cost")


def _instance(tmp: Path, rows: list[dict[str, Any]]) -> tuple[Path, Path]:
    tests, root = tmp / "tests", tmp / "run"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text("Write the report.\n")
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "report.md").write_text("# Report\nThe findings.\n")
    (root / "logs" / "agent").mkdir(parents=True)
    return tests, root


def _judge(tmp: Path, tests: Path, root: Path, env: dict[str, str]) -> dict[str, Any]:
    base = {"JUDGE_EVIDENCE": "0", "JUDGE_START_JITTER": "0", "JUDGE_WORKFLOW_START_JITTER": "0"}
    paths = RunPaths.resolve(app_dir=root / "app", logs_dir=root / "logs", tests_dir=tests, work_dir=root / "work",
                             alt_output_dir=tmp / "none", environ={})
    judge.main_run(paths, load_config({**base, **env}), start=time.monotonic())
    return json.loads((root / "logs" / "verifier" / "result.json").read_text())


def _rows(n: int) -> list[dict[str, Any]]:
    return [{"id": f"R{i:02d}", "description": f"The report states finding number {i}.", "weight": 1} for i in range(n)]


def _truth(n: int) -> OraclePolicy:
    return OraclePolicy.from_dict({f"R{i:02d}": {"hit": i % 3 != 0} for i in range(n)})


def _finals(sim: SimServer) -> list[Any]:
    return sorted((e for e in sim.log.entries() if e.kind == "final"), key=lambda e: e.seq)


def test_adaptive_asks_twice_then_regroups_only_the_undecided_rows_into_full_blocks(tmp_path):
    n, batch = 16, 4
    tests, root = _instance(tmp_path, _rows(n))
    with SimServer(_truth(n), api_key=KEY_A, tool_rounds=0, flip=RequestFlip(0.3, seed=7)) as sim:
        doc = _judge(tmp_path, tests, root, {"JUDGE_API_KEY": KEY_A, "JUDGE_BASE_URL": sim.url, "JUDGE_SAMPLES": "3",
                                             "JUDGE_BATCH": str(batch)})
        finals = _finals(sim)
    jsonschema.validate(doc, SCHEMA)
    results = {r["id"]: r for r in doc["results"]}
    three = {rid for rid, r in results.items() if len(r["samples"]) == 3}
    for rid, r in results.items():
        first, second = (s["hit"] for s in r["samples"][:2])
        assert len(r["samples"]) == (3 if first != second else 2), rid  # asked again exactly when the two disagreed
        hits = [s["hit"] for s in r["samples"]]
        assert r["hit"] is (hits.count(True) > hits.count(False))
        assert r["agreement"] == pytest.approx(hits.count(r["hit"]) / len(hits), abs=1e-6)
    assert three, "the seed gives some disagreement"
    first_round, reasks = finals[: 2 * (n // batch)], finals[2 * (n // batch):]
    assert all(len(e.row_ids) == batch for e in first_round)
    assert sorted(r for e in reasks for r in e.row_ids) == sorted(three)  # each undecided row once, nothing else
    assert len(reasks) == -(-len(three) // batch)  # regrouped into full blocks, not re-asked block by block
    assert all(len(e.row_ids) == batch for e in reasks[:-1])
    blocks = {f"R{i:02d}": i // batch for i in range(n)}
    if len(three) > 1:
        assert any(len({blocks[r] for r in e.row_ids}) > 1 for e in reasks)  # rows of different first blocks together
    assert doc["details"]["sampling"] == {"samples": 3, "mode": "adaptive", "vote": "majority", "temperature": None,
                                          "judges": [{"name": "gpt-5.5", "model": "gpt-5.5", "weight": 1.0}],
                                          "coverage": {"gpt-5.5": 1.0},
                                          "lost": {"rows": 0, "samples": 0, "error_kinds": {}, "judges": {}}}
    assert doc["extra_fields"]["judge_degraded"] is False and doc["exit_reason"] is None
    assert 0 < doc["judge_agreement"] <= 1
    stored = ResultDocument.model_validate(doc)  # the model's fields: the writer adds 1.3.6's fields and the seal beside them
    view = stored.model_dump(mode="json", by_alias=True)
    assert fold(*stored_run(stored)).model_dump(mode="json", by_alias=True) == view
    assert set(doc) - set(view) <= set(LEGACY_RESULT_PROPERTIES) | {"integrity"}  # nothing else outside the model


def test_fixed_asks_every_row_k_times_and_sends_the_temperature_only_when_sampling(tmp_path):
    n = 8
    tests, root = _instance(tmp_path, _rows(n))
    with SimServer(_truth(n), api_key=KEY_A, tool_rounds=0, flip=RequestFlip(0.2, seed=1)) as sim:
        env = {"JUDGE_API_KEY": KEY_A, "JUDGE_BASE_URL": sim.url, "JUDGE_SAMPLE_TEMPERATURE": "0.8"}
        doc = _judge(tmp_path, tests, root, {**env, "JUDGE_SAMPLES": "3", "JUDGE_SAMPLING": "fixed"})
        sampled = _finals(sim)
        sim.reset()
        once = _judge(tmp_path / "once", *_instance(tmp_path / "once", _rows(n)), env)
        single = _finals(sim)
    assert all(len(r["samples"]) == 3 for r in doc["results"]) and len(sampled) == 3 * 2
    assert {e.temperature for e in sampled} == {0.8} and doc["details"]["sampling"]["temperature"] == 0.8
    assert {e.temperature for e in single} == {None}  # k = 1: nothing sent
    for r in once["results"]:
        assert not any(k in r for k in SAMPLING_KEYS)
    assert not any(k in once for k in DOCUMENT_KEYS) and "sampling" not in once["details"]


def test_a_reask_that_fails_leaves_the_row_its_first_samples(tmp_path):
    n, batch = 8, 4
    tests, root = _instance(tmp_path, _rows(n))
    script = ["ok"] * (2 * n // batch) + ["http_5xx"] * 40  # the first round answers, every re-ask fails
    with SimServer(_truth(n), api_key=KEY_A, tool_rounds=0, flip=RequestFlip(0.4, seed=3),
                   faults=FaultPlan({}, script)) as sim:
        doc = _judge(tmp_path, tests, root, {"JUDGE_API_KEY": KEY_A, "JUDGE_BASE_URL": sim.url, "JUDGE_SAMPLES": "3",
                                             "JUDGE_MAX_TRIES": "1", "JUDGE_RESPLIT": "0", "JUDGE_BATCH": str(batch)})
    lost = [r for r in doc["results"] if any(s.get("error_kind") for s in r["samples"])]
    assert lost, "the seed gives a split pair to re-ask"
    for r in doc["results"]:
        assert r["judged"] and r["hit"] is not None  # never unjudged because a re-ask failed
    for r in lost:
        first, second, third = r["samples"]
        assert third["error_kind"] == "api_error" and third["hit"] is None
        assert r["hit"] is False  # a split pair of a positive row: the tie rule's miss
    assert doc["extra_fields"]["judge_coverage"] == 1.0  # every row judged (SPEC: coverage counts rows) ...
    ef = doc["extra_fields"]  # ... but judged on fewer answers than asked for: degraded, with the lost answers' cause
    assert (ef["judge_degraded"], ef["judge_error_kind"], doc["status"]) == (True, "api_error", "success")
    assert doc["details"]["sampling"]["lost"] == {"rows": len(lost), "samples": len(lost), "error_kinds": {"api_error": len(lost)},
                                                  "judges": {}}  # one judge: it answered every row, once or twice
    assert doc["exit_reason"].startswith(f"{len(lost)} of {n} rows judged on fewer answers than asked for (api_error")
    assert any(w.startswith(f"sampling: {len(lost)} judged row(s) kept fewer answers") for w in doc["details"]["warnings"])


PANEL_ROWS = [
    {"id": "P1", "description": "The report names its sources.", "weight": 2},
    {"id": "N1", "description": "The report invents a statistic.", "weight": -1},
    {"id": "G1", "description": "How clear the report is.", "weight": 1, "type": "gradient",
     "levels": {"0": "unclear", "0.5": "partly", "1": "clear"}},
]
ALPHA = OraclePolicy.from_dict({"P1": {"hit": True}, "N1": {"hit": True}, "G1": {"hit": True, "level": 1}})
BETA = OraclePolicy.from_dict({"P1": {"hit": False}, "N1": {"hit": False}, "G1": {"hit": True, "level": 0.5}})


def _panel_env(a: str, b: str, vote: str) -> dict[str, str]:
    panel = [{"name": "alpha", "model": "model-a", "base_url": a, "api_key_env": "PANEL_KEY_A", "weight": 2},
             {"name": "beta", "model": "model-b", "base_url": b, "api_key_env": "PANEL_KEY_B"}]
    return {"PANEL_KEY_A": KEY_A, "PANEL_KEY_B": KEY_B, "JUDGE_PANEL": json.dumps(panel), "JUDGE_PANEL_VOTE": vote,
            "JUDGE_MAX_TRIES": "2"}


@pytest.mark.parametrize(("vote", "expect"), [
    ("majority", {"P1": False, "N1": True, "G1": 0.5}),  # two judges split: ties fail closed, the lower median
    ("weighted", {"P1": True, "N1": True, "G1": 1.0}),  # alpha weighs 2
    ("unanimous", {"P1": False, "N1": True, "G1": 0.5}),
])
def test_a_panel_of_two_simulators_records_each_judge_and_the_vote(tmp_path, vote, expect):
    tests, root = _instance(tmp_path, PANEL_ROWS)
    with SimServer(ALPHA, api_key=KEY_A, tool_rounds=0) as a, SimServer(BETA, api_key=KEY_B, tool_rounds=0) as b:
        assert a.port != b.port
        doc = _judge(tmp_path, tests, root, _panel_env(a.url, b.url, vote))
        models = ({e.model for e in a.log.entries()}, {e.model for e in b.log.entries()})
    assert models == ({"model-a"}, {"model-b"})  # each judge on its own endpoint with its own model and key
    rows = {r["id"]: r for r in doc["results"]}
    for rid, want in expect.items():
        said = {s["judge"]: (s["hit"], s.get("level")) for s in rows[rid]["samples"]}
        assert set(said) == {"alpha", "beta"}
        assert (rows[rid]["level"] if rid == "G1" else rows[rid]["hit"]) == want, (vote, rid)
    assert rows["P1"]["samples"][0] == {"judge": "alpha", "hit": True, "reason": "oracle"}
    assert rows["G1"]["agreement"] == 0.75
    assert doc["details"]["sampling"]["vote"] == vote and doc["details"]["sampling"]["coverage"] == {"alpha": 1.0, "beta": 1.0}
    assert doc["extra_fields"]["judge_calls"] == 2


@pytest.mark.parametrize("samples", [1, 3])
def test_one_judge_down_leaves_the_others_verdicts_and_a_document_and_summary_that_say_so(tmp_path, samples):
    """Issue 28's done-when and the user trial's defect 3: a panel of two simulators, one
    endpoint closed for the whole run. The other judge's verdicts stand; every row is judged
    (judge_coverage 1.0, SPEC: coverage counts rows), but the document is judge_degraded
    with the lost answers' cause, says which judge it lost in details.sampling.lost, warns,
    and agreement is over the answers that came back (null with one answer per row);
    ``summarize`` counts the document as degraded and names the lost judge."""
    tests, root = _instance(tmp_path, PANEL_ROWS)
    closed = SimServer(BETA, api_key=KEY_B, tool_rounds=0).start()
    closed.stop()  # a real simulator's port, closed before the run: every request to it is refused
    with SimServer(ALPHA, api_key=KEY_A, tool_rounds=0) as a:
        doc = _judge(tmp_path, tests, root, {**_panel_env(a.url, closed.url, "majority"), "JUDGE_SAMPLES": str(samples)})
    jsonschema.validate(doc, SCHEMA)
    rows = {r["id"]: r for r in doc["results"]}
    assert (rows["P1"]["hit"], rows["N1"]["hit"], rows["G1"]["level"]) == (True, True, 1.0)  # alpha's answers stand
    first = 2 if samples > 1 else 1  # adaptive: alpha's two agreeing answers settle a row
    for r in rows.values():
        judges = [s["judge"] for s in r["samples"]]
        assert r["judged"] and judges == ["alpha"] * first + ["beta"] * samples
        assert all(s["error_kind"] == "api_error" and s["hit"] is None for s in r["samples"] if s["judge"] == "beta")
        assert r.get("agreement") == (1.0 if samples > 1 else None)  # over alpha's answers only; one answer says nothing
    assert doc.get("judge_agreement") == (1.0 if samples > 1 else None)
    ef = doc["extra_fields"]
    assert doc["status"] == "success" and doc["exit_code"] is None and ef["judge_coverage"] == 1.0
    assert (ef["judge_degraded"], ef["judge_error_kind"], ef["judge_unjudged"]) == (True, "api_error", 0)
    assert doc["details"]["sampling"]["coverage"] == {"alpha": 1.0, "beta": 0.0}
    assert doc["details"]["sampling"]["lost"] == {"rows": 3, "samples": 3 * samples, "error_kinds": {"api_error": 3 * samples},
                                                  "judges": {"beta": 3}}
    assert doc["exit_reason"] == (f"3 of 3 rows judged on fewer answers than asked for (api_error {3 * samples} sample(s) "
                                  "lost); judge 'beta' gave no answer on 3 row(s)")
    assert any("judge 'beta' answered 0%" in w for w in doc["details"]["warnings"])
    assert any("judge_degraded (details.sampling.lost)" in w for w in doc["details"]["warnings"])
    stored = ResultDocument.model_validate(doc)  # the model's fields: the writer adds 1.3.6's fields and the seal beside them
    view = stored.model_dump(mode="json", by_alias=True)
    assert fold(*stored_run(stored)).model_dump(mode="json", by_alias=True) == view
    assert set(doc) - set(view) <= set(LEGACY_RESULT_PROPERTIES) | {"integrity"}  # nothing else outside the model
    out = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", str(root / "logs" / "verifier" / "result.json"),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads(out.read_text())
    assert summary["accounting"]["degraded"] == 1 and summary["accounting"]["scored"] == 0
    assert summary["reward"]["documents_clean"] == 0  # masked from the clean mean, like any degraded sample
    assert summary["error_kinds"]["documents"] == {"api_error": 1}
    assert summary["sampling"]["lost"] == {"documents": 1, "documents_judge_lost": 1, "rows": 3, "samples": 3 * samples,
                                           "error_kinds": {"api_error": 3 * samples}, "judges": {"beta": 3}}
    assert "summarize: 1 inputs: degraded 1" in done.stderr
    assert "no answer from judge 'beta' on 3 row(s)" in done.stderr
    page = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(root / "logs" / "verifier"), "--out", str(page)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    html = page.read_text()
    assert "<td>judges that gave no answer</td><td>beta (3 rows)</td>" in html and "judge &#x27;beta&#x27; gave no answer" in html


def test_rescore_samples_vote_and_summarize_read_the_stored_samples(tmp_path):
    tests, root = _instance(tmp_path, PANEL_ROWS)
    prices = {"model-a": {"input": 1.0, "cached_input": 0.1, "output": 4.0}}
    with SimServer(ALPHA, api_key=KEY_A, tool_rounds=0) as a, SimServer(BETA, api_key=KEY_B, tool_rounds=0) as b:
        doc = _judge(tmp_path, tests, root, {**_panel_env(a.url, b.url, "majority"), "JUDGE_PRICES": json.dumps(prices)})
        tokens = {e.model: (e.prompt_tokens, e.cached_tokens, e.completion_tokens) for e in [*a.log.entries(), *b.log.entries()]}
    assert doc["judge_cost_usd"] is None and doc["judge_cost"]["unpriced"] == ["model-b"]  # no price for model-b: no guess
    used = doc["judge_cost"]["models"]["model-a"]
    assert (used["input_tokens"], used["cached_input_tokens"], used["output_tokens"]) == tokens["model-a"]
    result = root / "logs" / "verifier" / "result.json"
    run = [sys.executable, "-m", "cowork_judge", "rescore", str(result), "--samples-vote", "weighted"]
    done = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    new = json.loads(Path(done.stdout.strip()).read_text())
    rows = {r["id"]: r for r in new["results"]}
    assert (rows["P1"]["hit"], rows["G1"]["level"]) == (True, 1.0) and new["details"]["sampling"]["vote"] == "weighted"
    assert new["task_score"] > doc["task_score"]
    assert any("samples vote majority → weighted" in w for w in new["details"]["warnings"])
    out = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", str(result), str(Path(done.stdout.strip())),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary = json.loads(out.read_text())["sampling"]
    assert summary["documents"] == {"sampled": 2, "priced": 0, "unpriced": 2, "samples": {"1": 2},
                                    "votes": {"majority": 1, "weighted": 1}}
    assert summary["least_stable_rows"][0] == {"id": "N1", "agreement_mean": 0.5, "rows": 2, "not_unanimous": 2}
    assert summary["agreement"]["rows"]["rows"] == 6 and summary["cost"]["unpriced_models"] == {"model-b": 2}
    assert "summarize: sampling: 2 sampled" in done.stderr
