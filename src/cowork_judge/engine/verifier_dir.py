"""The verifier folder made safe before a run writes into it: no planted symlinks, FIFOs or
folders where the judge's documents go, no stale audit files; `OutputsUnwritable` when no
reward file could be written at all.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import shutil
import stat
import tempfile
from pathlib import Path

from cowork_judge._util.fsutil import make_scratch_dir
from cowork_judge.run.paths import RunPaths


class OutputsUnwritable(OSError):
    """The verifier folder cannot be created or written: no reward file is possible."""


class VerifierBusy(OutputsUnwritable):
    """Another judge run holds the verifier folder: this run writes nothing there."""


def hold(paths: RunPaths) -> int:
    """Hold the verifier folder for this run: an exclusive ``flock(2)`` on the folder itself
    (no lock file is left in it), released when the returned descriptor is closed or the
    process ends, however it ends. Two runs on one ``--logs-dir`` mixed their audit files and
    the second's `prepare` removed the first's (trial 5, F11).

    Raises:
        VerifierBusy: another live run holds it (the message says what to do). A filesystem
            that cannot lock (``ENOLCK``, ``EOPNOTSUPP``) is not a refusal: the run goes on
            unguarded, as before this lock existed.
        OutputsUnwritable: the folder cannot be created or opened.
    """
    try:
        paths.verifier_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(paths.verifier_dir, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise OutputsUnwritable(f"cannot write to the verifier folder {paths.verifier_dir} "
                                f"({exc.strerror or type(exc).__name__}); no reward can be written, nothing was judged") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # held by another run
        os.close(fd)
        raise VerifierBusy(f"another judge run is writing into the verifier folder {paths.verifier_dir}: nothing was "
                           "judged and nothing of it was touched; wait for that run to end, or give this one another "
                           "--logs-dir") from None
    except OSError:  # a filesystem without flock (ENOLCK, EOPNOTSUPP): judged as before, unguarded
        pass
    return fd


def hold_work(paths: RunPaths) -> tuple[RunPaths, int | None, str | None]:
    """Hold a given work dir (``--work-dir`` / ``JUDGE_WORK_DIR``) for this run, or work beside the run that holds it.

    Two live runs sharing one work dir judged each other's deck: whichever wrote ``evidence/`` last decided both
    rewards (trial 9 F1). The first run takes an exclusive ``flock(2)`` on the folder itself (released when the
    returned descriptor is closed or the process ends) and works in it as before (kept after the run, for
    ``cowork-judge report --work-dir``). A run that finds it held works in a private folder of its own under it
    (``<work dir>/cowork-judge-XXXXXXXX``), removed at the end on every exit path like the default temp folder
    (`RunPaths.ephemeral_work`); its deck evidence stays in the verifier folder's ``evidence/`` copy only.

    Args:
        paths: the run's paths; an ephemeral (temp) work dir is private already and is returned as is.

    Returns:
        ``(paths, fd, warning)``: the paths to run with, the descriptor holding the work dir (None when not
        held: a temp work dir, a folder that cannot be opened yet — the run reports that where it writes —, a
        filesystem without flock), and the line for ``details.warnings`` when the run moved to its own folder.

    Raises:
        OutputsUnwritable: the work dir is held and no private folder can be made under it (nothing judged).
    """
    if paths.ephemeral_work:
        return paths, None, None
    try:
        paths.work_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(paths.work_dir, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return paths, None, None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return paths, fd, None
    except BlockingIOError:  # another live run works in it
        os.close(fd)
    except OSError:  # a filesystem without flock (ENOLCK, EOPNOTSUPP): unguarded, as before this lock existed
        os.close(fd)
        return paths, None, None
    try:
        own = make_scratch_dir("cowork-judge-", paths.work_dir)
    except OSError as exc:
        raise OutputsUnwritable(f"another judge run works in the work dir {paths.work_dir} and no private folder can "
                                f"be made under it ({exc.strerror or exc}); nothing was judged: give this run another "
                                "--work-dir") from None
    warning = (f"work dir: another live judge run holds {paths.work_dir}; this run worked in its own folder "
               f"{own.name} under it, removed at the end (the deck evidence is kept in the verifier folder's evidence/)")
    return dataclasses.replace(paths, work_dir=own, ephemeral_work=True), None, warning


def prepare(paths: RunPaths) -> None:
    """Make the verifier dir safe to write: no planted symlinks, no stale audit files.

    Raises:
        OutputsUnwritable: the folder cannot be created or a file cannot be written in it
            (read-only mount, a file in its place).

    The agent runs before the verifier in the same container; a link at ``judge.log`` or
    ``judge/`` would otherwise make the judge append to (or write into) any file.
    """
    try:
        paths.verifier_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=paths.verifier_dir, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise OutputsUnwritable(f"cannot write to the verifier folder {paths.verifier_dir} "
                                f"({exc.strerror or type(exc).__name__}); no reward can be written, nothing was judged") from None
    for target in (paths.judge_log, paths.result_json, paths.reward_txt, paths.reward_json, paths.reward_details_json,
                   paths.env_capabilities_json, paths.exit_message_json, paths.judge_verdict_json):
        _remove_unless_regular_file(target)
    for stale in (paths.judge_verdict_json, paths.exit_message_json):  # a previous run's: not always rewritten
        try:
            stale.unlink(missing_ok=True)
        except OSError:
            pass
    for folder in (paths.audit_dir, paths.stray_dir, paths.kept_evidence_dir):
        try:
            if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
                folder.unlink()
            elif folder.is_dir():
                shutil.rmtree(folder)
        except OSError:
            pass


def _remove_unless_regular_file(target: Path) -> None:
    """Remove whatever sits at `target` unless it is a plain file (a FIFO would block the
    judge's open(), a directory would make the write fail, a symlink would redirect it)."""
    try:
        st = target.lstat()
    except OSError:
        return
    try:
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(target)
        elif not stat.S_ISREG(st.st_mode):
            target.unlink()
    except OSError:
        pass
