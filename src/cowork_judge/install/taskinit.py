"""``cowork-judge init``: put the thin verifier into a Harbor task folder.

Writes ``tests/test.sh`` from the template and merges ``[verifier]`` / ``[verifier.env]``
(and, for a task whose verifier runs in a separate container, the ``artifacts`` it must
see) into ``task.toml``, keeping every other line and comment of the file. Nothing is
written when a planned change conflicts with what the task already says, unless forced.

What ``harbor init`` wrote is not a conflict (`harbor_stubs`): its placeholder
``tests/test.sh`` is replaced, its empty ``tests/test_outputs.py`` removed, its
``tests/Dockerfile`` replaced by a verifier image with Python (and LibreOffice and fonts for
decks; the judge itself with ``image=True``: `verifier_image`), and its default
``timeout_sec = 600.0`` raised. The extras default to what the rubric's rows need (`extras`).
"""

from __future__ import annotations

import difflib
import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from cowork_judge import __version__
from cowork_judge._util.fsutil import atomic_write
from cowork_judge._util.given_paths import absolute, in_task_folder, near_file, not_a_folder, shown_task, task_part
from cowork_judge.install import extras as extras_mod
from cowork_judge.install import harbor_stubs, verifier_image
from cowork_judge.install import tomledit as te
from cowork_judge.install.template import template_text
from cowork_judge.config.judge_config import FLEET_START_JITTER_SEC, FLEET_WORKFLOW_START_JITTER_SEC, JudgeConfig, settings, unknown_env_problem
from cowork_judge.core.hosts import placeholder_host
from cowork_judge.core.layout import MESSAGE_NAMES

DEFAULT_DEADLINE_SEC = int(JudgeConfig.model_fields["deadline_sec"].default)
"""JUDGE_DEADLINE's default (SPEC §13), from the configuration."""
INSTALL_BUDGET_SEC = 300
"""COWORK_INSTALL_TIMEOUT's default in the template: the most pip may take."""
MARGIN_SEC = 180
"""Probe, fallback writing, Harbor's upload/download and the template's 60 s guard."""

SEPARATE_ARTIFACTS: tuple[str, ...] = ("/app/output",)
"""What a verifier in its own container must see besides the agent's logs (SPEC §1): the deliverables."""

AGENT_COPY_DIR = "/logs/artifacts/cowork-judge-agent"
"""Where the collect hook copies the agent's final-message files for a separate verifier.

Harbor 0.26 never restores ``/logs/agent`` into a separate verifier, and declaring
``/logs/agent/trajectory.json`` as an artifact breaks its lint rule ``artifact-log-overlap``. It does
run ``[[verifier.collect]]`` hooks in the agent's container after the agent phase and always carries
the convention folder ``/logs/artifacts`` over: the hook copies the files there and ``tests/test.sh``
puts them back under ``/logs/agent`` when that folder has none (the template's ``restore_agent_logs``)."""

AGENT_FILES = MESSAGE_NAMES
"""The agent's files the judge reads its final message from (`core.layout.MESSAGE_NAMES`, `cowork_judge.run.answer`)."""

_COPY_AGENT_FILES = (f"mkdir -p {AGENT_COPY_DIR} && for f in {' '.join(AGENT_FILES)}; do "
                     f"if [ -f /logs/agent/$f ] && [ ! -L /logs/agent/$f ]; then cp /logs/agent/$f {AGENT_COPY_DIR}/$f; fi; "
                     "done; true")
_MAKE_OUTPUT = " ".join(f"[ -e {p} ] || [ -L {p} ] || mkdir -p {p};" for p in SEPARATE_ARTIFACTS)
COLLECT_COMMAND = f"{_MAKE_OUTPUT} {_COPY_AGENT_FILES}"
"""The ``[[verifier.collect]]`` command `init` writes for a separate verifier: it creates the
deliverables folder when the agent made none (Harbor records an artifact path that does not exist
as ``failed``, and ``harbor jobs regrade`` refuses such a trial: a chat task's, or a deck task's
that delivered nothing; trial 11), then copies the agent's final-message files (regular files
only, never a link)."""
OLD_COLLECT_COMMANDS = (_COPY_AGENT_FILES,)
"""Collect commands an earlier init wrote: `init` replaces them by `COLLECT_COMMAND`, and `try`
reads them as the judge's own."""

MANAGED_ENV = ("COWORK_JUDGE_VERSION", "COWORK_JUDGE_VERSION_SOURCE")
"""Env keys whose differing value is a conflict; other existing keys are the task's choice."""


STALE_ENV = {"JUDGE_GATEWAY_AUTH": "${JUDGE_GATEWAY_AUTH:-off}"}
"""Values an older init wrote that init replaces (the task's own other values are kept)."""
STALE_WHY = {"JUDGE_GATEWAY_AUTH": "Harbor scrubs an AUTH-named key's value from the trial folder: 'off' corrupted the "
                                   "agent's trajectory"}


class InitError(Exception):
    """The task folder cannot be initialised (the message says why and what to do)."""


def _noop(plan: Plan, line: str) -> None:
    """Add a line of `plan` that changes nothing (`Plan.noops`)."""
    plan.actions.append(line)
    plan.noops.add(line)


UNREAD = "<unread>"
"""`Plan.rubric_extras` of a ``tests/rubric.json`` init cannot read (`extras.RubricUnreadable`)."""


@dataclass
class Plan:
    """What `plan_init` would do.

    Attributes:
        task_dir: the task folder.
        files: path → new text for every file that changes.
        old: path → current text ("" for a new file).
        actions: one human line per change or decision (in order; the no-ops among them also in `noops`).
        noops: the lines of `actions` that change nothing ("already up to date", "… kept"): `init` prints
            them as they are, never as something it "would do".
        conflicts: one line per change refused without ``force``.
        removals: files to delete (Harbor's own stubs that the judge replaces).
        extras: the ``COWORK_JUDGE_EXTRAS`` default written (or kept).
    """

    task_dir: Path
    files: dict[Path, str] = field(default_factory=dict)
    old: dict[Path, str] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    noops: set[str] = field(default_factory=set)
    conflicts: list[str] = field(default_factory=list)
    removals: list[Path] = field(default_factory=list)
    extras: str = ""
    rubric_extras: str | None = None
    """The extras ``tests/rubric.json``'s rows need (``"workflow"``, "" for none; None: no rubric or no rows yet;
    `UNREAD`: it cannot be read), what a plain `cowork-judge init <task>` writes when the task's extras lack one."""
    unlink_folders: list[Path] = field(default_factory=list)
    """Folders of the task that are symbolic links, to be replaced by a copy of their target before
    anything is written (``--force``; `linked_folders`)."""

    def diff(self) -> str:
        """Unified diff of every changed file, paths relative to the task folder.

        A removed file that is not UTF-8 text (Harbor's ``tests/__pycache__/*.pyc``) or cannot be
        read is one line (``binary file a/<path>: removed``), never decoded as text (trial 17 P-12).
        """
        out: list[str] = []
        for path, new in self.files.items():
            rel = path.relative_to(self.task_dir).as_posix()
            out.extend(difflib.unified_diff(self.old[path].splitlines(True), new.splitlines(True),
                                            f"a/{rel}", f"b/{rel}"))
        for path in self.removals:
            rel = path.relative_to(self.task_dir).as_posix()
            text = _text_or_none(path)
            if text is None:
                out.append(f"binary file a/{rel}: removed\n")
            else:
                out.extend(difflib.unified_diff(text.splitlines(True), [], f"a/{rel}", "/dev/null"))
        return "".join(out)


def _text_or_none(path: Path) -> str | None:
    """`path`'s UTF-8 text ("" when it is gone), or None when it is binary (a NUL byte, not UTF-8) or unreadable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def required_timeout_sec(deadline_sec: float = DEFAULT_DEADLINE_SEC) -> int:
    """``[verifier].timeout_sec`` (whole seconds, rounded up) that leaves room for the install, the judge
    and the fallback after a JUDGE_DEADLINE of `deadline_sec` seconds: the one bound `init` writes and
    lint's T004 checks (`declared_deadline_sec` gives the deadline a task declares)."""
    return math.ceil(deadline_sec + INSTALL_BUDGET_SEC + MARGIN_SEC)


ENV_TEMPLATE_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?\}\Z", re.DOTALL)
"""A whole-value Harbor template: ``${VAR}`` (group 2 None) or ``${VAR:-default}``."""


def declared_deadline_sec(env: Mapping[str, object]) -> tuple[float, str]:
    """The JUDGE_DEADLINE a task declares: what the verifier uses when the host leaves it unset.

    Args:
        env: ``[verifier.env]`` as written (name → a literal or a whole-value template such as
            ``${JUDGE_DEADLINE:-4900}``); a task without the key gets init's default.

    Returns:
        (seconds, how it was found: ``"JUDGE_DEADLINE = 4900 s"``, or "the built-in default 1800 s …"
        with the reason). The value is read with the judge's own parser: a value the judge refuses (not
        a plain positive number of seconds, not a string) is the built-in default, as the judge uses it.
    """
    default = float(DEFAULT_DEADLINE_SEC)
    raw = env.get("JUDGE_DEADLINE")
    if raw is None:
        return default, f"the built-in default {default:g} s"
    if not isinstance(raw, str):
        return default, f"the built-in default {default:g} s (its value {raw!r:.40} is not a string)"
    template = ENV_TEMPLATE_RE.match(raw)
    effective = raw if template is None else template.group(2)
    if effective is None or not effective.strip():
        return default, f"the built-in default {default:g} s when the host does not set it"
    parse = settings(JudgeConfig)["deadline_sec"][1].parse
    try:
        number = parse(effective) if parse is not None else default
    except ValueError:
        return default, f"the built-in default {default:g} s (its value {effective!r:.40} is invalid)"
    return number, f"JUDGE_DEADLINE = {number:g} s"


def env_block(extras: str = "", version: str = __version__) -> list[tuple[str, str]]:
    """The ``[verifier.env]`` entries init writes, in order (values are Harbor templates)."""
    return [
        ("JUDGE_API_KEY", "${JUDGE_API_KEY}"),
        ("JUDGE_BASE_URL", "${JUDGE_BASE_URL}"),
        # a hosted gateway that injects the key (config/judge_config.py); empty = off. Never a default value: Harbor scrubs the value
        # of every AUTH-named [verifier.env] key from the whole trial folder, and "off" turned "offer" into "[REDACTED]er"
        # in the agent's trajectory (a regrade then judged another text)
        ("JUDGE_GATEWAY_AUTH", "${JUDGE_GATEWAY_AUTH:-}"),
        ("JUDGE_MODEL", "${JUDGE_MODEL:-gpt-5.5}"),
        ("JUDGE_CONCURRENCY", "${JUDGE_CONCURRENCY:-2}"),
        ("JUDGE_DEADLINE", f"${{JUDGE_DEADLINE:-{DEFAULT_DEADLINE_SEC}}}"),
        ("JUDGE_START_JITTER", f"${{JUDGE_START_JITTER:-{FLEET_START_JITTER_SEC}}}"),
        ("JUDGE_WORKFLOW_START_JITTER", f"${{JUDGE_WORKFLOW_START_JITTER:-{FLEET_WORKFLOW_START_JITTER_SEC}}}"),
        ("JUDGE_SKIP", "${JUDGE_SKIP:-0}"),
        ("JUDGE_VERDICT_CACHE", "${JUDGE_VERDICT_CACHE:-off}"),  # a regrade's cache: a folder that outlives trials
        ("COWORK_JUDGE_VERSION", f"${{COWORK_JUDGE_VERSION:-{version}}}"),
        ("COWORK_JUDGE_VERSION_SOURCE", "${COWORK_JUDGE_VERSION_SOURCE:-placeholder}"),
        ("COWORK_JUDGE_EXTRAS", f"${{COWORK_JUDGE_EXTRAS:-{extras}}}"),
        ("COWORK_WHEEL_URL", "${COWORK_WHEEL_URL:-}"),
    ]


ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A variable name `--env` accepts (what a shell and Harbor's ``${VAR}`` template take)."""


PROCESS_CRITICAL: dict[str, str] = {
    "PATH": "the verifier's shell finds python, uv, curl and soffice through it",
    "HOME": "pip, uv and LibreOffice keep their caches and profile under it",
    "PYTHONPATH": "it changes which modules the judge's Python imports",
    "PYTHONHOME": "it moves the Python standard library the judge runs on",
    "PYTHONSTARTUP": "it runs a script in every interactive Python",
    "LD_PRELOAD": "it loads a library into every process of the verifier",
    "LD_LIBRARY_PATH": "it changes which shared libraries every process of the verifier loads",
    "BASH_ENV": "it runs a script before test.sh",
    "ENV": "it runs a script in every sh of the verifier",
    "IFS": "it changes how the verifier's shell splits words",
    "SHELL": "the processes the verifier starts pick their shell from it",
    "TMPDIR": "the judge's scratch folders and LibreOffice's are made under it",
    "VIRTUAL_ENV": "it changes which Python environment test.sh installs into",
}
"""Variables the verifier's processes depend on, each with why (trial 13 L6): ``--env NAME`` makes Harbor set
NAME in the verifier to the *host's* value (or "" when the host has none), which is not the verifier
container's own: ``--env PATH`` left test.sh without python. `passthrough_entries` refuses them, and any
``LD_*`` / ``DYLD_*`` name, unless ``--force``."""


def process_critical_reason(name: str) -> str | None:
    """Why passing the host's `name` to the verifier would break it (`PROCESS_CRITICAL`), or None."""
    if name in PROCESS_CRITICAL:
        return PROCESS_CRITICAL[name]
    if name.startswith(("LD_", "DYLD_")):
        return "the dynamic loader reads it in every process of the verifier"
    return None


def passthrough_entries(names: Sequence[str], *, force: bool = False) -> list[tuple[str, str]]:
    """``[verifier.env]`` entries that pass host variables through unchanged: ``NAME = "${NAME:-}"``.

    Unset on the host, the value is "" and the judge reads an empty value as unset (its
    default), so a pass-through line never changes a trial whose host does not set NAME.
    For the knobs init does not write itself: JUDGE_GUARD, JUDGE_SAMPLES, JUDGE_PANEL,
    JUDGE_PRICES, a panel judge's key variable (docs/guard.md, docs/sampling.md).

    Raises:
        InitError: a name that is not a variable name; a ``JUDGE_*`` name the judge does not read
            (a typo such as JUDGE_SAMPLS, with a did-you-mean) or a variable the verifier's processes
            depend on (`process_critical_reason`: PATH, HOME, LD_PRELOAD…) unless `force`.
    """
    out: list[tuple[str, str]] = []
    for name in names:
        if not ENV_NAME_RE.fullmatch(name):
            raise InitError(f"--env {name!r}: not a variable name (letters, digits and _, not starting with a digit)")
        problem = None if force else unknown_env_problem(name)
        if problem:  # trial finding 11: a typo passed through is never read
            raise InitError(f"--env {name} {problem}, so passing it changes nothing; fix the name, or use --force "
                            "to pass it anyway (a panel judge's key variable may have any name)")
        critical = None if force else process_critical_reason(name)
        if critical:
            raise InitError(f"--env {name}: the verifier's processes depend on {name} ({critical}); passed through, "
                            f"it is set to the host's value, or to \"\" on a host without it, in place of the verifier "
                            "container's own, which breaks the verifier; use --force to pass it anyway")
        if name not in {k for k, _ in out}:
            out.append((name, f"${{{name}:-}}"))
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InitError(f"cannot read {path}: {exc}") from None


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"{path} is not valid TOML ({exc}); fix it first") from None


def is_separate(config: dict[str, Any]) -> bool:
    """The task's verifier runs in its own container (Harbor 0.26 ``environment_mode``)."""
    verifier = config.get("verifier") or {}
    mode = verifier.get("environment_mode")
    return mode == "separate" or (mode is None and "environment" in verifier)


def plan_init(task_dir: Path, *, force: bool = False, extras: str | None = None, image: bool = False,
              env_names: Sequence[str] = (), index_url: str | None = None) -> Plan:
    """Work out the changes for `task_dir` without writing anything.

    Args:
        force: replace what a person wrote (a different test.sh or tests/Dockerfile, a too
            small timeout, another judge version).
        extras: ``COWORK_JUDGE_EXTRAS``'s default; None = what ``tests/rubric.json``'s rows
            need (`extras.for_rubric_file`), none when there is no rubric yet.
        image: write ``tests/Dockerfile`` with the judge baked in (separate verifier only).
        env_names: host variables to pass through (`passthrough_entries`), added to
            ``[verifier.env]`` after init's own block when the task does not set them already.
        index_url: the PEP 503 index a baked image installs the judge from (the default of its
            ``ARG COWORK_WHEEL_URL``); None = the one the existing image names, else task.toml's
            ``COWORK_WHEEL_URL`` default, else none (pip's configured index).

    A file to write that is a symbolic link is a conflict; with `force` the link is replaced by a
    file (its target is never written through) and an action line says so.

    The ``tests/Dockerfile`` of a separate verifier is written for the extras task.toml will
    declare (an explicit ``--extras`` that differs from the task's is a conflict, so the two
    never part).

    Raises:
        InitError: no task.toml, unreadable or invalid TOML, a ``tests/rubric.json`` that is not
            valid JSON, or whose rows the engine cannot find, while `extras` is None (the parse error or the
            engine's reason is named), a shape of task.toml the
            line edits cannot merge into (an inline ``env = {…}`` table, for instance),
            ``image`` on a task whose verifier shares the agent's container, or `index_url`
            without a baked image or not an ``http(s)://`` URL a Dockerfile can carry.
    """
    given, task_dir = task_dir, absolute(task_dir)  # `init .` / `init ..` name the folder, not `.` (trial 18 P-6)
    toml_path, test_path = task_dir / "task.toml", task_dir / "tests" / "test.sh"
    if not task_dir.is_dir():
        raise InitError(not_a_folder(given, task=True))  # as typed, with try's and lint's "did you mean" (trial 25 P-1)
    if not toml_path.is_file():
        if in_task_folder(task_dir):  # trial 6 F18 (tests/), trial 32 P-1 (solution/, environment/…), as `try` says it
            above = shown_task(task_dir, str(given))  # as typed, in try's wording (trial 43 P-1)
            raise InitError(f"{given} is a task's {task_part(task_dir) or task_dir.name}/ folder, not the task folder: did you mean {above}? "
                            f"(`cowork-judge init {above}`)")
        raise InitError(f"{toml_path} not found: is {task_dir} a Harbor task folder? (`harbor init` creates one)")
    plan = Plan(task_dir)
    _plan_test_sh(plan, test_path, force)
    old = _read(toml_path)
    config = _parse(old, toml_path)
    explicit = extras is not None
    extras = _choose_extras(plan, task_dir, extras)
    _plan_harbor_leftovers(plan, task_dir / "tests")
    if index_url is not None and not is_separate(config):
        raise InitError("--index-url names the index a baked verifier image installs the judge from: give --image too "
                        "(a separate verifier's image; with a shared verifier test.sh installs from COWORK_WHEEL_URL)")
    if image and not is_separate(config):
        raise InitError("--image writes the image of a separate verifier, but this task's verifier shares the agent's "
                        "container (set [verifier] environment_mode = \"separate\", or bake the judge into "
                        "environment/Dockerfile)")
    passthrough = passthrough_entries(env_names, force=force)
    before = len(plan.conflicts)
    new, expected = _merge(plan, old, config, force=force, extras=extras, passthrough=passthrough, explicit=explicit)
    toml_refused = len(plan.conflicts) > before  # a refused task.toml is not "already up to date" (trial 6 F2)
    # the image installs what task.toml will say: extras and image change together or not at all (issue 39 item 5)
    plan.extras = declared_extras(expected["verifier"]["env"].get("COWORK_JUDGE_EXTRAS", ""), fallback=extras)
    declared = ((config.get("verifier") or {}).get("env") or {}).get("COWORK_JUDGE_EXTRAS")
    if declared is not None and declared_extras(str(declared), fallback=extras) == plan.extras:
        plan.noops.update(a for a in plan.actions if a.startswith("extras: "))  # trial 4: the task already says so
    if is_separate(config):
        _plan_dockerfile(plan, task_dir / "tests" / "Dockerfile", plan.extras, image=image, force=force,
                         index_url=index_url, config=config)
    _plan_index_warning(plan, task_dir, config, expected, image=image)
    if new != old:
        if _parse(new, toml_path) != expected:  # the edit must change exactly what was planned
            raise InitError(f"internal error: merging into {toml_path} would change more than planned; nothing written")
        plan.files[toml_path], plan.old[toml_path] = new, old
    elif not toml_refused:
        _noop(plan, "task.toml: already up to date")
    _plan_links(plan, force=force)
    return plan


def _plan_index_warning(plan: Plan, task_dir: Path, config: dict[str, Any], expected: dict[str, Any], *,
                        image: bool) -> None:
    """Say once, when init adds ``COWORK_WHEEL_URL`` to ``[verifier.env]`` (trial 25 P-5), that a ``harbor run`` from
    this shell installs the judge from pip's configured index (`trial_index_warning`); a baked image is warned
    about by `_plan_dockerfile`."""
    if "COWORK_WHEEL_URL" in ((config.get("verifier") or {}).get("env") or {}):
        return
    env = {str(k): str(v) for k, v in expected["verifier"]["env"].items()}
    baked = image or verifier_image.is_baked(_read(task_dir / "tests" / "Dockerfile"))
    version = declared_default(env.get("COWORK_JUDGE_VERSION", ""), "COWORK_JUDGE_VERSION") or __version__
    line = trial_index_warning(env, os.environ, version, baked=baked, who="this shell")
    if line is not None:
        plan.actions.append(line)


def linked_folders(task_dir: Path, paths: Sequence[Path]) -> dict[Path, list[Path]]:
    """The folders inside `task_dir` (not it) on the way to `paths` that are symbolic links → the
    paths below each, in order: writing there would write into the folder the link points to."""
    found: dict[Path, list[Path]] = {}
    for path in paths:
        for folder in reversed(path.parents):
            if folder != task_dir and folder.is_relative_to(task_dir) and folder.is_symlink():
                found.setdefault(folder, []).append(path)
                break
    return found


def _plan_links(plan: Plan, *, force: bool) -> None:
    """A file init would write that is a symbolic link (a task.toml shared by many tasks, a test.sh linked to a
    stub elsewhere) is a conflict; with `force` it is replaced by a file, never written through, and said (trial 8 F6).
    So is a folder on the way that is a link (a ``tests/`` shared by many tasks): with `force` it is replaced by a
    copy of what it points to (`Plan.unlink_folders`), the target left alone."""
    for folder, below in linked_folders(plan.task_dir, [*plan.files, *plan.removals]).items():
        rel = folder.relative_to(plan.task_dir).as_posix()
        names = ", ".join(sorted({p.relative_to(plan.task_dir).as_posix() for p in below}))
        target = os.readlink(folder)
        if force:
            plan.unlink_folders.append(folder)
            plan.actions.append(f"{rel}/ was a symbolic link (to {target}): replaced by a copy of that folder before "
                                f"writing {names}, the target left alone")
        else:
            plan.conflicts.append(f"{rel}/ is a symbolic link (to {target}): init would write {names} into the folder "
                                  "it points to, which other tasks may share (--force replaces the link by a copy of "
                                  "that folder and leaves the target alone)")
    for path in plan.files:
        if not path.is_symlink():
            continue
        rel = path.relative_to(plan.task_dir).as_posix()
        try:
            target = os.readlink(path)
        except OSError:  # pragma: no cover - a link that vanished since is_symlink
            target = "?"
        if force:
            plan.actions.append(f"{rel} was a symbolic link (to {target}): replaced by a file, the target left alone")
        else:
            plan.conflicts.append(f"{rel} is a symbolic link (to {target}): init would replace it by a file and leave "
                                  "the target alone (--force does)")


def declared_extras(value: str, *, fallback: str = "") -> str:
    """The extras a ``COWORK_JUDGE_EXTRAS`` entry installs when the host leaves it unset: the default of a
    ``${COWORK_JUDGE_EXTRAS:-a,b}`` template, a literal as written; `fallback` for a template without a default."""
    if value == "${COWORK_JUDGE_EXTRAS}":
        return fallback
    value = declared_default(value, "COWORK_JUDGE_EXTRAS")
    return ",".join(e.strip() for e in value.split(",") if e.strip())


def rubric_too_high(task_dir: Path, *, tests_dir: Path | None = None, shown: tuple[str, str] | None = None) -> str:
    """The ``mv`` hint when the tests folder has no ``rubric.json`` but the task folder holds one (saved one folder
    too high, trial 18 P-3): ``"a rubric.json sits one folder too high: move it (`mv FROM TO`; Harbor copies only
    tests/ into the verifier)"``; "" otherwise. The one place init, try, lint (R001) and gen-ppt-rubrics detect and
    word it.

    `task_dir` is the task folder and `tests_dir` its tests folder (default ``task_dir/tests``), as paths to look
    at. `shown` is how the ``mv`` names the stray file and where it goes, ``(FROM, TO)``, in the words of the
    caller's output (lint: relative to the path the user typed); default ``task_dir/rubric.json`` and
    ``task_dir/tests/``, with `task_dir` as given."""
    tests_dir = task_dir / "tests" if tests_dir is None else tests_dir
    if not os.path.isfile(task_dir / "rubric.json") or os.path.lexists(tests_dir / "rubric.json"):
        return ""
    source, target = shown or (f"{task_dir}/rubric.json", f"{task_dir}/tests/")
    return f"a rubric.json sits one folder too high: move it (`mv {source} {target}`; Harbor copies only tests/ into the verifier)"


def rubric_misnamed(tests_dir: Path, shown: str | None = None) -> str:
    """The rename hint when ``tests/rubric.json`` is missing but a file spelled alike sits beside it
    (`near_file`: ``rubrics.json``, trial 41 P-5): ``"t/tests/rubrics.json sits beside it, spelled alike: did you
    mean to name it rubric.json? (`mv t/tests/rubrics.json t/tests/rubric.json`)"``; "" otherwise. `shown` names
    the missing file as the caller's output does (default ``tests_dir/rubric.json`` as given). Init, try and lint
    (R001) word it here."""
    if os.path.lexists(tests_dir / "rubric.json") or (near := near_file(tests_dir, ("rubric.json",))) is None:
        return ""
    target = shown if shown is not None else str(tests_dir / "rubric.json")
    source = os.path.join(os.path.dirname(target), near[0].name)
    return f"{source} sits beside it, spelled alike: did you mean to name it rubric.json? (`mv {source} {target}`)"


def _no_rubric_yet(task_dir: Path) -> str:
    """Why init found no rubric to choose the extras from: none yet, or one saved one folder too high, in the
    task folder instead of ``tests/`` (`rubric_too_high`), with the ``mv`` that puts it where Harbor copies it."""
    hint = rubric_too_high(task_dir)
    if hint:
        return f"tests/rubric.json is missing, but {hint} and run init again"
    if hint := rubric_misnamed(task_dir / "tests"):
        return f"tests/rubric.json is missing, but {hint}; then run init again"
    return "no readable tests/rubric.json yet; run init again after writing the rubric"


def _choose_extras(plan: Plan, task_dir: Path, given: str | None) -> str:
    if given is not None and (problem := extras_mod.unknown_problem(given.split(","))):
        raise InitError(f"--extras {given!r}: {problem}; nothing written")
    rubric = task_dir / "tests" / "rubric.json"
    empty = False
    try:
        found = extras_mod.for_rubric_file(rubric)
    except extras_mod.RubricWithoutRows:
        found, empty = None, True
    except extras_mod.RubricUnreadable as exc:
        if given is None:
            raise InitError(f"tests/rubric.json {exc}; init chooses COWORK_JUDGE_EXTRAS from its rows: fix it "
                            "(`lint-rubric <task>/tests` names every problem) and run init again, or give --extras") from None
        plan.actions.append(f"warning: tests/rubric.json {exc}; --extras {given!r} is written unchecked "
                            f"(lint-rubric reports {exc.lint_code})")
        found, plan.rubric_extras = None, UNREAD
    if found is not None:
        plan.rubric_extras = ",".join(found[0])
    if given is not None:
        chosen = given
        if found is not None:
            lacking = extras_mod.missing(extras_mod.minimal(given.split(",")), extras_mod.unjudged_without(found[1]))
            for extra, why in lacking.items():
                effect = ("the deck would not be rendered: those rows would be judged without its pages"
                          if all("agentic row" in w for w in why) else "those rows would be unjudged")
                plan.actions.append(f"warning: --extras {given!r} lacks {extra!r}, which {', '.join(why)} needs "
                                    f"({effect}; lint-rubric reports M012)")
    elif found is None:
        chosen = ""
        reason = "tests/rubric.json has no rows yet; run init again after writing them" if empty else _no_rubric_yet(task_dir)
        plan.actions.append(f"extras: none ({reason})")
    else:
        chosen = ",".join(found[0])
        needs = "; ".join(f"{e} for {', '.join(r)}" for e, r in found[1].items())
        plan.actions.append(f"extras: {chosen or 'none'} (from tests/rubric.json{': ' + needs if needs else ''})")
    plan.extras = chosen
    return chosen


def _plan_harbor_leftovers(plan: Plan, tests: Path) -> None:
    """Harbor's empty pytest stub (and its bytecode) goes: the judge's test.sh never runs it."""
    stub = tests / "test_outputs.py"
    if stub.is_file() and harbor_stubs.is_harbor_stub("test_outputs.py", _read(stub)):
        plan.removals.append(stub)
        cache = tests / "__pycache__"
        compiled = sorted(cache.glob("test_outputs.*.pyc"))
        plan.removals.extend(compiled)
        plan.actions.append("tests/test_outputs.py: Harbor's empty pytest stub removed (the judge replaces it)")
        if compiled:  # trial 17 P-12: said, not silent
            names = ", ".join(p.name for p in compiled)
            emptied = cache.is_dir() and not cache.is_symlink() and set(cache.iterdir()) <= set(compiled)
            plan.actions.append(f"tests/__pycache__/{names}: the stub's bytecode removed"
                                + (" (and tests/__pycache__/, then empty)" if emptied else ""))


def _plan_dockerfile(plan: Plan, path: Path, extras: str, *, image: bool, force: bool, index_url: str | None,
                     config: dict[str, Any]) -> None:
    names = tuple(e for e in extras.split(",") if e)
    old = _read(path)
    ours = verifier_image.is_ours(old)
    bake = image or verifier_image.is_baked(old)  # an image init baked before stays baked
    if index_url is not None and not bake:
        raise InitError("--index-url names the index a baked verifier image installs the judge from: give --image too")
    if not old and not image:
        _noop(plan, "tests/Dockerfile: none; the separate verifier is built from environment/ (it needs python3)")
        return
    index = _image_index(old if ours else "", index_url, config) if bake else ""
    try:
        text = verifier_image.dockerfile(extras=names, version=__version__, bake=bake, index_url=index)
    except verifier_image.IndexUrlError as exc:
        raise InitError(f"--index-url {exc}") from None
    if old == text:
        _noop(plan, "tests/Dockerfile: already the verifier image of this version")
        return
    harbor = harbor_stubs.is_harbor_stub("Dockerfile", old)
    if old and not (ours or harbor):
        if not image:
            _noop(plan, "tests/Dockerfile: kept (the task's own verifier image; it needs python3 >= 3.10)")
            return
        if not force:
            plan.conflicts.append("tests/Dockerfile exists and is not Harbor's stub nor init's (--force replaces it)")
    plan.files[path], plan.old[path] = text, old
    tools = "python3" + (", LibreOffice, fonts and Chromium" if "workflow" in names else "")
    what = f"{tools}, the judge {__version__}{'[' + extras + ']' if extras else ''} baked in from " + \
        (index or "pip's configured index (ARG COWORK_WHEEL_URL empty)") if bake else tools
    origin = "Harbor's stub replaced by" if harbor else ("rewritten as" if ours else "written as")
    plan.actions.append(f"tests/Dockerfile: {origin} the verifier image ({what})")
    if ours and verifier_image.packages(names) != verifier_image.packages(_image_extras(old)):
        plan.actions.append(f"tests/Dockerfile: its packages follow COWORK_JUDGE_EXTRAS {extras!r}")
    if bake and not index:  # trial 15 P-7: the public registry's cowork-judge is the original 1.2–1.3
        plan.actions.append(unpublished_index_warning("the image installs", __version__, "the image build fails",
                                                      "give --index-url of the index that has it (docs/harbor-task.md, "
                                                      "step 4)"))
    if bake and "@" in index.split("//", 1)[-1].split("/", 1)[0]:
        plan.actions.append("warning: the index URL carries credentials, which tests/Dockerfile now holds in plain text "
                            "(prefer `docker build --build-arg COWORK_WHEEL_URL=…` or a netrc secret)")


PUBLIC_REGISTRY_VERSIONS = "1.2.0–1.3.6"
"""The versions of ``cowork-judge`` on the public registry (PyPI): the original system, not this project."""


def on_public_registry(version: str) -> bool:
    """Whether `version` may be the public registry's ``cowork-judge`` (a 1.x or 0.x: the original system's)."""
    return version.split(".", 1)[0] in ("0", "1")


def unpublished_index_warning(installs: str, version: str, fails: str, fix: str) -> str:
    """The one warning (trial 15 P-7, trial 25 P-5) for a judge `version` installed from pip's configured index:
    ``warning: <installs> cowork-judge==<version> from pip's configured index; the public registry's cowork-judge is
    the original system (1.2.0–1.3.6), so unless your pip index has <version> <fails>: <fix>``."""
    return (f"warning: {installs} cowork-judge=={version} from pip's configured index; the public registry's "
            f"cowork-judge is the original system ({PUBLIC_REGISTRY_VERSIONS}), so unless your pip index has {version} "
            f"{fails}: {fix}")


TRIAL_INDEX_FAILS = "every trial ends with the error reward (test.sh cannot install the judge)"
"""What `unpublished_index_warning` says a verifier-time install from pip's index leads to (thin init, ``try``)."""
TRIAL_INDEX_FIX = ("export COWORK_WHEEL_URL=<the index that has it> before `harbor run` (task.toml's [verifier.env] "
                   "passes it; docs/harbor-task.md, step 8), or bake the judge in with `init --image --index-url URL`")
"""How to leave the verifier-time install from pip's index (thin init, ``try``)."""


def trial_index_warning(templates: dict[str, str], environ: Mapping[str, str], version: str, *, baked: bool,
                        who: str) -> str | None:
    """`unpublished_index_warning` for a task whose ``test.sh`` installs the judge when the verifier starts (not
    `baked` into its image), when ``[verifier.env]`` (`templates`) resolves ``COWORK_WHEEL_URL`` to nothing from
    `environ` (a ``harbor run`` from that shell installs from pip's configured index) and `version` is not on the
    public registry (`on_public_registry`); else None. `who`: how the shell is named (``"this shell"``).

    When it resolves to a host reserved for examples (`core.hosts.placeholder_host`: step 8's
    ``https://pypi.example.com/simple/`` pasted as written; trial 42 P-2), the warning says so, whatever `version`:
    test.sh installs the judge only from that index."""
    if baked:
        return None
    template = templates.get("COWORK_WHEEL_URL", "")
    whole = re.fullmatch(r"\$\{([^}:]+)(?::-(.*))?\}", template)  # as Harbor resolves it (dryrun.resolve_verifier_env)
    url = template if whole is None else environ.get(whole.group(1), whole.group(2) or "")
    if (reserved := placeholder_host(url)) is not None:
        return (f"warning: a `harbor run` from {who} installs the judge from COWORK_WHEEL_URL, whose host {reserved} is "
                "reserved for examples (RFC 2606), as in the docs' step 8: a placeholder: every trial would end with "
                f"the error reward (test.sh cannot install the judge); set your index (the one that has cowork-judge=="
                f"{version}): export COWORK_WHEEL_URL=<your index> before `harbor run`")
    if url.strip() or on_public_registry(version):
        return None
    return unpublished_index_warning(f"a `harbor run` from {who} (COWORK_WHEEL_URL unset) installs", version,
                                     TRIAL_INDEX_FAILS, TRIAL_INDEX_FIX)


def _image_extras(text: str) -> tuple[str, ...]:
    """The extras an image of ours was written for, read from its packages (deck packages: ``workflow``)."""
    return ("workflow",) if all(p in text for p in verifier_image.DECK_PACKAGES) else ()


def _image_index(old: str, given: str | None, config: dict[str, Any]) -> str:
    """The index a baked image installs from: `given`, else the one init's image named before, else task.toml's
    ``COWORK_WHEEL_URL`` default (the index test.sh installs from), else "" (pip's configured index)."""
    if given is not None:
        return given
    before = verifier_image.index_url_of(old)
    if before is not None:
        return before
    value = (config.get("verifier") or {}).get("env", {}).get("COWORK_WHEEL_URL", "")
    url = declared_default(value if isinstance(value, str) else "", "COWORK_WHEEL_URL")
    try:
        return verifier_image.check_index_url(url)
    except verifier_image.IndexUrlError:
        return ""


def declared_default(value: str, name: str) -> str:
    """What an ``[verifier.env]`` entry resolves to when the host leaves `name` unset: a literal as written,
    the default of ``${NAME:-default}``, "" for ``${NAME}``."""
    prefix = "${" + name
    if value.startswith(prefix) and value.endswith("}"):
        rest = value[len(prefix):-1]
        return rest[2:] if rest.startswith(":-") else ""
    return value


def _plan_test_sh(plan: Plan, path: Path, force: bool) -> None:
    text = template_text()
    old = _read(path)
    if old == text:
        _noop(plan, "tests/test.sh: already the template of this version")
        return
    if old and harbor_stubs.is_harbor_stub("test.sh", old):
        plan.files[path], plan.old[path] = text, old
        plan.actions.append(f"tests/test.sh: Harbor's placeholder replaced by the cowork-judge {__version__} template")
        return
    if old and not force:
        plan.conflicts.append("tests/test.sh exists and differs from the template (--force replaces it)")
    plan.files[path], plan.old[path] = text, old
    plan.actions.append(f"tests/test.sh: {'replaced by' if old else 'written from'} the cowork-judge {__version__} template")


TIMEOUT_COMMENT_RE = re.compile(rf"#\s*JUDGE_DEADLINE (\d+(?:\.\d+)?) \+ install {INSTALL_BUDGET_SEC} \+ {MARGIN_SEC} s margin\Z")
"""The comment init writes after the ``timeout_sec`` it sizes (its mark, as the version placeholder is):
``# JUDGE_DEADLINE 1800 + install 300 + 180 s margin``."""


def timeout_comment(deadline_sec: float) -> str:
    """The comment init writes after the ``timeout_sec`` it sized for a JUDGE_DEADLINE of `deadline_sec` s."""
    return f"# JUDGE_DEADLINE {deadline_sec:g} + install {INSTALL_BUDGET_SEC} + {MARGIN_SEC} s margin"


def init_own_timeout(value: object, line: str = "") -> str | None:
    """Whether ``[verifier] timeout_sec = value`` (written on `line` of task.toml) is init's own or Harbor's,
    which init raises without ``--force`` when the task's JUDGE_DEADLINE needs more (trial 18 P-11).

    Returns:
        Why it is (``"Harbor's default"``; ``"init's own for JUDGE_DEADLINE 1800 s"``: the sum init writes
        for its default deadline, or a sum whose line carries init's comment for that deadline), or None
        for a task's own value (a conflict when too small).
    """
    if harbor_stubs.is_harbor_default_timeout(value):
        return "Harbor's default"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    mark = TIMEOUT_COMMENT_RE.search(te.strip_comment_text(line)) if line else None
    deadline = float(mark.group(1)) if mark else float(DEFAULT_DEADLINE_SEC)
    if float(value) == required_timeout_sec(deadline):
        return f"init's own for JUDGE_DEADLINE {deadline:g} s"
    return None


def _set_timeout(raw: list[str], lines: list[te.Line], need: int, deadline: float) -> None:
    """Write ``timeout_sec = need`` with init's comment (kept: an author's own comment on the line)."""
    _replace_value(raw, lines, "verifier", "timeout_sec", f"{need}.0")
    index = te.find_key(lines, "verifier", "timeout_sec")
    assert index is not None  # _replace_value found it
    comment = te.strip_comment_text(raw[index])
    if not comment or TIMEOUT_COMMENT_RE.search(comment):
        raw[index] = f"{te.strip_comment(raw[index]).rstrip()}  {timeout_comment(deadline)}"


def _merge_timeout(plan: Plan, lines: list[te.Line], raw: list[str], verifier: dict[str, Any], *, force: bool) -> list[str]:
    """Bring ``[verifier] timeout_sec`` up to `required_timeout_sec` of the JUDGE_DEADLINE the task
    declares (`declared_deadline_sec`, the bound lint's T004 checks) in `raw` (the task.toml's
    lines, edited in place) and in `verifier` (the parsed table it must equal); Harbor's
    default and init's own earlier value (`init_own_timeout`) are raised, a task's own lower value
    only with `force` (else a conflict).

    Returns:
        The lines to add to the ``[verifier]`` table (the key, when the task has none).
    """
    env = verifier.get("env")
    deadline, source = declared_deadline_sec(env if isinstance(env, dict) else {})
    need = required_timeout_sec(deadline)  # the bound lint's T004 checks (trial 11 F7)
    have = verifier.get("timeout_sec")
    if not isinstance(env, dict) or "JUDGE_DEADLINE" not in env:  # init writes ${JUDGE_DEADLINE:-<default>}
        source = f"JUDGE_DEADLINE = {deadline:g} s"
    budget = f"{source} + install {INSTALL_BUDGET_SEC} + {MARGIN_SEC} s margin"
    if have is None:
        verifier["timeout_sec"] = float(need)
        plan.actions.append(f"task.toml: [verifier] timeout_sec = {need} added ({budget})")
        return [f"timeout_sec = {need}.0  {timeout_comment(deadline)}"]
    index = te.find_key(lines, "verifier", "timeout_sec")
    own = init_own_timeout(have, raw[index] if index is not None else "")
    numeric = isinstance(have, (int, float)) and not isinstance(have, bool)
    if numeric and have >= need:
        _noop(plan, f"task.toml: [verifier] timeout_sec = {have} kept (≥ {need}: {budget})")
    elif own is not None or force:
        _set_timeout(raw, lines, need, deadline)
        verifier["timeout_sec"] = float(need)
        plan.actions.append(f"task.toml: [verifier] timeout_sec {have}{f' ({own})' if own else ''} → {need} ({budget})")
    elif not numeric:  # trial 6 F2: not "abc is below 2280 s"
        plan.conflicts.append(f"[verifier] timeout_sec = {have!r} is not a number of seconds (Harbor refuses the "
                              f"task); --force sets it to {need}")
    else:
        plan.conflicts.append(f"[verifier] timeout_sec = {have} is below {need} s ({budget}; --force raises it)")
    return []


def _merge_env(plan: Plan, lines: list[te.Line], raw: list[str], env: dict[str, Any], *, force: bool, extras: str,
               passthrough: Sequence[tuple[str, str]], explicit: bool) -> list[str]:
    """Bring ``[verifier.env]`` to `env_block` (and the `passthrough` entries) in `raw` (edited
    in place) and in `env` (the parsed table it must equal): missing keys added, the extras
    raised when the rubric's rows need more (replaced with --extras only with `force`), a
    managed value the task changed replaced only with `force`, any other value kept.

    Returns:
        The lines to add to the ``[verifier.env]`` table.
    """
    e_new: list[str] = []
    block = env_block(extras)
    managed = {k for k, _ in block}
    for key, value in [*block, *((k, v) for k, v in passthrough if k not in managed)]:
        if key not in env:
            e_new.append(f"{key} = {te.basic_string(value)}")
            env[key] = value
        elif key == "COWORK_JUDGE_EXTRAS" and not explicit and env[key] != value and _extras_lacking(env[key], extras):
            _replace_value(raw, lines, "verifier.env", key, te.basic_string(value))
            plan.actions.append(f"task.toml: [verifier.env] {key} {env[key]!r} → {value!r} (the rubric's rows need it)")
            env[key] = value
        elif key == "COWORK_JUDGE_EXTRAS" and explicit and _extras_differ(env[key], extras):
            if force:
                _replace_value(raw, lines, "verifier.env", key, te.basic_string(value))
                plan.actions.append(f"task.toml: [verifier.env] {key} {env[key]!r} → {value!r} (--extras, --force)")
                env[key] = value
            else:
                plan.conflicts.append(f"[verifier.env] {key} = {env[key]!r}, but --extras asks for {extras!r}: the "
                                      f"extras and the verifier image change together (--force replaces both; "
                                      f"{_without_extras(env[key], plan.rubric_extras)})")
        elif key in STALE_ENV and env[key] == STALE_ENV[key]:
            _replace_value(raw, lines, "verifier.env", key, te.basic_string(value))
            plan.actions.append(f"task.toml: [verifier.env] {key} {env[key]!r} → {value!r} ({STALE_WHY[key]})")
            env[key] = value
        elif env[key] != value and key in MANAGED_ENV:
            if force:
                _replace_value(raw, lines, "verifier.env", key, te.basic_string(value))
                plan.actions.append(f"task.toml: [verifier.env] {key} {env[key]!r} → {value!r}")
                env[key] = value
            else:
                plan.conflicts.append(f"[verifier.env] {key} = {env[key]!r}, init would write {value!r} (--force replaces it)")
        elif env[key] != value:
            _noop(plan, f"task.toml: [verifier.env] {key} = {env[key]!r} kept (the task's choice)")
    if e_new:
        plan.actions.append(f"task.toml: [verifier.env] {', '.join(k.split(' ')[0] for k in e_new)} added (each "
                            "the host's variable of that name, else the default after ':-' in task.toml)")
    return e_new


def _replace_value(raw: list[str], lines: list[te.Line], table: str, key: str, value: str) -> None:
    """Set the value of `key` of `table` in `raw` (the task.toml's lines, scanned as `lines`).

    Raises:
        InitError: the key is parsed but not on a line of its own the scanner can read.
    """
    index = te.find_key(lines, table, key)
    if index is None:  # parsed, but not on a line of its own the scanner can read (e.g. a key with escapes)
        raise InitError(f"task.toml: cannot find the line of [{table}] {key} to change it (write it as a bare key "
                        f"`{key} = …` in a [{table}] table and run init again)")
    raw[index] = te.replace_value(raw[index], value)


def _merge(plan: Plan, text: str, config: dict[str, Any], *, force: bool, extras: str,
           passthrough: Sequence[tuple[str, str]] = (), explicit: bool = False) -> tuple[str, dict[str, Any]]:
    """Return (new text, the parsed document it must equal)."""
    expected: dict[str, Any] = _copy(config)
    verifier = expected.setdefault("verifier", {})
    env = verifier.setdefault("env", {})
    lines = te.scan(text)
    raw = text.split("\n")
    inserts: list[tuple[int, list[str]]] = []  # (before line index, new lines)

    v_header = te.find_header(lines, "verifier")
    if v_header is None and any(not isinstance(v, dict) or te.find_header(lines, f"verifier.{k}") is None
                                for k, v in config.get("verifier", {}).items()):
        raise InitError("task.toml defines verifier without a [verifier] table header (dotted keys or an inline table); "
                        "rewrite it as a [verifier] table and run init again")
    v_new = _merge_timeout(plan, lines, raw, verifier, force=force)
    e_header = te.find_header(lines, "verifier.env")
    if config.get("verifier", {}).get("env") is not None and e_header is None:
        raise InitError("task.toml defines verifier.env without a [verifier.env] table header (an inline table or dotted keys); "
                        "rewrite it as a [verifier.env] table and run init again")
    e_new = _merge_env(plan, lines, raw, env, force=force, extras=extras, passthrough=passthrough, explicit=explicit)

    env_table = ["", "[verifier.env]", *e_new] if e_header is None and e_new else []
    if v_header is None:
        inserts.append((len(raw), ["", "[verifier]", *v_new, *env_table]))
    elif v_new or env_table:
        inserts.append((te.section_end(lines, v_header), [*v_new, *env_table]))  # one insert: order kept
    if e_header is not None and e_new:
        inserts.append((te.section_end(lines, e_header), e_new))

    # artifacts for a separate verifier container
    if is_separate(config):
        _plan_artifacts(plan, lines, raw, config, expected, inserts)
        _plan_collect(plan, lines, raw, config, expected, inserts)
    else:
        _noop(plan, "task.toml: the verifier shares the agent's container: no artifacts needed")

    if not inserts and raw == text.split("\n"):
        return text, expected
    for index, new_lines in sorted(inserts, key=lambda item: item[0], reverse=True):
        raw[index:index] = new_lines
    new = "\n".join(raw)
    return (new if new.endswith("\n") else new + "\n"), expected


def _without_extras(declared: str, needed: str | None) -> str:
    """What a plain `cowork-judge init <task>` (no --extras) does to the task's extras `declared`, given the
    extras the rubric's rows need (`Plan.rubric_extras`; None: no rubric rows read): it raises them to `needed`
    when they lack one, else keeps them (`_merge_env`; trial 21 P-1: "keeps the task's" was said either way)."""
    if needed == UNREAD:
        return "without --extras init refuses until tests/rubric.json is fixed"
    if needed is None:
        return "without --extras init keeps the task's: there are no rubric rows to choose from yet"
    if _extras_lacking(declared, needed):
        return f"`cowork-judge init <task>` without --extras writes {needed!r}, what the rubric's rows need"
    return "without --extras init keeps the task's, which cover the rubric's rows"


def _extras_differ(declared: str, wanted: str) -> bool:
    """True when `declared` (a value or a template) installs another set of extras than `wanted`."""
    return extras_mod.minimal(declared_extras(declared, fallback=wanted).split(",")) != extras_mod.minimal(wanted.split(","))


def _extras_lacking(declared: str, needed: str) -> bool:
    """True when the extras in `declared` (a value or a ``${COWORK_JUDGE_EXTRAS:-…}`` template) miss one of `needed`."""
    prefix = "${COWORK_JUDGE_EXTRAS:-"
    value = declared[len(prefix):-1] if declared.startswith(prefix) and declared.endswith("}") else declared
    have = [e for e in value.split(",") if e.strip()]
    return any(not extras_mod.covers(have, e) for e in needed.split(",") if e)


def _plan_artifacts(plan: Plan, lines: list[te.Line], raw: list[str], config: dict[str, Any], expected: dict[str, Any],
                    inserts: list[tuple[int, list[str]]]) -> None:
    current = config.get("artifacts", [])
    declared = {a if isinstance(a, str) else a.get("source") for a in current}
    missing = [p for p in SEPARATE_ARTIFACTS if p not in declared and p.rstrip("/") not in declared]
    if not missing:
        _noop(plan, "task.toml: artifacts already declare /app/output")
        return
    plan.actions.append(f"task.toml: artifacts += {', '.join(missing)} (the verifier runs in a separate container)")
    expected_list = list(expected.get("artifacts", []))
    if any(isinstance(a, dict) for a in current):  # [[artifacts]] tables: append more at the end
        block: list[str] = []
        for p in missing:
            block += ["", "[[artifacts]]", f"source = {te.basic_string(p)}"]
            expected_list.append({"source": p})
        inserts.append((len(raw), block))
    elif "artifacts" in config:  # an inline array at the root: add before its closing bracket
        key_index = te.find_key(lines, "", "artifacts")
        if key_index is None:
            raise InitError("task.toml sets artifacts in a form init cannot edit; add /app/output "
                            "to it by hand")
        row, col = te.array_close(lines, key_index)
        body = [te.strip_comment(line) for line in raw[key_index:row]] + [raw[row][:col]]
        body[0] = body[0].split("=", 1)[1]
        last = "".join(body).rstrip()[-1:]
        items = ", ".join(te.basic_string(p) for p in missing)
        lead = "" if last in ",[" else ", "
        if raw[row][:col].strip() == "":  # the ] sits alone on its line: the items go on a line of their own
            raw[row] = f"  {lead}{items},\n{raw[row]}"  # one list element, so later line indexes hold
        else:
            gap = " " if last == "," else ""  # after "[" none: `artifacts = ["/app/output"]` (trial 21 note)
            raw[row] = raw[row][:col].rstrip() + (lead or gap) + items + raw[row][col:]
        expected_list.extend(missing)
    else:  # no artifacts yet: a root key goes before the first table
        at = te.first_header(lines)
        inserts.append((at, [f"artifacts = [{', '.join(te.basic_string(p) for p in missing)}]", ""]))
        expected_list.extend(missing)
    expected["artifacts"] = expected_list


def _plan_collect(plan: Plan, lines: list[te.Line], raw: list[str], config: dict[str, Any], expected: dict[str, Any],
                  inserts: list[tuple[int, list[str]]]) -> None:
    """Add the ``[[verifier.collect]]`` hook that carries the agent's final-message files to a separate
    verifier (`AGENT_COPY_DIR`), unless a hook already copies there; name a stale trajectory artifact."""
    declared = {a if isinstance(a, str) else a.get("source") for a in config.get("artifacts", [])}
    if "/logs/agent/trajectory.json" in declared:
        _noop(plan, "task.toml: artifacts still declare /logs/agent/trajectory.json (an older init): remove it by "
                            "hand, Harbor's lint rejects it (artifact-log-overlap) and the collect hook carries the trajectory")
    hooks = (config.get("verifier") or {}).get("collect") or []
    if any(isinstance(h, dict) and h.get("command") in OLD_COLLECT_COMMANDS for h in hooks):
        _update_collect(plan, raw, expected)
        return
    key_index = te.find_key(lines, "verifier", "collect")
    if any(isinstance(h, dict) and AGENT_COPY_DIR in str(h.get("command", "")) for h in hooks):
        form = "[verifier] collect = [...] already holds a hook that" if key_index is not None else "[[verifier.collect]] already"
        _noop(plan, f"task.toml: {form} copies the agent's logs to {AGENT_COPY_DIR}")  # the form written (trial 33 P-3)
        return
    where = ("[verifier] collect = [...] += { command = ... }" if key_index is not None
             else "[[verifier.collect]] table added")
    plan.actions.append(f"task.toml: {where}: a hook copying the agent's {', '.join(AGENT_FILES)} to {AGENT_COPY_DIR} "
                        "(Harbor never gives a separate verifier /logs/agent)")
    hook = f"{{ command = {te.basic_string(COLLECT_COMMAND)} }}"
    if key_index is not None:  # an inline array (`harbor init` writes `collect = []`): the hook goes inside it
        row, col = te.array_close(lines, key_index)
        body = [te.strip_comment(line) for line in raw[key_index:row]] + [raw[row][:col]]
        body[0] = body[0].split("=", 1)[1]
        last = "".join(body).rstrip()[-1:]
        lead = "" if last in ",[" else ", "
        if raw[row][:col].strip() == "":
            raw[row] = f"  {lead}{hook},\n{raw[row]}"
        else:
            raw[row] = raw[row][:col].rstrip() + lead + hook + raw[row][col:]
    elif "collect" in (config.get("verifier") or {}) and te.find_header(lines, "verifier") is None:
        raise InitError("task.toml sets verifier.collect in a form init cannot edit; add the hook by hand: "
                        f"[[verifier.collect]] command = {te.basic_string(COLLECT_COMMAND)}")
    else:  # none yet, or [[verifier.collect]] tables: one more table at the end
        inserts.append((len(raw), ["", "[[verifier.collect]]", f"command = {te.basic_string(COLLECT_COMMAND)}"]))
    expected.setdefault("verifier", {}).setdefault("collect", []).append({"command": COLLECT_COMMAND})


def _update_collect(plan: Plan, raw: list[str], expected: dict[str, Any]) -> None:
    """Replace an earlier init's collect command (`OLD_COLLECT_COMMANDS`, written as a TOML basic
    string on one line) by `COLLECT_COMMAND` in `raw`, and in `expected`; a form it cannot find is
    named for a hand edit."""
    quoted = {te.basic_string(c): te.basic_string(COLLECT_COMMAND) for c in OLD_COLLECT_COMMANDS}
    found = False
    for i, line in enumerate(raw):
        for old, new in quoted.items():
            if old in line:
                raw[i], found = line.replace(old, new), True
    if not found:
        _noop(plan, "task.toml: [[verifier.collect]] holds an earlier init's command in a form init cannot edit: replace "
                    f"it by hand with {te.basic_string(COLLECT_COMMAND)}")
        return
    for hook in expected.get("verifier", {}).get("collect", []):
        if isinstance(hook, dict) and hook.get("command") in OLD_COLLECT_COMMANDS:
            hook["command"] = COLLECT_COMMAND
    plan.actions.append(f"task.toml: [[verifier.collect]] command updated: it also creates {', '.join(SEPARATE_ARTIFACTS)} "
                        "when the agent made none, so Harbor records the artifact and `harbor jobs regrade` accepts "
                        "the trial")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _copy_in_place(folder: Path) -> None:
    """Replace the symbolic link `folder` by a copy of the folder it points to (links inside kept as
    links); its target is never written.

    Raises:
        InitError: the target cannot be copied or the link replaced (the link is then left as it was).
    """
    import shutil
    import tempfile

    target = os.readlink(folder)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        shutil.copytree(folder, staging / "copy", symlinks=True)
        folder.unlink()
        try:
            (staging / "copy").rename(folder)
        except OSError:
            os.symlink(target, folder)
            raise
    except OSError as exc:
        raise InitError(f"cannot replace the link {folder} by a copy of its folder: {exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def apply(plan: Plan) -> None:
    """Write the planned files (task.toml atomically; test.sh executable).

    Raises:
        InitError: a file cannot be written.
    """
    for folder in plan.unlink_folders:
        _copy_in_place(folder)
    for path in plan.removals:
        try:
            path.unlink(missing_ok=True)
            if path.parent.name == "__pycache__" and not any(path.parent.iterdir()):
                path.parent.rmdir()
        except OSError as exc:
            raise InitError(f"cannot remove {path}: {exc}") from None
    for path, text in plan.files.items():
        try:
            atomic_write(path, text, mode=0o755 if path.name == "test.sh" else 0o644)
        except OSError as exc:
            raise InitError(f"cannot write {path}: {exc}") from None
