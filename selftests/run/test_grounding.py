"""Quotes that must exist, end to end (issue 37 B/C): the real command line against the simulator
on the labelled public instances of ``selftests/fixtures/grounding`` (bench/grounding.py's).

- With ``--fabricate 0`` (an honest oracle quoting real text: chat text, deck text with CJK,
  full-width letters and tables) no row is ``grounded: false``.
- With ``--fabricate 0.3`` (drawn per request, re-asks included) JUDGE_UNGROUNDED=miss lets at
  most 3 % of the rows whose hit was fabricated reach the reward; ``keep`` lets them through.
- The result document records the quote, ``grounded`` and the policy, validates against the
  published schema, and ``summarize`` counts the ungrounded rows.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from testkit import REPO

from cowork_judge.sim.cli import build_parser

SCHEMA = json.loads((REPO / "src" / "cowork_judge" / "schemas" / "result.schema.json").read_text())


def _bench():
    spec = importlib.util.spec_from_file_location("bench_grounding", REPO / "bench" / "grounding.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


bench = _bench()
CHAT = bench.load_instances(decks=False)
DECKS = [i for i in bench.load_instances() if i["kind"] == "deck"]


def _runs(instances, tmp_path: Path, *, fabricate: float, seeds: range):
    tally = bench.Tally()
    docs = []
    for inst in instances:
        for seed in seeds:
            doc, entries = bench.judge(inst, tmp_path / f"{inst['name']}-{seed}", fabricate=fabricate, seed=seed)
            jsonschema.validate(doc, SCHEMA)
            bench.tally(inst, doc, entries, tally)
            docs.append(doc)
    return tally, docs


def test_honest_quotes_are_all_found_in_chat_text(tmp_path):
    tally, docs = _runs(CHAT, tmp_path, fabricate=0.0, seeds=range(1))
    assert tally.honest["chat text"] >= 10 and not tally.honest_missing
    for doc in docs:
        assert not [r["id"] for r in doc["results"] if r.get("grounded") is False]
        assert doc["details"]["policy"]["ungrounded"] == "keep"  # the bench judges under keep, then re-folds under miss
    quoted = [r for doc in docs for r in doc["results"] if r.get("grounded") is True]
    assert quoted and all(r["quote"] for r in quoted)
    # HB05's hand-copied quote, found verbatim in the final message
    ex05 = next(d for d in docs if any("Drainage" in (r.get("quote") or "") for r in d["results"]))
    assert {r["id"]: r for r in ex05["results"]}["HB05"]["grounding"] == "quote found in the evidence text sent"


@pytest.mark.slow
def test_honest_quotes_are_all_found_in_deck_text_with_cjk_and_tables(tmp_path):
    tally, docs = _runs(DECKS, tmp_path, fabricate=0.0, seeds=range(1))
    assert tally.honest["deck text"] >= 8 and not tally.honest_missing
    found = {r["id"]: r for doc in docs for r in doc["results"]}
    for rid in ("J-JAPANESE", "J-GHQ", "J-TABLE", "J-NUMBERED", "M-TABLE", "Z-TITLE"):
        assert found[rid]["grounded"] is True, found[rid]


@pytest.mark.slow
def test_fabricated_hits_are_withdrawn_under_miss_and_kept_under_keep(tmp_path):
    tally, docs = _runs(CHAT, tmp_path, fabricate=0.3, seeds=range(5))
    assert tally.fabricated >= 3, "the seeds must fabricate some hits"
    assert tally.fabricated_reached["miss"] <= 0.03 * tally.fabricated
    assert tally.fabricated_reached["keep"] == tally.fabricated
    assert not tally.honest_missing  # the honest rows of the same runs keep their quotes
    ungrounded = [r for doc in docs for r in doc["results"] if r.get("grounded") is False]
    assert ungrounded and all(r["grounding"].startswith("asked again once") for r in ungrounded)
    assert all(r["hit"] is True and r["counted_hit"] is True for r in ungrounded)  # recorded under keep
    warned = [w for doc in docs for w in doc["details"]["warnings"] if w.startswith("grounding:")]
    assert warned and all("JUDGE_UNGROUNDED=keep" in w for w in warned)


def test_summarize_counts_the_ungrounded_rows(tmp_path):
    """Every request fabricates (re-asks too): every fabricated hit stays ungrounded; miss withdraws each one."""
    doc, _ = bench.judge(CHAT[0], tmp_path / "run", fabricate=1.0, seed=0)
    fabricated = [r["id"] for r in doc["results"] if r.get("grounded") is False]
    assert fabricated == ["HB03"]  # the one positive row the labels call missed
    miss = bench.under(doc, "miss")
    assert miss["HB03"]["counted_hit"] is False and miss["HB03"]["contribution"] == 0
    assert bench.under(doc, "keep")["HB03"]["counted_hit"] is True
    path = tmp_path / "result.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "summary.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", str(path), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    grounding = json.loads(out.read_text())["grounding"]
    assert grounding["ungrounded"] == sum(r.get("grounded") is False for r in doc["results"]) >= 1
    assert grounding["documents_with_ungrounded"] == 1 and grounding["withdrawn"] == 0  # the bench judges under keep
    assert "carry no quote found in the evidence" in proc.stderr


def test_the_simulator_cli_takes_fabricate():
    args = build_parser().parse_args(["--fabricate", "0.3", "--seed", "4"])
    assert args.fabricate == 0.3
    with pytest.raises(Exception, match="--fabricate"):
        build_parser().parse_args(["--fabricate", "-1"])
