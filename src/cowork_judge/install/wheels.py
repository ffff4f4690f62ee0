"""The judge's wheel and its dependency wheels, for a verifier that has no index of its own.

`cowork-judge try` (and the install selftests) run a task's ``tests/test.sh`` in a sandbox whose
pip may reach only a PEP 503 index on 127.0.0.1 (`local_index`). Everything that index serves is
prepared on the host here:

- the **judge wheel**: built from the source checkout this package runs from (`find_judge_source`:
  an editable install, or PEP 610's ``direct_url.json`` of an install from a local folder or wheel
  file), taken as given (``--wheel``), or downloaded from a named index alone (`download_judge`,
  the same ``--isolated`` rule `templates/test.sh` applies against the name clash on PyPI);
- the **dependency wheels** of ``cowork-judge[extras]`` for the sandbox's Python
  (`download_dependencies`): downloaded ONCE by pip, with the host's own pip configuration
  (PyPI unless configured otherwise), into a cache folder keyed by the requirement set and the
  Python version, and reused by every later call (no network then).

The cache root is ``$COWORK_JUDGE_CACHE``, else ``$XDG_CACHE_HOME/cowork-judge``, else
``~/.cache/cowork-judge`` (`cache_root`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path
from urllib.parse import unquote, urlparse

from cowork_judge._util.fsutil import file_sha256
from cowork_judge.install.cachelock import EXCLUSIVE, CacheLock
from cowork_judge._util.procs import run_command

PROJECT = "cowork-judge"
CACHE_ENV = "COWORK_JUDGE_CACHE"
"""Environment variable naming the cache root (`cache_root`)."""
BUILD_TIMEOUT_SEC = 600.0
"""Most a ``pip wheel`` of the checkout may take (it may fetch the build backend first)."""
DOWNLOAD_TIMEOUT_SEC = 900.0
"""Most one ``pip download`` may take (the ``workflow`` extra is ~100 MB of wheels)."""


class WheelError(Exception):
    """A wheel could not be built, found or downloaded (the message says why and what to do)."""


def cache_root(environ: dict[str, str] | None = None) -> Path:
    """The cache folder: ``$COWORK_JUDGE_CACHE``, ``$XDG_CACHE_HOME/cowork-judge`` or ``~/.cache/cowork-judge``."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV]).expanduser()
    base = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "cowork-judge"


def normalize(name: str) -> str:
    """PEP 503 project name normalization (``Cowork_Judge`` → ``cowork-judge``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _is_checkout(folder: Path) -> bool:
    try:
        text = (folder / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return False
    return re.search(r'^name\s*=\s*"cowork-judge"\s*$', text, flags=re.MULTILINE) is not None and \
        (folder / "src" / "cowork_judge" / "__init__.py").is_file()


@dataclass(frozen=True)
class JudgeSource:
    """Where the judge to install comes from.

    Attributes:
        kind: ``checkout`` (a source folder to build), ``wheel`` (a wheel file) or ``index``
            (a PEP 503 index URL to download ``cowork-judge==version`` from).
        location: the folder, the file, or the URL.
    """

    kind: str
    location: str
    installed_copy: bool = False
    """A checkout this package was installed from without ``-e``: what is built is the folder as it is now."""

    def describe(self) -> str:
        """One line for the command's output."""
        text = {"checkout": "built from the checkout", "wheel": "the wheel", "index": "downloaded from"}[self.kind] + \
            f" {self.location}"
        return text + (" (the folder this cowork-judge was installed from, as it is now)" if self.installed_copy else "")


def find_judge_source(module_file: str = __file__) -> JudgeSource | None:
    """The source of the running package, or None when it cannot be rebuilt here (`module_file`: this
    module's path, ``<root>/src/cowork_judge/install/wheels.py`` in a checkout).

    Order: the checkout this module is imported from (an editable install: ``<root>/src/cowork_judge``
    with a ``pyproject.toml`` naming cowork-judge); else PEP 610 ``direct_url.json`` of the installed
    distribution pointing at a local folder that is such a checkout, or at a local wheel file that
    still exists. An install from an index has neither: pass ``--wheel`` or ``--index-url``.
    """
    here = Path(module_file).resolve().parents[3]
    if _is_checkout(here):
        return JudgeSource("checkout", str(here))
    from importlib import metadata

    try:
        raw = metadata.distribution(PROJECT).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        info = json.loads(raw or "null")
    except ValueError:
        return None
    url = info.get("url", "") if isinstance(info, dict) else ""
    if not url.startswith("file://"):
        return None
    path = Path(unquote(urlparse(url).path))
    if "dir_info" in info and _is_checkout(path):
        editable = isinstance(info["dir_info"], dict) and info["dir_info"].get("editable") is True
        return JudgeSource("checkout", str(path), installed_copy=not editable)
    if "archive_info" in info and path.suffix == ".whl" and path.is_file():
        return JudgeSource("wheel", str(path))
    return None


@contextmanager
def _pip_env(**extra: str) -> Iterator[dict[str, str]]:
    """The environment of one pip child: ours, with `extra`, and ``TMPDIR`` a private folder
    removed when the block ends however it ends. pip killed mid-build (a SIGTERM to ``try``
    unwinds into this ``finally``) leaves its ``pip-build-env-*`` / ``pip-unpack-*`` /
    ``pip-wheel-*`` folders there, not in the user's temp folder (trial 4, L2)."""
    tmp = tempfile.mkdtemp(prefix="cowork-judge-pip-")
    try:
        yield {**os.environ, **extra, "TMPDIR": tmp}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_wheel(source: Path, out_dir: Path, *, timeout_sec: float = BUILD_TIMEOUT_SEC) -> Path:
    """Build the wheel of the checkout `source` into `out_dir` (``pip wheel --no-deps``) and return it.

    pip fetches the build backend (hatchling) from its configured index the first time.

    Raises:
        WheelError: pip failed or produced no wheel (its last output lines are in the message).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    before = set(out_dir.glob("cowork_judge-*.whl"))
    for stale in before:
        stale.unlink()
    with _pip_env() as env:
        proc = run_command([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
                            "-w", str(out_dir), str(source)], timeout_sec=timeout_sec, env=env)
    wheels = sorted(out_dir.glob("cowork_judge-*.whl"))
    if proc.returncode != 0 or not wheels:
        why = "timed out" if proc.timed_out else (proc.error or _tail(proc.stderr or proc.stdout))
        raise WheelError(f"cannot build the judge's wheel from {source}: {why}")
    return wheels[-1]


def wheel_version(wheel: Path) -> str:
    """The version in a wheel's file name (``cowork_judge-0.2.0-py3-none-any.whl`` → ``0.2.0``).

    Raises:
        WheelError: the name is not a wheel name of this project.
    """
    parts = wheel.name.split("-")
    if len(parts) < 5 or not wheel.name.endswith(".whl") or normalize(parts[0]) != PROJECT:
        raise WheelError(f"{wheel.name} is not a wheel of {PROJECT}")
    return parts[1]


def wheel_digest(wheel: Path) -> str:
    """SHA-256 (hex) of a wheel file. Raises `OSError` when it cannot be read."""
    return file_sha256(wheel)


def wheel_requirements(wheel: Path, extras: tuple[str, ...]) -> list[str]:
    """The wheel's ``Requires-Dist`` lines that apply with `extras`, without the extra markers
    (other markers, e.g. ``python_version < '3.11'``, are kept for pip to evaluate).

    Raises:
        WheelError: the wheel cannot be read.
    """
    try:
        with zipfile.ZipFile(wheel) as zf:
            meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
            msg = Parser().parsestr(zf.read(meta).decode("utf-8"))
    except (OSError, zipfile.BadZipFile, StopIteration, UnicodeDecodeError) as exc:
        raise WheelError(f"cannot read the metadata of {wheel}: {exc}") from None
    wanted = {normalize(e) for e in extras}
    out = []
    for req in msg.get_all("Requires-Dist") or []:
        m = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", req)
        if m and normalize(m.group(1)) not in wanted:
            continue
        req = re.sub(r"\s*(and\s+)?extra\s*==\s*['\"][^'\"]+['\"]", "", req).rstrip("; ").rstrip()
        out.append(re.sub(r";\s*$", "", req))
    return out


def _tail(text: str, lines: int = 6) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:]) or "no output"


def python_version(python: str) -> str:
    """``X.Y`` of the interpreter `python`.

    Raises:
        WheelError: it cannot be run.
    """
    proc = run_command([python, "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], timeout_sec=30)
    version = proc.stdout.strip()
    if proc.returncode != 0 or not re.fullmatch(r"\d+\.\d+", version):
        raise WheelError(f"cannot run {python}: {proc.error or _tail(proc.stderr)}")
    return version


def pip_for(python: str, cache: Path) -> list[str]:
    """A pip command line that resolves for `python` (markers such as ``python_version`` are
    evaluated by the interpreter running pip, so it must be that Python): its own pip, or
    pip in a helper venv made from it once under `cache` (``pip-py<X.Y>``).

    Raises:
        WheelError: `python` has no pip and cannot make a venv.
    """
    if run_command([python, "-I", "-c", "import pip"], timeout_sec=60).returncode == 0:
        return [python, "-I", "-m", "pip"]
    venv = cache / f"pip-py{python_version(python)}"
    helper = venv / "bin" / "python"
    if (venv / ".complete").is_file():
        return [str(helper), "-I", "-m", "pip"]
    with CacheLock(venv, what=f"the download helper venv {venv}").acquire(EXCLUSIVE):  # two runs: one makes it
        if not (venv / ".complete").is_file():
            proc = run_command([python, "-I", "-m", "venv", "--clear", str(venv)], timeout_sec=300)
            if proc.returncode != 0 or not helper.is_file():
                raise WheelError(f"{python} has no pip and cannot create a venv to download with "
                                 f"({proc.error or _tail(proc.stderr)}); install pip or python3-venv for it")
            (venv / ".complete").write_text("", encoding="utf-8")
    return [str(helper), "-I", "-m", "pip"]


def download_dependencies(wheel: Path, extras: tuple[str, ...], *, python: str, cache: Path, extra_index_url: str | None = None,
                          timeout_sec: float = DOWNLOAD_TIMEOUT_SEC,
                          on_wait: Callable[[str], None] | None = None) -> tuple[Path, bool]:
    """The dependency wheels of ``wheel[extras]`` for `python`, downloaded once into the cache.

    Args:
        wheel: the judge's wheel (its metadata names the requirements).
        extras: extra names, e.g. ``("workflow",)``.
        python: the interpreter the verifier will install them for (same machine: its
            platform tags apply).
        cache: the cache root (`cache_root`); wheels land in ``<cache>/wheels/py<X.Y>-<key>``.
        extra_index_url: an index consulted besides pip's configured one (the private index
            the judge came from may carry dependencies too).
        on_wait: told (a message naming it) when another run is downloading into the same
            folder; this call waits for it (`cachelock`) and then reuses its download.

    Returns:
        (the folder of wheels, True when this call downloaded them).

    Raises:
        WheelError: pip could not download them (no network and no cache, an unknown extra…).
    """
    reqs = sorted(wheel_requirements(wheel, extras))
    tag = python_version(python)
    key = hashlib.sha256(("\n".join(reqs) + f"\npy{tag}").encode()).hexdigest()[:16]
    target = cache / "wheels" / f"py{tag}-{key}"
    if (target / ".complete").is_file():
        return target, False
    with CacheLock(target, what=f"the dependency download folder {target}", on_wait=on_wait).acquire(EXCLUSIVE):
        if (target / ".complete").is_file():  # another run downloaded them while this one waited
            return target, False
        return _download_dependencies(reqs, extras, tag, target, python=python, cache=cache,
                                      extra_index_url=extra_index_url, timeout_sec=timeout_sec), True


def _download_dependencies(reqs: list[str], extras: tuple[str, ...], tag: str, target: Path, *, python: str, cache: Path,
                           extra_index_url: str | None, timeout_sec: float) -> Path:
    """`download_dependencies`'s download, under the folder's lock."""
    tmp = target.with_name(target.name + f".partial-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    pip = pip_for(python, cache)
    extra = ["--extra-index-url", extra_index_url] if extra_index_url else []
    with _pip_env() as env:
        proc = run_command([*pip, "download", "--quiet", "--disable-pip-version-check", "--only-binary=:all:", *extra,
                            "--dest", str(tmp), *reqs], timeout_sec=timeout_sec, env=env)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        why = "timed out" if proc.timed_out else (proc.error or _tail(proc.stderr or proc.stdout))
        raise WheelError(f"pip could not download the dependencies of cowork-judge[{','.join(extras)}] for Python {tag}: {why}")
    (tmp / ".complete").write_text("\n".join(reqs) + "\n", encoding="utf-8")
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target


def download_judge(index_url: str, version: str, *, python: str, cache: Path,
                   timeout_sec: float = DOWNLOAD_TIMEOUT_SEC, on_wait: Callable[[str], None] | None = None) -> Path:
    """``cowork-judge==version`` from `index_url` ALONE (``pip download --isolated --no-deps``, pip's
    configuration ignored: the name ``cowork-judge`` on PyPI is another project), kept under
    ``<cache>/judge-wheels/<url digest>/`` (one download at a time there: `on_wait` is told when
    another run holds the folder, as for `download_dependencies`).

    Raises:
        WheelError: pip found no such wheel there.
    """
    folder = cache / "judge-wheels" / hashlib.sha256(index_url.encode()).hexdigest()[:12]
    found = [p for p in folder.glob("cowork_judge-*.whl") if wheel_version(p) == version]
    if found:
        return found[0]
    with CacheLock(folder, what=f"the judge download folder {folder}", on_wait=on_wait).acquire(EXCLUSIVE):
        return _download_judge(index_url, version, folder, python=python, cache=cache, timeout_sec=timeout_sec)


def _download_judge(index_url: str, version: str, folder: Path, *, python: str, cache: Path, timeout_sec: float) -> Path:
    """`download_judge`'s download, under the folder's lock."""
    found = [p for p in folder.glob("cowork_judge-*.whl") if wheel_version(p) == version]
    if found:  # another run downloaded it while this one waited
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    pip = pip_for(python, cache)
    with _pip_env(PIP_CONFIG_FILE=os.devnull) as env:
        proc = run_command([*pip, "--isolated", "download", "--quiet", "--disable-pip-version-check",
                            "--no-deps", "--only-binary=:all:", "--index-url", index_url, "--dest", str(folder),
                            f"{PROJECT}=={version}"], timeout_sec=timeout_sec, env=env)
    found = [p for p in folder.glob("cowork_judge-*.whl") if wheel_version(p) == version]
    if proc.returncode != 0 or not found:
        why = "timed out" if proc.timed_out else (proc.error or _tail(proc.stderr or proc.stdout))
        raise WheelError(f"cannot download cowork-judge=={version} from {index_url}: {why}")
    return found[0]


__all__ = ["CACHE_ENV", "JudgeSource", "WheelError", "build_wheel", "cache_root", "download_dependencies", "download_judge",
           "find_judge_source", "normalize", "pip_for", "python_version", "wheel_digest", "wheel_requirements", "wheel_version"]
