"""Shared fixtures: repository paths, the public fixtures folder, and end-to-end judge runs.

`judge_run` runs the REAL command line (``python -m cowork_judge run`` in a subprocess)
against the simulator served in this process over HTTP on 127.0.0.1 — the model is
mocked at that one seam only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from testkit import FIXTURES, SIM_KEY, RunResult

from cowork_judge.sim import DemoPolicy, OraclePolicy, SimServer


@pytest.fixture(autouse=True)
def _environment_restored() -> Iterator[None]:
    """Each test leaves the process environment as it found it: a judge run in this process
    exports its credential pair (`config.judge_config.export_credentials`, for the CLI backends), and a
    later test that builds a child's environment from ``os.environ`` would otherwise inherit a
    dead simulator's ``OPENAI_BASE_URL``."""
    saved = dict(os.environ)
    yield
    if dict(os.environ) != saved:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture
def fixtures_dir() -> Path:
    """``selftests/fixtures`` (shipped with the repository; skips only when a checkout lacks it)."""
    if not FIXTURES.is_dir():
        pytest.skip(f"public fixtures folder not found at {FIXTURES}")
    return FIXTURES


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not (k.startswith("JUDGE_") or k.startswith("OPENAI_") or k.startswith("COWORK_"))}
    env["JUDGE_START_JITTER"] = "0"
    env["JUDGE_EVIDENCE"] = "0"  # rendering is exercised by its own tests; pass env={"JUDGE_EVIDENCE": "180"} to turn it on
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@pytest.fixture
def judge_run(tmp_path: Path) -> Iterator[Callable[..., RunResult]]:
    """``judge_run(tests_dir, rollout_dir, oracle=..., policy=..., env=..., sim=..., timeout=...)``
    (``policy``: a simulator policy object, in place of the one ``oracle`` makes).

    Copies the rollout's ``app/`` and ``logs/agent/`` into a temp layout, starts a
    simulator (oracle dict/file → `OraclePolicy`, else `DemoPolicy`; ``sim=False`` for no
    endpoint at all), runs ``python -m cowork_judge run`` and returns a `RunResult`.
    Extra ``sim`` keys are passed to `SimServer` (``faults=``, ``latency=``, …).

    The runs of one test that use a verdict cache (``JUDGE_VERDICT_CACHE`` in `env`) reach **one
    endpoint**, as a fleet's re-judge does: each new simulator takes the port of the test's first one
    (the previous simulator is stopped first; its ``log`` stays readable), so ``JUDGE_BASE_URL`` — part
    of the verdict-cache key (trial 15 P-5) — is the same for every such run unless ``sim={"port": …}``
    says otherwise. Other runs get a port each (runs in parallel threads, the fault matrix, need it).
    """
    servers: list[SimServer] = []
    counter = iter(range(1000))

    def run(
        tests_dir: Path,
        rollout_dir: Path | None = None,
        *,
        oracle: dict[str, Any] | None = None,
        policy: Any = None,
        env: dict[str, str] | None = None,
        sim: dict[str, Any] | bool = True,
        timeout: float = 120.0,
        app_dir: Path | None = None,
        work_dir: Path | None = None,
        setup: Callable[[Path], Any] | None = None,
    ) -> RunResult:
        n = next(counter)
        root = tmp_path / f"run{n}"
        app = app_dir or root / "app"
        logs = root / "logs"
        work = work_dir or root / "work"
        app.mkdir(parents=True, exist_ok=True)
        (logs / "agent").mkdir(parents=True)
        if rollout_dir is not None:
            if (rollout_dir / "app").is_dir() and app_dir is None:
                shutil.copytree(rollout_dir / "app", app, dirs_exist_ok=True, symlinks=True)
            if (rollout_dir / "logs" / "agent").is_dir():
                shutil.copytree(rollout_dir / "logs" / "agent", logs / "agent", dirs_exist_ok=True, symlinks=True)
        if setup is not None:  # last touches to the layout (called with the run's root)
            setup(root)
        full_env = _base_env()
        server: SimServer | None = None
        if sim is not False:
            options = dict(sim) if isinstance(sim, dict) else {}
            answers = policy or (OraclePolicy.from_dict(oracle) if oracle is not None else DemoPolicy())
            if servers and "port" not in options and (env or {}).get("JUDGE_VERDICT_CACHE"):  # one endpoint per test
                servers[-1].stop()
                options["port"] = servers[0].port
            server = SimServer(answers, **{"api_key": SIM_KEY, **options}).start()
            servers.append(server)
            full_env.update(JUDGE_API_KEY=SIM_KEY, JUDGE_BASE_URL=server.url, JUDGE_MODEL="sim-judge")
        full_env.update(env or {})
        cmd = [
            sys.executable, "-m", "cowork_judge", "run",
            "--app-dir", str(app), "--logs-dir", str(logs), "--tests-dir", str(tests_dir),
            "--work-dir", str(work), "--alt-output-dir", str(root / "alt-output"),
        ]
        t0 = time.monotonic()
        proc = subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)
        return RunResult(
            returncode=proc.returncode,
            seconds=time.monotonic() - t0,
            stdout=proc.stdout,
            stderr=proc.stderr,
            verifier=logs / "verifier",
            work=work,
            sim=server,
        )

    yield run
    for server in servers:
        server.stop()




@pytest.fixture
def redis_store(tmp_path: Path) -> Iterator[Any]:
    """A real ``redis-server`` on a free port in a temporary folder (`redis_store.RedisStore`),
    stopped after the test; skips when redis-server or the redis library is missing."""
    from redis_store import REDIS_SERVER, RedisStore

    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    pytest.importorskip("redis", reason="the fleet-redis extra is not installed")
    store = RedisStore(tmp_path / "redis")
    try:
        yield store
    finally:
        store.stop()
