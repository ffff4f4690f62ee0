"""``cowork-judge init``: put the thin verifier into a Harbor task folder.

Writes ``tests/test.sh`` from the template and merges ``[verifier]`` / ``[verifier.env]``
(and, for a task whose verifier runs in a separate container, the ``artifacts`` it must
see) into ``task.toml``, keeping every other line and comment of the file. Nothing is
written when a planned change conflicts with what the task already says, unless forced.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from cowork_judge import __version__
from cowork_judge.fsutil import atomic_write
from cowork_judge.install import tomledit as te
from cowork_judge.install.template import template_text
from cowork_judge.run.config import JudgeConfig

DEFAULT_DEADLINE_SEC = int(JudgeConfig.model_fields["deadline_sec"].default)
"""JUDGE_DEADLINE's default (SPEC §13), from the configuration."""
INSTALL_BUDGET_SEC = 300
"""COWORK_INSTALL_TIMEOUT's default in the template: the most pip may take."""
MARGIN_SEC = 180
"""Probe, fallback writing, Harbor's upload/download and the template's 60 s guard."""

SEPARATE_ARTIFACTS: tuple[str, ...] = ("/app/output", "/logs/agent/trajectory.json")
"""What a verifier in its own container must see (SPEC §1): the deliverables and the trajectory."""

MANAGED_ENV = ("COWORK_JUDGE_VERSION", "COWORK_JUDGE_VERSION_SOURCE")
"""Env keys whose differing value is a conflict; other existing keys are the task's choice."""


class InitError(Exception):
    """The task folder cannot be initialised (the message says why and what to do)."""


@dataclass
class Plan:
    """What `plan_init` would do.

    Attributes:
        task_dir: the task folder.
        files: path → new text for every file that changes.
        old: path → current text ("" for a new file).
        actions: one human line per change or decision.
        conflicts: one line per change refused without ``force``.
    """

    task_dir: Path
    files: dict[Path, str] = field(default_factory=dict)
    old: dict[Path, str] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    def diff(self) -> str:
        """Unified diff of every changed file, paths relative to the task folder."""
        out = []
        for path, new in self.files.items():
            rel = path.relative_to(self.task_dir).as_posix()
            out.extend(difflib.unified_diff(self.old[path].splitlines(True), new.splitlines(True),
                                            f"a/{rel}", f"b/{rel}"))
        return "".join(out)


def required_timeout_sec(deadline_sec: float = DEFAULT_DEADLINE_SEC) -> int:
    """``[verifier].timeout_sec`` that leaves room for the install, the judge and the fallback."""
    return int(deadline_sec + INSTALL_BUDGET_SEC + MARGIN_SEC)


def env_block(extras: str = "", version: str = __version__) -> list[tuple[str, str]]:
    """The ``[verifier.env]`` entries init writes, in order (values are Harbor templates)."""
    return [
        ("JUDGE_API_KEY", "${JUDGE_API_KEY}"),
        ("JUDGE_BASE_URL", "${JUDGE_BASE_URL}"),
        ("JUDGE_MODEL", "${JUDGE_MODEL:-gpt-5.5}"),
        ("JUDGE_CONCURRENCY", "${JUDGE_CONCURRENCY:-2}"),
        ("JUDGE_DEADLINE", f"${{JUDGE_DEADLINE:-{DEFAULT_DEADLINE_SEC}}}"),
        ("JUDGE_START_JITTER", "${JUDGE_START_JITTER:-180}"),
        ("JUDGE_SKIP", "${JUDGE_SKIP:-0}"),
        ("COWORK_JUDGE_VERSION", f"${{COWORK_JUDGE_VERSION:-{version}}}"),
        ("COWORK_JUDGE_VERSION_SOURCE", "${COWORK_JUDGE_VERSION_SOURCE:-placeholder}"),
        ("COWORK_JUDGE_EXTRAS", f"${{COWORK_JUDGE_EXTRAS:-{extras}}}"),
        ("COWORK_WHEEL_URL", "${COWORK_WHEEL_URL:-}"),
    ]


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


def plan_init(task_dir: Path, *, force: bool = False, extras: str = "") -> Plan:
    """Work out the changes for `task_dir` without writing anything.

    Raises:
        InitError: no task.toml, unreadable or invalid TOML, or a shape of task.toml the
            line edits cannot merge into (an inline ``env = {…}`` table, for instance).
    """
    task_dir = task_dir.absolute()
    toml_path, test_path = task_dir / "task.toml", task_dir / "tests" / "test.sh"
    if not task_dir.is_dir():
        raise InitError(f"{task_dir}: no such folder")
    if not toml_path.is_file():
        raise InitError(f"{toml_path} not found: is {task_dir} a Harbor task folder? (`harbor init` creates one)")
    plan = Plan(task_dir)
    _plan_test_sh(plan, test_path, force)
    old = _read(toml_path)
    config = _parse(old, toml_path)
    new, expected = _merge(plan, old, config, force=force, extras=extras)
    if new != old:
        if _parse(new, toml_path) != expected:  # the edit must change exactly what was planned
            raise InitError(f"internal error: merging into {toml_path} would change more than planned; nothing written")
        plan.files[toml_path], plan.old[toml_path] = new, old
    else:
        plan.actions.append("task.toml: already up to date")
    return plan


def _plan_test_sh(plan: Plan, path: Path, force: bool) -> None:
    text = template_text()
    old = _read(path)
    if old == text:
        plan.actions.append("tests/test.sh: already the template of this version")
        return
    if old and not force:
        plan.conflicts.append("tests/test.sh exists and differs from the template (--force replaces it)")
    plan.files[path], plan.old[path] = text, old
    plan.actions.append(f"tests/test.sh: {'replaced by' if old else 'written from'} the cowork-judge {__version__} template")


def _merge(plan: Plan, text: str, config: dict[str, Any], *, force: bool, extras: str) -> tuple[str, dict[str, Any]]:
    """Return (new text, the parsed document it must equal)."""
    expected: dict[str, Any] = _copy(config)
    verifier = expected.setdefault("verifier", {})
    env = verifier.setdefault("env", {})
    lines = te.scan(text)
    raw = text.split("\n")

    def replace_line(index: int, value: str) -> None:
        raw[index] = te.replace_value(raw[index], value)

    inserts: list[tuple[int, list[str]]] = []  # (before line index, new lines)

    # [verifier].timeout_sec
    need = required_timeout_sec()
    have = verifier.get("timeout_sec")
    v_header = te.find_header(lines, "verifier")
    if v_header is None and any(not isinstance(v, dict) or te.find_header(lines, f"verifier.{k}") is None
                                for k, v in config.get("verifier", {}).items()):
        raise InitError("task.toml defines verifier without a [verifier] table header (dotted keys or an inline table); "
                        "rewrite it as a [verifier] table and run init again")
    timeout_line = f"timeout_sec = {need}.0  # JUDGE_DEADLINE {DEFAULT_DEADLINE_SEC} + install {INSTALL_BUDGET_SEC} + {MARGIN_SEC} s margin"
    v_new: list[str] = []
    if have is None:
        v_new.append(timeout_line)
        verifier["timeout_sec"] = float(need)
        plan.actions.append(f"task.toml: [verifier] timeout_sec = {need} added")
    elif not isinstance(have, (int, float)) or have < need:
        if force:
            replace_line(te.find_key(lines, "verifier", "timeout_sec"), f"{need}.0")  # type: ignore[arg-type]
            verifier["timeout_sec"] = float(need)
            plan.actions.append(f"task.toml: [verifier] timeout_sec {have} → {need}")
        else:
            plan.conflicts.append(f"[verifier] timeout_sec = {have} is below {need} s (JUDGE_DEADLINE + install + margin; --force raises it)")
    else:
        plan.actions.append(f"task.toml: [verifier] timeout_sec = {have} kept (≥ {need})")

    # [verifier.env]
    e_header = te.find_header(lines, "verifier.env")
    if config.get("verifier", {}).get("env") is not None and e_header is None:
        raise InitError("task.toml defines verifier.env without a [verifier.env] table header (an inline table or dotted keys); "
                        "rewrite it as a [verifier.env] table and run init again")
    e_new: list[str] = []
    for key, value in env_block(extras):
        if key not in env:
            e_new.append(f"{key} = {te.basic_string(value)}")
            env[key] = value
        elif env[key] != value and key in MANAGED_ENV:
            if force:
                replace_line(te.find_key(lines, "verifier.env", key), te.basic_string(value))  # type: ignore[arg-type]
                plan.actions.append(f"task.toml: [verifier.env] {key} {env[key]!r} → {value!r}")
                env[key] = value
            else:
                plan.conflicts.append(f"[verifier.env] {key} = {env[key]!r}, init would write {value!r} (--force replaces it)")
        elif env[key] != value:
            plan.actions.append(f"task.toml: [verifier.env] {key} = {env[key]!r} kept (the task's choice)")
    if e_new:
        plan.actions.append(f"task.toml: [verifier.env] {', '.join(k.split(' ')[0] for k in e_new)} added")

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
    else:
        plan.actions.append("task.toml: the verifier shares the agent's container: no artifacts needed")

    if not inserts and raw == text.split("\n"):
        return text, expected
    for index, new_lines in sorted(inserts, key=lambda item: item[0], reverse=True):
        raw[index:index] = new_lines
    new = "\n".join(raw)
    return (new if new.endswith("\n") else new + "\n"), expected


def _plan_artifacts(plan: Plan, lines: list[te.Line], raw: list[str], config: dict[str, Any], expected: dict[str, Any],
                    inserts: list[tuple[int, list[str]]]) -> None:
    current = config.get("artifacts", [])
    declared = {a if isinstance(a, str) else a.get("source") for a in current}
    missing = [p for p in SEPARATE_ARTIFACTS if p not in declared and p.rstrip("/") not in declared]
    if not missing:
        plan.actions.append("task.toml: artifacts already declare /app/output and the trajectory")
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
            raise InitError("task.toml sets artifacts in a form init cannot edit; add /app/output and "
                            "/logs/agent/trajectory.json to it by hand")
        row, col = te.array_close(lines, key_index)
        body = [te.strip_comment(line) for line in raw[key_index:row]] + [raw[row][:col]]
        body[0] = body[0].split("=", 1)[1]
        last = "".join(body).rstrip()[-1:]
        items = ", ".join(te.basic_string(p) for p in missing)
        lead = "" if last in ",[" else ", "
        if raw[row][:col].strip() == "":  # the ] sits alone on its line: the items go on a line of their own
            raw[row] = f"  {lead}{items},\n{raw[row]}"  # one list element, so later line indexes hold
        else:
            raw[row] = raw[row][:col].rstrip() + (lead or " ") + items + raw[row][col:]
        expected_list.extend(missing)
    else:  # no artifacts yet: a root key goes before the first table
        at = te.first_header(lines)
        inserts.append((at, [f"artifacts = [{', '.join(te.basic_string(p) for p in missing)}]", ""]))
        expected_list.extend(missing)
    expected["artifacts"] = expected_list


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def apply(plan: Plan) -> None:
    """Write the planned files (task.toml atomically; test.sh executable).

    Raises:
        InitError: a file cannot be written.
    """
    for path, text in plan.files.items():
        try:
            atomic_write(path, text, mode=0o755 if path.name == "test.sh" else 0o644)
        except OSError as exc:
            raise InitError(f"cannot write {path}: {exc}") from None
