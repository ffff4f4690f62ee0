"""Reading many result documents: finding the inputs, streaming them, naming every failure.

The I/O edge of the fleet tools. Inputs are arguments of three kinds:

- a directory: every ``result.json`` whose parent directory is named ``verifier``, at any
  depth (the directory itself included). That is the layout every producer writes:
  the container's ``/logs/verifier/``, ``cowork-judge run --logs-dir X`` (``X/verifier/``),
  a Harbor job (``<job>/<trial>/verifier/``, multi-step ``<trial>/steps/<step>/verifier/``).
  Harbor's own ``<trial>/result.json`` and ``<job>/result.json`` are therefore not read;
  a directory without such files but with its own ``result.json`` yields that one;
- a file: ``*.jsonl`` holds one document per non-blank line; any other file is one document;
- anything else is a glob pattern (``**`` allowed), matched in sorted order.

Every input becomes one `Item` — a validated document (its seal checked on demand:
`Item.seal`, `cowork_judge.core.integrity`), or a named failure
(``unreadable``: the bytes cannot be read or are not UTF-8 JSON; ``invalid``: JSON that is
not a result document; ``duplicate``: a file reached twice through different arguments,
read once). Nothing is dropped silently. Files are walked in sorted order, so two runs
over the same tree see the same sequence, and each file is read once: its SHA-256 is
computed from the same bytes that are parsed.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError
from pydantic_core import from_json

from cowork_judge._util.jsontext import json_text, without_bom
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.integrity import INTEGRITY_KEY, SealCheck, check
from cowork_judge.core.legacy import LEGACY_RESULT_PROPERTIES
from cowork_judge.core.layout import LOGS_DIR, RESULT_NAME, REWARD_JSON_NAME, REWARD_TXT_NAME, VERIFIER_DIR

STEPS_DIR = "steps"
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
"""Largest single document read (bytes); real ones are tens of KB."""
HARBOR_TRIAL_SUFFIX = re.compile(r"__[A-Za-z0-9]{7}$")
"""Harbor names a trial ``<task name[:32]>__<7-character short uuid>``."""
GLOB_CHARS = frozenset("*?[")

Problem = Literal["unreadable", "invalid", "duplicate", "no_result"]

JUDGE_KEYS = frozenset({*(f.alias or name for name, f in ResultDocument.model_fields.items()),
                        *LEGACY_RESULT_PROPERTIES, INTEGRITY_KEY})
"""The top-level keys a judge writes in a result document (its model's, the original's
compatible fields, the seal). Others are a fleet's additions (``task_id``, ``tags``): the
seal is checked without them (`core.integrity.check`)."""


class InputError(ValueError):
    """An argument names nothing to read (missing path, a glob or directory without documents)."""


def read_regular(path: Path, limit: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes.

    A FIFO, socket or device named ``result.json`` would block a reader (or never end), so
    the file is opened non-blocking and checked with ``fstat`` before anything is read.

    Raises:
        OSError: missing, unreadable, not a regular file, or larger than `limit` (the
            message says which).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"not a regular file ({file_kind(st.st_mode)})")
        if st.st_size > limit:
            raise OSError(f"larger than {limit} bytes")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit + 1)
    finally:
        os.close(fd)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, for a message: ``"a FIFO"``, ``"a socket"``, ``"a character device"``,
    ``"a block device"``, ``"a directory"`` or ``"not a file"``."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a file"


@dataclass(frozen=True)
class InputFile:
    """One file to read. ``name`` is its path as reached from the argument (stable across runs)."""

    path: Path
    name: str
    jsonl: bool
    duplicate: bool = False
    missing: str | None = None
    """Why no document is there although one was expected (a verifier folder without
    ``result.json``, an instance a batch lists with none): the input is a ``no_result`` item."""


@dataclass
class Item:
    """One input: a document (``doc``) or a problem (``problem``, ``error``).

    ``source`` names it: the file name, or ``file.jsonl:LINE`` (1-based) for a JSONL row.
    ``data`` holds the input's bytes while it is folded; `top_level` reads fields the
    producer added beside the document's own (a fleet's ``task_id``, ``tags``…).
    """

    source: str
    file: InputFile
    line: int | None = None
    doc: ResultDocument | None = None
    problem: Problem | None = None
    error: str | None = None
    data: bytes = b""
    _raw: dict[str, Any] | None = field(default=None, repr=False)
    _seal: SealCheck | None = field(default=None, repr=False)

    @property
    def seal(self) -> SealCheck:
        """The document's seal (`cowork_judge.core.integrity.check`), checked on first use: the
        document, and for a file named ``result.json`` the ``reward.txt`` and ``reward.json``
        beside it when they are there. A problem input is a mismatch."""
        if self._seal is None:
            if self.doc is None:
                self._seal = SealCheck("mismatch", self.error)
            else:
                rewards: list[bytes | None] = [None, None]
                unreadable = None
                if self.line is None and self.file.path.name == RESULT_NAME:
                    for i, name in enumerate((REWARD_TXT_NAME, REWARD_JSON_NAME)):
                        try:
                            rewards[i] = read_regular(self.file.path.with_name(name), limit=1 << 20)
                        except FileNotFoundError:
                            pass  # not there (the document was copied alone): the document is checked
                        except OSError as exc:
                            unreadable = f"{name} beside {self.source} cannot be read ({_os_error(exc)})"
                try:
                    raw = json.loads(self.data)
                except (ValueError, RecursionError):
                    raw = None
                self._seal = SealCheck("mismatch", unreadable) if unreadable else check(
                    raw, rewards[0], rewards[1], name=self.source, judge_keys=JUDGE_KEYS)
        return self._seal

    @property
    def raw(self) -> dict[str, Any]:
        """The decoded JSON object of a valid document ({} for a problem), decoded on first use."""
        if self._raw is None:
            value = from_json(self.data) if self.doc is not None else {}
            self._raw = value if isinstance(value, dict) else {}
        return self._raw

    def top_level(self, key: str) -> Any:
        """The document's top-level `key`, or None; decodes only when the key can be there."""
        if self.doc is None or (f'"{key}"'.encode() not in self.data and b"\\u" not in self.data):
            return None
        return self.raw.get(key)


@dataclass(frozen=True)
class FileDigest:
    """What was read from one file: its SHA-256 and how many inputs it held."""

    name: str
    sha256: str
    bytes: int
    documents: int


def discover(arguments: Sequence[str], *, missing: bool = False, running: Collection[str] = ()) -> list[InputFile]:
    """The files the arguments name, in argument order, each argument's files sorted.

    A file reached twice (resolved path) is listed again with ``duplicate=True``. With
    `missing` (``summarize``), the documents expected under a folder argument and not there
    follow its files (`missing_results`). `running`: the folder arguments whose batch lock is
    held now (the caller checks: `batch.lock.is_held`), for the error of one that holds no document.

    Raises:
        InputError: an argument is a missing path, or matches / contains no document (a running
            batch's ``--out`` that has not listed its instances yet is said to be one).
    """
    out: list[InputFile] = []
    seen: set[str] = set()
    for arg in arguments:
        try:
            found = _expand(arg, allow_none=missing and _is_batch_out(Path(arg)))
        except InputError:
            if arg in running and Path(arg).is_dir():  # trial 8 F4: the lock is taken before the list is written
                raise InputError(f"{arg}: no result documents yet: a batch is still running in {arg} (its "
                                 f"{BATCH_LOCK} is held) and has not listed its instances yet; summarize it again in "
                                 "a moment, or when the batch has ended") from None
            raise
        stale = not_started_results(Path(arg)) if missing and Path(arg).is_dir() else set()
        for path, name in found:
            key = os.path.realpath(path)
            if key in stale:
                out.append(InputFile(path=path, name=name, jsonl=False, missing=NOT_STARTED + EARLIER_RESULT))
            else:
                out.append(InputFile(path=path, name=name, jsonl=name.endswith(".jsonl"), duplicate=key in seen))
            seen.add(key)
        if missing and Path(arg).is_dir():
            out.extend(missing_results(Path(arg), seen))
    return out


NO_RESULT = ("the judge wrote no {name} there (the verifier did not finish: it timed out, failed before the judge "
             "ran, or is still running)")
NOT_STARTED = "not judged: the batch was stopped before it started this instance"
"""The ``no_result`` error of an instance an interrupted batch never started (trial 7 F2)."""
EARLIER_RESULT = " (the result.json there is from an earlier run and not counted)"
"""Added to `NOT_STARTED` when such an instance holds an earlier run's document."""


def missing_results(root: Path, seen: set[str]) -> list[InputFile]:
    """The documents expected under the folder `root` that are not there (trial 5, F10: a trial
    whose verifier timed out was in no class, so a fleet mean silently covered the survivors):
    a ``verifier`` folder without ``result.json``, and an instance a batch's ``--out`` lists in
    ``instance_tags.json`` without ``<name>/logs/verifier/result.json``. `seen` holds the real
    paths already listed (updated)."""
    expected = [Path(d) / RESULT_NAME for d in _verifier_dirs(root)]
    tags = root / "instance_tags.json"
    if _is_batch_out(root):
        try:
            names = json.loads(tags.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            names = {}
        expected += [root / name / LOGS_DIR / VERIFIER_DIR / RESULT_NAME for name in sorted(names)
                     if isinstance(names, dict) and isinstance(name, str) and "/" not in name and name not in (".", "..")]
    out = []
    for path in expected:
        key = os.path.realpath(path)
        if key in seen or os.path.lexists(path):
            continue
        seen.add(key)
        out.append(InputFile(path=path, name=str(path), jsonl=False, missing=NO_RESULT.format(name=RESULT_NAME)))
    return out


BATCH_API_DIR, RECORD_PASS_DIR = "batch-api", "record-pass"
"""``<out>/batch-api/record-pass``: the scratch run of ``batch --batch-api`` (`batch.api_rounds`), whose documents
are no results (recorded requests, no answers; trial 8 F4: `summarize <out>` counted them as systemic)."""
BATCH_LOCK = ".batch.lock"
"""A batch's lock file in its ``--out`` (`batch.lock.LOCK_NAME`; this room stands below ``batch``)."""


def not_started_results(root: Path) -> set[str]:
    """The real paths of the ``result.json`` files in the batch ``--out`` `root` that its last
    ``batch.json`` says it never started (``not_started``: stopped before it re-judged them) and
    that are older than that ``batch.json``: an earlier run's documents, which the batch's own
    ``summary.json`` counts as ``no_result`` (`NOT_STARTED`), so ``summarize <out>`` does too (a
    document written since, by a batch running now, is counted). Empty when `root` is no batch's
    output or its ``batch.json`` cannot be read."""
    record = root / "batch.json"
    if not _is_batch_out(root):
        return set()
    try:
        names = json.loads(record.read_text(encoding="utf-8")).get("not_started")
        written = record.stat().st_mtime_ns
    except (OSError, ValueError, AttributeError):
        return set()
    stale = set()
    for name in names if isinstance(names, list) else ():
        if not isinstance(name, str) or "/" in name or name in ("", ".", ".."):
            continue
        path = root / name / LOGS_DIR / VERIFIER_DIR / RESULT_NAME
        try:
            if path.stat().st_mtime_ns <= written:
                stale.add(os.path.realpath(path))
        except OSError:
            continue
    return stale


def _is_batch_out(root: Path) -> bool:
    """`root` is a batch's ``--out``: it holds ``instance_tags.json`` (its list, written before
    the batch judges anything) and ``batch.json`` (written when it ends) or the lock of a batch
    that has not ended yet (trial 7 F8)."""
    return (root / "instance_tags.json").is_file() and ((root / "batch.json").is_file() or (root / BATCH_LOCK).is_file())


def _verifier_dirs(root: Path) -> Iterator[str]:
    """Every ``verifier`` folder under `root` in sorted order, symbolic links to folders followed,
    each real folder once (`fsutil.walk_following_links`: a loop ends, a trial linked twice is
    read once; trial 6 F8: a linked trial was skipped without a word). The scratch of a
    ``batch --batch-api`` record pass below `root` (`RECORD_PASS_DIR`) is no result: not searched."""
    from cowork_judge._util.fsutil import walk_following_links

    for dirpath, dirnames, _ in walk_following_links(root):
        if os.path.basename(dirpath) == BATCH_API_DIR and os.path.normpath(dirpath) != os.path.normpath(root):
            dirnames[:] = [d for d in dirnames if d != RECORD_PASS_DIR]
        if os.path.basename(dirpath) == VERIFIER_DIR:
            dirnames[:] = []
            yield dirpath
            continue
        if VERIFIER_DIR in dirnames:
            dirnames[:] = [d for d in dirnames if d in (VERIFIER_DIR, STEPS_DIR)]
        dirnames.sort()


def _expand(arg: str, *, allow_none: bool = False) -> list[tuple[Path, str]]:
    """The documents `arg` names; `allow_none`: a folder without any is no error (a batch's
    ``--out`` before its first document: its instances are ``no_result``, `missing_results`)."""
    path = Path(arg)
    if path.is_dir():
        found = [(p, str(p)) for p in _walk_results(path)]
        if not found and (path / RESULT_NAME).is_file():
            found = [(path / RESULT_NAME, str(path / RESULT_NAME))]
        if not found and not allow_none:
            raise InputError(f"{arg}: no result documents found (looked for */{VERIFIER_DIR}/{RESULT_NAME})")
        return found
    if path.is_file():
        return [(path, arg)]
    if path.exists():
        raise InputError(f"{arg}: not a regular file or directory")
    if GLOB_CHARS & set(arg):
        matches = sorted(m for m in glob.glob(arg, recursive=True) if os.path.isfile(m))
        if not matches:
            raise InputError(f"{arg}: the pattern matches no file")
        return [(Path(m), m) for m in matches]
    raise InputError(f"{arg}: no such file or directory")


def argument_root(arg: str) -> Path:
    """The folder an input argument names its files under: a directory itself, a file's
    folder, or a glob's leading folders without a glob character (``.`` when none).

    A tool that writes beside the files it read (``rescore``) writes only below this folder,
    once symbolic links are followed (`fsutil.inside`): a glob's ``*`` and ``**`` follow links
    to folders, so a link inside the tree must not carry a write out of it.
    """
    path = Path(arg)
    if path.is_dir():
        return path
    if not GLOB_CHARS & set(arg):
        return path.parent
    parts: list[str] = []
    for part in path.parts:
        if GLOB_CHARS & set(part):
            break
        parts.append(part)
    return Path(*parts) if parts else Path(".")


def _walk_results(root: Path) -> Iterator[Path]:
    """``…/verifier/result.json`` under `root` in sorted order, links to folders followed (`_verifier_dirs`).

    Nothing below a ``verifier`` dir is searched (its ``judge/`` audit holds no result), and
    a dir holding a ``verifier`` dir (a trial, a ``logs`` dir) is searched only in
    ``verifier/`` and ``steps/``: agent logs and artifacts can hold many files.
    """
    for folder in _verifier_dirs(root):
        if os.path.lexists(Path(folder) / RESULT_NAME):  # any kind of file: reading it says what it is
            yield Path(folder) / RESULT_NAME


def read_items(files: Sequence[InputFile], on_file: Callable[[FileDigest], None] | None = None) -> Iterator[Item]:
    """Stream the inputs of `files`; `on_file` receives each file's digest after its items.

    Never raises for a bad file: it becomes an ``unreadable`` item.
    """
    for f in files:
        if f.duplicate:
            yield Item(source=f.name, file=f, problem="duplicate", error="listed more than once; read once")
            continue
        if f.missing is not None:
            yield Item(source=f.name, file=f, problem="no_result", error=f.missing)
            continue
        digest = hashlib.sha256()
        size = 0
        count = 0
        try:
            if f.jsonl:
                if not stat.S_ISREG(os.stat(f.path).st_mode):
                    raise OSError(f"not a regular file ({file_kind(os.stat(f.path).st_mode)})")
                with open(f.path, "rb") as fh:
                    for number, line in enumerate(fh, start=1):
                        digest.update(line)
                        size += len(line)
                        if line.strip():
                            count += 1
                            yield _item(line, f, number)
            else:
                data = read_regular(f.path)
                digest.update(data)
                size = len(data)
                count = 1
                yield _item(data, f, None)
        except OSError as exc:
            count += 1
            yield Item(source=f.name, file=f, problem="unreadable", error=_os_error(exc))
        if on_file is not None:
            on_file(FileDigest(name=f.name, sha256=digest.hexdigest(), bytes=size, documents=count))


def _item(data: bytes, f: InputFile, line: int | None) -> Item:
    source = f.name if line is None else f"{f.name}:{line}"
    data = without_bom(data)  # trial 13 L4: a document saved by a Windows tool starts with a UTF-8 mark
    doc, problem, error = parse_document(data)
    return Item(source=source, file=f, line=line, doc=doc, problem=problem, error=error, data=data if doc is not None else b"")


def parse_document(data: bytes) -> tuple[ResultDocument | None, Problem | None, str | None]:
    """Decode and validate one result document.

    Returns:
        ``(doc, None, None)`` for a valid document, else ``(None, problem, one-line
        error)``. Non-finite numbers (``NaN``, ``Infinity``) make the input unreadable: no
        reward may be NaN. Error lines name the JSON position or the failing field, never
        the document's content (deliverable text must not leak into summaries). A document
    nested past the parsers' depth limits is ``unreadable``, not a crash.
    """
    try:
        return _parse_document(data)
    except RecursionError:
        return None, "unreadable", "not JSON (nested too deeply to read)"


def _parse_document(data: bytes) -> tuple[ResultDocument | None, Problem | None, str | None]:
    try:
        doc = ResultDocument.model_validate_json(data)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False)
        first = errors[0]
        if (first["type"] in ("json_invalid", "model_type") and not first.get("loc")) or _may_be_non_finite(data):
            problem, error = _diagnose(data)
            if problem is not None or first["type"] in ("json_invalid", "model_type"):
                return None, problem or "invalid", error or f"not a result document: {first.get('msg', 'invalid')}"
        where = ".".join(str(p) for p in first.get("loc", ())) or "(document)"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return None, "invalid", f"not a result document: {where}: {first.get('msg', 'invalid')}{more}"
    if _may_be_non_finite(data):  # the fast parser accepts NaN and Infinity; the strict one refuses them
        problem, error = _diagnose(data)
        if problem is not None:
            return None, problem, error
    if doc.task_score is not None and not 0.0 <= doc.task_score <= 1.0:  # a reward is in [0, 1] (SPEC §4)
        return None, "invalid", f"not a result document: task_score {doc.task_score:g} is outside [0, 1]"
    if doc.task_score is None and doc.status != "skipped":
        return None, "invalid", "not a result document: task_score is null but the status is not skipped"
    return doc, None, None


def _may_be_non_finite(data: bytes) -> bool:
    return b"NaN" in data or b"Infinity" in data


def _diagnose(data: bytes) -> tuple[Problem | None, str | None]:
    """Why `data` is not a document, by the standard library's stricter parser."""
    try:
        raw = json.loads(json_text(data), parse_constant=_reject_constant)
    except UnicodeDecodeError as exc:
        return "unreadable", f"not UTF-8 (byte {exc.start})"
    except json.JSONDecodeError as exc:
        return "unreadable", f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except ValueError as exc:
        return "unreadable", f"not JSON ({exc})"
    if not isinstance(raw, dict):
        return "invalid", f"not a result document (a JSON {type(raw).__name__}, not an object)"
    return None, None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def _os_error(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


# --------------------------------------------------------------------------- task identity


def path_task(name: str) -> str | None:
    """The task a document belongs to, by path convention; None when the path says nothing.

    ``…/<trial>/verifier/result.json`` → the trial directory's name without Harbor's
    ``__<7 characters>`` suffix; ``<trial>/steps/<step>/verifier/`` → the trial;
    ``<rollout>/logs/verifier/`` (``cowork-judge run --logs-dir <rollout>/logs``) →
    ``<rollout>``. Harbor cuts task names to 32 characters, so tasks sharing a 32-character
    prefix share a cluster (the intervals get wider, never narrower).
    """
    parts = tuple(p for p in name.replace(os.sep, "/").split("/") if p)
    if len(parts) < 3 or parts[-2] != VERIFIER_DIR:
        return None
    i = len(parts) - 3
    if i >= 2 and parts[i - 1] == STEPS_DIR:
        i -= 2
    if parts[i] == LOGS_DIR and i >= 1:
        i -= 1
    task = HARBOR_TRIAL_SUFFIX.sub("", parts[i])
    return task if task not in ("", ".", "..", "/") else None


def field_value(raw: dict[str, Any], dotted: str) -> Any:
    """The value at a dotted path of a decoded document (``a.b.c``), or None."""
    value: Any = raw
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def rubric_digest(doc: ResultDocument) -> str | None:
    """SHA-256 of the document's normalized rows (``level_raw`` left out): rollouts of
    one instance share it. None when the document has no rows."""
    if not doc.criteria:
        return None
    rows = [{k: v for k, v in row.items() if k != "level_raw"} for row in doc.criteria]
    text = json.dumps(rows, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


TaskKeySource = Literal["field", "path", "tag", "rubric", "document"]

TASK_TAG = "task"
"""The instance tag that names an instance's task (`--instance-tags`, a batch's
``instance_tags.json``): under ``--task-key auto`` it is the bootstrap cluster of a document the
path names (`fleet.summarize.Summarizer`), so that k rollouts of one task are resampled together."""


def task_key(item: Item, mode: str) -> tuple[str, TaskKeySource]:
    """The cluster key of a document and where it came from.

    Modes: ``auto`` — the document's own top-level ``task_id`` (fleets may add it to JSONL
    rows), else the path convention (`path_task`; the summarizer then maps an instance whose
    tags carry a `TASK_TAG` to that task, source ``tag``), else the document alone; ``path``;
    ``rubric`` (`rubric_digest`); ``field:NAME`` (a dotted path in the document); ``none``
    (every document is its own cluster). A document the mode says nothing about is its
    own cluster (source ``document``).
    """
    if mode.startswith("field:"):
        value = field_value(item.raw, mode[6:])
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return f"field:{value}", "field"
    elif mode == "auto":
        value = item.top_level("task_id")
        if isinstance(value, str) and value:
            return f"field:{value}", "field"
    if mode in ("auto", "path"):
        task = path_task(item.file.name) if item.line is None else None
        if task is not None:
            return f"path:{task}", "path"
    if mode == "rubric" and item.doc is not None:
        digest = rubric_digest(item.doc)
        if digest is not None:
            return f"rubric:{digest}", "rubric"
    return f"document:{item.source}", "document"


TASK_KEY_MODES = ("auto", "path", "rubric", "none", "field:NAME")


def check_task_key_mode(mode: str) -> str:
    """Return `mode` when valid.

    Raises:
        ValueError: not one of `TASK_KEY_MODES` (``field:`` needs a name).
    """
    if mode in ("auto", "path", "rubric", "none") or (mode.startswith("field:") and len(mode) > 6):
        return mode
    raise ValueError(f"unknown task key {mode!r}; use one of: {', '.join(TASK_KEY_MODES)}")
