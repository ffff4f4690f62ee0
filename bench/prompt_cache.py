"""Benchmark: prompt tokens an endpoint's prefix cache serves on the complete example instance.

SPEC §20; issue 17 item 2.

The example instance (``tests/``: 2 code rows, 5 agentic rows, 18 ppt_judge content rows,
14 visual rows) is judged with the example deck rollout by the real command line against
the simulator with the demo policy (deterministic answers), once per source tree:
this checkout and every ``--judge LABEL=SRC`` (e.g. ``git archive <commit> src | tar -x -C
/tmp/before``), interleaved ``--repeat`` times. The simulator counts prompt tokens as an
OpenAI-compatible endpoint does (text at 4 characters a token, page images by OpenAI's
vision rule, `cowork_judge.sim.image_tokens`) and reports as cached the longest prefix
shared with an earlier answered request (OpenAI's rule: from 1024 tokens, in steps of 128;
images are part of the prefix).

Reported per judge and kind of request (agentic blocks, ppt_judge content calls, ppt_judge
visual calls; a request's kind is its first row's), summed over answered calls: calls,
prompt tokens, cached tokens, uncached tokens (prompt − cached, what the endpoint computes
afresh), and uncached tokens per model-judged row; then each judge's uncached total as a
ratio to the first ``--judge`` (the baseline).

Usage::

    python bench/prompt_cache.py [--judge before=/tmp/before/src] [--repeat 1] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from cowork_judge.sim import DemoPolicy, SimServer

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
ROLLOUT = ROOT / "examples" / "rollouts" / "deck"
KEY = "sk-bench-prompt-cache-0000000000"
KINDS = ("agentic", "content", "visual")


def row_kinds() -> dict[str, str]:
    """Row id → kind of request that judges it (model rows of the example instance only)."""
    doc = json.loads((TESTS / "rubric.json").read_text(encoding="utf-8"))
    kinds: dict[str, str] = {}
    for row in doc["rubrics"]:
        method = row.get("judge_method") or "agentic"
        if method == "code":
            continue
        if method == "agentic":
            kinds[row["id"]] = "agentic"
        else:
            kinds[row["id"]] = "content" if row.get("workflow_group") in ("type1", "type2") else "visual"
    return kinds


def judge_once(src: str | None) -> dict[str, Any]:
    """One run of the example instance; returns per-kind sums and the reward."""
    kinds = row_kinds()
    with tempfile.TemporaryDirectory(prefix="bench-prompt-cache-") as tmp:
        root = Path(tmp)
        shutil.copytree(ROLLOUT / "app", root / "app")
        shutil.copytree(ROLLOUT / "logs", root / "logs")
        sim = SimServer(DemoPolicy(), api_key=KEY).start()
        try:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
            env.update(JUDGE_API_KEY=KEY, JUDGE_BASE_URL=sim.url, JUDGE_START_JITTER="0", JUDGE_WORKFLOW_START_JITTER="0")
            if src:
                env["PYTHONPATH"] = src
            proc = subprocess.run(
                [sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(root / "app"), "--logs-dir",
                 str(root / "logs"), "--tests-dir", str(TESTS), "--work-dir", str(root / "work")],
                env=env, capture_output=True, text=True, timeout=1800, check=False)
            result = root / "logs" / "verifier" / "result.json"
            if not result.is_file():
                raise SystemExit(f"the judge wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}")
            doc = json.loads(result.read_text(encoding="utf-8"))
        finally:
            sim.stop()
        entries = sim.log.entries()
    sums: dict[str, Counter] = defaultdict(Counter)
    for e in entries:
        if e.status != 200 or not e.row_ids:
            continue
        kind = kinds.get(e.row_ids[0], "other")
        sums[kind].update(calls=1, prompt=e.prompt_tokens, cached=e.cached_tokens)
    rows = Counter(kinds.values())
    return {"sums": sums, "rows": rows, "reward": doc["task_score"], "calls": doc["extra_fields"]["judge_calls"]}


def table(results: list[tuple[str, dict[str, Any]]]) -> str:
    lines = ["| judge | kind | calls | prompt tokens | cached | uncached | uncached / row | reward |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    base_uncached = None
    for label, r in results:
        total = Counter()
        for kind in KINDS:
            s = r["sums"].get(kind, Counter())
            total.update(s)
            n = max(1, r["rows"].get(kind, 0))
            lines.append(f"| {label} | {kind} ({r['rows'].get(kind, 0)} rows) | {s['calls']} | {s['prompt']} | {s['cached']} "
                         f"| {s['prompt'] - s['cached']} | {(s['prompt'] - s['cached']) / n:.0f} | |")
        uncached = total["prompt"] - total["cached"]
        base_uncached = uncached if base_uncached is None else base_uncached
        ratio = f" ({uncached / base_uncached:.2f}× the first)" if base_uncached else ""
        lines.append(f"| {label} | **all** ({sum(r['rows'].values())} rows) | {total['calls']} | {total['prompt']} "
                     f"| {total['cached']} | **{uncached}**{ratio} | {uncached / max(1, sum(r['rows'].values())):.0f} "
                     f"| {r['reward']:.4f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--judge", action="append", default=[], metavar="LABEL=SRC",
                   help="another source tree to judge with (its src/ folder), e.g. before=/tmp/before/src")
    p.add_argument("--repeat", type=int, default=1, help="interleaved runs per judge (the simulator is deterministic)")
    p.add_argument("--out", help="also write the markdown table to this file")
    args = p.parse_args(argv)
    judges: list[tuple[str, str | None]] = [tuple(j.split("=", 1)) for j in args.judge] + [("this", None)]  # type: ignore[misc]
    results = []
    for _ in range(max(1, args.repeat)):
        for label, src in judges:
            results.append((label, judge_once(src)))
    text = table(results) + ("\n\n(OpenAI's caching rule at the simulator: a shared prefix from 1024 tokens, in steps "
                             "of 128; text 4 characters a token; page images by OpenAI's vision rule, cached in place.)")
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
