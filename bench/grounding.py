"""Quotes that must exist (issue 37): how many fabricated hits reach the reward, and how many honest quotes are lost.

    .venv/bin/python bench/grounding.py [--fabricate 0.3] [--seeds 5] [--no-decks] [--out bench/RESULTS-grounding.md]

Judges every labelled instance of ``selftests/fixtures/grounding/instances.json`` with the
real command line (``python -m cowork_judge run``, the openai backend) against the simulator
(oracle = the labels, with their hand-copied quotes; ``--fabricate P``: with probability P per
request, re-asks included, every positive row the labels call missed is answered as a hit
with a quote that is in no text). One run per instance and seed under JUDGE_UNGROUNDED=keep;
the same stored verdicts are then re-folded under ``miss`` (`core.fold`: the policy is the
only difference), so both settings are measured on identical answers.

Reports, per setting:
- fabricated-hit rows: positive rows the labels call missed whose recorded hit is true (only
  ``--fabricate`` makes them), and how many of them reach the reward (``counted_hit`` true);
- honest credited rows (labels give credit, the hit was not fabricated) recorded
  ``grounded: false`` (an honest quote wrongly found missing), split by instance kind (chat
  text, deck text with CJK and tables).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from cowork_judge.core.fold import fold, stored_run  # noqa: E402
from cowork_judge.core.result import ResultDocument  # noqa: E402
from cowork_judge.sim import SimServer  # noqa: E402
from cowork_judge.sim.policies import OraclePolicy  # noqa: E402
from cowork_judge.sim.quotes import Fabricate  # noqa: E402

INSTANCES = REPO / "selftests" / "fixtures" / "grounding" / "instances.json"


def load_instances(path: Path = INSTANCES, *, decks: bool = True) -> list[dict[str, Any]]:
    """The labelled instances (``kind`` example / healthbench / deck); decks left out with ``decks=False``."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [i for i in doc["instances"] if decks or i["kind"] != "deck"]


def build(inst: dict[str, Any], root: Path) -> tuple[Path, Path]:
    """(tests dir, rollout dir) of one instance under `root`."""
    if inst["kind"] == "example":
        return REPO / inst["tests"], REPO / inst["rollout"]
    tests, rollout = root / "tests", root / "rollout"
    tests.mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "app" / "output").mkdir(parents=True)
    if inst["kind"] == "healthbench":
        from cowork_judge.authoring.importers import healthbench as hb
        source = json.loads((REPO / inst["source"]).read_text(encoding="utf-8"))
        rows = hb.rubric_rows(source)
        (tests / "task_prompt.md").write_text(hb.task_prompt(source), encoding="utf-8")
        (rollout / "logs" / "agent" / "final_answer.txt").write_text(hb.ideal_completion(source) or "", encoding="utf-8")
    else:
        rows = inst["rows"]
        (tests / "task_prompt.md").write_text(inst["task"] + "\n", encoding="utf-8")
        shutil.copy(REPO / inst["deck"], rollout / "app" / "output" / Path(inst["deck"]).name.split("__")[-1])
        (rollout / "logs" / "agent" / "final_answer.txt").write_text("The deck is in output/.", encoding="utf-8")
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}, ensure_ascii=False), encoding="utf-8")
    return tests, rollout


def judge(inst: dict[str, Any], root: Path, *, fabricate: float, seed: int, timeout: float = 600) -> tuple[dict[str, Any], list[Any]]:
    """One run under JUDGE_UNGROUNDED=keep: (result document, the simulator's log entries)."""
    root.mkdir(parents=True, exist_ok=True)
    tests, rollout = build(inst, root / "inst")
    app, logs = root / "app", root / "logs"
    if (rollout / "app").is_dir():
        shutil.copytree(rollout / "app", app)
    else:
        app.mkdir()
    shutil.copytree(rollout / "logs", logs)
    policy = OraclePolicy.from_dict(inst["oracle"])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    with SimServer(policy, api_key="sk-bench-grounding-0123", fabricate=Fabricate(fabricate, seed) if fabricate else None) as sim:
        env.update(JUDGE_API_KEY="sk-bench-grounding-0123", JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0",
                   JUDGE_WORKFLOW_START_JITTER="0", JUDGE_UNGROUNDED="keep",
                   JUDGE_EVIDENCE="180" if inst["kind"] == "deck" else "0")
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                               "--tests-dir", str(tests), "--work-dir", str(root / "work"), "--alt-output-dir",
                               str(root / "alt")], env=env, capture_output=True, text=True, timeout=timeout)
        entries = sim.log.entries()
    if proc.returncode != 0:
        raise RuntimeError(f"{inst['name']}: the judge exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads((logs / "verifier" / "result.json").read_text(encoding="utf-8")), entries


def under(doc: dict[str, Any], setting: str) -> dict[str, dict[str, Any]]:
    """The document's rows re-folded with JUDGE_UNGROUNDED=`setting` (same verdicts), by id."""
    criteria, verdicts, policy, facts = stored_run(ResultDocument.model_validate(doc))
    folded = fold(criteria, verdicts, policy.model_copy(update={"ungrounded": setting}), facts)
    return {r["id"]: r for r in folded.model_dump(mode="json", by_alias=True)["results"]}


@dataclass
class Tally:
    """Counts over runs, per setting."""

    fabricated: int = 0
    fabricated_reached: dict[str, int] = field(default_factory=lambda: {"keep": 0, "miss": 0})
    fabrication_attempts: int = 0
    unshown: set[str] = field(default_factory=set)
    honest: dict[str, int] = field(default_factory=dict)
    honest_missing: dict[str, int] = field(default_factory=dict)
    exempt: int = 0
    requests: int = 0
    rewards: dict[str, list[float]] = field(default_factory=lambda: {"keep": [], "miss": []})


def tally(inst: dict[str, Any], doc: dict[str, Any], entries: list[Any], t: Tally) -> None:
    """Add one run's counts to `t`."""
    negative = {c["id"] for c in doc["criteria"] if (c.get("weight") or 0) < 0 or c.get("hurdle")}
    rows = {r["id"]: r for r in doc["results"]}
    t.requests += len(entries)
    t.fabrication_attempts += sum(len(e.fabricated) for e in entries)
    t.unshown |= {f"{inst['name']}/{rid}" for e in entries for rid in e.unshown_quotes}
    settings = {s: under(doc, s) for s in ("keep", "miss")}
    kind = "deck text" if inst["kind"] == "deck" else "chat text"
    for rid, label in inst["oracle"].items():
        r = rows.get(rid)
        if r is None or not r["judged"]:
            continue
        positive = rid not in negative
        if positive and label["hit"] is False and r["hit"] is True:
            t.fabricated += 1
            for s in ("keep", "miss"):
                t.fabricated_reached[s] += bool(settings[s][rid]["counted_hit"])
            continue
        credit = label["hit"] is positive
        if credit and r["hit"] is positive:
            t.honest[kind] = t.honest.get(kind, 0) + 1
            if r.get("grounded") is False:
                t.honest_missing[kind] = t.honest_missing.get(kind, 0) + 1
            if r.get("grounded") is None and r.get("grounding"):
                t.exempt += 1
    for s in ("keep", "miss"):
        folded = settings[s]
        t.rewards[s].append(sum(r["contribution"] for r in folded.values()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fabricate", type=float, default=0.3, help="fabrication probability per request (default 0.3)")
    ap.add_argument("--seeds", type=int, default=5, help="runs per instance, seeds 0..N-1 (default 5)")
    ap.add_argument("--no-decks", action="store_true", help="leave out the deck instances (no LibreOffice needed)")
    ap.add_argument("--out", type=Path, help="also write the report (Markdown) to this file")
    args = ap.parse_args(argv)
    instances = load_instances(decks=not args.no_decks)
    report: list[str] = []
    for p in sorted({0.0, args.fabricate}):
        t = Tally()
        t0 = time.monotonic()
        for inst in instances:
            for seed in range(args.seeds if p > 0 else 1):
                with tempfile.TemporaryDirectory(prefix="grounding-") as tmp:
                    doc, entries = judge(inst, Path(tmp), fabricate=p, seed=seed)
                tally(inst, doc, entries, t)
        secs = time.monotonic() - t0
        report.append(f"### --fabricate {p:g} ({len(instances)} instances × {args.seeds if p > 0 else 1} seed(s), "
                      f"{t.requests} requests, {secs:.0f} s)\n")
        report.append("| | keep | miss |\n|---|---|---|")
        share = {s: (t.fabricated_reached[s] / t.fabricated if t.fabricated else 0.0) for s in ("keep", "miss")}
        report.append(f"| fabricated-hit rows reaching the reward | {t.fabricated_reached['keep']} / {t.fabricated} "
                      f"({share['keep']:.1%}) | {t.fabricated_reached['miss']} / {t.fabricated} ({share['miss']:.1%}) |")
        report.append(f"| earned weight, all runs | {sum(t.rewards['keep']):g} | {sum(t.rewards['miss']):g} |\n")
        report.append(f"Fabricated answers sent (rows, re-asks included): {t.fabrication_attempts}; "
                      f"credited rows exempt (absence wording): {t.exempt}.\n")
        if t.unshown:
            report.append(f"Labelled quotes the judge was never shown (the simulator quoted shown text instead): "
                          f"{', '.join(sorted(t.unshown))}.\n")
        for kind in sorted(t.honest):
            report.append(f"- honest quotes wrongly found missing, {kind}: {t.honest_missing.get(kind, 0)} of {t.honest[kind]}")
        report.append("")
    text = "\n".join(report)
    print(text)
    if args.out:
        args.out.write_text("# Grounding: fabricated hits and honest quotes\n\nCommand: `.venv/bin/python bench/grounding.py "
                            + " ".join(argv if argv is not None else sys.argv[1:]) + "`\n\n" + text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
