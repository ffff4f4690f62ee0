"""Calibration against the simulator: a judge that flips a known fraction of the human labels
must show the agreement that fraction implies (within its interval).

    python bench/calibrate.py [--rates 0,0.1,0.3] [--seed 1] [--draws 1000] [--work DIR]

Imports the public DevAI tasks (with their human labels, and a one-file stand-in workspace
per task: the simulator answers from the labels, not from the files) and the two PaperBench
trees (leaf grades as labels), serves them from ONE simulated endpoint (`RoutedPolicy`: each
instance's labels, found by its task-prompt title, wrapped in `FlipPolicy` at the rate),
runs ``cowork-judge calibrate --out`` (a real batch of ``cowork-judge run`` processes) and
prints, per rate, the measured accuracy, κ, F1, reward MAE and Spearman with their 95 %
intervals next to what the rate implies:

- accuracy = 1 − r;
- κ = (p_o − p_e) / (1 − p_e) with p_o = 1 − r, judge hit rate π' = π(1 − r) + (1 − π) r
  and p_e = π π' + (1 − π)(1 − π'), π the human hit rate;
- recall = 1 − r, precision = π(1 − r) / π'.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "selftests" / "fixtures"
SIM_KEY = "sk-sim-bench-calibrate-000"


def implied(rate: float, human_hit_rate: float) -> dict[str, float]:
    """What a judge that flips each label with probability `rate` scores on average."""
    pi = human_hit_rate
    judge = pi * (1 - rate) + (1 - pi) * rate
    p_o = 1 - rate
    p_e = pi * judge + (1 - pi) * (1 - judge)
    return {"accuracy": p_o, "kappa": (p_o - p_e) / (1 - p_e), "recall": 1 - rate,
            "precision": pi * (1 - rate) / judge if judge else float("nan")}


def prepare(work: Path) -> Path:
    """Import DevAI and PaperBench into ``work/tasks`` (with labels and stand-in files)."""
    tasks, files = work / "tasks", work / "files"
    names = [p.stem for p in sorted((FIXTURES / "devai" / "instances").glob("*.json"))]
    names += [p.stem for p in sorted((FIXTURES / "paperbench").glob("*.json"))]
    for name in names:
        (files / name).mkdir(parents=True, exist_ok=True)
        (files / name / "README.md").write_text(f"Stand-in workspace of {name}: the simulator answers from the labels.\n")
    run = [sys.executable, "-m", "cowork_judge", "import"]
    subprocess.run([*run, "devai", str(FIXTURES / "devai" / "instances"), "--out", str(tasks), "--labels",
                    str(FIXTURES / "devai" / "human_labels"), "--deliverables", str(files)], check=True, capture_output=True)
    subprocess.run([*run, "paperbench", str(FIXTURES / "paperbench"), "--out", str(tasks), "--with-labels",
                    "--deliverables", str(files)], check=True, capture_output=True)
    return tasks


def policy(tasks: Path, rate: float, seed: int):
    """One endpoint for every instance: its own labels, flipped at `rate`."""
    from cowork_judge.sim.policies import FlipPolicy, OraclePolicy, RoutedPolicy

    routes = []
    for n, inst in enumerate(sorted(p for p in tasks.iterdir() if (p / "oracle.json").is_file())):
        marker = (inst / "tests" / "task_prompt.md").read_text().splitlines()[0]
        oracle = OraclePolicy.from_dict(json.loads((inst / "oracle.json").read_text()))
        routes.append((marker, FlipPolicy(oracle, rate, seed=seed * 1000 + n)))
    return RoutedPolicy(routes)


def calibrate(tasks: Path, out: Path, rate: float, seed: int, draws: int) -> dict:
    """Judge every instance against a flipping simulator and return the calibration report."""
    from cowork_judge.sim import SimServer

    server = SimServer(policy(tasks, rate, seed), api_key=SIM_KEY).start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0",
                   JUDGE_BATCH="40")
        report = out.parent / f"{out.name}.report.json"
        subprocess.run([sys.executable, "-m", "cowork_judge", "calibrate", str(tasks), "--out", str(out), "--report",
                        str(report), "--draws", str(draws), "--seed", str(seed), "--force"], env=env, check=True,
                       capture_output=True)
        return json.loads(report.read_text())
    finally:
        server.stop()


def main() -> int:
    """Print the agreement table for each flip rate in ``--rates``; returns the exit status 0."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rates", default="0,0.1,0.3")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--work", type=Path)
    args = p.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-calibrate-"))
    tasks = prepare(work) if not (work / "tasks").is_dir() else work / "tasks"
    print("| flip rate | pairs | accuracy (implied) | κ (implied) | F1 | reward MAE | Spearman |")
    print("|---:|---:|---|---|---|---|---|")
    for rate in (float(r) for r in args.rates.split(",")):
        doc = calibrate(tasks, work / f"runs-{rate:g}", rate, args.seed, args.draws)
        a, r = doc["agreement"], doc["reward"]
        want = implied(rate, a["human_hit_rate"])

        def cell(value, interval, expect=None):
            text = "n/a" if value is None else f"{value:.3f}"
            if interval:
                text += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
            return text + (f" ({expect:.3f})" if expect is not None else "")

        print(f"| {rate:g} | {a['n']} | {cell(a['accuracy'], a['accuracy_ci'], want['accuracy'])} | "
              f"{cell(a['kappa'], a['kappa_ci'], want['kappa'])} | {cell(a['f1'], a['f1_ci'])} | "
              f"{cell(r['mae'], r['mae_ci'])} | {cell(r['spearman'], r['spearman_ci'])} |", flush=True)
    print(f"(work folder: {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
