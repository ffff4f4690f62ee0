"""Benchmark: one Harbor job judged in ``test.sh`` mode vs on the host (issue 36), in ONE run.

Builds N tasks (a quarter deck tasks: the example instance with its ``ppt_judge`` rows on the
example deck, evidence on, so LibreOffice renders; the rest chat tasks: the HealthBench example's
rows on a chat rollout), each judged once (``-k 1``), and runs the same job through real
``harbor run`` (Harbor 0.26, ``-a oracle``, ``-n 4``, the bubblewrap environment class of the
install tests: ``selftests/install/harbor_env``) once per ``--job MODE:HEADERS``:

- ``testsh``: each trial's ``tests/test.sh`` installs the judge (from a local PEP 503 index on
  127.0.0.1) into ONE judge home shared by the job's sandboxes, cold at the start of the job
  (a fleet's shared volume: one trial installs, the others wait for it), then judges;
- ``host``: ``--verifier cowork_judge.harbor:RubricVerifier`` (the engine in this checkout,
  the job's one limiter store: a private ``redis-server``);
- ``host-noredis``: the same with ``--verifier-kwarg shared_limiter=false`` (one in-process
  limiter per trial's engine, nothing shared but the slots).

HEADERS ``on``/``off``: whether the simulator sends ``x-ratelimit-*`` headers. Every job gets its
own simulator (demo policy, ``--rpm``, burst ``ceil(rpm/60)``, ``--latency-ms`` per answer; 429
with ``Retry-After`` when the bucket is empty) and its own start, so the counts are per job.

Reported per job: wall time of ``harbor run``; CPU seconds of the job (the Harbor process and
every descendant: sandboxes, installs, judges, LibreOffice; sampled from ``/proc`` every 0.25 s,
so a floor: ``getrusage`` misses what runs in the sandboxes' own PID namespaces); install
seconds (test.sh: the sum of ``install_seconds`` in the trials' ``env_capabilities.json``, a
waiter's wait included; host: whether anything appeared in the judge home); model requests
answered (200) and refused (429) by the simulator, and 429s per useful call; the most
LibreOffice instances (``soffice.bin`` processes) of the job alive at once (sampled every 0.25 s among the
Harbor process's descendants); trials judged / with an error reward / with a Harbor exception;
and the 1-minute load average (mean over the job, sampled every second). The last line compares
each host job's wall time with the test.sh job's.

Usage (from the repository root; Harbor at ``.venv-harbor`` or ``HARBOR_BIN``)::

    python bench/harbor_job.py --trials 32 [--rpm 300] [--latency-ms 200] [--job testsh:on --job host-noredis:on ...]
        [--out FILE.md]

Needs bubblewrap, LibreOffice (deck tasks render on the host in host mode, in the sandbox from
the host's ``/usr`` in test.sh mode), ``redis-server`` for ``host``, and the wheel cache of the
install tests (``COWORK_SELFTEST_CACHE``; downloaded once from the configured index otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "selftests")]

from cowork_judge import __version__  # noqa: E402
from cowork_judge.commands import main as cli  # noqa: E402
from cowork_judge.sim import DemoPolicy, LatencyModel, SimServer  # noqa: E402

KEY = "sk-bench-harbor-job-000000000000"
ENV_DIR = REPO / "selftests" / "install" / "harbor_env"
VERIFIER = "cowork_judge.harbor:RubricVerifier"
EXAMPLE_TESTS = REPO / "tests"
DECK = REPO / "examples" / "rollouts" / "deck"
HEALTHBENCH = REPO / "examples" / "healthbench-bbd759b4"
CHAT_ROLLOUTS = (HEALTHBENCH / "rollout", REPO / "examples" / "rollouts" / "chat")
MODES = ("testsh", "host", "host-noredis")

TASK_TOML = '''\
version = "1.0"

[verifier]
timeout_sec = 600.0

[agent]
timeout_sec = 300.0

[environment]
build_timeout_sec = 60.0
workdir = "/app"
'''

SOLVE = '''\
#!/bin/bash
set -eu
mkdir -p /app/output /logs/agent
if [ -d /solution/output ]; then cp -r /solution/output/. /app/output/; fi
cp /solution/trajectory.json /logs/agent/trajectory.json
'''


def make_task(root: Path, name: str, deck: bool, chat_rollout: Path, index_url: str) -> Path:
    """One Harbor task under `root` (`cowork-judge init --extras workflow`: every task of the job
    asks for the same judge venv; a cold install may take minutes on a loaded machine, so the
    install budget is 1800 s instead of 300 s)."""
    task = root / name
    (task / "environment").mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    sol = task / "solution"
    sol.mkdir()
    (sol / "solve.sh").write_text(SOLVE)
    if deck:
        (task / "instruction.md").write_text((EXAMPLE_TESTS / "task_prompt.md").read_text())
        shutil.copytree(EXAMPLE_TESTS, task / "tests", ignore=shutil.ignore_patterns("test.sh"))
        shutil.copytree(DECK / "app" / "output", sol / "output")
        shutil.copy2(DECK / "logs" / "agent" / "trajectory.json", sol)
    else:
        (task / "instruction.md").write_text((HEALTHBENCH / "tests" / "task_prompt.md").read_text())
        shutil.copytree(HEALTHBENCH / "tests", task / "tests", ignore=shutil.ignore_patterns("test.sh"))
        shutil.copy2(chat_rollout / "logs" / "agent" / "trajectory.json", sol)
    (task / "task.toml").write_text(TASK_TOML)
    if cli(["init", str(task), "--extras", "workflow"]) != 0:  # one judge venv for the job's image, as a fleet bakes it
        raise SystemExit(f"cowork-judge init failed on {task}")
    env_lines = f'PIP_INDEX_URL = "{index_url}"\nPIP_CONFIG_FILE = "/dev/null"\nCOWORK_INSTALL_TIMEOUT = "1800"\n'
    text = (task / "task.toml").read_text().replace("[verifier.env]\n", "[verifier.env]\n" + env_lines, 1)
    (task / "task.toml").write_text(text)
    return task


def package_index(root: Path):  # -> PackageIndex
    """This checkout's wheel and its ``workflow`` dependencies served on 127.0.0.1."""
    from install.harness import PackageIndex, build_wheel, download_dependencies

    wheel = build_wheel(root / "wheel")
    deps = sorted(download_dependencies(wheel, ("workflow",)).glob("*.whl"))
    return PackageIndex(root / "index", [wheel, *deps])


class Sampler:
    """Samples, every 0.25 s while running, the processes of `pid` and its descendants: the most
    LibreOffice processes alive at once, the CPU seconds they used (user + system per process,
    its last sample; a process shorter than one period is missed, so the figure is a floor) and
    the 1-minute load average (every second)."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int) -> None:
        self.pid, self.max_soffice, self.loads = pid, 0, []
        self.cpu: dict[tuple[int, int], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def cpu_seconds(self) -> float:
        return sum(self.cpu.values())

    def _sample(self) -> None:
        parents: dict[int, int] = {}
        info: dict[int, tuple[str, int, float]] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            head, _, rest = stat.rpartition(")")
            fields = rest.split()
            pid = int(entry.name)
            parents[pid] = int(fields[1])
            info[pid] = (head.partition("(")[2], int(fields[19]), (int(fields[11]) + int(fields[12])) / self.TICK)
        soffice = 0
        for pid, (name, started, cpu) in info.items():
            p, hops = pid, 0
            while p > 1 and p != self.pid and hops < 64:
                p, hops = parents.get(p, 0), hops + 1
            if p != self.pid:
                continue
            self.cpu[(pid, started)] = cpu
            soffice += name == "soffice.bin"  # one per LibreOffice instance (not its soffice/oosplash wrappers)
        self.max_soffice = max(self.max_soffice, soffice)

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(0.25):
            self._sample()
            tick += 1
            if tick % 4 == 0:
                self.loads.append(os.getloadavg()[0])

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class JobResult:
    label: str
    wall: float = 0.0
    cpu: float = 0.0
    install: float = 0.0
    installed_files: int = 0
    useful: int = 0
    refused: int = 0
    max_soffice: int = 0
    judged: int = 0
    error_rewards: int = 0
    exceptions: int = 0
    load: float = 0.0
    rewards: dict[str, float] = field(default_factory=dict)


def trials(job_root: Path) -> list[dict]:
    """The trials' result.json documents of the job under `job_root` (with ``_dir``)."""
    out = []
    for path in sorted(job_root.rglob("result.json")):
        try:
            doc = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(doc, dict) and "task_name" in doc and "verifier_result" in doc:
            out.append(doc | {"_dir": str(path.parent)})
    return out


def run_job(mode: str, headers: bool, tasks: Path, root: Path, args: argparse.Namespace, base_env: dict[str, str]) -> JobResult:
    """One ``harbor run`` of every task in `tasks` in `mode` against a fresh simulator."""
    label = f"{mode}:{'on' if headers else 'off'}"
    work = Path(tempfile.mkdtemp(prefix=f"{mode}-{'on' if headers else 'off'}-", dir=root))
    home = work / "judge-home"
    server = SimServer(DemoPolicy(), api_key=KEY, rpm=args.rpm, ratelimit_headers=headers,
                       latency=LatencyModel(tool_base_ms=args.latency_ms, final_base_ms=args.latency_ms) if args.latency_ms else None).start()
    env = base_env | {"JUDGE_BASE_URL": server.url}
    argv = [str(args.harbor), "run", "-p", str(tasks), "-a", "oracle", "-n", str(args.concurrent), "-e",
            "bwrap_env:BwrapEnvironment", "--ek", f"judge_home={home}", "--ek", f"base_dir={work / 'env'}",
            "-o", str(work / "jobs"), "-y"]
    if mode != "testsh":
        argv += ["--verifier", VERIFIER, "--verifier-kwarg", f"python={sys.executable}"]
        if mode == "host-noredis":
            argv += ["--verifier-kwarg", "shared_limiter=false"]
    start = time.monotonic()
    with open(work / "harbor.log", "wb") as log:
        proc = subprocess.Popen(argv, env=env, cwd=work, stdout=log, stderr=subprocess.STDOUT)
        sampler = Sampler(proc.pid)
        proc.wait()
    result = JobResult(label, wall=time.monotonic() - start)
    sampler.stop()
    server.stop()
    result.cpu = sampler.cpu_seconds
    result.max_soffice = sampler.max_soffice
    result.load = sum(sampler.loads) / len(sampler.loads) if sampler.loads else os.getloadavg()[0]
    entries = server.log.entries()
    result.useful = sum(1 for e in entries if e.status == 200 and e.row_ids)
    result.refused = sum(1 for e in entries if e.status == 429)
    result.installed_files = sum(1 for _ in home.rglob("*")) if home.is_dir() else 0
    for doc in trials(work / "jobs"):
        verifier = Path(doc["_dir"]) / "verifier"
        if doc.get("exception_info"):
            result.exceptions += 1
            continue
        try:
            caps = json.loads((verifier / "env_capabilities.json").read_text())
            result.install += float(caps.get("judge", {}).get("install_seconds") or 0)
        except (OSError, ValueError):
            pass
        try:
            status = json.loads((verifier / "result.json").read_text()).get("status")
        except (OSError, ValueError):
            status = None
        result.judged += status in ("success", "ok")
        result.error_rewards += status == "error"
        result.rewards[doc["task_name"]] = (doc.get("verifier_result") or {}).get("rewards", {}).get("reward")
    if proc.returncode != 0:
        print(f"harbor run exited {proc.returncode} for {label}: see {work / 'harbor.log'}", file=sys.stderr)
    return result


def table(results: list[JobResult], args: argparse.Namespace, n_deck: int) -> str:
    """The Markdown report of one invocation."""
    lines = [f"`python bench/harbor_job.py --trials {args.trials} --rpm {args.rpm} --latency-ms {args.latency_ms} "
             f"-n {args.concurrent}` ({n_deck} deck + {args.trials - n_deck} chat trials, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{os.cpu_count()} CPUs)", "",
             "| job (mode:headers) | wall s | job CPU s | install s | useful calls | 429s | 429s/useful | max soffice | "
             "judged / error / exception | load (1-min, mean) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        install = f"{r.install:.0f}" if r.label.startswith("testsh") else f"0 ({r.installed_files} files in home)"
        lines.append(f"| {r.label} | {r.wall:.0f} | {r.cpu:.0f} | {install} | {r.useful} | {r.refused} | "
                     f"{r.refused / max(1, r.useful):.3f} | {r.max_soffice} | {r.judged} / {r.error_rewards} / {r.exceptions} | "
                     f"{r.load:.1f} |")
    base = next((r for r in results if r.label.startswith("testsh")), None)
    if base is not None:
        ratios = [f"{r.label} {r.wall / base.wall:.2f}×" for r in results if r is not base]
        lines += ["", f"wall time vs {base.label}: " + ", ".join(ratios)]
    same = [r.label for r in results if base is not None and r is not base and r.rewards == base.rewards]
    if base is not None:
        lines.append(f"same rewards as {base.label}: {', '.join(same) or 'none'}")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--deck-share", type=float, default=0.25, help="fraction of deck trials (default 0.25)")
    parser.add_argument("--rpm", type=float, default=300.0)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrent", "-n", type=int, default=4)
    parser.add_argument("--job", action="append", help="MODE:HEADERS, MODE in testsh|host|host-noredis, HEADERS on|off "
                        "(repeatable; default testsh:on host:on host-noredis:on host-noredis:off)")
    parser.add_argument("--harbor", type=Path, default=Path(os.environ.get("HARBOR_BIN") or REPO / ".venv-harbor/bin/harbor"))
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--out", type=Path, help="also append the report to this Markdown file")
    args = parser.parse_args()
    jobs = []
    for spec in args.job or ["testsh:on", "host:on", "host-noredis:on", "host-noredis:off"]:
        mode, _, headers = spec.partition(":")
        if mode not in MODES or headers not in ("on", "off"):
            parser.error(f"--job {spec!r}: MODE:HEADERS with MODE in {MODES} and HEADERS on|off")
        jobs.append((mode, headers == "on"))
    if not args.harbor.is_file():
        parser.error(f"harbor not found at {args.harbor} (set HARBOR_BIN or --harbor)")
    root = Path(tempfile.mkdtemp(prefix="bench-harbor-job-"))
    index = package_index(root)
    try:
        n_deck = round(args.trials * args.deck_share)
        tasks = root / "tasks"
        for i in range(args.trials):
            deck = i < n_deck
            make_task(tasks, f"{'deck' if deck else 'chat'}-{i:02d}", deck, CHAT_ROLLOUTS[i % 2], index.url)
        base = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "PIP_", "OPENAI_"))}
        base.update(PYTHONPATH=f"{REPO / 'src'}:{ENV_DIR}", LITELLM_LOCAL_MODEL_COST_MAP="True", JUDGE_API_KEY=KEY,
                    JUDGE_MODEL="sim-judge", COWORK_JUDGE_VERSION=__version__, COWORK_JUDGE_VERSION_SOURCE="injection",
                    COWORK_WHEEL_URL=index.url)
        print(f"load before: {os.getloadavg()[0]:.1f}", flush=True)
        results = []
        for mode, headers in jobs:
            results.append(run_job(mode, headers, tasks, root, args, base))
            print(table(results, args, n_deck), flush=True)  # so far (a long run may be stopped)
        report = table(results, args, n_deck)
        print(report)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write("\n" + report)
    finally:
        index.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
