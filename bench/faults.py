"""Benchmark: coverage, model calls and time under rate limiting (SPEC §21, fault rates 0–50 %).

The example instance's code and agentic rows (``tests/`` without its ppt_judge rows, which
judge the rendered deck; this benchmark measures the agentic transport) and the deck
rollout are judged by the real command line against the simulator with a latency model
(``--latency-ms`` per answered call, both call
kinds) and rate-limit faults injected per request at 0/10/30/50 %: half HTTP 429, half an
error inside a 200 SSE stream (how the fleet's gateway actually rate-limits). Faulted
requests are answered at once, as rate limits are. Several seeded runs per rate.

Reported per rate, as ratios (never absolute targets):

- coverage (mean and worst run) and whether the reward equals the fault-free reward;
- model calls (HTTP requests, failed ones included) and their ratio to the fault-free run;
- the judging window (first request received → last answer sent, seen by the endpoint,
  so interpreter start-up and code rows are excluded) as a ratio to the fault-free run
  and to the lower bound ``calls × latency / JUDGE_CONCURRENCY``;
- prompt tokens per agentic row, and the uncached part (what the endpoint did not report
  as cached prefix), summed over answered calls;
- the floor: per run, the window a judge needs that honours every refusal's ``Retry-After``
  exactly and wastes nothing else (`floor_sec`), as a ratio to the fault-free window, and
  each run's window as a ratio to its own floor (median and worst run: what the judge loses
  beyond what honouring the waits costs; the floor starts every block at once, so a block
  that waited for a lane shows up here too).

``--rpm N`` gives the simulator a generous request bucket whose state every reply carries
as ``x-ratelimit-*`` headers (``--rpm 6000``: a 429 of the fault plan then shows capacity
left, as a flaky gateway's does); without it the simulator sends no rate-limit headers.

``--rows N`` judges a larger instance instead of the example's 5 agentic rows: N agentic
rows over the same deliverable (the example deck), made of the example's agentic rows and
its ppt_judge content rows (``T1-*``, ``T2-*``) asked as agentic rows, numbered copies
once they are used up, with the example's code rows; the oracle answers them by the same
rule, so the reward is comparable across rates.

Usage: ``python bench/faults.py [--rates 0,0.1,0.3,0.5] [--seeds 5] [--latency-ms 200]
[--backoff-max 2] [--rpm 6000] [--kinds http_429] [--rows 40] [--out FILE.md]``. Rate-limit waits are ``uniform(1, min(backoff_max,
2·3^(n−1)))`` s, so the time ratios scale with ``--backoff-max`` (production: 20 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.sim import FaultPlan, LatencyModel, OraclePolicy, SimServer

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
ROLLOUT = ROOT / "examples" / "rollouts" / "deck"
KEY = "sk-bench-faults-000000000000"
CONCURRENCY = 2
MAX_TRIES = 6


@dataclass
class Run:
    coverage: float
    unjudged: int
    calls: int
    faults: int
    window_sec: float
    reward: float
    error_kind: str | None
    prompt_tokens: int = 0
    uncached_tokens: int = 0
    floor_sec: float = 0.0
    timeline: list[dict[str, Any]] | None = None


ROUTING_KEYS = ("judge_method", "workflow_name", "workflow_group", "page_mean_p", "decided_by", "na_policy")


def instance_rows(n_agentic: int | None) -> list[dict[str, Any]]:
    """The rubric rows judged: the example's code and agentic rows (`n_agentic` None), or its
    code rows and `n_agentic` agentic rows over the same deck (module docstring)."""
    rows = json.loads((TESTS / "rubric.json").read_text())["rubrics"]
    kept = [r for r in rows if r.get("workflow_name") != "ppt_judge"]
    if n_agentic is None:
        return kept
    code = [r for r in kept if r.get("judge_method") == "code"]
    code_ids = {r["id"] for r in code}
    pool = [r for r in kept if r.get("judge_method", "agentic") == "agentic"]
    pool += [r for r in rows if r.get("workflow_group") in ("type1", "type2")]  # the deck's content rows
    out: list[dict[str, Any]] = []
    for k in range(n_agentic):
        src = pool[k % len(pool)]
        row = {key: value for key, value in src.items() if key not in ROUTING_KEYS}
        copy = k // len(pool)
        row["id"] = src["id"] if copy == 0 else f"{src['id']}-{copy + 1}"
        if "depends_on" in row:
            row["depends_on"] = [d for d in row["depends_on"] if d in code_ids]
        out.append(row)
    return code + out


def agentic_instance(dest: Path, n_agentic: int | None = None) -> Path:
    """The example's tests/ without its ppt_judge rows and assets (`instance_rows`), written to `dest`."""
    shutil.copytree(TESTS, dest, ignore=shutil.ignore_patterns("workflow_assets"))
    doc = json.loads((dest / "rubric.json").read_text())
    doc["rubrics"] = instance_rows(n_agentic)
    doc.pop("workflow_config", None)
    (dest / "rubric.json").write_text(json.dumps(doc, indent=2))
    return dest


def oracle(n_agentic: int | None = None) -> dict[str, dict[str, Any]]:
    """Fixed answers for the instance's agentic rows (the reward is comparable across runs)."""
    out: dict[str, dict[str, Any]] = {}
    criteria = normalize_rubric(instance_rows(n_agentic)).criteria
    for i, c in enumerate(c for c in criteria if c.judge_method == "agentic"):
        reason = f"bench answer for {c.id}: read the deck and compared it with the row."
        if c.hurdle:
            out[c.id] = {"hit": False, "reason": reason}
        elif c.level_choices:
            out[c.id] = {"hit": True, "level": c.level_choices[len(c.level_choices) // 2], "reason": reason}
        else:
            out[c.id] = {"hit": i % 3 != 1, "reason": reason}
    return out


REFUSAL_FLOOR_SEC = 1.0
"""What a faulted request costs at least in the floor: the simulator's ``Retry-After: 1`` (an
HTTP 429), or the shortest backoff of SPEC §11 (an error inside the stream: ``uniform(1, …)``)."""


def floor_sec(entries: list[Any], latency_ms: float, lanes: int) -> float:
    """The window a judge needs for the requests of one run if it honours every refusal's
    wait exactly (`REFUSAL_FLOOR_SEC`) and loses no other time: each block's requests (grouped
    by the rows they judge) in a row — answered ones `latency_ms` each, faulted ones their
    wait — the longest block, and never less than the answered calls' work on `lanes`
    lanes (a block waiting out a refusal holds none). Seconds."""
    chains: dict[tuple[str, ...], float] = {}
    work = 0.0
    for e in entries:
        cost = REFUSAL_FLOOR_SEC if e.fault else latency_ms / 1000
        chains[tuple(e.row_ids)] = chains.get(tuple(e.row_ids), 0.0) + cost
        work += 0.0 if e.fault else latency_ms / 1000
    return max(max(chains.values(), default=0.0), work / lanes)


def judge_once(rate: float, seed: int, latency_ms: float, backoff_max: float, answers: dict[str, Any],
               src: str | None = None, evidence_sec: float = 0.0, jitter_sec: float = 0.0, rpm: float | None = None,
               kinds: tuple[str, ...] = ("http_429", "stream_rate_limit"), n_agentic: int | None = None) -> Run:
    rates = {kind: rate / len(kinds) for kind in kinds} if rate > 0 else {}
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp:
        root = Path(tmp)
        shutil.copytree(ROLLOUT / "app", root / "app")
        shutil.copytree(ROLLOUT / "logs", root / "logs")
        tests = agentic_instance(root / "tests", n_agentic)
        sim = SimServer(OraclePolicy.from_dict(answers), faults=FaultPlan(rates, seed=seed),
                        latency=LatencyModel.uniform(latency_ms), api_key=KEY, rpm=rpm).start()
        try:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
            env.update(JUDGE_API_KEY=KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER=f"{jitter_sec:g}",
                       JUDGE_EVIDENCE=f"{evidence_sec:g}",
                       JUDGE_CONCURRENCY=str(CONCURRENCY), JUDGE_MAX_TRIES=str(MAX_TRIES),
                       JUDGE_RETRY_BACKOFF_MAX=str(backoff_max))
            if src:
                env["PYTHONPATH"] = src
            subprocess.run(
                [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir",
                 str(root / "logs"), "--tests-dir", str(tests), "--work-dir", str(root / "work")],
                env=env, capture_output=True, text=True, timeout=900, check=False)
            doc = json.loads((root / "logs" / "verifier" / "result.json").read_text())
        finally:
            sim.stop()
        entries = sim.log.entries()
    ef = doc["extra_fields"]
    first = min((e.start_s for e in entries), default=0.0)
    window = max(e.end_s for e in entries) - first if entries else 0.0
    answered = [e for e in entries if e.status == 200]
    return Run(coverage=ef["judge_coverage"], unjudged=ef["judge_unjudged"], calls=ef["judge_calls"], faults=sum(1 for e in entries if e.fault),
               window_sec=window, reward=doc["task_score"], error_kind=ef["judge_error_kind"],
               prompt_tokens=sum(e.prompt_tokens for e in answered),
               uncached_tokens=sum(e.prompt_tokens - e.cached_tokens for e in answered),
               floor_sec=floor_sec(entries, latency_ms, CONCURRENCY),
               timeline=[{"seq": e.seq, "start_s": round(e.start_s - first, 3),
                          "end_s": round(e.end_s - first, 3), "kind": e.kind,
                          "fault": e.fault, "status": e.status, "rows": e.row_ids} for e in entries])


def table(results: dict[float, list[Run]], latency_ms: float, n_rows: int) -> list[str]:
    base = results[0.0]
    base_calls = statistics.mean(r.calls for r in base)
    base_window = statistics.mean(r.window_sec for r in base)
    base_reward = base[0].reward
    lines = [
        "| rate-limit faults | runs | coverage mean (min) | unjudged rows (kind) | reward = fault-free | model calls "
        "| calls vs fault-free | judging window vs fault-free | window median (min–max) vs fault-free "
        "| floor vs fault-free | window vs its floor, median (max) | window vs lower bound | prompt tokens / row "
        "| uncached prompt tokens / row |",
        "|---:|---:|---|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|",
    ]
    for rate, runs in results.items():
        calls = statistics.mean(r.calls for r in runs)
        window = statistics.mean(r.window_sec for r in runs)
        bound = statistics.mean(r.calls * latency_ms / 1000 / CONCURRENCY for r in runs)
        same = sum(1 for r in runs if r.reward == base_reward)
        cov = f"{statistics.mean(r.coverage for r in runs):.3f} ({min(r.coverage for r in runs):.3f})"
        lost = sum(r.unjudged for r in runs)
        kinds = ", ".join(sorted({r.error_kind for r in runs if r.error_kind}))
        lost_text = f"{lost} ({kinds})" if lost else "0"
        lines.append(f"| {rate:.0%} | {len(runs)} | {cov} | {lost_text} | {same}/{len(runs)} | {calls:.1f} | {calls / base_calls:.2f}× "
                     f"| {window / base_window:.2f}× | {_spread([r.window_sec / base_window for r in runs])} "
                     f"| {statistics.mean(r.floor_sec for r in runs) / base_window:.2f}× "
                     f"| {_median_max([r.window_sec / r.floor_sec for r in runs if r.floor_sec > 0])} "
                     f"| {window / bound:.2f}× "
                     f"| {statistics.mean(r.prompt_tokens for r in runs) / n_rows:.0f} "
                     f"| {statistics.mean(r.uncached_tokens for r in runs) / n_rows:.0f} |")
    return lines


def _median_max(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}× ({max(values):.2f}×)" if values else "—"


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}× ({min(values):.2f}–{max(values):.2f})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rates", default="0,0.1,0.3,0.5", help="comma-separated rate-limit fault rates (0 is required)")
    p.add_argument("--seeds", type=int, default=5, help="seeded runs per rate")
    p.add_argument("--latency-ms", type=float, default=200.0, help="simulated latency of an answered call")
    p.add_argument("--backoff-max", type=float, default=2.0, help="JUDGE_RETRY_BACKOFF_MAX for the runs (≥ 1)")
    p.add_argument("--evidence", type=float, default=0.0,
                   help="JUDGE_EVIDENCE for the runs (0 = off; the default 180 renders the deck: the prompt then has its text)")
    p.add_argument("--jitter", type=float, default=0.0,
                   help="JUDGE_START_JITTER for the runs, seconds (0 = the first wave's requests arrive together)")
    p.add_argument("--rpm", type=float, default=None,
                   help="a request bucket whose state every reply carries as x-ratelimit-* headers (e.g. 6000: never "
                        "refuses here; the fault plan's 429s then show capacity left); default: no bucket, no headers")
    p.add_argument("--kinds", default="http_429,stream_rate_limit",
                   help="the rate-limit fault kinds, sharing the rate equally (default: half HTTP 429, half in-stream; "
                        "http_429 alone: the random 429s of a flaky gateway)")
    p.add_argument("--rows", type=int, default=None,
                   help="judge N agentic rows over the example deck instead of the example's 5 (module docstring)")
    p.add_argument("--src", help="run the judge from this source tree (PYTHONPATH), e.g. a git archive of an older commit")
    p.add_argument("--out", help="also write the markdown to this file")
    p.add_argument("--dump", help="also write every run's request timeline (seconds from its first request) "
                                  "with its window and floor to this JSON file, for reading a run's tail")
    args = p.parse_args(argv)
    rates = sorted({float(x) for x in args.rates.split(",")} | {0.0})
    answers = oracle(args.rows)
    t0 = time.monotonic()
    results: dict[float, list[Run]] = {}
    for rate in rates:
        results[rate] = [judge_once(rate, seed, args.latency_ms, args.backoff_max, answers, args.src,
                                      args.evidence, args.jitter, args.rpm, tuple(args.kinds.split(",")), args.rows)
                         for seed in range(1, args.seeds + 1)]
        print(f"rate {rate:.0%}: done ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    if args.dump:
        Path(args.dump).write_text(json.dumps(
            {f"{rate:g}": [{"seed": seed, "window_sec": r.window_sec, "floor_sec": r.floor_sec, "calls": r.calls,
                            "timeline": r.timeline} for seed, r in enumerate(runs, 1)]
             for rate, runs in results.items()}, indent=1), encoding="utf-8")
    n_agentic = len(answers)
    blocks = -(-n_agentic // 4)
    waves = -(-blocks // CONCURRENCY)
    lines = [
        "## Fault benchmark: rate limiting (`python bench/faults.py" + "".join(f" {a}" for a in (argv or sys.argv[1:])) + "`)",
        "",
        ("Example instance, code and agentic rows" if args.rows is None else
         "The example's code rows and synthetic agentic rows over its deck (`--rows`)")
        + f" ({n_agentic} agentic rows, JUDGE_BATCH=4 → {blocks} blocks, "
        f"JUDGE_CONCURRENCY={CONCURRENCY}, JUDGE_MAX_TRIES={MAX_TRIES}, JUDGE_RESPLIT=1, JUDGE_START_JITTER={args.jitter:g}, "
        f"JUDGE_EVIDENCE={args.evidence:g}, "
        f"JUDGE_RETRY_BACKOFF_MAX={args.backoff_max:g}) against the simulator: {args.latency_ms:g} ms per answered "
        f"call, one tool turn + one verdict turn per attempt; rate-limit faults per request ({args.kinds}, sharing "
        f"the rate), answered at once; {args.seeds} seeded runs per rate; "
        + (f"rate-limit headers from a {args.rpm:g}/min bucket." if args.rpm else "no rate-limit headers.")
        + f" Load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        *table(results, args.latency_ms, n_agentic),
        "",
        "Judging window = first request received → last answer sent, as the endpoint saw it (the ratios: "
        "mean over the runs, and the median and range of each run against the fault-free mean). Floor = the window "
        "of a judge that honours each refusal's wait exactly (`Retry-After: 1`, or the 1 s shortest backoff of an "
        "in-stream error) and loses nothing else, for the same requests (`floor_sec`), mean over the runs. Lower bound = "
        "`calls × latency / concurrency` over all calls (faulted calls cost no latency here, so the bound is "
        "generous to faults; the excess is backoff waiting). Fault-free, the window is above the bound by the "
        f"waves ({blocks} blocks on {CONCURRENCY} slots run in {waves} wave(s): critical path {2 * waves} calls = "
        f"{2 * waves / (2 * blocks / CONCURRENCY):.2f}× the bound) plus per-call overhead. "
        "Time ratios scale with JUDGE_RETRY_BACKOFF_MAX (production default 20 s). With 2 blocks in flight the "
        "order of requests, hence which ones a seeded rate hits, varies from run to run. Prompt tokens are the "
        "simulator's estimate (4 characters = 1 token) summed over answered calls; uncached = minus the "
        "`cached_tokens` it reports (the shared prefix with earlier requests, OpenAI's rule: from 1024 tokens, "
        "in steps of 128).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
