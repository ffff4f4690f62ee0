"""Run a task's ``tests/test.sh`` the way Harbor's verifier does, without Docker.

Harbor runs ``bash -c "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"`` (`HARBOR_COMMAND`)
in the verifier container, with ``/app`` (the agent's work), ``/logs`` and ``/tests`` in place and
only the task's ``[verifier.env]`` in the environment. Here:

- **bubblewrap** (`bwrap_command`, when `bwrap_missing` is None): host folders are mounted at
  ``/app``, ``/logs``, ``/tests`` and ``/opt/cowork-judge`` (the judge's venv root, which
  `templates/test.sh` uses), over the host's ``/usr`` and ``/etc`` read-only (the "image":
  Python, LibreOffice, Chromium and fonts come from the host) and a private ``/tmp``; the
  environment is cleared and set to exactly the given variables. The network namespace is the
  host's, so the sandbox reaches a judge endpoint and a package index on 127.0.0.1;
- **plainly** (`plain_command`, where bubblewrap cannot run): the same command line on the host
  with ``JUDGE_APP_DIR``, ``JUDGE_LOGS_DIR``, ``JUDGE_TESTS_DIR`` and ``COWORK_JUDGE_HOME`` pointing
  at the folders, the host's ``PATH``, and nothing hidden (`PLAIN_DIFFERENCES` says how that
  differs from a trial).

The same `bwrap_command` serves the selftests' Harbor environment class
(``selftests/install/harbor_env/bwrap_env.py``). Standard library only: Harbor's own Python
imports this module there.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""``PATH`` inside the sandbox (a container's usual one)."""
HARBOR_COMMAND = "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"
"""Harbor 0.26's verifier command line (``harbor.utils.scripts.build_execution_command``)."""
JUDGE_HOME = "/opt/cowork-judge"
"""Where `templates/test.sh` keeps the judge's venvs."""
MOUNTS = ("/app", "/logs", "/tests")
PLAIN_DIFFERENCES = (
    "no sandbox: test.sh runs on this machine as you, with your files, processes and network in reach",
    "/app, /logs and /tests are not at those paths: JUDGE_APP_DIR, JUDGE_LOGS_DIR, JUDGE_TESTS_DIR point at temp "
    "folders (a custom entry that hard-codes /app or /logs reads this machine's instead)",
    "Python, LibreOffice, Chromium and the fonts are whatever this machine's PATH finds, not the verifier image's",
)
"""How a plain run differs from a Harbor trial (printed by ``cowork-judge try --no-sandbox``)."""


def bwrap_missing(python: str = "/usr/bin/python3") -> str | None:
    """Why bubblewrap cannot run a verifier here, or None.

    Args:
        python: an interpreter the sandbox needs under ``/usr`` (None skips that check).
    """
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        probe = subprocess.run(["bwrap", *_base_args(), "/bin/true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot start: {exc}"
    if probe.returncode != 0:
        return f"bubblewrap cannot create a sandbox here: {probe.stderr.strip()[:200]}"
    if python and not Path(python).is_file():
        return f"{python} is missing (the sandbox's Python comes from the host's /usr)"
    return None


def _base_args() -> list[str]:
    return ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin", "--ro-bind", "/etc", "/etc",
            "--proc", "/proc", "--dev", "/dev"]


@dataclass(frozen=True)
class Bind:
    """One host path mounted into the sandbox (read-write unless `read_only`)."""

    host: Path
    inside: str
    read_only: bool = False


def bwrap_command(command: str, *, binds: list[Bind], env: dict[str, str], cwd: str = "/app",
                  tmp: Path | None = None) -> list[str]:
    """The argv of ``bwrap … bash -c command``.

    Args:
        command: the shell command (`HARBOR_COMMAND` for a verifier).
        binds: mounts in order (a later one may cover part of an earlier one).
        env: the whole environment inside; ``PATH`` (`SANDBOX_PATH`), ``HOME`` (/tmp) and
            ``LANG`` (C.UTF-8) are set unless given.
        cwd: the working directory inside (Harbor: the task's workdir, usually /app).
        tmp: a host folder for /tmp (default: a private tmpfs).
    """
    args = ["bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", *_base_args()]
    args += ["--bind", str(tmp), "/tmp"] if tmp is not None else ["--tmpfs", "/tmp"]
    for bind in binds:
        args += ["--ro-bind" if bind.read_only else "--bind", str(bind.host), bind.inside]
    args += ["--chdir", cwd, "--clearenv"]
    for key, value in {"PATH": SANDBOX_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", **env}.items():
        args += ["--setenv", key, value]
    return [*args, "bash", "-c", command]


def plain_command(*, app: Path, logs: Path, tests: Path, judge_home: Path, env: dict[str, str],
                  host_path: str) -> tuple[list[str], dict[str, str]]:
    """(argv, environment) of Harbor's verifier command line run directly on the host.

    The paths of `HARBOR_COMMAND` are rewritten to the host folders and the judge finds them
    through ``JUDGE_APP_DIR``/``JUDGE_LOGS_DIR``/``JUDGE_TESTS_DIR``; ``COWORK_JUDGE_HOME``
    keeps its venvs in `judge_home`; ``JUDGE_ALT_OUTPUT_DIR`` points into `app` so this
    machine's ``/output`` is never read.
    """
    full = {"PATH": host_path, "HOME": str(logs.parent / "home"), "LANG": "C.UTF-8", **env,
            "JUDGE_APP_DIR": str(app), "JUDGE_LOGS_DIR": str(logs), "JUDGE_TESTS_DIR": str(tests),
            "JUDGE_ALT_OUTPUT_DIR": str(app / ".no-alt-output"), "COWORK_JUDGE_HOME": str(judge_home)}
    Path(full["HOME"]).mkdir(parents=True, exist_ok=True)
    line = f"({_q(tests / 'test.sh')}) > {_q(logs / 'verifier' / 'test-stdout.txt')} 2>&1"
    return ["bash", "-c", line], full


def _q(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))


__all__ = ["HARBOR_COMMAND", "JUDGE_HOME", "MOUNTS", "PLAIN_DIFFERENCES", "SANDBOX_PATH", "Bind", "bwrap_command",
           "bwrap_missing", "plain_command"]
