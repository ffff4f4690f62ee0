"""Benchmark: `cowork-judge summarize` over many result documents (SPEC §19, §21).

Writes a synthetic fleet — real result documents made by the one fold (`core.fold.fold`)
from the example instance's rubric (39 rows: code gates, agentic rows with a hurdle and a
deduction, ppt_judge content and visual rows; 12 rows before issue 13) with seeded random verdicts — as a Harbor job tree (``<task>__<7 chars>/verifier/
result.json``, several rollouts per task) or as one JSONL file, with every accounting class
present (degraded, systemic, nothing delivered, skipped, and a few invalid and unreadable
files). Then runs the real command line twice on it and reports, per run:

- wall seconds and documents per second;
- peak resident memory of the summarize process (``ru_maxrss`` of the child), also for a
  tenth of the documents, so growth with the input size is visible;
- whether the two runs' outputs are byte-identical.

A pool of distinct documents is folded once and reused (parse cost depends on size, not
on uniqueness). Usage: ``python bench/summarize.py [--documents 100000] [--tasks 10000]
[--layout dir|jsonl] [--draws 1000] [--group-by tag] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cowork_judge.core.fold import RunFacts, RunFailure, RunIdentity, all_unjudged, fold
from cowork_judge.core.result import DeliveryDetails
from cowork_judge.core.rubric import load_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict

ROOT = Path(__file__).resolve().parents[1]
POOL = 400
IDENTITY = RunIdentity(metric_id="rubric_llm_judge", requested_version="0.1.0", version_source="injection",
                       judge_backend="openai", judge_model="bench")
KINDS = ("rate_limit", "timeout", "api_error", "parse_error")


def document_pool(seed: int) -> list[str]:
    """`POOL` distinct result documents as JSON text (mostly clean, a few of every class)."""
    rng = random.Random(seed)
    criteria = load_rubric(ROOT / "tests" / "rubric.json").criteria
    delivered = DeliveryDetails(files=["deck.pptx"], missing=False, from_chat=False, stray=[])
    out = []
    for n in range(POOL):
        roll = rng.random()
        facts = RunFacts(identity=IDENTITY, delivery=delivered, seconds=rng.uniform(30, 900), calls=rng.randint(3, 30),
                         tokens=rng.randint(5000, 90000))
        verdicts = {}
        for c in criteria:
            level = rng.choice(c.level_choices) if c.level_choices else None
            verdicts[c.id] = Verdict(id=c.id, hit=rng.random() < 0.6 if level is None else level > 0, level=level, judged=True,
                                     reason=f"bench verdict {n} for {c.id}", method=c.judge_method, attempts=1)
        if roll < 0.06:  # degraded: one or two rows unjudged
            for c in rng.sample(criteria, rng.randint(1, 2)):
                verdicts[c.id] = Verdict.unjudged(c.id, rng.choice(KINDS), "bench failure", method=c.judge_method)
        elif roll < 0.08:  # systemic: most rows unjudged
            for c in criteria[2:]:
                verdicts[c.id] = Verdict.unjudged(c.id, "rate_limit", "bench outage", method=c.judge_method)
        elif roll < 0.09:
            facts = facts.model_copy(update={"failure": RunFailure(exit_code="judge:no_credential", exit_reason="no key")})
            verdicts = all_unjudged(criteria, "no_credential", "no key")
        elif roll < 0.11:
            facts = facts.model_copy(update={"delivery": DeliveryDetails(files=[], missing=True, from_chat=False, stray=[]),
                                             "exit_note": "nothing delivered", "calls": 0, "tokens": 0})
            verdicts = {c.id: Verdict(id=c.id, hit=False, judged=True, reason="nothing delivered", method=c.judge_method)
                        for c in criteria}
        elif roll < 0.115:
            doc = fold((), {}, ScoringPolicy(), facts.model_copy(update={"skipped": True, "exit_note": "JUDGE_SKIP"}))
            out.append(json.dumps(doc.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False) + "\n")
            continue
        doc = fold(criteria, verdicts, ScoringPolicy(), facts)
        out.append(json.dumps(doc.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False) + "\n")
    return out


def write_fleet(root: Path, documents: int, tasks: int, layout: str, seed: int) -> tuple[Path, int]:
    """Write the fleet; returns (input path, bytes written)."""
    pool = document_pool(seed)
    rng = random.Random(seed + 1)
    size = 0
    if layout == "jsonl":
        path = root / "fleet.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for n in range(documents):
                line = json.dumps(json.loads(pool[n % POOL]) | {"task_id": f"task-{n % tasks:05d}"}) + "\n"
                if n % 20011 == 7:
                    line = "{not json\n"
                fh.write(line)
                size += len(line)
        return path, size
    job = root / "job"
    for n in range(documents):
        folder = job / f"task-{n % tasks:05d}__{rng.getrandbits(28):07x}" / "verifier"  # Harbor's trial naming
        folder.mkdir(parents=True, exist_ok=True)
        text = pool[n % POOL] if n % 20011 != 7 else ('{"schema": "cowork-judge/result/v1"}\n' if n % 2 else "{broken\n")
        (folder / "result.json").write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
    return job, size


def summarize(source: Path, out: Path, draws: int, group_by: list[str]) -> tuple[float, int, str]:
    """Run the command line in a child; returns (wall seconds, peak RSS in MiB, stderr)."""
    cmd = [sys.executable, "-m", "cowork_judge", "summarize", str(source), "--out", str(out), "--draws", str(draws), "--force"]
    for key in group_by:
        cmd += ["--group-by", key]
    # a fresh parent per run, so ru_maxrss of its children is this run's peak alone
    probe = ("import json, resource, subprocess, sys, time\n"
             "t0 = time.monotonic(); p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(json.dumps([p.returncode, time.monotonic() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
             "p.stderr]))")
    proc = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, check=True)
    code, seconds, peak_kib, stderr = json.loads(proc.stdout)
    if code != 0:
        raise SystemExit(f"summarize failed: {stderr}")
    return seconds, peak_kib // 1024, stderr.strip()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--documents", type=int, default=100_000)
    p.add_argument("--tasks", type=int, default=10_000, help="distinct tasks (rollouts per task = documents / tasks)")
    p.add_argument("--layout", choices=("dir", "jsonl"), default="dir")
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--group-by", action="append", default=[])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep", help="write the fleet here and keep it (default: a temp dir, removed)")
    args = p.parse_args(argv)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-summarize-"))
    root.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for n_docs in sorted({max(1, args.documents // 10), args.documents}):
            fleet = root / f"n{n_docs}"
            if fleet.exists():
                shutil.rmtree(fleet)
            fleet.mkdir()
            t0 = time.monotonic()
            source, size = write_fleet(fleet, n_docs, max(1, min(args.tasks, n_docs)), args.layout, args.seed)
            print(f"{n_docs} documents written ({size / 2**20:.0f} MiB) in {time.monotonic() - t0:.0f} s", file=sys.stderr)
            outputs = []
            for run in (1, 2):
                out = fleet / f"summary{run}.json"
                seconds, peak_mib, said = summarize(source, out, args.draws, args.group_by)
                outputs.append(out.read_bytes())
                rows.append((n_docs, run, seconds, n_docs / seconds, peak_mib, said))
                print(f"{n_docs} documents, run {run}: {seconds:.1f} s, {n_docs / seconds:,.0f}/s, peak {peak_mib} MiB",
                      file=sys.stderr)
            rows.append((n_docs, "identical", outputs[0] == outputs[1], None, None, None))
        _table(args, rows)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _table(args: argparse.Namespace, rows: list[tuple]) -> None:
    print(f"# summarize: layout {args.layout}, {args.tasks} tasks, {args.draws} bootstrap draws, group-by {args.group_by or 'none'}")
    print(f"# python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    print("| documents | run | seconds | documents/s | peak RSS MiB |")
    print("|---:|---|---:|---:|---:|")
    for n_docs, run, seconds, rate, peak, _said in rows:
        if run == "identical":
            print(f"| {n_docs} | outputs byte-identical: {seconds} | | | |")
        else:
            print(f"| {n_docs} | {run} | {seconds:.1f} | {rate:,.0f} | {peak} |")
    print(f"# last run said: {rows[-2][5]}")


if __name__ == "__main__":
    sys.exit(main())
