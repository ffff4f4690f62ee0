"""Test harness for the thin test.sh: wheels, a PEP 503 index on 127.0.0.1, a bubblewrap sandbox.

- `build_wheel` builds this checkout's wheel (``pip wheel --no-deps``), optionally under
  another version with a patched source (for a judge that crashes).
- `download_dependencies` fetches the dependency wheels ONCE into a cache folder keyed by
  the requirement set and the sandbox's Python (``~/.cache/cowork-judge/selftest-wheels``,
  or ``COWORK_SELFTEST_CACHE``), so later sessions need no network.
- `PackageIndex` lays out files as a PEP 503 simple index and serves it over HTTP on
  127.0.0.1 (real pip, real resolution).
- `run_in_sandbox` runs ``bash -c "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"``
  — Harbor's own command line — inside bubblewrap with temp folders mounted at ``/app``,
  ``/logs``, ``/tests`` (and a judge home at ``/opt/cowork-judge``), the host's ``/usr`` and
  ``/etc`` read-only, a clean environment, and the host network (loopback reaches the index
  and the simulator).
"""

from __future__ import annotations

import hashlib
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SANDBOX_PYTHON = "/usr/bin/python3"
"""The interpreter inside the sandbox (the host's system Python, read-only under /usr)."""

CACHE_ROOT = Path(os.environ.get("COWORK_SELFTEST_CACHE") or Path.home() / ".cache" / "cowork-judge" / "selftest-wheels")


def normalize(name: str) -> str:
    """PEP 503 project name normalization."""
    return re.sub(r"[-_.]+", "-", name).lower()


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
            init = src / "src" / "cowork_judge" / "__init__.py"
            init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"', init.read_text()))
        for rel, text in (patch or {}).items():
            (src / rel).write_text(text)
    wheel_dir = out_dir / "wheel"
    wheel_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheel_dir), str(src)],
                   check=True, capture_output=True, timeout=600)
    wheels = sorted(wheel_dir.glob("cowork_judge-*.whl"), key=lambda p: p.stat().st_mtime)
    return wheels[-1]


def wheel_requirements(wheel: Path, extras: tuple[str, ...]) -> list[str]:
    """The wheel's Requires-Dist lines that apply with `extras` (markers kept for pip)."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        msg = Parser().parsestr(zf.read(meta).decode())
    out = []
    for req in msg.get_all("Requires-Dist") or []:
        m = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", req)
        if m and m.group(1) not in extras:
            continue
        req = re.sub(r"\s*(and\s+)?extra\s*==\s*['\"][^'\"]+['\"]", "", req).rstrip("; ").rstrip()
        req = re.sub(r";\s*$", "", req)
        out.append(req)
    return out


def download_dependencies(wheel: Path, extras: tuple[str, ...], python: str = SANDBOX_PYTHON) -> Path:
    """Dependency wheels of `wheel[extras]` for `python`, downloaded once into the cache.

    Raises:
        subprocess.CalledProcessError: pip could not download them (no network and no cache).
    """
    reqs = sorted(wheel_requirements(wheel, extras))
    tag = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    key = hashlib.sha256(("\n".join(reqs) + f"\npy{tag}").encode()).hexdigest()[:16]
    target = CACHE_ROOT / f"py{tag}-{key}"
    if (target / ".complete").is_file():
        return target
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    subprocess.run([python, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--only-binary=:all:",
                    "--dest", str(tmp), *reqs], check=True, capture_output=True, timeout=900)
    (tmp / ".complete").write_text("\n".join(reqs) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


class PackageIndex:
    """A PEP 503 simple index of the given files, served on 127.0.0.1 until `stop`."""

    def __init__(self, root: Path, files: list[Path]) -> None:
        self.root = root
        by_project: dict[str, list[Path]] = {}
        files_dir = root / "files"
        files_dir.mkdir(parents=True, exist_ok=True)
        for f in files:
            target = files_dir / f.name
            if not target.exists():
                shutil.copy2(f, target)
            by_project.setdefault(normalize(f.name.split("-")[0]), []).append(target)
        simple = root / "simple"
        simple.mkdir(exist_ok=True)
        links = []
        for project, paths in sorted(by_project.items()):
            (simple / project).mkdir(exist_ok=True)
            rows = "".join(f'<a href="../../files/{p.name}#sha256={hashlib.sha256(p.read_bytes()).hexdigest()}">{p.name}</a><br/>\n'
                           for p in sorted(paths))
            (simple / project / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{rows}</body></html>\n")
            links.append(f'<a href="{project}/">{project}</a><br/>')
        (simple / "index.html").write_text("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
        handler = _quiet_handler(str(root))
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.requests = handler.requests

    @property
    def url(self) -> str:
        """The simple index URL, e.g. ``http://127.0.0.1:41234/simple/``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/simple/"

    def stop(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()


def _quiet_handler(directory: str) -> type[http.server.SimpleHTTPRequestHandler]:
    requests: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=directory, **kwargs)

        def log_message(self, format: str, *args) -> None:  # noqa: A002
            requests.append(self.path)

    Handler.requests = requests  # type: ignore[attr-defined]
    return Handler


def free_port() -> int:
    """A loopback port with nothing listening on it (for 'index unreachable')."""
    import socket

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
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    probe = subprocess.run(["bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                            "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev", "/bin/true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"bubblewrap cannot create a sandbox here: {probe.stderr.strip()[:200]}"
    if not Path(SANDBOX_PYTHON).is_file():
        return f"{SANDBOX_PYTHON} is missing (the sandbox's Python)"
    return None


def run_in_sandbox(*, app: Path, logs: Path, tests: Path, env: dict[str, str], judge_home: Path | None = None,
                   hide_python: bool = False, fake_python_version: str | None = None, extra_binds: list[tuple[Path, str]] | None = None,
                   cwd: str = "/app", timeout: float = 900) -> SandboxRun:
    """Run Harbor's verifier command line in bubblewrap and return what it left.

    Args:
        app, logs, tests: host folders mounted at /app, /logs, /tests (read-write).
        env: the whole environment of the run (plus PATH, HOME and LANG set here).
        judge_home: mounted at /opt/cowork-judge (the template's default venv root).
        hide_python: no python at all on PATH (every python* under /usr/bin masked).
        fake_python_version: every python* under /usr/bin is a stub that reports this version.
        cwd: the working directory (Harbor uses the task's workdir, usually /app).
    """
    (logs / "verifier").mkdir(parents=True, exist_ok=True)
    (logs / "agent").mkdir(parents=True, exist_ok=True)
    args = ["bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
            "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--bind", str(app), "/app", "--bind", str(logs), "/logs", "--bind", str(tests), "/tests"]
    if judge_home is not None:
        judge_home.mkdir(parents=True, exist_ok=True)
        args += ["--bind", str(judge_home), "/opt/cowork-judge"]
    pythons = sorted(p for p in Path("/usr/bin").glob("python*") if not p.name.endswith("-config"))
    if hide_python:
        for p in pythons:
            args += ["--ro-bind", "/dev/null", str(p)]
    elif fake_python_version is not None:
        stub = logs.parent / "python-stub"
        stub.write_text(f"#!/bin/sh\necho {fake_python_version}\n")
        stub.chmod(0o755)
        for p in pythons:
            args += ["--ro-bind", str(stub), str(p)]
    for host, inside in extra_binds or []:
        args += ["--ro-bind", str(host), inside]
    args += ["--chdir", cwd, "--clearenv"]
    full_env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", **env}
    for k, v in full_env.items():
        args += ["--setenv", k, v]
    args += ["bash", "-c", "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return SandboxRun(returncode=proc.returncode, verifier=logs / "verifier", output=proc.stdout + proc.stderr)
