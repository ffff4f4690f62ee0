"""``cowork-judge batch`` throughput against the simulator's latency model.

    python bench/batch.py [--instances 24] [--latency-ms 2000] [--limit 8] [--jobs 2,4,8]

N reference-answer instances whose answers are symbolic (each run makes 2 model calls, the
ANSWER and PROCESS rows, in parallel when its share allows) are judged by a real batch for
each K in ``--jobs`` under the global limit L. Per K it prints the wall time, the lower
bound ``max(latency, calls × latency / L)`` (the simulator's: L requests always in flight,
no CPU at all) and their ratio, the peak number of requests the simulator saw in flight
(never above L), instances per second, and the CPU seconds of the batch and its K workers
(the simulator's own CPU is not counted). The load average is printed before and after:
on a 2-core machine shared with other jobs the ratio depends on it.

The issue-36 setting (500 small instances, the endpoint's bound 25 s)::

    python bench/batch.py --instances 500 --latency-ms 200 --limit 8 --jobs 8
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIM_KEY = "sk-sim-bench-batch-0000"


def instances(root: Path, n: int) -> Path:
    """Write `n` symbolic reference-answer problems (ANSWER + PROCESS rows) and import them
    into ``root/inst``; returns that folder. Raises CalledProcessError if the import fails."""
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "A. B. C.",
              "steps": ["A", "B", "C"], "response": f"x = {i + 2}y", "difficulty": ["easy", "hard"][i % 2]} for i in range(n)]
    source = root / "problems.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines))
    subprocess.run([sys.executable, "-m", "cowork_judge", "import", "answers", str(source), "--out", str(root / "inst"),
                    "--process"], check=True, capture_output=True)
    return root / "inst"


def run(inst: Path, out: Path, limit: int, jobs: int, latency_ms: float) -> dict:
    """One batch of `inst` into `out` at limit L = `limit` with K = `jobs` runs, against a
    simulator answering after `latency_ms` ms: ``{"wall": s, "calls", "cpu": CPU s of the batch
    and its workers, "peak": most requests in flight, "bound": s, "record": batch.json}``. Raises CalledProcessError on a failed batch."""
    from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

    oracle = {"ANSWER": {"hit": True, "level": 1}, **{f"PROCESS#s{i}": {"hit": True, "level": 1} for i in (1, 2, 3)}}
    server = SimServer(OraclePolicy.from_dict(oracle), api_key=SIM_KEY, latency=LatencyModel.uniform(latency_ms)).start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0")
        t0 = time.monotonic()
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "cowork_judge", "batch", str(inst), "--out", str(out), "--max-in-flight",
                        str(limit), "--jobs", str(jobs), "--draws", "0"], env=env, check=True, capture_output=True)
        wall = time.monotonic() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        calls = len(server.log)
        return {"wall": wall, "calls": calls, "cpu": cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, "peak": server.log.max_in_flight(),
                "bound": max(latency_ms / 1000, calls * latency_ms / 1000 / limit), "record": json.loads((out / "batch.json").read_text())}
    finally:
        server.stop()


def main() -> int:
    """Print the throughput table for each K in ``--jobs``; returns the exit status 0."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--instances", type=int, default=24)
    p.add_argument("--latency-ms", type=float, default=2000)
    p.add_argument("--limit", type=int, default=8)
    p.add_argument("--jobs", default="2,4,8")
    args = p.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    inst = instances(root, args.instances)
    print(f"{args.instances} instances, 2 calls each, latency {args.latency_ms:g} ms, limit L = {args.limit}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| K runs × c calls | calls | wall s | lower bound s | wall / bound | peak in flight | instances/s | mean run s | batch CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in (int(x) for x in args.jobs.split(",")):
        r = run(inst, root / f"runs-{k}", args.limit, k, args.latency_ms)
        lim = r["record"]["limits"]
        print(f"| {lim['jobs']} × {lim['per_run']} | {r['calls']} | {r['wall']:.1f} | {r['bound']:.1f} | {r['wall'] / r['bound']:.2f} "
              f"| {r['peak']} | {args.instances / r['wall']:.2f} | {r['record']['run_seconds']['mean']:.1f} | {r['cpu']:.1f} |", flush=True)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
