"""The run's paths: where its roots come from (flags, then the configuration, then the container
defaults) and whether it may write under the default logs dir. The folder tree itself is described
once, in `cowork_judge.core.layout`: `RunPaths` is its `RunFolders` (app, tests, work: what the
segments see) and its `VerifierLayout` (what the run writes under its logs dir) at once, and adds
only `alt_output_dir` and whether the work dir is the run's own temp dir.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from cowork_judge._util.fsutil import make_scratch_dir
from cowork_judge.core.layout import RunFolders, VerifierLayout
from cowork_judge.config.judge_config import JudgeConfig, load_config


def default_logs_dir_refusal(logs_dir: Path) -> str | None:
    """Why a run must not write under the DEFAULT logs dir (no ``--logs-dir``, no ``JUDGE_LOGS_DIR``),
    or None when it may.

    The default (``/logs``) is Harbor's mount: in a verifier container ``/logs/verifier`` exists
    before ``tests/test.sh`` runs (Harbor redirects test.sh's output into it; ``cowork-judge
    try`` mounts it the same way). Anywhere else — a developer's machine, a container that is not
    a Harbor verifier — a bare ``cowork-judge run`` would create ``/logs/verifier`` at the
    filesystem root, so it is refused instead. Not detected from ``/.dockerenv`` (a development
    container has one too).
    """
    verifier = VerifierLayout(logs_dir).verifier_dir
    if verifier.is_dir():
        return None
    return (f"no --logs-dir (or JUDGE_LOGS_DIR) given and {verifier} does not exist, so this is not a Harbor verifier "
            f"container: the judge would create {verifier} here. Give --logs-dir DIR (the result goes to "
            "DIR/verifier/), or run it through the task's tests/test.sh (`cowork-judge try`)")


def _inside(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies below it, both resolved (symbolic links followed, a missing tail kept)."""
    return path.resolve().is_relative_to(folder.resolve())


def written_into_deliverables(paths: RunFolders, *, logs_dir: Path, given: Mapping[str, str],
                              alt_output_dir: Path | None = None) -> str | None:
    """Why a run must not write where it reads the deliverables (trial 13 F2): its logs dir or its
    work dir is (or lies inside) the app's output folder — the run would judge its own
    ``result.json``, ``judge.log`` or a block workspace's ``rubric.json`` as the agent's files.
    Both sides are resolved (a link to the output folder counts), so is `alt_output_dir` (the
    lenient delivery's folder, given only when lenient delivery is on).

    Args:
        paths: the app and work dirs of the run (absolute).
        logs_dir: the run's logs dir (absolute).
        given: ``"logs_dir"`` / ``"work_dir"`` → how it was given (``--logs-dir``, ``JUDGE_LOGS_DIR``…);
            a root not in it (the run's own temp work folder) is not checked.

    Returns:
        The refusal (one line naming both paths and what to do), or None.
    """
    outputs = [(paths.output_dir, "the app's output folder")]
    if alt_output_dir is not None:
        outputs.append((alt_output_dir, "the alternate output folder lenient delivery reads"))
    for key, root in (("logs_dir", logs_dir), ("work_dir", paths.work_dir)):
        said = given.get(key)
        for folder, what in outputs if said else ():
            if _inside(root, folder):
                where = "is" if root.resolve() == folder.resolve() else "is inside"
                resolved = f" (it resolves to {root.resolve()})" if root.resolve() != root else ""
                return (f"{said} {root}{resolved} {where} {folder}, {what} (the deliverables the judge reads): the judge "
                        f"would judge its own documents as the agent's; give a {key.replace('_dir', ' dir')} outside {folder}")
    return None


def work_dir_problem(work: Path) -> str | None:
    """Why `work` cannot be a run's work dir (trial 13 F5: a file there ended a deck run in an
    internal error and made a chat run blame the endpoint), or None when it is a folder this
    process can write in, or can be made. Nothing is created.

    Returns:
        What is wrong, as the end of a sentence naming the path (``is a file, not a folder``).
    """
    if work.is_dir():
        return None if os.access(work, os.W_OK | os.X_OK) else "is a folder this process cannot write in"
    if os.path.lexists(work):
        return "is a symbolic link to nothing" if work.is_symlink() and not work.exists() else "is a file, not a folder"
    parent = work.parent
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return (f"cannot be made: {parent} is a symbolic link to nothing" if parent.is_symlink() and not parent.exists()
                else f"cannot be made: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot be made: {parent} is a folder this process cannot write in"
    return None


@dataclass(frozen=True)
class RunPaths(RunFolders, VerifierLayout):
    """The roots of one run; every other path is derived from them, in `core.layout` (the
    `RunFolders` the segments see: ``output_dir``, ``evidence_dir``, ``block_dir(name)``,
    ``workflow_assets_dir(name)``, ``rubric_json``, ``task_prompt``; the `VerifierLayout` under
    ``logs_dir``: ``verifier_dir``, ``result_json``, ``reward_txt`` …). Build it by keyword."""

    alt_output_dir: Path = Path("/output")
    """Where lenient delivery also looks (``JUDGE_ALT_OUTPUT_DIR``)."""
    ephemeral_work: bool = False
    """True when `work_dir` is a temp dir created here: the run deletes it at the end."""
    logs_dir_absent: bool = False
    """True when ``--logs-dir`` was given by hand and named no folder when the run began (trial 6
    F9): the run creates it for the verdicts, but no final message can have been read from it,
    so "nothing delivered" is refused as the judge's input error and a delivery of files only
    is judged with a warning (`cowork_judge.engine.judge`). Set by ``cowork-judge run`` only:
    Harbor's ``/logs``, ``try`` and ``batch`` create the folder before the judge runs."""

    @classmethod
    def from_config(
        cls,
        config: JudgeConfig,
        *,
        app_dir: str | os.PathLike[str] | None = None,
        logs_dir: str | os.PathLike[str] | None = None,
        tests_dir: str | os.PathLike[str] | None = None,
        work_dir: str | os.PathLike[str] | None = None,
        alt_output_dir: str | os.PathLike[str] | None = None,
    ) -> RunPaths:
        """The paths of a run: explicit values (command-line flags) win over the
        configuration (``JUDGE_APP_DIR`` … or the container defaults).

        A missing work dir becomes a fresh private temp directory, removed at the end.
        """

        def pick(explicit: str | os.PathLike[str] | None, configured: str) -> Path:
            return Path(str(explicit if explicit is not None else configured)).absolute()

        work = work_dir if work_dir is not None else config.work_dir
        ephemeral = not work
        if not work:
            work = make_scratch_dir("cowork-judge-")
        return cls(
            app_dir=pick(app_dir, config.app_dir),
            logs_dir=pick(logs_dir, config.logs_dir),
            tests_dir=pick(tests_dir, config.tests_dir),
            work_dir=Path(str(work)).absolute(),
            alt_output_dir=pick(alt_output_dir, config.alt_output_dir),
            ephemeral_work=ephemeral,
        )

    @classmethod
    def of_environment(
        cls,
        *,
        app_dir: str | os.PathLike[str] | None = None,
        logs_dir: str | os.PathLike[str] | None = None,
        tests_dir: str | os.PathLike[str] | None = None,
        work_dir: str | os.PathLike[str] | None = None,
        alt_output_dir: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> RunPaths:
        """`from_config` with the configuration read from `environ` (default: the process
        environment) by `cowork_judge.config.judge_config.load_config`."""
        return cls.from_config(load_config(environ).config, app_dir=app_dir, logs_dir=logs_dir, tests_dir=tests_dir,
                               work_dir=work_dir, alt_output_dir=alt_output_dir)

    resolve = of_environment
    """The former name of `of_environment`, kept for the callers written before it (tests)."""

    @property
    def layout(self) -> VerifierLayout:
        """What the run writes under `logs_dir`, alone (`cowork_judge.core.layout.VerifierLayout`)."""
        return VerifierLayout(self.logs_dir)

    @property
    def folders(self) -> RunFolders:
        """The part of the tree the segments read and write, alone (`core.layout.RunFolders`)."""
        return RunFolders(app_dir=self.app_dir, tests_dir=self.tests_dir, work_dir=self.work_dir)

    def with_private_work(self) -> RunPaths:
        """These paths with a fresh private temp work dir (`ephemeral_work`: removed at the end)
        in place of the given one (a ``JUDGE_WORK_DIR`` that cannot be used, `work_dir_problem`).

        Raises:
            OSError: the temp dir cannot be made.
        """
        return replace(self, work_dir=make_scratch_dir("cowork-judge-").absolute(), ephemeral_work=True)
