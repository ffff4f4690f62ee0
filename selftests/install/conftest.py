"""Session fixtures of the install suite: one wheel build, one dependency download, one local
PEP 503 index, and one judge home shared by every sandbox run (the first run installs cold,
the later ones reuse the venv as a warm container would)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from testkit import agentic_example

from install.harness import (
    REPO,
    PackageIndex,
    SandboxRun,
    build_wheel,
    bwrap_missing,
    download_dependencies,
    run_in_sandbox,
)

EXTRAS = ("pptx",)
"""What the sandbox runs of this suite install (COWORK_JUDGE_EXTRAS)."""
INDEX_EXTRAS = ("workflow",)
"""Whose dependency wheels the session's index serves: ``workflow`` carries ``pptx``'s and what the deck task
of `test_harbor_native` renders with (PyMuPDF, Playwright, Pillow)."""


@pytest.fixture(scope="session")
def sandbox_ready() -> None:
    """Skip (with the reason) where bubblewrap cannot run."""
    reason = bwrap_missing()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def judge_wheel(tmp_path_factory, sandbox_ready) -> Path:
    """This checkout's wheel, built once per session."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def dependency_wheels(judge_wheel) -> list[Path]:
    """The dependency wheels of ``cowork-judge[workflow]`` (cached across sessions)."""
    return sorted(download_dependencies(judge_wheel, INDEX_EXTRAS).glob("*.whl"))


@pytest.fixture(scope="session")
def package_index(tmp_path_factory, judge_wheel, dependency_wheels) -> Iterator[PackageIndex]:
    """The judge wheel and its dependencies served as a PEP 503 index on 127.0.0.1."""
    index = PackageIndex(tmp_path_factory.mktemp("index"), [judge_wheel, *dependency_wheels])
    yield index
    index.stop()


@pytest.fixture(scope="session")
def judge_home(tmp_path_factory) -> Path:
    """Mounted at /opt/cowork-judge in every sandbox of the session (venvs are reused)."""
    return tmp_path_factory.mktemp("judge-home")


def make_task(root: Path, rollout: str | None = "deck", tests_files: dict[str, str] | None = None) -> tuple[Path, Path, Path]:
    """app/, logs/, tests/ for one run: the repo's example tests dir without its ppt_judge rows
    (`testkit.agentic_example`: these runs do not render decks), the template as test.sh."""
    app, logs, tests = root / "app", root / "logs", root / "tests"
    agentic_example(tests)
    shutil.copy2(REPO / "templates" / "test.sh", tests / "test.sh")
    (tests / "test.sh").chmod(0o755)
    app.mkdir()
    (logs / "agent").mkdir(parents=True)
    if rollout is not None:
        src = REPO / "examples" / "rollouts" / rollout
        if (src / "app").is_dir():
            shutil.copytree(src / "app", app, dirs_exist_ok=True)
        if (src / "logs" / "agent").is_dir():
            shutil.copytree(src / "logs" / "agent", logs / "agent", dirs_exist_ok=True)
    for name, text in (tests_files or {}).items():
        (tests / name).write_text(text)
        (tests / name).chmod(0o755)
    return app, logs, tests


@pytest.fixture
def sandbox(tmp_path, package_index, judge_home) -> Callable[..., SandboxRun]:
    """``sandbox(env=..., rollout=..., tests_files=..., **run_in_sandbox options)``: one Harbor-style run.

    The base environment points pip (judge and dependencies) at the local index only,
    with pip's own configuration files ignored, so nothing but 127.0.0.1 is contacted.
    """
    counter = iter(range(100))

    def run(env: dict[str, str] | None = None, rollout: str | None = "deck", tests_files: dict[str, str] | None = None,
            **options) -> SandboxRun:
        root = tmp_path / f"run{next(counter)}"
        app, logs, tests = make_task(root, rollout, tests_files)
        base = {"COWORK_WHEEL_URL": package_index.url, "PIP_INDEX_URL": package_index.url, "PIP_CONFIG_FILE": "/dev/null",
                "COWORK_JUDGE_EXTRAS": ",".join(EXTRAS), "JUDGE_START_JITTER": "0", "JUDGE_EVIDENCE": "0"}
        options.setdefault("judge_home", judge_home)  # a test that needs a cold install passes its own
        return run_in_sandbox(app=app, logs=logs, tests=tests, env={**base, **(env or {})}, **options)

    return run
