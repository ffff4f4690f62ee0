"""What a short JUDGE_DEADLINE leaves of a deck run: pages rendered, coverage, unjudged kinds, seconds.

Judges the repository's example deck task (``tests/``: 39 rows, ``ppt_judge`` included) against
the example deck rollout (``examples/rollouts/deck``, 10 slides) with the real command line
(``python -m cowork_judge run``, one process per run) and the simulator's demo policy over HTTP
on 127.0.0.1, once per ``JUDGE_DEADLINE`` given, jitters 0, each run in a private ``TMPDIR``
whose leftovers (LibreOffice seed profiles) are counted after the process ended. ``--judge
LABEL=DIR`` runs the judge from another source tree too (``PYTHONPATH``, e.g. a ``git archive``
of ``main``), interleaved deadline by deadline.

    .venv/bin/python bench/short_deadline.py [--deadlines 1800,120,60,40,20] [--judge main=/tmp/main/src]

The evidence budget is ``min(JUDGE_EVIDENCE, ⅓ × time left)`` and a deck renders when
``10 s + 0.25 s × slides`` of it is left (docs/configuration.md, "Evidence and the deadline").
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
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from cowork_judge.sim import DemoPolicy, SimServer  # noqa: E402

KEY = "sk-bench-short-deadline"


def one_run(label: str, src: Path | None, deadline: str, url: str, work: Path) -> str:
    """Judge the example deck once; one line of findings."""
    root = work / f"{label}-{deadline}"
    tmp, logs = root / "tmp", root / "logs"
    tmp.mkdir(parents=True)
    shutil.copytree(REPO / "examples" / "rollouts" / "deck" / "logs" / "agent", logs / "agent")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
    env.update(TMPDIR=str(tmp), JUDGE_BASE_URL=url, JUDGE_API_KEY=KEY, JUDGE_DEADLINE=deadline, JUDGE_START_JITTER="0",
               JUDGE_WORKFLOW_START_JITTER="0")
    if src is not None:
        env["PYTHONPATH"] = str(src)
    argv = [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(REPO / "examples" / "rollouts" / "deck" / "app"),
            "--logs-dir", str(logs), "--tests-dir", str(REPO / "tests")]
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, timeout=float(deadline) + 120)
    wall = time.perf_counter() - t0
    doc = json.loads((logs / "verifier" / "result.json").read_text())
    ef = doc["extra_fields"]
    kinds = dict(Counter(r["error_kind"] for r in doc["results"] if r["error_kind"]))
    seeds = list(tmp.glob("cowork-judge-lo-seed-*"))
    kb = sum(f.stat().st_size for s in seeds for f in s.rglob("*") if f.is_file()) // 1024
    return (f"{label:>8} JUDGE_DEADLINE={deadline:>4}: pages {ef['judge_evidence_pages']:>2}, coverage "
            f"{ef['judge_coverage']:.3f}, reward {doc['task_score']:.4f}, exit {doc['exit_code']}, unjudged {kinds or '{}'}, "
            f"{wall:.1f} s, seed folders left {len(seeds)} ({kb} KB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deadlines", default="1800,120,60,40,20", help="comma-separated JUDGE_DEADLINE values (s)")
    parser.add_argument("--judge", action="append", default=[], metavar="LABEL=DIR", help="another source tree to run too")
    args = parser.parse_args()
    judges: list[tuple[str, Path | None]] = [("this", None)]
    for item in args.judge:
        label, _, path = item.partition("=")
        judges.append((label, Path(path).resolve()))
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-short-deadline-") as work, SimServer(DemoPolicy(), api_key=KEY) as sim:
        for deadline in args.deadlines.split(","):
            for label, src in judges:
                print(one_run(label, src, deadline.strip(), sim.url, Path(work)), flush=True)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
