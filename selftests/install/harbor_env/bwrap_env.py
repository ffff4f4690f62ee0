"""A Harbor environment that runs container commands in bubblewrap on this machine (tests only).

Docker cannot pull images here, so the integration test loads this class by import path
(``harbor run --environment-import-path bwrap_env:BwrapEnvironment``). Each environment is
a folder on the host whose ``app/``, ``logs/``, ``tests/``, ``solution/`` and ``tmp/`` are
mounted at ``/app``, ``/logs``, ``/tests``, ``/solution`` and ``/tmp`` over the host's
read-only ``/usr`` and ``/etc``; ``/opt/cowork-judge`` is a folder shared by every
environment of a run (kwarg ``judge_home``), like an image that keeps the judge's venv.
Uploads and downloads are file copies between the trial folder and those mounts. The bwrap
command line is the package's own (`cowork_judge.install.sandbox.bwrap_command`, the one
``cowork-judge try`` uses; standard library only, imported from this checkout's ``src/``).
With ``pip_index_url`` (kwarg, or ``BWRAP_ENV_PIP_INDEX_URL``) every command sees
``PIP_INDEX_URL`` set to it and ``PIP_CONFIG_FILE=/dev/null``: an image whose pip is configured
to use a mirror (the tests' local index), so no trial reaches another index.

"Building" an image: the host's ``/usr`` is the image, so ``RUN`` lines are not executed, but
the ``COPY``/``ADD`` lines of a ``Dockerfile`` in the environment folder that copy from the
build context into the mounts are applied at `start` (Harbor's ``harbor init`` writes
``tests/Dockerfile`` with ``COPY . /tests/``: a separate verifier built from it has its tests
baked in, and Harbor then skips uploading them).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path, PurePosixPath

from harbor.environments.base import BaseEnvironment, ExecResult

try:
    from cowork_judge.install import sandbox
except ImportError:  # Harbor's own venv: this checkout's source
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "src"))
    from cowork_judge.install import sandbox

MOUNTS = ("/app", "/logs", "/tests", "/solution", "/tmp")


class BwrapEnvironment(BaseEnvironment):
    """Each ``exec`` is ``bwrap … bash -c COMMAND`` with the mounts above; root inside."""

    def __init__(self, *args, judge_home: str | None = None, base_dir: str | None = None, pip_index_url: str | None = None,
                 **kwargs):
        self._judge_home = Path(judge_home or os.environ.get("BWRAP_ENV_JUDGE_HOME") or tempfile.mkdtemp(prefix="judge-home-"))
        self._base = Path(base_dir or os.environ.get("BWRAP_ENV_BASE") or tempfile.gettempdir())
        self._pip_index_url = pip_index_url or os.environ.get("BWRAP_ENV_PIP_INDEX_URL")
        super().__init__(*args, **kwargs)
        self._root = self._base / f"bwrap-{self.session_id}"

    @staticmethod
    def type() -> str:
        return "bwrap"

    def _validate_definition(self):  # no image to build: the host's /usr is the image
        return None

    def _host(self, path: str) -> Path:
        p = PurePosixPath(path)
        for mount in MOUNTS:
            if p == PurePosixPath(mount) or p.is_relative_to(mount):
                return self._root / mount.strip("/") / p.relative_to(mount)
        if p.is_relative_to("/opt/cowork-judge"):
            return self._judge_home / p.relative_to("/opt/cowork-judge")
        raise ValueError(f"{path} is outside the sandbox mounts {MOUNTS}")

    async def start(self, force_build: bool) -> None:
        for mount in MOUNTS:
            (self._root / mount.strip("/")).mkdir(parents=True, exist_ok=True)
        for sub in ("agent", "verifier", "artifacts"):
            (self._root / "logs" / sub).mkdir(parents=True, exist_ok=True)
        self._judge_home.mkdir(parents=True, exist_ok=True)
        self._apply_dockerfile_copies()

    def _apply_dockerfile_copies(self) -> None:
        """Apply the Dockerfile's context copies (``COPY``/``ADD`` without ``--from``) into the mounts."""
        dockerfile = Path(self.environment_dir) / "Dockerfile"
        if not dockerfile.is_file():
            return
        workdir = PurePosixPath("/")
        for line in dockerfile.read_text().replace("\\\n", " ").splitlines():  # continuation lines joined
            try:
                words = shlex.split(line, comments=True) if line.strip() else []
            except ValueError:  # a RUN line's shell quoting: not ours to apply
                continue
            if not words:
                continue
            op = words[0].upper()
            if op == "WORKDIR" and len(words) > 1:
                workdir = workdir / words[1]
            if op not in ("COPY", "ADD"):
                continue
            args = [w for w in words[1:] if not w.startswith("--")]
            if any(w.startswith("--from") for w in words[1:]) or len(args) < 2:
                continue
            *sources, dest = args
            try:
                target = self._host(str(workdir / dest))
            except ValueError:  # outside the mounts (/usr/local/...): the host's /usr stands for it
                continue
            for src in sources:
                origin = (Path(self.environment_dir) / src).resolve()
                if origin.is_dir():
                    shutil.copytree(origin, target, dirs_exist_ok=True, symlinks=True)
                elif origin.is_file():
                    out = target / origin.name if dest.endswith("/") else target
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin, out)

    async def stop(self, delete: bool):
        if delete:
            shutil.rmtree(self._root, ignore_errors=True)

    async def upload_file(self, source_path, target_path: str):
        target = self._host(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source_path, target)

    async def upload_dir(self, source_dir, target_dir: str):
        shutil.copytree(source_dir, self._host(target_dir), dirs_exist_ok=True, symlinks=True)

    async def download_file(self, source_path: str, target_path):
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self._host(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir):
        source = self._host(source_dir)
        if source.is_dir():
            shutil.copytree(source, target_dir, dirs_exist_ok=True, symlinks=True)

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None) -> ExecResult:
        binds = [sandbox.Bind(self._judge_home, sandbox.JUDGE_HOME)]
        binds += [sandbox.Bind(self._root / mount.strip("/"), mount) for mount in MOUNTS if mount != "/tmp"]
        merged = dict(self._merge_env(env) or {})
        if self._pip_index_url:
            merged.update(PIP_INDEX_URL=self._pip_index_url, PIP_CONFIG_FILE="/dev/null")
        args = sandbox.bwrap_command(command, binds=binds, env=merged, cwd=cwd or self.task_env_config.workdir or "/app",
                                     tmp=self._root / "tmp")
        proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout_sec)
        except asyncio.TimeoutError:
            proc.kill()
            out, err = await proc.communicate()
            return ExecResult(stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"), return_code=124)
        return ExecResult(stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"), return_code=proc.returncode)
