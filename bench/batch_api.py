"""Live vs Batch API on the same instances: rewards, calls and cost (issue 37).

    python bench/batch_api.py [--instances 50] [--batch-delay 2] [--fail 0.1] [--expire 0.1]

N reference-answer instances (2 model calls each: ANSWER and PROCESS), each with its own
oracle (``--oracle-dir``: a batched request's instance is read from its ``custom_id``), are
judged three times by real ``cowork-judge batch`` processes against the simulator:

1. live (``batch``);
2. ``batch --batch-api`` with no failure;
3. ``batch --batch-api`` with ``--fail``/``--expire`` of the batched requests failing or
   expiring (``--batch-api-failed live``: those are asked again live).

Per run it prints the rewards' agreement with the live run (instances whose reward differs),
the requests the simulator answered live and through the batch, the summed ``judge_cost_usd``
(prices ``sim-judge`` $2 / $8 per 10⁶ input / output tokens; no ``sim-judge@batch`` entry, so
the batch price is half the live one: `core.cost.price_of`), and the wall time (the record
pass, the batch window ``--batch-delay`` and the answer pass included). The load average is
printed before and after: on a shared 2-core machine the times depend on it; the rewards,
calls and costs do not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SIM_KEY = "sk-sim-bench-batch-api-0000"
PRICES = '{"sim-judge": {"input": 2.0, "output": 8.0}}'
LEVELS = (0.0, 0.5, 1.0)


def instances(root: Path, n: int) -> tuple[Path, Path]:
    """`n` reference-answer instances under ``root/inst`` and one oracle each under ``root/oracles``."""
    lines = [{"id": i, "question": f"Problem {i}", "reference_answer": f"x = {i + 2} y", "reference_solution": "A. B.",
              "steps": ["step A", "step B"], "response": f"We find x = {i + 2}y.", "collection": "alg"} for i in range(n)]
    (root / "problems.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    subprocess.run([sys.executable, "-m", "cowork_judge", "import", "answers", str(root / "problems.jsonl"), "--out",
                    str(root / "inst"), "--process"], check=True, capture_output=True)
    oracles = root / "oracles"
    oracles.mkdir()
    for i in range(n):
        s1, s2 = LEVELS[i % 3], LEVELS[(i + 1) % 3]
        oracle = {"ANSWER": {"hit": i % 2 == 0, "level": 1 if i % 2 == 0 else 0},
                  "PROCESS#s1": {"hit": s1 > 0, "level": s1}, "PROCESS#s2": {"hit": s2 > 0, "level": s2}}
        (oracles / f"alg-{i}.json").write_text(json.dumps(oracle))
    return root / "inst", oracles


def judge(inst: Path, out: Path, env: dict[str, str], *extra: str) -> tuple[dict[str, float | None], float, float]:
    """One batch; (rewards by instance, summed judge_cost_usd, wall seconds)."""
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "cowork_judge", "batch", str(inst), "--out", str(out), "--draws", "0",
                           "--batch-api-poll", "0.5", *extra], env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - t0
    if done.returncode != 0:
        raise SystemExit(f"batch failed ({done.returncode}): {done.stderr[-2000:]}")
    rewards, cost = {}, 0.0
    for folder in sorted(p for p in out.iterdir() if (p / "logs" / "verifier" / "result.json").is_file()):
        doc = json.loads((folder / "logs" / "verifier" / "result.json").read_text())
        rewards[folder.name] = doc["task_score"]
        cost += doc.get("judge_cost_usd") or 0.0
    return rewards, cost, seconds


def main() -> int:
    """Run the three batches and print one line each."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--instances", type=int, default=50)
    p.add_argument("--batch-delay", type=float, default=2.0, help="seconds a batch stays in_progress")
    p.add_argument("--fail", type=float, default=0.1, help="share of batched requests that fail (run 3)")
    p.add_argument("--expire", type=float, default=0.1, help="share of batched requests that expire (run 3)")
    args = p.parse_args()
    from cowork_judge.sim import SimServer
    from cowork_judge.sim.policies import OracleDirPolicy

    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    with tempfile.TemporaryDirectory(prefix="bench-batch-api-") as tmp:
        root = Path(tmp)
        inst, oracles = instances(root, args.instances)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        live_rewards: dict[str, float | None] = {}
        runs = (("live", (), 0.0, 0.0), ("batch API", ("--batch-api",), 0.0, 0.0),
                (f"batch API, {args.fail:g} fail + {args.expire:g} expire", ("--batch-api",), args.fail, args.expire))
        print(f"{args.instances} instances, 2 requests each; batch window {args.batch_delay:g} s")
        print(f"{'run':<36} {'rewards = live':>14} {'live calls':>10} {'batched':>8} {'cost $':>10} {'wall s':>7}")
        for n, (label, extra, fail, expire) in enumerate(runs):
            policy = OracleDirPolicy(oracles)
            with SimServer(policy, api_key=SIM_KEY, batch_delay=args.batch_delay, batch_fail=fail,
                           batch_expire=expire, seed=n) as server:
                env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge", JUDGE_EVIDENCE="0",
                           JUDGE_SEND_INSTANCE_ID="1", JUDGE_PRICES=PRICES)
                rewards, cost, seconds = judge(inst, root / f"out{n}", env, *extra)
                calls = Counter(e.endpoint for e in server.log.entries())
            if not live_rewards:
                live_rewards = rewards
            same = sum(1 for k, v in rewards.items() if v == live_rewards.get(k))
            print(f"{label:<36} {f'{same}/{len(rewards)}':>14} {calls.get('chat', 0):>10} {calls.get('batch', 0):>8} "
                  f"{cost:>10.6f} {seconds:>7.1f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
