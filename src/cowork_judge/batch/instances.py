"""``cowork-judge batch``: what to judge, under which limits, and what is already done.

Design (the global in-flight limit). Every instance is judged by the engine entry of
``cowork-judge run``, in one of K long-lived worker processes (`batch.worker`, `batch.pool`),
each instance with its own environment, deadline, watchdog, signal handling and temp
folder — exactly the run a Harbor container makes, so the documents are the ones ``run``
writes and a hung or crashing judge ends alone (its watchdog may ``os._exit`` its worker;
in the batch's own process, that would end the whole batch). Processes cannot share an
in-process semaphore, so the global limit L is partitioned: each run gets ``c = ⌊L / K⌋`` as both
JUDGE_CONCURRENCY and JUDGE_WORKFLOW_CONCURRENCY. A run's segments are serial (SPEC §7.1)
and each holds at most its own limit of requests open, so a run never has more than ``c``
calls in flight and the batch never more than ``K · c ≤ L`` (`Limits`, checked against the
simulator's in-flight counter in the tests). The price of the static split is that a run
between calls (starting up, code rows, parsing) leaves its share unused; K > 1 keeps the
endpoint busy anyway. Start jitter only spreads independent containers, so it is 0 in
children unless the environment sets it.

Resume. Before a run, ``<out>/<name>/batch-instance.json`` records the instance's
fingerprint (SHA-256 over every file of its ``tests/`` (`tests_files`), its recorded answer
and the list of its deliverables) and the old verifier folder is removed; a rerun skips an instance whose
fingerprint matches and whose ``result.json`` is a valid result document with a reward
file, that was not cut short (``details.interrupted``, or a row unjudged ``interrupted`` /
``deadline``), whose verdict fingerprint (``details.fingerprint``, `run.fingerprint`) is
that of the current judge settings, and that carries no ``exit_code`` (a judge failure,
not a verdict; kept with ``keep_errors``). Everything else is judged again. A kept result
whose settings of kind ``score`` changed (the scoring policy, JUDGE_GUARD flag/penalize,
JUDGE_METRIC_ID, JUDGE_PRICES: `config.effects`) is re-scored from its stored verdicts with no
model call (`batch.runner.BatchRunner.todo`), so a batch never mixes two policies. A crash or
SIGTERM loses nothing written: each run writes its documents atomically, and nothing a
finished run wrote is ever touched again.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import os
import shutil
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cowork_judge._util.fsutil import plain_name_problem, quoted, walk_following_links
from cowork_judge._util.jsontext import load_json_file, read_json_text
from cowork_judge._util.given_paths import absolute
from cowork_judge.core.integrity import SealCheck, check
from cowork_judge.core.knobs import TRUTHY
from cowork_judge.core.layout import MESSAGE_NAMES, VerifierLayout
from cowork_judge.fleet.documents import TASK_TAG

AGENT_FILES = MESSAGE_NAMES
"""What the judge reads from ``logs/agent`` (SPEC §6, `core.layout.MESSAGE_NAMES`); only these are copied per run."""
RECORD_NAME = "batch-instance.json"
RUN_LOG_NAME = "batch-run.log"
CHILD_ENV_DROPPED = ("JUDGE_APP_DIR", "JUDGE_LOGS_DIR", "JUDGE_TESTS_DIR", "JUDGE_WORK_DIR", "JUDGE_ALT_OUTPUT_DIR",
                     "JUDGE_RESPONSE_FILE", "JUDGE_INSTANCE_ID")
"""Per-instance knobs a batch must not pass on from its own environment (one value would
point every run at the same files)."""
JITTER_KNOBS = ("JUDGE_START_JITTER", "JUDGE_WORKFLOW_START_JITTER")
DEFAULT_MAX_JOBS = 8
"""Worker processes (runs at once) when --jobs is not given (each holds ~100 MB)."""
State = Literal["complete", "missing", "invalid", "stale", "tampered", "settings_changed", "interrupted", "error"]
CUT_KINDS = ("interrupted", "deadline")
"""Error kinds of rows a run left unjudged because it was ended (a signal, JUDGE_DEADLINE): such a
result is never taken for a finished one (SPEC §19)."""


OUTPUT_FILES = ("summary.json", "batch.json", "instance_tags.json")
"""What a batch writes at the top of ``--out`` besides the instance folders (`runner.write_outputs`)."""


class BatchInputError(ValueError):
    """The batch input cannot be used (one line naming the path or JSONL line)."""


def instance_name_problem(name: object) -> str | None:
    """What keeps `name` from naming an instance, or None when it can.

    An instance name is a label that becomes the folder ``<out>/<name>/``, so it must be one
    plain folder name (`fsutil.plain_name_problem`: no ``/``, not ``.`` / ``..``, no NUL or
    control character, at most 255 UTF-8 bytes), must not start with ``.`` (the batch's own
    hidden files: its lock, staging files) and must not be one of the batch's own entries
    (`OUTPUT_FILES`, `VERDICT_CACHE_DIR`).
    """
    problem = plain_name_problem(name)
    if problem is None and str(name).startswith("."):
        problem = "starts with '.' (kept for the batch's own files)"
    if problem is None and name in (*OUTPUT_FILES, VERDICT_CACHE_DIR):
        problem = "is a name the batch uses for its own output"
    return problem


def check_instance_name(name: object, where: str) -> str:
    """`name` if it can name an instance (`instance_name_problem`).

    Raises:
        BatchInputError: one line naming `where` (a JSONL ``file:line`` or a folder), the name and what is wrong.
    """
    problem = instance_name_problem(name)
    if problem is not None:
        raise BatchInputError(f"{where}: instance name {quoted(name)} {problem}: a name is a label, one plain folder "
                              "name inside --out, not a path")
    return str(name)


@dataclass(frozen=True)
class BatchInstance:
    """One instance to judge.

    Attributes:
        name: output folder name, unique in the batch.
        tests_dir: the instance's ``tests/`` (rubric.json …).
        app_dir: the agent's workdir holding ``output/`` (None: nothing delivered as files).
        agent_dir: the agent's ``logs/agent`` (None: no final message).
        tags: instance-level statistics keys (``instance.json`` → ``tags``).
        where: where the batch input lists it (a JSONL ``file:line`` or the instance folder), for messages.
    """

    name: str
    tests_dir: Path
    app_dir: Path | None = None
    agent_dir: Path | None = None
    tags: Mapping[str, Any] = field(default_factory=dict)
    where: str = ""


@dataclass(frozen=True)
class Limits:
    """How a batch spends the endpoint's in-flight limit: `jobs` runs at once, each with
    `per_run` calls in flight at most; ``jobs · per_run ≤ max_in_flight``."""

    max_in_flight: int
    jobs: int
    per_run: int


def plan_limits(max_in_flight: int, jobs: int | None, instances: int) -> Limits:
    """Split the global limit L over K runs (see the module docstring).

    K defaults to ``min(L, DEFAULT_MAX_JOBS, instances)`` (at least 1): a run's own CPU (its
    start, code rows, parsing, writing) is spent while the other K - 1 runs hold their calls
    open, while ``c`` only shortens one run (`bench/batch.py`); a K above L is lowered to L,
    and one above the instances to them (idle workers would only thin each run's share of L).
    Each run gets ``⌊L / K⌋``.

    Raises:
        ValueError: L < 1 or K < 1.
    """
    if max_in_flight < 1 or (jobs is not None and jobs < 1):
        raise ValueError("--max-in-flight and --jobs must be ≥ 1")
    k = jobs if jobs is not None else min(max_in_flight, DEFAULT_MAX_JOBS, max(1, instances))
    k = max(1, min(k, max_in_flight, max(1, instances)))
    return Limits(max_in_flight=max_in_flight, jobs=k, per_run=max_in_flight // k)


VERDICT_CACHE_DIR = "verdict-cache"
"""The batch's verdict cache under ``--out`` (JUDGE_VERDICT_CACHE unless set; `run.verdict_cache`)."""


def batch_cache_env(environ: Mapping[str, str], out: Path) -> dict[str, str]:
    """`environ` with JUDGE_VERDICT_CACHE set to the batch's ``<out>/verdict-cache`` when it is unset, blank or a yes
    word (``on``, ``1``, ``true``…: the cache asked for, its folder left to the batch; trial 9 F5, where ``on`` was
    refused as a folder name and the batch ran with no cache). ``0``/``off`` and a folder are kept."""
    env = dict(environ)
    given = env.get("JUDGE_VERDICT_CACHE", "").strip()
    if not given or given.lower() in TRUTHY:
        env["JUDGE_VERDICT_CACHE"] = str(Path(out).absolute() / VERDICT_CACHE_DIR)
    return env


def child_env(environ: Mapping[str, str], limits: Limits, out: Path | None = None) -> dict[str, str]:
    """The environment of every run: ours, minus per-instance paths (`CHILD_ENV_DROPPED`),
    with both concurrency knobs set to the run's share, the start jitters 0 unless set, and
    the verdict cache on in ``<out>/verdict-cache`` unless JUDGE_VERDICT_CACHE names a folder (``0`` turns it off;
    a yes word such as ``on`` or ``1`` asks for the cache, and means that default folder in a batch: trial 9 F5)."""
    env = {k: v for k, v in (batch_cache_env(environ, out) if out is not None else environ).items()
           if k not in CHILD_ENV_DROPPED}
    env["JUDGE_CONCURRENCY"] = str(limits.per_run)
    env["JUDGE_WORKFLOW_CONCURRENCY"] = str(limits.per_run)
    for knob in JITTER_KNOBS:
        env.setdefault(knob, "0")
    return env


# --------------------------------------------------------------------------- discovery


JSONL_KEYS = ("instance", "tests", "rollout", "name", "tags")
"""Every key a JSONL line's object may hold (`discover_instances`)."""
ROLLOUT_EXTRA_NAMES = frozenset({"manifest.json"})
"""Top-level names a container-layout rollout may hold besides ``app/`` and ``logs/`` (as ``try`` reads it)."""


def rollout_parts(rollout: Path, where: str) -> tuple[Path | None, Path | None]:
    """The agent's workdir (``app/``) and ``logs/agent`` of a rollout folder, each None when absent.

    A rollout folder is read in the container layout (``app/`` and/or ``logs/``, nothing else
    but ``manifest.json``: the ``artifacts/`` folder of a Harbor trial has this shape), or is a
    Harbor trial folder (``artifacts/`` and ``result.json``: read through its ``artifacts/``), or
    is empty (nothing delivered). Any other folder — a flat folder of deliverables, which
    ``cowork-judge try --rollout`` accepts — is refused: a batch would judge it as nothing
    delivered, a 0 that looks like the agent's.

    Raises:
        BatchInputError: `rollout` does not exist, is not a folder, or has a layout the batch does
            not read (one line naming `where`, the folder and how to lay it out).
    """
    if not rollout.is_dir():
        what = "is not a folder" if rollout.exists() else "does not exist"
        raise BatchInputError(f"{where}: the rollout {rollout} {what}: a batch refuses it rather than judge it as "
                              "nothing delivered")
    base = rollout / "artifacts" if (rollout / "artifacts").is_dir() and (rollout / "result.json").is_file() else rollout
    try:
        names = {p.name for p in base.iterdir()}
    except OSError as exc:
        raise BatchInputError(f"{where}: cannot read the rollout {rollout} ({exc})") from None
    held = names & {"app", "logs"}
    if names and not (held and names <= {"app", "logs"} | ROLLOUT_EXTRA_NAMES and all((base / n).is_dir() for n in held)):
        shown = ", ".join(sorted(names)[:5]) + (" …" if len(names) > 5 else "")
        raise BatchInputError(f"{where}: the rollout {rollout} does not have the layout a batch reads (it holds {shown}): "
                              "a rollout folder holds app/ (the agent's workdir, deliverables in app/output/) and/or "
                              "logs/agent/ (trajectory.json), and nothing else but manifest.json, or is a Harbor trial "
                              "folder (artifacts/, result.json). A flat folder of deliverables (which `cowork-judge try "
                              "--rollout` accepts) must be moved to <rollout>/app/output/")
    app = base / "app"
    agent = VerifierLayout.under(base).agent_dir
    return (app if app.is_dir() else None), (agent if agent.is_dir() else None)


def _from_dir(root: Path, name: str, tags: Mapping[str, Any] | None = None, *, where: str = "",
              rollouts: bool = True) -> BatchInstance:
    """An instance folder as `cowork-judge import` writes it (``tests/``, ``rollout/``, ``instance.json``).

    An instance folder without ``rollout/`` is refused (a folder of Harbor task folders is not a
    batch: each would score 0 as nothing delivered), except one `cowork-judge import` wrote without
    a response (its ``instance.json`` says ``"response": false``): that one is nothing delivered.

    Raises:
        BatchInputError: an unreadable ``instance.json`` (or one giving a key twice), no ``rollout/``, a rollout `rollout_parts` refuses.
    """
    where = where or str(root)
    rollout = root / "rollout"
    meta_doc: Any = None
    meta = root / "instance.json"
    if meta.is_file():
        try:
            meta_doc = load_json_file(meta, object_pairs_hook=_object_once)
        except _KeyTwice as exc:  # as a JSONL line: json would keep the last silently
            raise BatchInputError(f"{meta}: key {exc.key!r} is given twice in one object (JSON would keep only "
                                  "the last): give it once") from None
        except (OSError, UnicodeDecodeError, ValueError):
            raise BatchInputError(f"{meta}: not a readable instance.json") from None
    if tags is None:
        value = meta_doc.get("tags") if isinstance(meta_doc, dict) else None
        tags = value if isinstance(value, dict) else {}
        for key, tag in tags.items():
            _check_finite(key, tag, str(meta))
    if not rollouts or (not os.path.lexists(rollout) and isinstance(meta_doc, dict) and meta_doc.get("response") is False):
        return BatchInstance(name=name, tests_dir=root / "tests", tags=dict(tags), where=where)
    if not os.path.lexists(rollout):
        place = where if where == str(root) else f"{where}: {root}"
        raise BatchInputError(f"{place}: no rollout/ folder (an instance folder holds "
                              "tests/ and rollout/, as `cowork-judge import` writes it): a batch refuses it rather than "
                              "judge it as nothing delivered. For a task folder, give a JSONL line "
                              '{"tests": "<task>/tests", "rollout": "<rollout folder>"}')
    app, agent = rollout_parts(rollout, where)
    return BatchInstance(name=name, tests_dir=root / "tests", app_dir=app, agent_dir=agent, tags=dict(tags), where=where)


def discover_instances(source: Path, *, rollouts: bool = True) -> list[BatchInstance]:
    """The instances of a folder tree or a JSONL list, in a stable order.

    A folder: every folder below `source` holding ``tests/rubric.json`` is an instance
    (not searched further), named by its path relative to `source` with ``/`` → ``--``;
    symbolic links to folders are followed (`fsutil.walk_following_links`: a loop ends; one
    instance folder reached twice is refused, and so is a link that points at nothing, naming it).
    A ``.jsonl`` file: one instance per line, a path string or an object ``{"instance":
    DIR, "name"?: str, "tags"?: {…}}`` or ``{"tests": DIR, "rollout"?: DIR, "name"?: str,
    "tags"?: {…}}`` (relative paths are relative to the file; `JSONL_KEYS`: any other key,
    or ``instance`` with ``tests``/``rollout``, is refused naming the line). A rollout must
    exist and have a layout the batch reads (`rollout_parts`); an instance folder must hold
    ``rollout/`` (`_from_dir`). Every name, given or derived, must pass
    `check_instance_name`: it is a label, never a path (``"name": "/abs/x"`` or ``"../x"``
    is refused, naming the line). Two names equal after Unicode NFC normalization are a
    duplicate (non-NFC names are accepted: the folder is created with the name as given).

    `rollouts` False: the rollouts are not read nor checked (``calibrate --results`` reads only
    the names and ``tests/`` of instances judged earlier); every instance has no app or agent dir.

    Raises:
        BatchInputError: nothing found, a bad line, a bad name, a missing tests dir, a missing or
            unreadable rollout, a duplicate name (naming both lines), a dangling link in the folder tree.
    """
    found: list[BatchInstance] = []
    if source.is_dir():
        repeats: dict[str, str] = {}
        dangling: list[Path] = []
        for dirpath, dirnames, filenames in walk_following_links(source, repeats):
            here = Path(dirpath)
            if (here / "tests" / "rubric.json").is_file():
                rel = here.relative_to(source)
                name = check_instance_name("--".join(rel.parts) if rel.parts else absolute(here).name, str(here))
                found.append(_from_dir(here, name, where=str(here), rollouts=rollouts))
                dirnames[:] = []
                continue
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            dangling += [here / f for f in sorted(filenames) if not f.startswith(".") and _dangles(here / f)]
        _refuse_repeats(repeats)
        _refuse_dangling(dangling)
        if not found:
            raise BatchInputError(f"{source}: no instance found (looked for */tests/rubric.json)")
    elif source.is_file():
        found = _from_jsonl(source, rollouts=rollouts)
    else:
        raise BatchInputError(f"{source}: no such file or folder")
    names: dict[str, BatchInstance] = {}
    for inst in found:
        key = unicodedata.normalize("NFC", inst.name)  # café (NFC) and café (NFD) look the same: one name
        if key in names:
            first = names[key]
            same = "" if first.name == inst.name else f" ({quoted(first.name)} and {quoted(inst.name)} differ only in Unicode normalization)"
            raise BatchInputError(f"{first.where} and {inst.where}: two instances are named {quoted(key)}{same}: give them "
                                  "distinct names")
        names[key] = inst
        if not (inst.tests_dir / "rubric.json").is_file():
            raise BatchInputError(f"{inst.name}: {inst.tests_dir / 'rubric.json'} not found")
    return found


def _dangles(path: Path) -> bool:
    """True for a symbolic link whose target does not exist (or cannot be reached)."""
    return path.is_symlink() and not path.exists()


def _refuse_dangling(links: list[Path]) -> None:
    """Refuse a folder tree holding symbolic links that point at nothing (trial 6 F8): an
    instance folder moved or deleted after a folder of links was assembled would be left out of
    the batch, neither judged nor counted. The message names each link (at most 10) and its target.

    Raises:
        BatchInputError: when `links` is not empty.
    """
    if not links:
        return
    named = "; ".join(f"{link} → {os.readlink(link)}" for link in links[:10])
    more = f" (and {len(links) - 10} more)" if len(links) > 10 else ""
    raise BatchInputError(f"{len(links)} symbolic link(s) in the instances folder point at something that does not "
                          f"exist: {named}{more}. An instance such a link named would be left out of the batch; "
                          "restore its target or remove the link")


def _refuse_repeats(repeats: dict[str, str]) -> None:
    """Refuse an instance folder reached twice in a folder tree (through a symbolic link): it
    would be judged under one name only, or twice; the message names both paths.

    Raises:
        BatchInputError: a repeated folder holds ``tests/rubric.json``.
    """
    for again, first in sorted(repeats.items()):
        if (Path(again) / "tests" / "rubric.json").is_file():
            raise BatchInputError(f"{again} and {first} are the same instance folder (a symbolic link leads to it "
                                  "twice): remove one link, or list the instance in a JSONL once per name you want")


def _from_jsonl(path: Path, *, rollouts: bool = True) -> list[BatchInstance]:
    try:
        lines = read_json_text(path).splitlines()  # a UTF-8 byte-order mark is accepted
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchInputError(f"{path}: cannot read ({exc})") from None
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line, object_pairs_hook=_object_once)
        except _KeyTwice as exc:  # trial 12 F6: json keeps the last silently
            raise BatchInputError(f"{where}: key {exc.key!r} is given twice in one object (JSON would keep only the "
                                  "last): give it once") from None
        except ValueError:
            raise BatchInputError(f"{path}:{n}: not JSON") from None
        row = {"instance": row} if isinstance(row, str) else row
        if not isinstance(row, dict) or not any(isinstance(row.get(k), str) for k in ("instance", "tests")):
            raise BatchInputError(f"{where}: expected a path or an object with 'instance' or 'tests' (keys: "
                                  f"{', '.join(JSONL_KEYS)}; docs/benchmarks.md)")
        _check_keys(row, where)
        tags = row.get("tags")
        given = row.get("name")
        if isinstance(row.get("instance"), str):
            root = (path.parent / row["instance"]).resolve()
            out.append(_from_dir(root, check_instance_name(root.name if given is None else given, where), tags, where=where,
                                 rollouts=rollouts))
            continue
        tests = (path.parent / row["tests"]).resolve()
        name = check_instance_name(tests.parent.name if given is None else given, where)
        app = agent = None
        if row.get("rollout") is not None and rollouts:
            app, agent = rollout_parts((path.parent / row["rollout"]).resolve(), where)
        out.append(BatchInstance(name=name, tests_dir=tests, app_dir=app, agent_dir=agent, tags=tags or {}, where=where))
    if not out:
        raise BatchInputError(f"{path}: no instance listed")
    return out


def _check_keys(row: Mapping[str, Any], where: str) -> None:
    """Refuse a JSONL object with a key the batch does not read, conflicting keys or a value of the wrong type.

    Raises:
        BatchInputError: naming `where`, the key and (for an unknown key) the closest known one.
    """
    for key in row:
        if key not in JSONL_KEYS:
            close = difflib.get_close_matches(str(key), JSONL_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise BatchInputError(f"{where}: unknown key {key!r}{hint}: a line's object holds only "
                                  f"{', '.join(JSONL_KEYS)} (docs/benchmarks.md)")
    if "instance" in row:
        clash = [k for k in ("tests", "rollout") if k in row]
        if clash:
            raise BatchInputError(f"{where}: 'instance' and {' and '.join(repr(k) for k in clash)} exclude each other: "
                                  "'instance' names an instance folder (its tests/ and rollout/); give either it or "
                                  "'tests' with an optional 'rollout'")
    for key in ("instance", "tests", "rollout"):
        if key in row and not isinstance(row[key], str):
            raise BatchInputError(f"{where}: {key!r} must be a path (a string)")
    if "tags" in row and not isinstance(row["tags"], dict):
        raise BatchInputError(f"{where}: 'tags' must be an object (key → value)")
    for key, value in (row.get("tags") or {}).items():
        _check_finite(key, value, where)
        if not tag_value_ok(key, value):
            kind = "a list" if isinstance(value, list) else "an object"
            raise BatchInputError(f"{where}: tag {key!r} holds {kind}: a tag value is a string, number, boolean or null "
                                  "(summarize groups documents by it; only the key 'tags' may hold a list of "
                                  "'key:value' strings, as `import` writes it)")


class _KeyTwice(ValueError):
    """A JSON object gives `key` twice (raised by `_object_once`)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` object hook: the object of `pairs`.

    Raises:
        _KeyTwice: a key is given twice.
    """
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _KeyTwice(key)
        out[key] = value
    return out


def _check_finite(key: str, value: Any, where: str) -> None:
    """Refuse the tag `key` whose value is NaN or ±Infinity (Python's json reads them as numbers;
    no JSON document can hold them: trial 12 F5, a traceback writing ``instance_tags.json``).

    Raises:
        BatchInputError: naming `where` and the tag.
    """
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise BatchInputError(f"{where}: tag {key!r} is {shown}: a tag value is a string, finite number, boolean or "
                              "null (no JSON document can hold NaN or Infinity)")


def tag_value_ok(key: str, value: Any) -> bool:
    """Whether `value` can be the value of the instance tag `key`: a string, number, boolean or
    null, or — under the key ``tags`` only — a list of strings (``["topic:x", "axis:y"]``, as
    `cowork-judge import` writes it; summarize reads ``key:value`` entries). A list or an object
    elsewhere cannot be grouped by (trial 6 F3)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    return key == "tags" and isinstance(value, list) and all(isinstance(v, str) for v in value)


# --------------------------------------------------------------------------- resume


TESTS_HASHED_BYTES = 8 * 1024 * 1024
"""A file of ``tests/`` up to this size enters the instance fingerprint by its bytes; a larger
one (a reference deck, a data file) by its size and modification time, as deliverables do."""


def tests_files(tests_dir: Path) -> list[tuple[str, Path]]:
    """Every file of the task package `tests_dir` the judge may read, as (path relative to it,
    with ``/``; path), sorted: all regular files below it (links to files followed, links to
    folders not), but hidden names (``.DS_Store``, ``.git/``) and ``__pycache__/``, which no
    judge run reads (trial 7 F4: a ppt_judge anchor, ``workflow_assets/…/anchors/*.md``, was
    not in the fingerprint)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(tests_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in filenames:
            path = Path(dirpath) / name
            if not name.startswith(".") and path.is_file():
                found.append((path.relative_to(tests_dir).as_posix(), path))
    return sorted(found)


def task_digest(tests_dir: Path) -> str:
    """The first 12 hex digits of a SHA-256 over the task package `tests_dir` (`tests_files`:
    each file's relative path and bytes, or its size alone above `TESTS_HASHED_BYTES`). Copies of
    one task's ``tests/`` share it (times are left out, unlike `fingerprint`); packages that differ
    in any byte, such as two imported questions (``task_prompt.md``), do not.

    Raises:
        OSError: a file of `tests_dir` cannot be read.
    """
    h = hashlib.sha256()
    for rel, path in tests_files(tests_dir):
        size = path.stat().st_size
        data = path.read_bytes() if size <= TESTS_HASHED_BYTES else str(size).encode()
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0" + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()[:12]


def instance_tag_map(instances: Sequence[BatchInstance]) -> dict[str, dict[str, Any]]:
    """name → the instance's tags, each with a `TASK_TAG` (trial 10, F7): the instance's own
    ``task`` tag when it has one, else ``tests-<task_digest>``, so that rollouts of one task —
    JSONL lines naming one ``tests/``, or instance folders holding identical copies — share a
    task and `summarize` clusters them together. Digests are computed once per ``tests/`` folder;
    an instance whose ``tests/`` cannot be read gets no task tag (it is its own cluster: its run
    fails on the same folder and says why). Never raises.
    """
    digests: dict[Path, str | None] = {}
    out: dict[str, dict[str, Any]] = {}
    for inst in instances:
        tags = dict(inst.tags)
        if TASK_TAG not in tags:
            where = inst.tests_dir.absolute()
            if where not in digests:
                try:
                    digests[where] = task_digest(where) if where.is_dir() else None
                except OSError:
                    digests[where] = None
            if digests[where] is not None:
                tags[TASK_TAG] = f"tests-{digests[where]}"
        out[inst.name] = tags
    return out


def lay_out_agent_files(source: Path, dest: Path) -> None:
    """Put each of `AGENT_FILES` of the rollout's ``logs/agent`` `source` into the run's `dest`:
    a regular file is copied; a symbolic link is laid out as the same link (its target text),
    never copied through (trial 12 F7: a ``final_answer.txt`` linking to the instance's own
    ``tests/rubric.json`` or to a host file was judged as the agent's answer). The run then
    sees the link as it would in the rollout, ignores it and says so in ``details.warnings``
    (``final_answer.txt is a symlink; ignored``). Anything else (a folder, a FIFO) is left out.

    Raises:
        OSError: a file could not be copied or a link not made.
    """
    for name in AGENT_FILES:
        path = source / name
        if path.is_symlink():
            os.symlink(os.readlink(path), dest / name)
        elif path.is_file():
            shutil.copyfile(path, dest / name)


def fingerprint(inst: BatchInstance) -> str:
    """SHA-256 over what decides a verdict: every file of the instance's ``tests/``
    (`tests_files`: by its bytes up to `TESTS_HASHED_BYTES`, else its size and time), the recorded
    answer (a linked answer file by its link's target text, never read through: trial 12 F7),
    and the deliverables' names, sizes and modification times (nanoseconds) — rsync's
    quick check, not their bytes (batches can be large): a deliverable rewritten in place with
    the same size is judged again (trial 7 F4), and so is a rollout copied without its times
    (``cp -r``; ``cp -a``, ``rsync -a``, ``mv`` and ``tar`` keep them)."""
    h = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        h.update(label.encode() + b"\0" + len(data).to_bytes(8, "big") + data)

    for rel, path in tests_files(inst.tests_dir):
        st = path.stat()
        add(f"tests/{rel}", path.read_bytes() if st.st_size <= TESTS_HASHED_BYTES
            else f"{st.st_size}\t{st.st_mtime_ns}".encode())
    for name in AGENT_FILES:
        agent_file = (inst.agent_dir / name) if inst.agent_dir is not None else None
        if agent_file is None:
            continue
        if agent_file.is_symlink():  # never read through (trial 12 F7): the link is what the rollout holds
            add(f"agent-link/{name}", os.fsencode(os.readlink(agent_file)))
        elif agent_file.is_file():
            add(f"agent/{name}", agent_file.read_bytes())
    if inst.app_dir is not None:
        listing = sorted(f"{p.relative_to(inst.app_dir).as_posix()}\t{st.st_size}\t{st.st_mtime_ns}"
                         for p in inst.app_dir.rglob("*") if p.is_file() and (st := p.stat()))
        add("app", "\n".join(listing).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def seal_check(layout: VerifierLayout) -> SealCheck:
    """The seal of the documents of `layout` (`cowork_judge.core.integrity.check` over
    ``result.json``, ``reward.txt`` and ``reward.json``); a file that cannot be read is a mismatch."""
    from cowork_judge.fleet.documents import read_regular

    try:
        raw = json.loads(read_regular(layout.result_json))
        rewards = [read_regular(path) if path.exists() else None for path in (layout.reward_txt, layout.reward_json)]
    except (OSError, ValueError) as exc:
        return SealCheck("mismatch", f"cannot read the stored documents ({exc})")
    return check(raw, rewards[0], rewards[1])


def result_state(inst_out: Path, expected_fingerprint: str, *, keep_errors: bool = False,
                 expected_settings: str | None = None) -> State:
    """Whether the run of an instance is done (see the module docstring).

    Args:
        expected_settings: the verdict fingerprint digest of the current settings
            (`run.fingerprint.verdict_fingerprint`); None: not checked.

    Returns:
        ``complete`` (skip it), ``missing`` (never finished), ``invalid`` (no valid result
        document or reward file), ``stale`` (the instance changed since), ``tampered``
        (``result.json``, ``reward.txt`` or ``reward.json`` no longer matches the digests
        the judge sealed it with, or the seal was removed: `cowork_judge.core.integrity`),
        ``settings_changed`` (the document's ``details.fingerprint`` is not that of the
        current judge settings, or it has none while the run did not fail), ``interrupted`` (a signal or the deadline
        cut the run: ``details.interrupted`` or a row unjudged `CUT_KINDS`) or ``error``
        (the document has an ``exit_code``).
    """
    from cowork_judge.fleet.documents import parse_document, read_regular
    from cowork_judge.run.fingerprint import fingerprint_digest

    record = inst_out / RECORD_NAME
    layout = VerifierLayout.under(inst_out)
    try:
        recorded = json.loads(record.read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        recorded = None
    try:
        data = read_regular(layout.result_json)
    except OSError:
        return "missing"
    if recorded != expected_fingerprint:
        return "stale"
    doc, _, _ = parse_document(data)
    if doc is None:
        return "invalid"
    try:
        reward = layout.reward_txt.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return "invalid"
    if doc.status == "skipped" and reward != "SKIPPED":
        return "invalid"
    if doc.status != "skipped":
        try:
            if doc.task_score is None or abs(float(reward) - doc.task_score) > 1e-9:
                return "invalid"
        except (TypeError, ValueError):
            return "invalid"
    if not seal_check(layout).ok:
        return "tampered"
    if doc.details.interrupted or any(r.error_kind in CUT_KINDS for r in doc.results):
        return "interrupted"
    unknown = doc.details.fingerprint is None and doc.exit_code is not None  # the fallback document of a failed run
    if expected_settings is not None and not unknown and fingerprint_digest(doc.details.fingerprint) != expected_settings:
        return "settings_changed"
    if doc.exit_code is not None and not keep_errors:
        return "error"
    return "complete"
