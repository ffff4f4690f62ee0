"""Benchmark: K judge processes at once against ONE rate-limited simulator (SPEC §11, §21).

A fleet shares one key, so its jobs share one requests-per-minute bucket. This bench builds
one instance (N binary agentic rows, one text deliverable, a task prompt and an
instruction), starts the simulator with ``--rpm`` (a token bucket: HTTP 429 with
``Retry-After``/``retry-after-ms`` when empty) and a latency per answered call, launches K
``python -m cowork_judge run`` processes at the same moment (each with its own app, logs and
work dirs; ``JUDGE_START_JITTER`` off by default: the worst burst) and waits for all.

Reported per scenario (each job's requests are told apart by ``JUDGE_MODEL=job-NN``):

- makespan: launch of the first process → the last answer the endpoint sent, seconds;
- lower bound: ``start-up + max(useful / (rpm / 60), per-job critical path)`` where
  useful = answered (200) model calls of all jobs, start-up = the median time from a
  process launch to its job's first request (interpreter and judge start-up, measured in
  the same run), and the critical path of one job = ``ceil(blocks / JUDGE_CONCURRENCY) ×
  calls per block × latency``;
- makespan / bound (target ≤ 1.3), wasted calls per useful call (429s of any origin ÷
  useful; target ≤ 0.5), coverage of every job (target 1.0) and whether each wrote its
  reward file; the peak of requests in flight at the endpoint; uncached prompt tokens per
  row (``prompt_tokens − cached_tokens`` summed over answered calls ÷ rows judged).

``--headers on|off`` (repeatable) runs with and without the simulator's ``x-ratelimit-*``
headers; ``--store none|redis`` (repeatable) without or with a shared limiter: a fresh
``redis-server`` on a free port per run (``JUDGE_LIMITER_URL``), ``--fleet-rpm`` also sets
``JUDGE_FLEET_RPM``.

``--judge LABEL=DIR`` also runs the judge from another source tree (``PYTHONPATH=DIR``),
e.g. a ``git archive`` of an older commit, interleaved with this checkout's runs, so
before/after are measured in the same invocation and under the same load.

Usage::

    python bench/fleet.py --scenario 1x100 --scenario 8x40 --rpm 240 [--repeat 2] [--judge before=/tmp/base/src] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

KEY = "sk-bench-fleet-0000000000000000"
REPORT = "\n".join(
    ["# Quarterly operations report", "", "## Summary", "",
     "Revenue grew 12% quarter over quarter to 4.2 M EUR; churn fell from 3.1% to 2.4%.", ""]
    + [f"- Finding {i}: region {i % 7} reported {10 + i}% more orders than the quarter before, "
       f"and {i % 4} new distribution partners." for i in range(1, 41)]
    + ["", "## Risks", "", "Supplier concentration remains high: two suppliers deliver 61% of parts.", ""]
)
TASK_PROMPT = ("Write a quarterly operations report in output/report.md for the board. Summarise revenue, churn, "
               "the regional order findings (one bullet per finding) and the main supply risk. Use plain Markdown; "
               "state every figure with its unit; keep it under two pages.\n")
INSTRUCTION = ("You are grading one finished task attempt against rubric rows. Read output/report.md (it is inlined "
               "below) and the agent's final message. For each row decide whether the report satisfies it. Judge "
               "only what is written; a figure that is missing is not satisfied. Keep reasons short and cite the "
               "line you relied on.\n")
FINAL_MESSAGE = "I wrote output/report.md with the summary, 40 regional findings and the supply risk."


@dataclass
class Job:
    name: str
    root: Path
    proc: subprocess.Popen | None = None
    launched_s: float = 0.0
    launched_wall: float = 0.0


def build_instance(root: Path, n_rows: int) -> dict[str, Any]:
    """One instance under `root` (tests/, app/output/report.md, logs/agent/response.txt); returns the oracle."""
    tests = root / "tests"
    tests.mkdir(parents=True)
    rows = [{"id": f"R{i:03d}", "description": f"The report states finding {i}: region {i % 7} with {10 + i}% more orders.",
             "weight": 1 + i % 3} for i in range(1, n_rows + 1)]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}, indent=1))
    (tests / "task_prompt.md").write_text(TASK_PROMPT)
    (tests / "judge_instruction.md").write_text(INSTRUCTION)
    return {r["id"]: {"hit": i % 5 != 0, "reason": f"bench answer {i}"} for i, r in enumerate(rows)}


def job_dirs(root: Path) -> None:
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "report.md").write_text(REPORT)
    (root / "logs" / "agent").mkdir(parents=True)
    (root / "logs" / "agent" / "response.txt").write_text(FINAL_MESSAGE)


@contextlib.contextmanager
def redis_store(folder: Path) -> Iterator[str]:
    """A fresh ``redis-server`` on a free loopback port (no persistence, its files in
    `folder`); yields its URL and stops it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run_scenario(n_jobs: int, n_rows: int, *, rpm: float, burst: int | None, latency_ms: float, jitter_sec: float,
                 concurrency: int, batch: int, tool_rounds: int, src: str | None, env_extra: dict[str, str],
                 timeline: Path | None = None, headers: bool = True, store: str = "none") -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp, contextlib.ExitStack() as stack:
        base = Path(tmp)
        if store == "redis":
            (base / "redis").mkdir()
            # one limiter key for the fleet: the jobs' JUDGE_MODEL differs (it tells their requests apart), and the
            # default key includes the model
            env_extra = {**env_extra, "JUDGE_LIMITER_URL": stack.enter_context(redis_store(base / "redis")),
                         "JUDGE_LIMITER_KEY": "bench-fleet"}
        answers = build_instance(base / "instance", n_rows)
        jobs = [Job(f"job-{k:02d}", base / f"job-{k:02d}") for k in range(1, n_jobs + 1)]
        for job in jobs:
            job_dirs(job.root)
        sim = SimServer(OraclePolicy.from_dict(answers), latency=LatencyModel.uniform(latency_ms), api_key=KEY,
                        rpm=rpm, burst=burst, tool_rounds=tool_rounds, ratelimit_headers=headers).start()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
        env.update(JUDGE_API_KEY=KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER=f"{jitter_sec:g}", JUDGE_EVIDENCE="0",
                   JUDGE_CONCURRENCY=str(concurrency), JUDGE_BATCH=str(batch), **env_extra)
        if src:
            env["PYTHONPATH"] = src
        try:
            t0 = time.monotonic()
            for job in jobs:
                argv = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(job.root / "app"), "--logs-dir",
                        str(job.root / "logs"), "--tests-dir", str(base / "instance" / "tests"), "--work-dir",
                        str(job.root / "work")]
                job.launched_s, job.launched_wall = time.monotonic(), time.time()
                job.proc = subprocess.Popen(argv, env={**env, "JUDGE_MODEL": job.name}, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            for job in jobs:
                assert job.proc is not None
                job.proc.wait(timeout=1800)
            entries = sim.log.entries()
        finally:
            sim.stop()
        docs = []
        first_ticket_s = {job.name: _first_store_ask(job) for job in jobs} if store != "none" else {}
        for job in jobs:
            result = job.root / "logs" / "verifier" / "result.json"
            reward = job.root / "logs" / "verifier" / "reward.txt"
            doc = json.loads(result.read_text()) if result.is_file() else None
            docs.append({"reward_file": reward.is_file(), "coverage": doc["extra_fields"]["judge_coverage"] if doc else 0.0,
                         "calls": doc["extra_fields"]["judge_calls"] if doc else 0,
                         "warnings": len(doc["details"]["warnings"]) if doc else 0})
    if timeline is not None:  # one line per request: seconds after the first launch, job, status
        with timeline.open("a", encoding="utf-8") as fh:
            fh.write(f"# {n_jobs}x{n_rows} {src or 'this'}\n")
            for e in sorted(entries, key=lambda e: e.start_s):
                fh.write(f"{e.start_s - t0:8.3f} {e.end_s - t0:8.3f} {e.model} {e.status}\n")
    useful = [e for e in entries if e.status == 200]
    wasted = [e for e in entries if e.status == 429]
    firsts = []
    for job in jobs:
        mine = [e.start_s for e in entries if e.model == job.name]
        asked = first_ticket_s.get(job.name)
        if asked is not None:  # a shared store may hold a job's first request: its start-up ends at its first ask
            firsts.append(asked - job.launched_s)
        elif mine:
            firsts.append(min(mine) - job.launched_s)
    startup = statistics.median(firsts) if firsts else 0.0
    makespan = max(e.end_s for e in entries) - t0 if entries else 0.0
    blocks = math.ceil(n_rows / batch)
    calls_per_block = max(1.0, len(useful) / max(1, blocks * n_jobs))
    critical = math.ceil(blocks / concurrency) * calls_per_block * latency_ms / 1000.0
    bound = startup + max(len(useful) / (rpm / 60.0), critical)
    uncached = sum(e.prompt_tokens - e.cached_tokens for e in useful)
    prompt = sum(e.prompt_tokens for e in useful)
    return {
        "jobs": n_jobs, "rows": n_rows, "useful": len(useful), "wasted": len(wasted), "makespan": makespan, "bound": bound,
        "startup": startup, "ratio": makespan / bound if bound else float("nan"),
        "wasted_per_useful": len(wasted) / max(1, len(useful)),
        "coverage_min": min(d["coverage"] for d in docs), "reward_files": sum(d["reward_file"] for d in docs),
        "warned": sum(1 for d in docs if d["warnings"]),
        "max_in_flight": sim.log.max_in_flight(), "prompt_per_row": prompt / (n_rows * n_jobs),
        "uncached_per_row": uncached / (n_rows * n_jobs),
    }


def _first_store_ask(job: Job) -> float | None:
    """Monotonic time at which `job` first asked the shared store for a ticket (its judge.log
    line "limiter: the fleet's shared store", wall clock → monotonic), None without one."""
    log_path = job.root / "logs" / "verifier" / "judge.log"
    try:
        for line in log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            if "limiter: the fleet's shared store" in line:
                stamp = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
                return job.launched_s + (stamp - job.launched_wall)
    except (OSError, ValueError):
        return None
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", action="append", help="JOBSxROWS, e.g. 1x100 or 8x40 (repeatable)")
    p.add_argument("--rpm", type=float, default=240.0, help="requests per minute of the shared bucket")
    p.add_argument("--burst", type=int, default=None, help="bucket capacity (default: one second's worth)")
    p.add_argument("--latency-ms", type=float, default=200.0)
    p.add_argument("--jitter", type=float, default=0.0, help="JUDGE_START_JITTER of every job, seconds")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--tool-rounds", type=int, default=0, help="tool turns the simulator asks for before the verdict turn")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--judge", action="append", default=[],
                   help="LABEL=SRC: also run the judge from source tree SRC (PYTHONPATH), e.g. a git archive of an older "
                        "commit; runs are interleaved with this checkout's (label 'this')")
    p.add_argument("--env", action="append", default=[], help="extra KEY=VALUE for the judge processes")
    p.add_argument("--headers", action="append", choices=("on", "off"),
                   help="the simulator sends its x-ratelimit-* headers (on, default) or none (off); repeatable")
    p.add_argument("--store", action="append", choices=("none", "redis"),
                   help="no shared limiter (none, default) or a fresh redis-server per run (JUDGE_LIMITER_URL); repeatable")
    p.add_argument("--fleet-rpm", type=float, help="JUDGE_FLEET_RPM of every job (with --store redis)")
    p.add_argument("--out", help="append the markdown rows to this file")
    p.add_argument("--timeline", help="append every request (start s, end s, job, status) of every run to this file")
    args = p.parse_args(argv)
    extra = dict(kv.split("=", 1) for kv in args.env)
    if args.fleet_rpm:
        extra["JUDGE_FLEET_RPM"] = f"{args.fleet_rpm:g}"
    modes = [(h, st) for st in (args.store or ["none"]) for h in (args.headers or ["on"])]
    judges: list[tuple[str, str | None]] = [tuple(j.split("=", 1)) for j in args.judge] + [("this", None)]  # type: ignore[misc]
    scenarios = args.scenario or ["1x100", "8x40"]
    load = os.getloadavg()[0]
    lines = []
    for scenario in scenarios:
        n_jobs, n_rows = (int(x) for x in scenario.lower().split("x"))
        for _rep in range(args.repeat):
            for (hdr, store), (label, src) in ((m, j) for m in modes for j in judges):
                r = run_scenario(n_jobs, n_rows, rpm=args.rpm, burst=args.burst, latency_ms=args.latency_ms,
                                 jitter_sec=args.jitter, concurrency=args.concurrency, batch=args.batch,
                                 tool_rounds=args.tool_rounds, src=src, env_extra=extra,
                                 timeline=Path(args.timeline) if args.timeline else None,
                                 headers=hdr == "on", store=store)
                line = (f"| {label} | headers {hdr}, store {store} | {os.getloadavg()[0]:.1f} "
                        f"| {n_jobs}×{n_rows} | {r['useful']} | {r['wasted']} | {r['wasted_per_useful']:.2f} "
                        f"| {r['makespan']:.1f} | {r['startup']:.2f} | {r['bound']:.1f} | **{r['ratio']:.2f}×** "
                        f"| {r['coverage_min']:.3f} | {r['reward_files']}/{n_jobs} | {r['max_in_flight']} "
                        f"| {r['prompt_per_row']:.0f} | {r['uncached_per_row']:.0f} | {r['warned']} |")
                print(line, flush=True)
                lines.append(line)
    header = ("| judge | mode | load | jobs×rows | useful calls | 429s | wasted / useful | makespan s | start-up s | bound s "
              "| makespan / bound | coverage min | reward files | max in flight | prompt tok/row | uncached tok/row | jobs warned |\n"
              "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    load_end = os.getloadavg()[0]
    print(f"\n(rpm {args.rpm:g}, burst {args.burst or 'default'}, latency {args.latency_ms:g} ms, JUDGE_CONCURRENCY="
          f"{args.concurrency}, JUDGE_BATCH={args.batch}, tool rounds {args.tool_rounds}, start jitter {args.jitter:g} s, load average {load:.1f} at start, {load_end:.1f} at the end, {os.cpu_count()} CPUs)")
    print(header)
    print("\n".join(lines))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
