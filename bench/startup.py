"""Start-up cost of `cowork-judge run` on a code-only rubric (no model, no renderer needed).

Builds a two-row code-only instance in a temp dir, then runs ``python -m cowork_judge run``
on it N times (whole processes, the way Harbor runs the judge) and reports the median and
spread of the wall time, the modules imported (``-X importtime``), whether ``openai``
was among them, the top imports by cumulative time, and whether the renderers were probed
(``env_capabilities.json`` written by the judge). The lower bound printed beside it is a
bare ``python -c pass``, measured in the same run. ``--src DIR`` runs the judge from
another source tree (``PYTHONPATH``), e.g. a ``git archive`` of an older commit.

    .venv/bin/python bench/startup.py [--runs 10] [--src /tmp/base/src] [--top 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def instance(root: Path) -> list[str]:
    """A code-only instance; returns the command-line arguments that judge it."""
    (root / "tests").mkdir()
    (root / "app" / "output").mkdir(parents=True)
    (root / "app" / "output" / "report.md").write_text("# Report\nrevenue grew\n")
    rows = [{"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
             "code_method_params": {"glob": "*.md"}},
            {"id": "C2", "description": "mentions revenue", "weight": 2, "judge_method": "code",
             "code_method_name": "text_contains", "code_method_params": {"text": "revenue", "glob": "*.md"}}]
    (root / "tests" / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    return ["--app-dir", str(root / "app"), "--logs-dir", str(root / "logs"), "--tests-dir", str(root / "tests")]


def timed(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--src", help="run the judge from this source tree (PYTHONPATH)")
    parser.add_argument("--top", type=int, default=8, help="imports to list by cumulative time")
    args = parser.parse_args()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"), "JUDGE_START_JITTER": "0"}
    if args.src:
        env["PYTHONPATH"] = args.src
    with tempfile.TemporaryDirectory() as tmp:
        judge = [sys.executable, "-m", "cowork_judge", "run", *instance(Path(tmp))]
        timed(judge, env)  # warm the file cache
        runs = [timed(judge, env) for _ in range(args.runs)]
        bare = [timed([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
        trace = subprocess.run([sys.executable, "-X", "importtime", *judge[1:]], env=env, capture_output=True, text=True).stderr
        probed = (Path(tmp) / "logs" / "verifier" / "env_capabilities.json").exists()
    rows = []
    for line in trace.splitlines():
        if line.startswith("import time:") and "|" in line:
            parts = [x.strip() for x in line[len("import time:"):].split("|")]
            if parts[0].isdigit():
                rows.append((int(parts[1]), parts[2]))
    modules = [name.strip() for _, name in rows if name.strip() and name.strip() != "package"]
    print(f"cowork-judge run, code-only rubric: median {statistics.median(runs):.3f} s wall "
          f"(min {min(runs):.3f}, max {max(runs):.3f}, {len(runs)} runs); bare interpreter {statistics.median(bare):.3f} s")
    print(f"modules imported: {len(modules)}; openai among them: {any(m == 'openai' or m.startswith('openai.') for m in modules)}; "
          f"renderers probed: {probed}")
    print("top imports by cumulative time (-X importtime, µs):")
    for cumulative, name in sorted(rows, reverse=True)[: args.top]:
        print(f"  {cumulative:>9}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
