"""Start-up cost of `cowork-judge run` on a code-only rubric (no model, no renderer needed).

Builds a two-row code-only instance in a temp dir, then runs ``python -m cowork_judge run``
on it N times (whole processes, the way Harbor runs the judge) and reports the median and
spread of the wall time, the modules imported (``-X importtime``), whether ``openai``
and the guard's pattern tables (``guard.lexicon``, not imported for a code-only rubric
since issue 38) were among them, the top imports by cumulative time, and whether the renderers were probed
(``env_capabilities.json`` written by the judge). The lower bound printed beside it is a
bare ``python -c pass``, measured in the same run, and the child's CPU time (less
sensitive to other processes on a shared machine). ``--judge LABEL=DIR`` also runs the
judge from another source tree (``PYTHONPATH``), e.g. a ``git archive`` of an older
commit, interleaved run by run with this checkout. ``--console`` also times the
``cowork-judge`` console script beside this interpreter with the caller's own environment
(less ``JUDGE_*``/``OPENAI_*``, plus ``--env``), as a stopwatch around a user's command does.

    .venv/bin/python bench/startup.py [--runs 10] [--judge before=/tmp/base/src] [--top 8] [--console]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
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


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_trace(judge: list[str], env: dict[str, str], logs: Path) -> tuple[list[tuple[int, str]], bool]:
    """``-X importtime`` rows (cumulative µs, module) of one run, and whether it probed the renderers."""
    shutil.rmtree(logs / "verifier", ignore_errors=True)
    trace = subprocess.run([judge[0], "-X", "importtime", *judge[1:]], env=env, capture_output=True, text=True).stderr
    rows = []
    for line in trace.splitlines():
        if line.startswith("import time:") and "|" in line:
            parts = [x.strip() for x in line[len("import time:"):].split("|")]
            if parts[0].isdigit():
                rows.append((int(parts[1]), parts[2]))
    return rows, (logs / "verifier" / "env_capabilities.json").exists()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--judge", action="append", default=[],
                        help="LABEL=SRC: also run the judge from source tree SRC (PYTHONPATH), interleaved with this checkout's")
    parser.add_argument("--top", type=int, default=8, help="imports to list by cumulative time")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="an extra variable for every judge run (e.g. JUDGE_GUARD=off)")
    parser.add_argument("--console", action="store_true",
                        help="also time the cowork-judge console script with the caller's environment (label 'console')")
    args = parser.parse_args()
    if bad := [e for e in args.env if "=" not in e or not e.split("=", 1)[0]]:
        parser.error(f"--env takes NAME=VALUE, not {bad[0]!r}")
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"), "JUDGE_START_JITTER": "0",
            **dict(e.split("=", 1) for e in args.env)}
    judges = [(label, {**base, "PYTHONPATH": src}) for label, src in (j.split("=", 1) for j in args.judge)] + [("this", base)]
    if args.console:
        caller = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_"))}
        judges.append(("console", {**caller, **dict(e.split("=", 1) for e in args.env)}))
    wall: dict[str, list[float]] = {label: [] for label, _ in judges + [("bare", base)]}
    cpu: dict[str, list[float]] = {label: [] for label in wall}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        judge = [sys.executable, "-m", "cowork_judge", "run", *instance(Path(tmp))]
        script = [str(Path(sys.executable).parent / "cowork-judge"), *judge[3:]]

        def argv(label: str) -> list[str]:
            return [sys.executable, "-c", "pass"] if label == "bare" else script if label == "console" else judge

        for label, env in judges:
            timed(argv(label), env)  # warm the file cache
        for _ in range(args.runs):  # interleaved: the machine's load hits every judge alike
            for label, env in judges + [("bare", base)]:
                w, c = timed(argv(label), env)
                wall[label].append(w)
                cpu[label].append(c)
        traces = {label: import_trace(argv(label) if label != "console" else judge, env, Path(tmp) / "logs")
                  for label, env in judges}
    print(f"code-only rubric, {args.runs} interleaved runs each; load average {load:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} CPUs")
    print("| judge | wall median s (min–max) | CPU median s | wall / bare interpreter | modules | openai | guard | "
          "renderers probed |")
    print("|---|---|---:|---:|---:|---|---|---|")
    bare = statistics.median(wall["bare"])
    for label, _ in judges + [("bare", base)]:
        w = wall[label]
        line = f"| {label} | {statistics.median(w):.3f} ({min(w):.3f}–{max(w):.3f}) | {statistics.median(cpu[label]):.3f} " \
               f"| {statistics.median(w) / bare:.1f}× "
        if label in traces:
            rows, probed = traces[label]
            modules = [m.strip() for _, m in rows if m.strip()]
            line += (f"| {len(modules)} | {any(m == 'openai' or m.startswith('openai.') for m in modules)} "
                     f"| {'cowork_judge.guard.lexicon' in modules} | {probed} |")
        else:
            line += "| | | | |"
        print(line)
    for label, _ in judges:
        print(f"\n{label}: top imports by cumulative time (-X importtime, µs)")
        for cumulative, name in sorted(traces[label][0], reverse=True)[: args.top]:
            print(f"  {cumulative:>9}  {name.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
