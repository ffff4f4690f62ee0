"""Benchmark: the agentic backends side by side on the example instance (SPEC §21).

The example instance's code and agentic rows (``tests/`` without its ppt_judge rows, which
judge the rendered deck; this benchmark measures the agentic backends) and the deck
rollout, 5 agentic rows, JUDGE_BATCH=2 → 3 blocks on JUDGE_CONCURRENCY=2, are judged by the real command line with each backend
(``openai`` built in, ``codex`` and ``claude`` through their real CLIs, skipped when not on
PATH) against the simulator with its latency model (``--latency-ms`` per answered call,
both call kinds; the simulator makes one tool round, then the answer, per attempt).

Reported per backend (median of ``--runs`` runs, as ratios, never absolute targets):

- model calls (HTTP requests the endpoint saw) and what the backend reported
  (``judge_calls``); prompt tokens the endpoint saw, the cached share, completion tokens,
  and the ``judge_tokens`` the backend reported;
- the judging window (first request received → last answer sent) and the process wall
  time, each against the lower bound ``max(critical path, calls × latency / concurrency)``;
- the fixed cost per attempt: block seconds minus the latency of its calls (process
  start-up, private home, tool execution, teardown) — the figure the README quotes.

Usage: ``python bench/backends.py [--backends openai,codex,claude] [--runs 3]
[--latency-ms 1000] [--out bench/RESULTS-backends.md]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from faults import agentic_instance  # bench/ is the script's own folder on sys.path

from cowork_judge.sim import LatencyModel, OraclePolicy, SimServer

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
ROLLOUT = ROOT / "examples" / "rollouts" / "deck"
KEY = "sk-bench-backends-0000000000"
CONCURRENCY = 2
BATCH = 2
ORACLE = {
    "A-HURDLE-NO-DECK": {"hit": False}, "A-NARRATIVE": {"hit": True, "level": 0.55}, "A-PATTERN-FIT": {"hit": True},
    "A-TOOL-DESIGN": {"hit": False}, "A-FABRICATION": {"hit": False},
}
"""The answers of selftests/run/test_e2e.py's DECK_ORACLE for the agentic rows."""


@dataclass
class Run:
    """One judged run of one backend."""

    reward: float
    coverage: float
    calls: int
    reported_calls: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    reported_tokens: int
    window_sec: float
    wall_sec: float
    bound_sec: float
    fixed_sec: list[float]


def judge_once(backend: str, latency_ms: float) -> Run:
    """Judge the example once with `backend` against a fresh simulator."""
    with tempfile.TemporaryDirectory(prefix=f"bench-backends-{backend}-") as tmp:
        root = Path(tmp)
        shutil.copytree(ROLLOUT / "app", root / "app")
        shutil.copytree(ROLLOUT / "logs", root / "logs")
        sim = SimServer(OraclePolicy.from_dict(ORACLE), latency=LatencyModel.uniform(latency_ms), api_key=KEY).start()
        try:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
            env.update(JUDGE_API_KEY=KEY, JUDGE_BASE_URL=sim.url, JUDGE_MODEL="sim-judge", JUDGE_BACKEND=backend,
                       JUDGE_START_JITTER="0", JUDGE_EVIDENCE="0", JUDGE_CONCURRENCY=str(CONCURRENCY),
                       JUDGE_BATCH=str(BATCH))
            t0 = time.monotonic()
            subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir",
                            str(root / "logs"), "--tests-dir", str(agentic_instance(root / "tests")), "--work-dir", str(root / "work")],
                           env=env, capture_output=True, text=True, timeout=900, check=False)
            wall = time.monotonic() - t0
            doc = json.loads((root / "logs" / "verifier" / "result.json").read_text())
            block_sec = {}
            for verdicts in (root / "logs" / "verifier" / "judge").glob("block-*/verdicts.json"):
                saved = json.loads(verdicts.read_text())
                block_sec[tuple(sorted(saved))] = max(v["seconds"] for v in saved.values())
        finally:
            sim.stop()
        entries = sim.log.entries()
    by_block: dict[tuple[str, ...], float] = {}
    for e in entries:
        key = tuple(sorted(e.row_ids or ()))
        by_block[key] = by_block.get(key, 0.0) + (e.delay_s or 0.0)
    latency = [by_block.get(k, 0.0) for k in sorted(by_block)]
    waves = [latency[i:i + CONCURRENCY] for i in range(0, len(latency), CONCURRENCY)]
    critical = sum(max(w) for w in waves)
    bound = max(critical, len(entries) * latency_ms / 1000 / CONCURRENCY)
    ef = doc["extra_fields"]
    return Run(
        reward=doc["task_score"], coverage=ef["judge_coverage"], calls=len(entries), reported_calls=ef["judge_calls"],
        prompt_tokens=sum(e.prompt_tokens or 0 for e in entries), cached_tokens=sum(e.cached_tokens or 0 for e in entries),
        completion_tokens=sum(e.completion_tokens or 0 for e in entries), reported_tokens=ef["judge_tokens"],
        window_sec=max(e.end_s for e in entries) - min(e.start_s for e in entries) if entries else 0.0,
        wall_sec=wall, bound_sec=bound,
        fixed_sec=[sec - by_block.get(k, 0.0) for k, sec in block_sec.items()],
    )


def row(name: str, runs: list[Run], base: list[Run] | None) -> str:
    med = statistics.median
    fixed = [f for r in runs for f in r.fixed_sec]
    cached = med(r.cached_tokens / r.prompt_tokens if r.prompt_tokens else 0.0 for r in runs)
    wall_vs_base = f"{med(r.wall_sec for r in runs) / med(r.wall_sec for r in base):.2f}×" if base else "—"
    return (f"| `{name}` | {min(r.reward for r in runs):.4f} | {min(r.coverage for r in runs):.2f} "
            f"| {med(r.calls for r in runs):.0f} ({med(r.reported_calls for r in runs):.0f}) "
            f"| {med(r.prompt_tokens for r in runs):,.0f} | {cached:.0%} | {med(r.completion_tokens for r in runs):,.0f} "
            f"| {med(r.reported_tokens for r in runs):,.0f} "
            f"| {med(r.window_sec / r.bound_sec for r in runs):.2f}× | {med(r.wall_sec / r.bound_sec for r in runs):.2f}× "
            f"| {wall_vs_base} | {med(fixed):.2f} s ({min(fixed):.2f}–{max(fixed):.2f}) |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backends", default="openai,codex,claude", help="comma-separated JUDGE_BACKEND values")
    p.add_argument("--runs", type=int, default=3, help="runs per backend (medians are reported)")
    p.add_argument("--latency-ms", type=float, default=1000.0, help="simulated latency of an answered call")
    p.add_argument("--out", help="also write the markdown to this file")
    args = p.parse_args(argv)
    results: dict[str, list[Run]] = {}
    skipped = []
    t0 = time.monotonic()
    for name in [b.strip() for b in args.backends.split(",") if b.strip()]:
        if name != "openai" and shutil.which(name) is None:
            skipped.append(name)
            continue
        results[name] = [judge_once(name, args.latency_ms) for _ in range(args.runs)]
        print(f"{name}: done ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    base = results.get("openai")
    n_blocks = math.ceil(len(ORACLE) / BATCH)
    lines = [
        "## Backend benchmark (`python bench/backends.py" + "".join(f" {a}" for a in (argv or sys.argv[1:])) + "`)",
        "",
        (f"Example instance's code and agentic rows ({len(ORACLE)} agentic rows, JUDGE_BATCH={BATCH} → {n_blocks} blocks, JUDGE_CONCURRENCY={CONCURRENCY}, "
        f"JUDGE_START_JITTER=0, JUDGE_EVIDENCE=0) against the simulator at {args.latency_ms:g} ms per answered call "
        f"(one tool round, then the answer); median of {args.runs} run(s) per backend."),
        "",
        ("| backend | reward (min) | coverage (min) | model calls (reported) | prompt tokens | cached | completion tokens "
        "| judge_tokens reported | window / bound | wall / bound | wall vs `openai` | fixed s per attempt (range) |"),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(row(name, runs, base if name != "openai" else None) for name, runs in results.items()),
        "",
        ("Model calls, tokens and cache share are what the endpoint saw (the simulator's request log; tokens estimated "
        "as characters / 4, cached = the prompt prefix seen before). Bound = max(critical path, calls × latency / "
        "concurrency) from the latency of each block's calls. Wall = the whole `cowork-judge run` process. Fixed s per "
        "attempt = a block's seconds minus the latency of its calls: what a backend costs besides the model "
        "(interpreter or CLI start-up, private home, tool execution, teardown)."),
    ]
    if skipped:
        lines.append(f"\nSkipped (CLI not on PATH): {', '.join(skipped)}.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
