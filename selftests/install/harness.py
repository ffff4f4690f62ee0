"""Test harness for the thin test.sh, over the package's own dry-run pieces (``cowork_judge.install``:
`wheels`, `local_index`, `sandbox`, the code ``cowork-judge try`` runs) plus what only tests need:

- `build_wheel` builds this checkout's wheel, optionally under another version with a patched
  source (for a judge that crashes);
- `download_dependencies` fetches the dependency wheels ONCE into the cache (``COWORK_SELFTEST_CACHE``,
  else the package's own cache root), so later sessions need no network;
- `run_in_sandbox` runs Harbor's verifier command line in bubblewrap with temp folders at ``/app``,
  ``/logs``, ``/tests`` (and a judge home at ``/opt/cowork-judge``), and can hide or fake the
  sandbox's Python.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cowork_judge.install import sandbox, wheels
from cowork_judge.install.local_index import PackageIndex
from cowork_judge.install.wheels import normalize, wheel_requirements

REPO = Path(__file__).resolve().parents[2]
SANDBOX_PYTHON = "/usr/bin/python3"
"""The interpreter inside the sandbox (the host's system Python, read-only under /usr)."""

CACHE_ROOT = Path(os.environ["COWORK_SELFTEST_CACHE"]) if os.environ.get("COWORK_SELFTEST_CACHE") else wheels.cache_root()
"""The wheel cache of the suite (the same layout as ``cowork-judge try``'s, so one download serves both)."""

__all__ = ["CACHE_ROOT", "REPO", "SANDBOX_PYTHON", "PackageIndex", "SandboxRun", "build_wheel", "bwrap_missing",
           "download_dependencies", "free_port", "normalize", "run_in_sandbox", "wheel_requirements"]


def build_wheel(out_dir: Path, *, version: str | None = None, patch: dict[str, str] | None = None) -> Path:
    """Build this checkout's wheel into `out_dir` and return its path.

    Args:
        version: build under this version instead (the source is copied and
            ``__version__`` rewritten).
        patch: ``{path relative to the repo: new text}`` applied to the copy.
    """
    src = REPO
    if version is not None or patch:
        src = out_dir / "src-copy"
        shutil.rmtree(src, ignore_errors=True)
        for name in ("src", "templates", "tests", "examples"):
            shutil.copytree(REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(REPO / name, src / name)
        if version is not None:
            init = src / "src" / "cowork_judge" / "core" / "version.py"  # where the build reads it ([tool.hatch.version])
            init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"', init.read_text()))
        for rel, text in (patch or {}).items():
            (src / rel).write_text(text)
    return wheels.build_wheel(src, out_dir / "wheel")


def download_dependencies(wheel: Path, extras: tuple[str, ...], python: str = SANDBOX_PYTHON) -> Path:
    """Dependency wheels of `wheel[extras]` for `python`, downloaded once into `CACHE_ROOT`."""
    return wheels.download_dependencies(wheel, extras, python=python, cache=CACHE_ROOT)[0]


def free_port() -> int:
    """A loopback port with nothing listening on it (for 'index unreachable')."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class SandboxRun:
    """What one sandboxed ``bash /tests/test.sh`` left behind (host paths)."""

    returncode: int
    verifier: Path
    output: str

    def text(self, name: str) -> str:
        path = self.verifier / name
        return path.read_text(errors="replace") if path.exists() else ""


def bwrap_missing() -> str | None:
    """Why the sandbox cannot run here, or None."""
    return sandbox.bwrap_missing(SANDBOX_PYTHON)


def run_in_sandbox(*, app: Path, logs: Path, tests: Path, env: dict[str, str], judge_home: Path | None = None,
                   hide_python: bool = False, fake_python_version: str | None = None, extra_binds: list[tuple[Path, str]] | None = None,
                   cwd: str = "/app", timeout: float = 900) -> SandboxRun:
    """Run Harbor's verifier command line in bubblewrap (`cowork_judge.install.sandbox.bwrap_command`).

    Args:
        app, logs, tests: host folders mounted at /app, /logs, /tests (read-write).
        env: the whole environment of the run (plus PATH, HOME and LANG set by the sandbox).
        judge_home: mounted at /opt/cowork-judge (the template's default venv root).
        hide_python: no python at all on PATH (every python* under /usr/bin masked).
        fake_python_version: every python* under /usr/bin is a stub that reports this version.
        extra_binds: (host path, inside path) mounted read-only.
        cwd: the working directory (Harbor uses the task's workdir, usually /app).
    """
    (logs / "verifier").mkdir(parents=True, exist_ok=True)
    (logs / "agent").mkdir(parents=True, exist_ok=True)
    binds = [sandbox.Bind(app, "/app"), sandbox.Bind(logs, "/logs"), sandbox.Bind(tests, "/tests")]
    if judge_home is not None:
        judge_home.mkdir(parents=True, exist_ok=True)
        binds.append(sandbox.Bind(judge_home, sandbox.JUDGE_HOME))
    pythons = sorted(p for p in Path("/usr/bin").glob("python*") if not p.name.endswith("-config"))
    if hide_python:
        binds += [sandbox.Bind(Path("/dev/null"), str(p), read_only=True) for p in pythons]
    elif fake_python_version is not None:
        stub = logs.parent / "python-stub"
        stub.write_text(f"#!/bin/sh\necho {fake_python_version}\n")
        stub.chmod(0o755)
        binds += [sandbox.Bind(stub, str(p), read_only=True) for p in pythons]
    binds += [sandbox.Bind(host, inside, read_only=True) for host, inside in extra_binds or []]
    argv = sandbox.bwrap_command(sandbox.HARBOR_COMMAND, binds=binds, env=env, cwd=cwd)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    return SandboxRun(returncode=proc.returncode, verifier=logs / "verifier", output=proc.stdout + proc.stderr)
