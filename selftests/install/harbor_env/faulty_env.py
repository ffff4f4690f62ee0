"""`BwrapEnvironment` with per-task faults and a record of every command (tests of the host verifier only).

A task chooses its fault with a file ``environment/FAULT`` (one word):

- ``exec``: a command that tests a path (``if [ -d …``, what the host verifier asks) raises (an
  environment that fails under the verifier);
- ``download``: downloading ``/app/output`` raises (an environment whose download fails);
- ``slow-download``: downloading ``/app/output`` first sleeps ``SLOW_SEC`` (a trial that runs past
  its verifier time limit).

Every ``exec`` (command line and environment) is appended as one JSON line to the file named by
``BWRAP_ENV_EXEC_LOG`` (a host path outside every environment folder), so a test can prove that
no credential reached any sandbox command.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from bwrap_env import BwrapEnvironment

SLOW_SEC = 60.0


class FaultyBwrapEnvironment(BwrapEnvironment):
    """See the module docstring."""

    def _fault(self) -> str:
        marker = Path(self.environment_dir) / "FAULT"
        return marker.read_text().strip() if marker.is_file() else ""

    async def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
                   timeout_sec: int | None = None, user: str | int | None = None):
        record = os.environ.get("BWRAP_ENV_EXEC_LOG")
        if record:
            with open(record, "a", encoding="utf-8") as out:
                out.write(json.dumps({"env_dir": str(self.environment_dir), "command": command,
                                      "env": self._merge_env(env) or {}}) + "\n")
        if self._fault() == "exec" and command.startswith("if [ -d"):
            raise RuntimeError("simulated environment failure under the verifier")
        return await super().exec(command, cwd=cwd, env=env, timeout_sec=timeout_sec, user=user)

    async def download_dir(self, source_dir: str, target_dir):
        fault = self._fault()
        if source_dir.rstrip("/") == "/app/output":
            if fault == "download":
                raise OSError(f"simulated transfer failure reading {source_dir}")
            if fault == "slow-download":
                await asyncio.sleep(SLOW_SEC)
        return await super().download_dir(source_dir, target_dir)
