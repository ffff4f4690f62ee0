"""Benchmark: the same rubric judged by this project and by two peer judges, against ONE
simulator instance with the same latency and fault plan (SPEC §20, §21).

Peers: harbor-rewardkit 0.2.3 (its ``batched`` and ``individual`` modes; Python ≥ 3.12)
and autorubric 1.6.1 (``llm_calls="per_criterion"`` and ``"per_item"``), each in its own
venv outside the repository (``--venvs``, default ``/tmp/cowork-judge-peers``;
``--install`` creates them with pip). A peer that cannot be installed or imported is
skipped, and the table says why. Peers run with their defaults (concurrency, retries);
the simulator's generic mode answers their prompts from the same oracle (by criterion
id, or text). litellm is told to use its bundled model-cost map
(``LITELLM_LOCAL_MODEL_COST_MAP``): it would otherwise try the network at start-up.

The instance: N binary rows (default 20 and 100), one Markdown deliverable, a task
prompt. This project runs as ``cowork-judge run`` with its defaults except
``JUDGE_START_JITTER=0`` and ``JUDGE_EVIDENCE=0``; rewardkit writes its own
``reward.json``; autorubric is a library, so its driver writes ``reward.txt`` when
``Rubric.grade`` returned a score (and nothing when it raised).

Reported per judge, rows and 429 rate (the simulator's ``http_429`` fault, with
``Retry-After: 1``, drawn per request from the same seed for every judge): model calls
(HTTP requests, refused ones included), 429s, prompt tokens (answered calls), the peak of
requests in flight, the window (first request received → last answer sent, seconds),
whether a reward file was written, and the reward.

Usage::

    python bench/peers.py [--rows 20,100] [--faults 0,0.3] [--latency-ms 200] [--rpm 6000] [--install] [--judge LABEL=SRC] [--out FILE.md]

``--rpm N`` gives the simulator a request bucket whose state every reply carries as
``x-ratelimit-*`` headers: with a generous one the 429s of the fault plan show capacity left
(random refusals, as a flaky gateway's); without it the simulator sends no such header.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cowork_judge.sim import FaultPlan, LatencyModel, OraclePolicy, SimServer

KEY = "sk-bench-peers-00000000000000"
MODEL = "sim-judge"
REPORT = "\n".join(["# Quarterly operations report", "", "Revenue grew 12% quarter over quarter to 4.2 M EUR.", ""]
                   + [f"- Finding {i}: region {i % 7} reported {10 + i}% more orders." for i in range(1, 101)])
TASK_PROMPT = "Write a quarterly operations report in output/report.md: revenue, and one bullet per regional finding.\n"
PEERS = {
    "rewardkit": ("harbor-rewardkit==0.2.3", "rewardkit"),
    "autorubric": ("autorubric==1.6.1", "autorubric"),
}
AUTORUBRIC_DRIVER = r"""
import asyncio, json, math, sys
from autorubric import LLMConfig, Rubric
from autorubric.graders import CriterionGrader
rows, report, task, out, mode, base = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
rubric = Rubric.from_dict([{"name": r["id"], "weight": r["weight"], "requirement": r["description"]} for r in rows])
grader = CriterionGrader(judge_model_config=LLMConfig(model="openai/%s", api_base=base, api_key="%s"), llm_calls=mode)
score = asyncio.run(rubric.grade(to_grade=report, grader=grader, query=task)).score
if score is not None and math.isfinite(score):
    open(out, "w").write(f"{score}\n")
""" % (MODEL, KEY)


@dataclass
class Result:
    judge: str
    rows: int
    rate: float
    calls: int = 0
    refused: int = 0
    prompt_tokens: int = 0
    max_in_flight: int = 0
    window_sec: float = 0.0
    reward_file: bool = False
    reward: float | None = None
    skipped: str = ""


def instance(root: Path, n_rows: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rows and oracle for N rows; writes tests/ (ours), tests-rk-<mode>/ (rewardkit), app/output/report.md."""
    rows = [{"id": f"R{i:03d}", "description": f"The report states finding {i}: region {i % 7} with {10 + i}% more orders.",
             "weight": 1} for i in range(1, n_rows + 1)]
    oracle: dict[str, Any] = {}
    for i, r in enumerate(rows):
        answer = {"hit": i % 5 != 0, "reason": f"bench answer {i}"}
        oracle[r["id"]] = oracle[r["description"]] = answer
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (root / "tests" / "task_prompt.md").write_text(TASK_PROMPT)
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "report.md").write_text(REPORT)
    (root / "rows.json").write_text(json.dumps(rows))
    for mode in ("batched", "individual"):
        tests = root / f"tests-rk-{mode}"
        tests.mkdir()
        lines = ["[judge]", f'judge = "openai/{MODEL}"', f'files = ["{root / "app" / "output" / "report.md"}"]',
                 f'mode = "{mode}"', ""]
        for r in rows:
            lines += ["[[criterion]]", f'name = "{r["id"]}"', f"description = {json.dumps(r['description'])}", ""]
        (tests / "quality.toml").write_text("\n".join(lines))
    return rows, oracle


def python312() -> str | None:
    """A Python ≥ 3.12 that really runs (a pyenv shim on PATH may refuse to: "pyenv:
    python3.12: command not found" while another version is active), else None."""
    names = [shutil.which(n) for n in ("python3.12", "python3.13")]
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")))
    for cand in [*found, *(n for n in names if n)]:
        ok = subprocess.run([cand, "-c", "import sys; sys.exit(sys.version_info[:2] < (3, 12))"], capture_output=True)
        if ok.returncode == 0:
            return cand
    return None


def peer_python(venvs: Path, peer: str, install: bool) -> tuple[str | None, str]:
    """The venv python of `peer`, or (None, why not)."""
    spec, module = PEERS[peer]
    py = venvs / peer / "bin" / "python"
    if not py.exists() and install:
        base = python312()
        if base is None:
            return None, "no Python ≥ 3.12 found"
        made = subprocess.run([base, "-m", "venv", str(venvs / peer)], capture_output=True, text=True)
        if made.returncode != 0:
            return None, f"{base} -m venv failed: {(made.stderr or made.stdout).strip().splitlines()[-1:]}"
        pip = subprocess.run([str(py), "-m", "pip", "install", "-q", spec], capture_output=True, text=True, timeout=900)
        if pip.returncode != 0:
            return None, f"pip install {spec} failed: {pip.stderr.strip().splitlines()[-1:]}"
    if not py.exists():
        return None, f"no venv at {venvs / peer} (run with --install)"
    probe = subprocess.run([str(py), "-c", f"import {module}"], capture_output=True, text=True)
    if probe.returncode != 0:
        return None, f"import {module} failed: {probe.stderr.strip().splitlines()[-1:]}"
    return str(py), ""


def last_words(stderr: str) -> str:
    """The last line of `stderr` that says something (an exception group's traceback ends
    in box-drawing lines), stripped of its frame characters."""
    for line in reversed(stderr.splitlines()):
        text = line.strip().strip("|+-").strip()
        if any(ch.isalpha() for ch in text):
            return text
    return ""


def drained(sim: SimServer, timeout_sec: float = 30.0) -> None:
    """Wait (at most `timeout_sec` s) until the simulator is answering no request. A judge
    that exits with requests in flight (a peer that fails inside a task group) leaves them to
    be answered — and logged — after it: without this wait they landed in the NEXT judge's
    log after `sim.reset()` and counted in its calls and its peak in flight."""
    deadline = time.monotonic() + timeout_sec
    while sim.in_flight and time.monotonic() < deadline:
        time.sleep(0.05)


def run_one(sim: SimServer, label: str, argv: list[str], env: dict[str, str], reward_path: Path, rows: int, rate: float,
            seed: int) -> Result:
    drained(sim)  # the previous judge's leftovers are its own
    sim.reset()
    sim.faults = FaultPlan({"http_429": rate}, seed=seed) if rate > 0 else None
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    drained(sim)  # this judge's leftovers are its own
    entries = sim.log.entries()
    result = Result(label, rows, rate, calls=len(entries), refused=sum(1 for e in entries if e.status == 429),
                    prompt_tokens=sum(e.prompt_tokens for e in entries if e.status == 200),
                    max_in_flight=sim.log.max_in_flight(),
                    window_sec=(max(e.end_s for e in entries) - min(e.start_s for e in entries)) if entries else 0.0)
    if reward_path.is_file() and reward_path.stat().st_size:
        text = reward_path.read_text()
        try:
            value = json.loads(text)["reward"] if reward_path.suffix == ".json" else float(text)
            result.reward_file, result.reward = math.isfinite(float(value)), float(value)
        except (ValueError, KeyError, TypeError):
            result.reward_file = False
    if proc.returncode != 0 and not result.reward_file:
        result.skipped = f"exit {proc.returncode}: {last_words(proc.stderr)[:120]}"
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default="20,100")
    p.add_argument("--faults", default="0,0.3", help="http_429 rates")
    p.add_argument("--latency-ms", type=float, default=200.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--venvs", default="/tmp/cowork-judge-peers", help="folder of the peers' venvs (outside the repository)")
    p.add_argument("--install", action="store_true", help="create missing peer venvs with pip")
    p.add_argument("--judge", action="append", default=[], metavar="LABEL=SRC",
                   help="also run this judge from source tree SRC (PYTHONPATH), e.g. a git archive of an older commit")
    p.add_argument("--rpm", type=float, default=None,
                   help="a request bucket whose state every reply carries as x-ratelimit-* headers (e.g. 6000: never "
                        "refuses here, so the 429s show capacity left: random refusals); default: no headers")
    p.add_argument("--out", help="also write the markdown table to this file")
    args = p.parse_args(argv)
    venvs = Path(args.venvs)
    pythons = {peer: peer_python(venvs, peer, args.install) for peer in PEERS}
    load = os.getloadavg()[0]
    results: list[Result] = []
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_", "ANTHROPIC_"))}
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp, \
            SimServer(OraclePolicy.from_dict({}), latency=LatencyModel.uniform(args.latency_ms), api_key=KEY,
                      rpm=args.rpm) as sim:
        for n_rows in (int(x) for x in args.rows.split(",")):
            root = Path(tmp) / f"rows-{n_rows}"
            rows, oracle = instance(root, n_rows)
            sim.policy = OraclePolicy.from_dict(oracle)
            peer_env = {**base_env, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": sim.url, "OPENAI_API_BASE": sim.url,
                        "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
            for rate in (float(x) for x in args.faults.split(",")):
                n = f"{n_rows}-{rate:g}"
                ours = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir",
                        str(root / f"logs-{n}"), "--tests-dir", str(root / "tests"), "--work-dir", str(root / f"work-{n}")]
                env = {**base_env, "JUDGE_API_KEY": KEY, "JUDGE_BASE_URL": sim.url, "JUDGE_MODEL": MODEL,
                       "JUDGE_START_JITTER": "0", "JUDGE_EVIDENCE": "0"}
                runs = [("cowork-judge", ours, env, root / f"logs-{n}" / "verifier" / "reward.txt")]
                for spec in args.judge:  # another source tree of this judge, e.g. the commit before a change
                    label, _, src = spec.partition("=")
                    logs = root / f"logs-{label}-{n}"
                    runs.append((f"cowork-judge {label}", [*ours[:7], str(logs), *ours[8:11], str(root / f"work-{label}-{n}")],
                                 {**env, "PYTHONPATH": src}, logs / "verifier" / "reward.txt"))
                rk, why_rk = pythons["rewardkit"]
                ar, why_ar = pythons["autorubric"]
                for mode in ("batched", "individual"):
                    out = root / f"rk-{mode}-{n}" / "reward.json"
                    runs.append((f"rewardkit {mode}", [rk, "-m", "rewardkit", str(root / f"tests-rk-{mode}"), "--workspace",
                                                       str(root / "app"), "--output", str(out)] if rk else None, peer_env, out))
                for mode in ("per_criterion", "per_item"):
                    out = root / f"ar-{mode}-{n}" / "reward.txt"
                    out.parent.mkdir(parents=True, exist_ok=True)
                    runs.append((f"autorubric {mode}", [ar, "-c", AUTORUBRIC_DRIVER, str(root / "rows.json"),
                                                        str(root / "app" / "output" / "report.md"), TASK_PROMPT, str(out), mode,
                                                        sim.url] if ar else None, peer_env, out))
                for label, cmd, env_, out in runs:
                    if cmd is None:
                        why = why_rk if label.startswith("rewardkit") else why_ar
                        results.append(Result(label, n_rows, rate, skipped=f"skipped: {why}"))
                        continue
                    t0 = time.monotonic()
                    results.append(run_one(sim, label, cmd, env_, out, n_rows, rate, args.seed))
                    print(f"{label} rows={n_rows} 429={rate:.0%}: {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
    lines = [f"Simulator: {args.latency_ms:g} ms per answered call, `http_429` (Retry-After: 1) at the given rate, seed "
             f"{args.seed}; " + (f"rate-limit headers from a {args.rpm:g}/min bucket" if args.rpm else "no rate-limit headers")
             + f"; load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} CPUs.", "",
             "| judge | rows | 429 rate | calls | 429s | prompt tokens | max in flight | window s | reward file | reward |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in results:
        if r.skipped.startswith("skipped"):
            lines.append(f"| {r.judge} | {r.rows} | {r.rate:.0%} | | | | | | {r.skipped} | |")
            continue
        reward = f"{r.reward:.4f}" if r.reward is not None else "—"
        written = "yes" if r.reward_file else f"**no** ({r.skipped})" if r.skipped else "**no**"
        lines.append(f"| {r.judge} | {r.rows} | {r.rate:.0%} | {r.calls} | {r.refused} | {r.prompt_tokens} | {r.max_in_flight} "
                     f"| {r.window_sec:.1f} | {written} | {reward} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
