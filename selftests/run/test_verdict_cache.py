"""The verdict cache (JUDGE_VERDICT_CACHE): real `cowork-judge run`s against the simulator over HTTP.

A second run of the same deliverable asks nothing; a one-row rubric edit asks only that row;
a weight edit asks nothing (the score changes, the verdicts do not); another deliverable asks
everything; the result marks every cached row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run.test_e2e import AGENTIC_REWARD, DECK_ORACLE
from testkit import ROLLOUTS, agentic_example

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.run import verdict_cache as vc


def asked(run) -> set[str]:
    return {rid for e in run.sim.log.entries() if e.kind in ("tool", "final") for rid in e.row_ids}


def doc_of(run) -> dict:
    return json.loads((run.verifier / "result.json").read_text())


@pytest.fixture
def tests_dir(tmp_path) -> Path:
    return agentic_example(tmp_path / "tests")


def edit(tests: Path, row_id: str, **fields) -> None:
    doc = json.loads((tests / "rubric.json").read_text())
    for row in doc["rubrics"]:
        if row["id"] == row_id:
            row.update(fields)
    (tests / "rubric.json").write_text(json.dumps(doc, indent=2))


def test_a_rejudge_asks_only_the_rows_whose_text_changed(judge_run, tests_dir, tmp_path):
    env = {"JUDGE_VERDICT_CACHE": str(tmp_path / "cache")}
    first = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)
    assert first.returncode == 0, first.stderr
    agentic = {r["id"] for r in doc_of(first)["results"] if r["method"] == "agentic" and r["judged"]}
    assert len(agentic) >= 4 and asked(first) == agentic
    assert not any(r["cached"] for r in doc_of(first)["results"])
    assert doc_of(first)["task_score"] == pytest.approx(AGENTIC_REWARD, abs=1e-12)

    again = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)
    assert asked(again) == set() and len(again.sim.log.entries()) == 0  # no model call at all
    assert {r["id"] for r in doc_of(again)["results"] if r["cached"]} == agentic
    assert doc_of(again)["task_score"] == doc_of(first)["task_score"]
    assert "verdict(s) reused" in again.stderr

    changed = sorted(agentic)[0]
    edit(tests_dir, changed, description="The deck names its audience on the title slide, in so many words.")
    third = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)
    assert asked(third) == {changed}  # the edited row alone
    assert {r["id"] for r in doc_of(third)["results"] if r["cached"]} == agentic - {changed}

    edit(tests_dir, sorted(agentic)[1], weight=7)
    fourth = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)
    assert asked(fourth) == set()  # a weight is the score's, not the verdict's
    assert doc_of(fourth)["task_score"] != doc_of(third)["task_score"]


def test_another_deliverable_or_no_cache_asks_everything(judge_run, tests_dir, tmp_path):
    env = {"JUDGE_VERDICT_CACHE": str(tmp_path / "cache")}
    judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)

    def touch(root: Path) -> None:
        deck = next((root / "app" / "output").glob("*.pptx"))
        deck.write_bytes(deck.read_bytes() + b"\0")  # one byte more: another deliverable
    other = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env, setup=touch)
    assert asked(other) and not any(r["cached"] for r in doc_of(other)["results"])
    off = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE)  # JUDGE_VERDICT_CACHE unset: off for run
    assert asked(off) and not any(r["cached"] for r in doc_of(off)["results"])


def test_the_key_reads_what_the_judge_reads():
    rows = normalize_rubric({"rubrics": [{"id": "A", "description": "The deck has a title.", "weight": 2}]}).criteria
    base = dict(deliverable="d", row=vc.row_fields(rows[0]), judge={"model": "m"}, version="1/abi2")
    key = vc.verdict_key(**base)
    assert key == vc.verdict_key(**base)
    for change in ({"deliverable": "e"}, {"judge": {"model": "n"}}, {"version": "2/abi2"},
                   {"row": {**base["row"], "description": "The deck has a title!"}}):
        assert vc.verdict_key(**{**base, **change}) != key, change
    heavier = normalize_rubric({"rubrics": [{"id": "A", "description": "The deck has a title.", "weight": 9}]}).criteria[0]
    assert vc.row_fields(heavier) == vc.row_fields(rows[0])
    negative = normalize_rubric({"rubrics": [{"id": "A", "description": "The deck has a title.", "weight": -2}]}).criteria[0]
    assert vc.row_fields(negative) != vc.row_fields(rows[0])  # the sign changes what hit means


def test_a_broken_entry_is_a_miss(tmp_path):
    cache = vc.VerdictCache(tmp_path)
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "abcd.json").write_text("{not json")
    assert cache.get("abcd", "A") is None and cache.hits == []


def test_batch_turns_the_cache_on_by_default(tmp_path):
    from cowork_judge.batch.instances import child_env, plan_limits

    limits = plan_limits(4, None, 2)
    assert child_env({}, limits, tmp_path)["JUDGE_VERDICT_CACHE"] == str(tmp_path.absolute() / "verdict-cache")
    assert child_env({"JUDGE_VERDICT_CACHE": "0"}, limits, tmp_path)["JUDGE_VERDICT_CACHE"] == "0"  # the run reads 0 as off
    from cowork_judge.config.judge_config import load_config

    assert load_config({"JUDGE_VERDICT_CACHE": "0"}).config.verdict_cache_dir is None
    assert load_config({}).config.verdict_cache_dir is None  # off for a hand run


def test_an_edited_cache_entry_is_not_reused_and_is_named(judge_run, tests_dir, tmp_path):
    """Trial 10 F4: an entry edited between two runs (its verdict no longer matches its digest) is
    asked again, the score is the first run's, and the run's warnings name the entry."""
    env = {"JUDGE_VERDICT_CACHE": str(tmp_path / "cache")}
    first = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)
    assert first.returncode == 0, first.stderr
    rows = {r["id"]: r for r in doc_of(first)["results"] if r["method"] == "agentic" and r["judged"]}
    entries = {json.loads(p.read_text())["verdict"]["id"]: p for p in (tmp_path / "cache").glob("*/*.json")}
    row_id = sorted(rows)[0]
    entry = entries[row_id]
    doc = json.loads(entry.read_text())
    doc["verdict"].update(hit=not doc["verdict"]["hit"], reason="planted")
    entry.write_text(json.dumps(doc))
    (untouched := entries[sorted(rows)[1]]).write_text(untouched.read_text()[:50])  # truncated: unreadable

    again = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)
    assert again.returncode == 0, again.stderr
    assert asked(again) == {row_id, sorted(rows)[1]}  # both re-asked, the other rows reused
    result = doc_of(again)
    assert result["task_score"] == doc_of(first)["task_score"]
    by_id = {r["id"]: r for r in result["results"]}
    assert by_id[row_id]["reason"] != "planted" and not by_id[row_id]["cached"]
    warned = [w for w in result["details"]["warnings"] if "verdict cache entry" in w]
    assert any(str(entry) in w and "does not match its digest" in w for w in warned), warned
    assert any(str(untouched) in w and "cannot be read" in w for w in warned), warned
    third = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env)  # the fresh verdicts replaced both
    assert asked(third) == set() and not [w for w in doc_of(third)["details"]["warnings"] if "verdict cache" in w]


def test_a_linked_trajectory_is_hashed_as_the_reader_sees_it_not_through_the_link(tmp_path):
    """The agent-log reader never reads ``trajectory.json`` through a symbolic link (it is unreadable
    there), so the cache key must not read the link's target either: nothing outside the logs is opened."""
    from cowork_judge.run.verdict_cache import file_digest

    target = tmp_path / "elsewhere.json"
    target.write_text('{"steps": []}', encoding="utf-8")
    link = tmp_path / "trajectory.json"
    link.symlink_to(target)
    assert file_digest(link, follow=False) == "unreadable"
    assert file_digest(link) == file_digest(target) != "unreadable"  # task assets still follow links, as read


def test_another_endpoint_is_another_judge_its_verdicts_are_not_reused(judge_run, tests_dir, tmp_path):
    """Trial 15 P-5: the same JUDGE_MODEL behind another endpoint (here an oracle simulator, then the
    word-overlap one) must not be served the first endpoint's verdicts from a shared cache folder."""
    truth_b = judge_run(tests_dir, ROLLOUTS / "deck", sim={"port": 0})  # endpoint B alone, no cache
    env = {"JUDGE_VERDICT_CACHE": str(tmp_path / "cache")}
    first = judge_run(tests_dir, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=env, sim={"port": 0})  # endpoint A
    assert first.returncode == 0, first.stderr
    other = judge_run(tests_dir, ROLLOUTS / "deck", env=env, sim={"port": 0})  # endpoint B, same model name, same cache
    assert other.returncode == 0, other.stderr
    assert first.sim.url != other.sim.url
    agentic = {r["id"] for r in doc_of(other)["results"] if r["method"] == "agentic" and r["judged"]}
    assert agentic and asked(other) == agentic  # every model row asked again
    assert not any(r["cached"] for r in doc_of(other)["results"])
    assert "0 verdict(s) reused" in other.stderr
    assert doc_of(other)["task_score"] == doc_of(truth_b)["task_score"] != doc_of(first)["task_score"]


def test_the_endpoint_in_the_key_is_normalised_and_holds_no_secret():
    assert vc.endpoint_identity("HTTPS://GW.Example:443/v1/") == vc.endpoint_identity("https://gw.example/v1")
    assert vc.endpoint_identity("http://127.0.0.1:18721/v1") != vc.endpoint_identity("http://127.0.0.1:18722/v1")
    masked = vc.endpoint_identity("https://user:hunter2@gw.example/v1?api_key=sk-secret-1234&region=eu")
    assert masked is not None and "hunter2" not in masked and "sk-secret-1234" not in masked and "region=eu" in masked
    assert vc.endpoint_identity(None) is None and vc.endpoint_identity("  ") is None


def test_the_built_in_simulator_is_one_endpoint_whatever_port_it_got(judge_run, tests_dir, tmp_path):
    """Trial 33 P-2: ``try``/``demo`` start the built-in simulator on a new port each run; keyed by that port, a
    verdict cache never reused one of its verdicts while try said verdicts were reused. Its key (with a loopback
    URL) now names it once; another key on those two ports is still two endpoints (trial 15 P-5, above)."""
    from cowork_judge.core.simulated import SIM_KEY as BUILTIN_KEY

    env = {"JUDGE_VERDICT_CACHE": str(tmp_path / "cache"), "JUDGE_API_KEY": BUILTIN_KEY}
    first = judge_run(tests_dir, ROLLOUTS / "deck", env=env, sim={"port": 0, "api_key": BUILTIN_KEY})
    again = judge_run(tests_dir, ROLLOUTS / "deck", env=env, sim={"port": 0, "api_key": BUILTIN_KEY})
    assert first.returncode == again.returncode == 0, again.stderr
    assert first.sim.url != again.sim.url
    agentic = {r["id"] for r in doc_of(first)["results"] if r["method"] == "agentic" and r["judged"]}
    assert agentic and asked(first) == agentic
    assert asked(again) == set()  # nothing asked: every model row's verdict reused
    assert {r["id"] for r in doc_of(again)["results"] if r["cached"]} == agentic
    assert doc_of(again)["task_score"] == doc_of(first)["task_score"]


def test_only_a_loopback_url_with_the_built_in_key_is_the_built_in_simulator():
    from cowork_judge.core.simulated import SIM_KEY as BUILTIN_KEY, builtin_simulator

    assert builtin_simulator("http://127.0.0.1:41107/v1", BUILTIN_KEY)
    assert builtin_simulator("http://localhost:8/v1", BUILTIN_KEY) and builtin_simulator("http://[::1]:9/v1", BUILTIN_KEY)
    assert not builtin_simulator("https://gw.example/v1", BUILTIN_KEY)  # a gateway given that key is itself
    assert not builtin_simulator("http://127.0.0.1:41107/v1", "sk-sim-rehearsal")  # a `cowork-judge sim` of the user's
    assert not builtin_simulator(None, BUILTIN_KEY) and not builtin_simulator("http://[bad/v1", BUILTIN_KEY)
