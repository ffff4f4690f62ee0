"""Repeated sampling against a noisy judge with a known truth: accuracy, reward error and calls.

    python bench/sampling.py [--rates 0.1,0.2,0.3] [--seeds 1,2,3] [--work DIR] [--calibrate RATE]

Imports the labelled public fixtures — the 20 DevAI tasks (human labels; a one-file
stand-in workspace per task), the 2 PaperBench trees (leaf grades) and the HealthBench
examples that carry a physician-written ideal completion (7 of 10; the fixtures carry no
grades, so the reference is the ideal completion read as meeting every criterion with
positive points and none with negative points — stated, not measured) — and judges every
instance with the real `cowork-judge` engine and the real ``openai`` client against ONE
simulated endpoint that answers each instance from its labels (``--oracle-dir``, routed by
``X-Cowork-Judge-Instance``) and flips each row's answer independently PER REQUEST with
the given probability (``cowork-judge sim --flip RATE --seed N``, `sim.policies.RequestFlip`).

For each flip rate and seed it judges the same instances three ways — ``JUDGE_SAMPLES=1``,
``JUDGE_SAMPLES=3 JUDGE_SAMPLING=fixed`` and ``JUDGE_SAMPLES=3`` (adaptive) — and reports:

- row accuracy: judged rows whose hit equals the label, over the judged rows with a label;
- reward error: mean |reward − the reward the labels give under the same rubric and policy|;
- calls: model HTTP requests of all runs (``judge_calls``: every turn of every attempt).

Every configuration runs the judge's defaults (``JUDGE_BATCH=4``, one tool turn before the
verdicts, as the simulator answers by default). With ``--calibrate RATE`` it also runs
``cowork-judge calibrate --out`` (a real batch of ``cowork-judge run`` processes) with
``JUDGE_SAMPLES=3`` against the same flipping endpoint and prints the calibration report's
agreement (accuracy, κ with their 95 % intervals).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from calibrate import prepare as prepare_labelled  # bench/calibrate.py (python puts this script's folder on sys.path)

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "selftests" / "fixtures"
SIM_KEY = "sk-sim-bench-sampling-0000"
CONFIGS: dict[str, dict[str, str]] = {
    "k=1": {},
    "fixed k=3": {"JUDGE_SAMPLES": "3", "JUDGE_SAMPLING": "fixed"},
    "adaptive k≤3": {"JUDGE_SAMPLES": "3", "JUDGE_SAMPLING": "adaptive"},
}


def prepare(work: Path) -> Path:
    """Import DevAI, PaperBench (`calibrate.prepare`, with their labels) and HealthBench (with labels) into ``work/tasks``."""
    tasks = prepare_labelled(work)
    run = [sys.executable, "-m", "cowork_judge", "import"]
    graded = work / "healthbench-reference.jsonl"
    with graded.open("w", encoding="utf-8") as fh:
        for path in sorted((FIXTURES / "healthbench").glob("*.json")):
            example = json.loads(path.read_text())
            ideal = (example.get("ideal_completions_data") or {}).get("ideal_completion")
            if not ideal:
                continue  # nothing to judge: the reference is the ideal completion
            fh.write(json.dumps({"prompt_id": example["prompt_id"], "prompt": example["prompt"],
                                 "example_tags": example["example_tags"],
                                 "completion": [{"role": "assistant", "content": ideal}],
                                 "rubric_items": [{**r, "criteria_met": r["points"] > 0,
                                                   "explanation": "reference: the ideal completion"}
                                                  for r in example["rubrics"]]}) + "\n")
    subprocess.run([*run, "healthbench", str(graded), "--out", str(tasks), "--with-labels"], check=True, capture_output=True)
    return tasks


def instances(tasks: Path) -> list[Path]:
    """Instance folders with labels and a rollout."""
    return sorted(p for p in tasks.iterdir() if (p / "oracle.json").is_file() and (p / "rollout").is_dir())


def reference_reward(inst: Path) -> float:
    """The reward the labels give under the instance's rubric and the default policy."""
    from cowork_judge.core.rubric import load_rubric
    from cowork_judge.core.scoring import score
    from cowork_judge.core.verdicts import Verdict

    rubric = load_rubric(inst / "tests" / "rubric.json")
    labels = json.loads((inst / "oracle.json").read_text())
    verdicts = {c.id: Verdict(id=c.id, hit=bool(labels[c.id]["hit"]), level=labels[c.id].get("level"), judged=True)
                for c in rubric.criteria if c.id in labels}
    return score(rubric.criteria, verdicts).reward


def judge_all(tasks: Path, out: Path, url: str, extra: dict[str, str]) -> dict[str, Any]:
    """Judge every instance in process (the real engine and client) and measure it."""
    from cowork_judge.engine import judge
    from cowork_judge.config.judge_config import load_config
    from cowork_judge.run.paths import RunPaths

    pairs = right = unjudged = calls = 0
    errors: list[float] = []
    by_collection: dict[str, dict[str, int]] = {}
    for inst in instances(tasks):
        env = {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": url, "JUDGE_MODEL": "sim-judge", "JUDGE_EVIDENCE": "0",
               "JUDGE_START_JITTER": "0", "JUDGE_WORKFLOW_START_JITTER": "0", "JUDGE_SEND_INSTANCE_ID": "1",
               "JUDGE_INSTANCE_ID": inst.name, **extra}
        logs = out / inst.name / "logs"
        (inst / "rollout" / "logs").mkdir(parents=True, exist_ok=True)
        import shutil

        shutil.rmtree(logs, ignore_errors=True)
        shutil.copytree(inst / "rollout" / "logs", logs)
        app = inst / "rollout" / "app"
        if not app.is_dir():  # a chat-only instance delivered no files: an empty workdir, as in a container (and batch)
            app = out / inst.name / "app"
            app.mkdir(parents=True, exist_ok=True)
        paths = RunPaths.of_environment(app_dir=app, logs_dir=logs, tests_dir=inst / "tests",
                                 work_dir=out / inst.name / "work", alt_output_dir=out / "none", environ={})
        judge.main_run(paths, load_config(env), start=time.monotonic())
        doc = json.loads((logs / "verifier" / "result.json").read_text())
        labels = json.loads((inst / "oracle.json").read_text())
        calls += doc["extra_fields"]["judge_calls"]
        collection = json.loads((inst / "instance.json").read_text()).get("collection", "?")
        mine = by_collection.setdefault(collection, {"calls": 0, "pairs": 0, "right": 0, "rows": 0})
        mine["calls"] += doc["extra_fields"]["judge_calls"]
        mine["rows"] += len(doc["results"])
        if doc["extra_fields"]["delivery_missing"]:
            continue
        for r in doc["results"]:
            if r["id"] not in labels:
                continue
            if not r["judged"]:
                unjudged += 1
                continue
            pairs += 1
            right += r["hit"] == labels[r["id"]]["hit"]
            mine["pairs"] += 1
            mine["right"] += r["hit"] == labels[r["id"]]["hit"]
        errors.append(abs(doc["task_score"] - reference_reward(inst)))
    return {"pairs": pairs, "accuracy": right / pairs if pairs else None, "unjudged": unjudged,
            "reward_mae": statistics.fmean(errors) if errors else None, "calls": calls, "instances": len(errors),
            "by_collection": by_collection}


def expected_ratio(tasks: Path, rate: float, batch: int = 4) -> float:
    """The adaptive/fixed calls ratio the stopping rule implies for these instances (module docstring of
    `agentic.sampled_blocks`): each instance asks its B = ⌈n/batch⌉ blocks twice, then ⌈U/batch⌉ regrouped blocks for
    its U ~ Binomial(n, 2p(1−p)) split rows; fixed k = 3 asks 3B."""
    split = 2 * rate * (1 - rate)
    fixed = adaptive = 0.0
    for inst in instances(tasks):
        n = len(json.loads((inst / "tests" / "rubric.json").read_text())["rubrics"])
        blocks = math.ceil(n / batch)
        reask = sum(math.comb(n, u) * split**u * (1 - split) ** (n - u) * math.ceil(u / batch) for u in range(n + 1))
        fixed += 3 * blocks
        adaptive += 2 * blocks + reask
    return adaptive / fixed


def calibrate(tasks: Path, out: Path, rate: float, seed: int) -> dict[str, Any]:
    """``cowork-judge calibrate`` with JUDGE_SAMPLES=3 against the flipping endpoint."""
    from cowork_judge.sim import SimServer
    from cowork_judge.sim.policies import OracleDirPolicy, RequestFlip

    server = SimServer(OracleDirPolicy(tasks), api_key=SIM_KEY, flip=RequestFlip(rate, seed)).start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0",
                   JUDGE_SEND_INSTANCE_ID="1", JUDGE_SAMPLES="3")
        report = out.parent / f"{out.name}.report.json"
        subprocess.run([sys.executable, "-m", "cowork_judge", "calibrate", str(tasks), "--out", str(out), "--report",
                        str(report), "--seed", str(seed), "--force"], env=env, check=True, capture_output=True)
        return json.loads(report.read_text())
    finally:
        server.stop()


def main() -> int:
    """Print the table (one line per rate × configuration, means over the seeds with their range)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rates", default="0.1,0.2,0.3")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--work", type=Path)
    p.add_argument("--configs", default=",".join(CONFIGS), help="which judges to run (default: all three)")
    p.add_argument("--calibrate", type=float, metavar="RATE", help="also run `cowork-judge calibrate` with JUDGE_SAMPLES=3")
    p.add_argument("--expected", action="store_true",
                   help="also print the calls ratio the rule implies for these rubrics: E[2B + ⌈U/4⌉] / 3B per instance, "
                        "B = ⌈rows/4⌉ blocks, U ~ Binomial(rows, 2p(1−p)) split pairs")
    args = p.parse_args()
    import logging

    from cowork_judge.sim import SimServer
    from cowork_judge.sim.policies import OracleDirPolicy, RequestFlip

    logging.getLogger("cowork_judge").disabled = True
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-sampling-"))
    tasks = prepare(work) if not (work / "tasks").is_dir() else work / "tasks"
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"{len(instances(tasks))} instances; load before: {os.getloadavg()[0]:.2f}")
    print("| flip | judge | row accuracy | reward MAE | calls | calls vs fixed k=3 (per seed) |")
    print("|---:|---|---|---|---:|---:|")
    for rate in (float(r) for r in args.rates.split(",")):
        chosen = {name: CONFIGS[name] for name in args.configs.split(",")}
        got: dict[str, list[dict[str, Any]]] = {name: [] for name in chosen}
        for seed in seeds:
            for name, extra in chosen.items():
                with SimServer(OracleDirPolicy(tasks), api_key=SIM_KEY, flip=RequestFlip(rate, seed)) as sim:
                    got[name].append(judge_all(tasks, work / "runs" / f"{rate:g}-{seed}-{name}", sim.url, extra))
        for name, runs in got.items():
            acc = [m["accuracy"] for m in runs]
            mae = [m["reward_mae"] for m in runs]
            calls = [m["calls"] for m in runs]
            ratios = [m["calls"] / f["calls"] for m, f in zip(runs, got.get("fixed k=3", runs))]  # per seed: same flips
            print(f"| {rate:g} | {name} | {statistics.fmean(acc):.3f} ({min(acc):.3f}–{max(acc):.3f}) | "
                  f"{statistics.fmean(mae):.3f} ({min(mae):.3f}–{max(mae):.3f}) | {statistics.fmean(calls):.0f} | "
                  f"{statistics.fmean(ratios):.3f} ({min(ratios):.3f}–{max(ratios):.3f}) |", flush=True)
        print(f"<!-- rate {rate:g}: {runs[0]['pairs']} row pairs over {runs[0]['instances']} instances per run, "
              f"{len(seeds)} seeds; unjudged rows {sum(m['unjudged'] for r in got.values() for m in r)} -->", flush=True)
        for collection in sorted(got["fixed k=3"][0]["by_collection"]) if set(got) == set(CONFIGS) else ():
            def total(name: str, key: str) -> int:
                return sum(m["by_collection"][collection][key] for m in got[name])
            rows = got["k=1"][0]["by_collection"][collection]["rows"]
            print(f"<!--   {collection} ({rows} rows): adaptive calls {total('adaptive k≤3', 'calls') / total('fixed k=3', 'calls'):.3f}"
                  f"× fixed; accuracy k=1 {total('k=1', 'right') / max(1, total('k=1', 'pairs')):.3f}, fixed "
                  f"{total('fixed k=3', 'right') / max(1, total('fixed k=3', 'pairs')):.3f}, adaptive "
                  f"{total('adaptive k≤3', 'right') / max(1, total('adaptive k≤3', 'pairs')):.3f} -->", flush=True)
    if args.expected:
        for rate in (float(r) for r in args.rates.split(",")):
            print(f"expected adaptive calls at flip {rate:g}: {expected_ratio(tasks, rate):.3f}× fixed k=3")
    if args.calibrate is not None:
        doc = calibrate(tasks, work / "calibrate", args.calibrate, seeds[0])
        a = doc["agreement"]
        print(f"calibrate, JUDGE_SAMPLES=3, flip {args.calibrate:g}: {a['n']} pairs, accuracy {a['accuracy']:.3f} "
              f"{a['accuracy_ci']}, kappa {a['kappa']:.3f} {a['kappa_ci']}; reward MAE {doc['reward']['mae']:.3f}")
    print(f"load after: {os.getloadavg()[0]:.2f}; work folder: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
