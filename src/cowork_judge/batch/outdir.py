"""The batch output folder: ``batch`` (and ``calibrate --out``) write and remove only inside
``--out``, and never through a symbolic link.

What a batch writes or removes there::

    <out>/
    ├── .batch.lock            the folder's lock (`batch.lock`)
    ├── verdict-cache/         the runs' verdict cache (unless JUDGE_VERDICT_CACHE is set): <key[:2]>/<key>.json
    ├── summary.json, batch.json, instance_tags.json
    └── <name>/                one folder per instance (`INSTANCE_ENTRIES`)
        ├── logs/              removed and made again by every run
        ├── set-aside/         what logs/ held that no judge run writes (a rescore's
        │                      result.rescored.json, a report.html, notes), moved here before
        │                      a new run of the instance removes logs/ (`set_aside_foreign`)
        ├── app/               an empty app dir, for an instance that delivered no files
        ├── alt-output/        given to the run as its lenient-delivery folder
        ├── batch-run.log
        └── batch-instance.json

An instance name is a label (`batch.instances.check_instance_name`), so ``<out>/<name>`` is
always a direct child of ``<out>``. What remains is a link planted in the folder (by hand, by
an earlier tool, by a hostile input tree copied in): a batch that followed
``<out>/<name> → /elsewhere`` would remove ``/elsewhere/logs`` and write there. So every path
above that already exists must be what the batch would have made — a real folder or file,
not a symbolic link (wherever it points: a link between two instance folders would make two
runs share one) — or the batch refuses before judging anything (`check_output_folder`), and
again before each run (`instance_folder`). ``--out`` itself may be a link: the operator named it.

Nor does a batch write over what it did not make (trial 7 F6): ``--out`` must be new, empty, or
a batch's own output (``batch.json`` or ``.batch.lock``; `not_a_batch_folder`), and a
``summary.json`` there is replaced only when it is the one a batch wrote (its digest in
``batch.json``, `foreign_summary`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from cowork_judge.batch.instances import (AGENT_FILES, OUTPUT_FILES, RECORD_NAME, RUN_LOG_NAME, VERDICT_CACHE_DIR, BatchInputError,
                                          BatchInstance, check_instance_name)
from cowork_judge.batch.lock import LOCK_NAME
from cowork_judge._util.fsutil import quoted
from cowork_judge.core.layout import (AGENT_DIR, AUDIT_DIR, EVIDENCE_DIR, JUDGE_FILE_NAMES, LOGS_DIR, SET_ASIDE_DIR,
                                     STRAY_DIR, VERIFIER_DIR, VerifierLayout)

APP_DIR = "app"
ALT_OUTPUT_DIR = "alt-output"
INSTANCE_ENTRIES = (LOGS_DIR, APP_DIR, ALT_OUTPUT_DIR, RUN_LOG_NAME, RECORD_NAME, SET_ASIDE_DIR)
"""What a batch writes or removes inside ``<out>/<name>/``."""
FOLDER_ENTRIES = (LOCK_NAME, VERDICT_CACHE_DIR, *OUTPUT_FILES)
"""What a batch writes at the top of ``<out>``, besides the instance folders."""


JUDGE_OUTPUTS = frozenset({*JUDGE_FILE_NAMES, STRAY_DIR, EVIDENCE_DIR, AUDIT_DIR})
"""What a judge run writes in its verifier folder (`core.layout.JUDGE_FILE_NAMES` and its three folders): the rest is someone else's."""


def _foreign_in_logs(layout: VerifierLayout) -> list[tuple[Path, str]]:
    """What ``logs/`` holds that neither a judge run nor the batch writes there, as (path, name
    said): in ``logs/verifier/`` all but `JUDGE_OUTPUTS` (and the judge's ``.write-check-*``
    probes), said by its name; in ``logs/agent/`` all but `AGENT_FILES` (the batch's copies);
    in ``logs/`` all but those two folders, said by their path below the instance folder."""
    found = []
    for folder, own, said in ((layout.verifier_dir, JUDGE_OUTPUTS, ""),
                              (layout.agent_dir, frozenset(AGENT_FILES), f"{LOGS_DIR}/{AGENT_DIR}/"),
                              (layout.logs_dir, frozenset({AGENT_DIR, VERIFIER_DIR}), f"{LOGS_DIR}/")):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        found += [(folder / n, said + n) for n in names if n not in own and not n.startswith(".write-check-")]
    return found


def set_aside_foreign(folder: Path) -> list[str]:
    """Move what ``<folder>/logs/`` holds that no judge run writes (`_foreign_in_logs`) into
    ``<folder>/set-aside/`` before a new run of the instance removes ``logs/``: a ``rescore``
    or ``report`` written beside the earlier result, a reviewer's notes (trial 7 F6: they were
    deleted without a word). A name already there gets a numbered suffix; nothing is overwritten.

    Returns:
        The names moved, as `_foreign_in_logs` says them (empty when there was nothing, or no
        ``logs/``).

    Raises:
        UnsafeOutput: ``set-aside`` is a link or a file.
    """
    foreign = _foreign_in_logs(VerifierLayout.under(folder))
    if not foreign:
        return []
    target = folder / SET_ASIDE_DIR
    _refuse_link(target)
    if os.path.lexists(target) and not target.is_dir():
        raise UnsafeOutput(f"{target} exists and is not a folder: remove it or use another --out")
    target.mkdir(exist_ok=True)
    moved = []
    for path, said in foreign:
        dest, n = target / path.name, 1
        while os.path.lexists(dest):
            dest, n = target / f"{path.name}.{n}", n + 1
        try:
            os.rename(path, dest)
        except OSError:
            continue
        moved.append(said)
    return moved


class UnsafeOutput(BatchInputError):
    """A path the batch would write or remove under ``--out`` is a symbolic link, or a file
    where a folder belongs (the message names it and what to do)."""


def _refuse_link(path: Path) -> None:
    if os.path.islink(path):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        raise UnsafeOutput(f"{path} is a symbolic link (to {target}): a batch writes and removes only what it made "
                           "inside --out, never through a link; remove the link or use another --out")


def _check_instance(out: Path, name: str) -> Path:
    folder = out / check_instance_name(name, f"instance {quoted(name)}")
    try:
        entries = os.scandir(folder)  # one call lists what an lstat of each entry would tell (d_type)
    except FileNotFoundError:
        _refuse_link(folder)  # a dangling link: a run would create its target
        return folder
    except NotADirectoryError:
        _refuse_link(folder)
        raise UnsafeOutput(f"{folder} exists and is not a folder: remove it or use another --out") from None
    with entries:
        _refuse_link(folder)  # scandir followed it
        linked = sorted(e.name for e in entries if e.name in INSTANCE_ENTRIES and e.is_symlink())
    if linked:
        _refuse_link(folder / linked[0])
    return folder


def check_output_folder(out: Path, names: Iterable[str]) -> None:
    """Refuse an output folder where the batch would write or remove through a link (see the
    module docstring), before any instance is judged.

    Args:
        out: the batch's ``--out`` (it may itself be a link, or not exist yet).
        names: the instance names (`batch.instances.BatchInstance.name`).

    Also refuse a folder that is not a batch's output and is not empty (`not_a_batch_folder`),
    and a ``summary.json`` no batch wrote (`foreign_summary`): a batch never replaces or
    removes what it did not make (trial 7 F6).

    Raises:
        UnsafeOutput: the first offending path, named.
        BatchInputError: a name that is not a plain folder name (a caller that skipped discovery).
    """
    for entry in FOLDER_ENTRIES:
        _refuse_link(out / entry)
    cache = out / VERDICT_CACHE_DIR
    if cache.is_dir():  # the runs write <key[:2]>/<key>.json below it (`run.verdict_cache`): ≤ 256 folders
        for cached in sorted(os.scandir(cache), key=lambda e: e.name):
            _refuse_link(cache / cached.name)
    for name in names:
        _check_instance(out, name)
    problem = not_a_batch_folder(out) or foreign_summary(out)
    if problem is not None:
        raise UnsafeOutput(problem)


BATCH_RECORD = "batch.json"
SUMMARY_NAME = "summary.json"
SUMMARY_DIGESTS = "summary_sha256"
"""The key of ``batch.json`` that lists the SHA-256 digests of the ``summary.json`` a batch
wrote there (`own_summary_digests`)."""
NAMES_SHOWN = 5


class ForeignOutput(OSError):
    """A file the batch would replace at the top of ``--out`` is not one a batch wrote there
    (the message names it and what to do)."""


def not_a_batch_folder(out: Path) -> str | None:
    """Why `out` must not take a batch's outputs (trial 7 F6): it holds files and folders
    although it is not a batch's output (no ``batch.json`` and no ``.batch.lock`` of its own)
    — a foreign ``summary.json`` the batch would replace, a ``<name>/logs/`` it would remove.

    Returns:
        The refusal (one line naming what is there), or None: `out` is absent, empty, or a
        batch's output (`calibrate --out` writes the same files).
    """
    try:
        entries = sorted(os.scandir(out), key=lambda e: e.name)
    except OSError:  # absent (made later), or not listable: the writes say why
        return None
    names = {e.name for e in entries}
    if not entries or LOCK_NAME in names or BATCH_RECORD in names:
        return None
    shown = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in entries[:NAMES_SHOWN]]
    more = f" and {len(entries) - NAMES_SHOWN} more" if len(entries) > NAMES_SHOWN else ""
    return (f"--out {out} is not the output of a batch (no {BATCH_RECORD} or {LOCK_NAME}) and is not empty: it holds "
            f"{', '.join(shown)}{more}; a batch writes into a new or empty folder or into its own earlier output, and "
            "never replaces or removes what it did not make: give another --out, or move those away")


def own_summary_digests(out: Path) -> set[str] | None:
    """The SHA-256 digests of the ``summary.json`` a batch wrote in `out`, as its ``batch.json``
    records them (`SUMMARY_DIGESTS`: the one written with that record and the one it replaced,
    so that a batch stopped between the two writes is not refused). None when ``batch.json`` is
    that of an earlier version, which recorded none (its summary cannot be told apart); the
    empty set when there is no readable ``batch.json``."""
    try:
        record = json.loads((out / BATCH_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(record, dict):
        return set()
    digests = record.get(SUMMARY_DIGESTS)
    if digests is None:
        return None
    return {d for d in digests if isinstance(d, str)} if isinstance(digests, list) else set()


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file at `path` (hex).

    Raises:
        OSError: it cannot be read.
    """
    return hashlib.sha256(path.read_bytes()).hexdigest()


def foreign_summary(out: Path) -> str | None:
    """Why the batch must not replace ``<out>/summary.json`` (trial 7 F6): it is not the summary
    a batch wrote there (`own_summary_digests`) — a ``summarize --out <out>/summary.json``, an
    edited copy. None when there is none, or it is the batch's own (or its batch.json, of an
    earlier version, recorded no digest)."""
    summary = out / SUMMARY_NAME
    if not os.path.lexists(summary):
        return None
    own = own_summary_digests(out)
    if own is None:
        return None
    try:
        if file_sha256(summary) in own:
            return None
    except OSError:
        pass  # a folder, an unreadable file: not the batch's either
    return (f"{summary} is not the summary a batch wrote there ({BATCH_RECORD} records another: a `summarize --out "
            f"{summary}`, an edit?): a batch never replaces a file it did not write; move it away, then run the batch again "
            "(what is judged is kept)")


def instance_folder(out: Path, name: str) -> Path:
    """``<out>/<name>``, checked again just before a run writes into it, and made when missing.

    Raises:
        UnsafeOutput: the folder or one of `INSTANCE_ENTRIES` is a link, or the folder is a file.
        BatchInputError: `name` is not a plain folder name.
        OSError: the folder cannot be made.
    """
    folder = _check_instance(out, name)
    folder.mkdir(exist_ok=True)
    return folder


def earlier_instance_folders(out: Path, names: Iterable[str]) -> list[str]:
    """Instance folders in `out` that a batch wrote (they hold ``batch-instance.json`` or
    ``logs/``) for an instance not in `names` — left by an earlier batch over another list.
    The batch's summary does not count them (issue 39); ``batch`` and ``summarize`` name them.

    Returns:
        Their names, sorted; [] when `out` cannot be listed.
    """
    listed = set(names)
    try:
        entries = list(os.scandir(out))
    except OSError:
        return []
    return sorted(e.name for e in entries
                  if e.name not in listed and e.name != VERDICT_CACHE_DIR and e.is_dir(follow_symlinks=False)
                  and (os.path.lexists(os.path.join(e.path, RECORD_NAME)) or os.path.lexists(os.path.join(e.path, LOGS_DIR))))


def _rollout_of(part: Path, depth: int) -> Path:
    """The rollout folder `part` (``app/`` at depth 1, ``logs/agent`` at depth 2) lies in: a
    Harbor trial's ``<rollout>/artifacts/…`` counts as ``<rollout>``."""
    root = part
    for _ in range(depth):
        root = root.parent
    return root.parent if root.name == "artifacts" else root


def output_inside_input(out: Path, instances: Iterable[BatchInstance]) -> str | None:
    """Why `out` must not hold a batch's outputs: it is (or lies inside) an instance's ``tests/``
    (the task package, baked into the verifier image) or its rollout folder (the next batch
    would read the outputs as part of the rollout, or refuse it); None when it lies in neither.

    Args:
        out: the ``--out`` of ``batch`` or ``calibrate`` (it need not exist).
        instances: the instances it would judge.
    """
    where = out.resolve()
    for inst in instances:
        inputs = [("tests folder", inst.tests_dir)]
        if inst.app_dir is not None:
            inputs.append(("rollout", _rollout_of(inst.app_dir, 1)))
        if inst.agent_dir is not None:
            inputs.append(("rollout", _rollout_of(inst.agent_dir, 2)))
        for what, folder in inputs:
            if where.is_relative_to(folder.resolve()):
                return (f"--out {out} is inside {folder}, the {what} of instance {quoted(inst.name)}: a batch never "
                        "writes into its inputs; give a folder outside every instance's tests/ and rollout/")
    return None
