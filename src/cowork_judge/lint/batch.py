"""``--batch``: many instances, grouped into families, with family-level consistency checks.

A family is a set of instances that should be packaged alike: the same judge version and
extras (F001/F002, ERROR: a batch would silently mix judges), the same code methods and
workflows (F003/F004, WARN: usually a stale copy, sometimes on purpose).

Input:
- a directory: every ``tests/`` folder holding a ``rubric.json`` below it is an instance;
  its family is the instance's parent folder relative to the batch root (``.`` when the
  instances sit directly in it). Hidden folders are skipped; instances are not nested.
- a JSONL file: one instance per line, either a path string or an object
  ``{"tests": PATH, "family": NAME}`` (also ``tests_dir``/``path``); relative paths are
  taken from the file's folder; a path to an instance folder means its ``tests/``;
  lines without ``family`` form the family ``"(all)"``.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.lint.codes import Finding
from cowork_judge.lint.instance import InstanceReport, kept_try
from cowork_judge.lint.reading import Unreadable, read_text

MAX_JSONL_BYTES = 256 * 1024 * 1024
"""Largest JSONL batch list read (bytes): a million lines of paths."""
DEFAULT_FAMILY = "(all)"


@dataclass(frozen=True)
class Entry:
    """One instance to lint: its tests dir, how it is shown, and its family."""

    tests_dir: Path
    display: str
    family: str


@dataclass
class FamilyReport:
    """Family-level findings, and the value most of the family agrees on per fact."""

    name: str
    instances: int
    findings: list[Finding] = field(default_factory=list)
    majority: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"family": self.name, "instances": self.instances, "majority": self.majority,
                "findings": [f.as_dict() for f in self.findings]}


def discover(source: Path) -> tuple[list[Entry], list[Finding]]:
    """The instances named by `source` (a directory or a JSONL file), with B001 findings
    for what cannot be read. Never raises."""
    shown = str(source)
    if source.is_dir():
        if (source / "rubric.json").exists():
            return [Entry(source, shown, DEFAULT_FAMILY)], []
        entries = sorted(_walk(source), key=lambda e: e.display)
        if not entries:
            return [], [Finding("B001", shown, "no instance found (a tests/ folder holding rubric.json)")]
        return entries, []
    try:
        text = read_text(source, max_bytes=MAX_JSONL_BYTES)
    except Unreadable as exc:
        return [], [Finding("B001", shown, f"cannot be read: {exc}")]
    entries, findings = _jsonl(source, text)
    if not entries and not findings:
        findings.append(Finding("B001", shown, "no instance listed"))
    return entries, findings


def _walk(root: Path) -> Iterator[Entry]:
    for current, dirs, _files in os.walk(root, followlinks=False):
        here = Path(current)
        tests = here / "tests"
        if here != root and kept_try(here):  # trial 44 P-1: a kept `try --out` folder is no instance
            dirs[:] = []
            continue
        if "tests" in dirs and (tests / "rubric.json").exists():
            rel = here.relative_to(root)
            family = rel.parent.as_posix() if rel.parts else "."
            yield Entry(tests, str(root / rel / "tests"), family or ".")
            dirs[:] = []  # an instance holds no instances
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__"))


def _jsonl(source: Path, text: str) -> tuple[list[Entry], list[Finding]]:
    entries: list[Entry] = []
    findings: list[Finding] = []
    base = source.parent
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            findings.append(Finding("B001", str(source), f"not JSON: {exc}", field=f"line {n}"))
            continue
        family = DEFAULT_FAMILY
        if isinstance(item, dict):
            path = next((item[k] for k in ("tests", "tests_dir", "path") if isinstance(item.get(k), str)), None)
            if isinstance(item.get("family"), (str, int)) and not isinstance(item.get("family"), bool):
                family = str(item["family"])
        else:
            path = item if isinstance(item, str) else None
        if not path:
            findings.append(Finding("B001", str(source), "expected a path or {\"tests\": PATH, \"family\": NAME}",
                                    field=f"line {n}"))
            continue
        tests = Path(path) if Path(path).is_absolute() else base / path
        if not (tests / "rubric.json").exists() and (tests / "tests").is_dir():
            tests = tests / "tests"
        entries.append(Entry(tests, str(tests), family))
    return entries, findings


def run(entries: list[Entry], lint: Callable[[Entry], InstanceReport]) -> tuple[list[InstanceReport], list[FamilyReport]]:
    """Lint every entry (in order) and check each family."""
    reports = [lint(e) for e in entries]
    families: dict[str, list[InstanceReport]] = {}
    for entry, report in zip(entries, reports):
        families.setdefault(entry.family, []).append(report)
    return reports, [family_checks(name, members) for name, members in sorted(families.items())]


_FACTS: tuple[tuple[str, str, str], ...] = (
    ("version", "F001", "judge version"),
    ("extras", "F002", "extras"),
    ("code_methods", "F003", "code methods"),
    ("workflows", "F004", "workflows"),
)


def family_checks(name: str, members: list[InstanceReport]) -> FamilyReport:
    """F001–F004: every member should agree with the family's majority on each fact.

    Versions compare as resolved (an unpinned member, None, disagrees with pinned ones);
    extras compare only where test.sh says which it installs. Members that could not be
    linted at all (P001, P002) have no facts and are left out of the comparison.
    """
    report = FamilyReport(name=name, instances=len(members))
    members = [m for m in members if not any(f.code in ("P001", "P002") for f in m.findings)]
    for attr, code, label in _FACTS:
        values = [getattr(m.facts, attr) for m in members]
        known = [(m, v) for m, v in zip(members, values) if attr != "extras" or v is not None]
        counts = Counter(_key(v) for _, v in known)
        if not counts:
            report.majority[attr] = None
            continue
        # most common; ties go to a pinned value, then to the smallest (deterministic)
        top = max(sorted(counts, key=lambda k: (k is None, str(k))), key=lambda k: counts[k])
        report.majority[attr] = list(top) if isinstance(top, tuple) else top
        if len(counts) < 2:
            continue
        for member, value in known:
            if _key(value) != top:
                report.findings.append(Finding(
                    code, member.tests_dir, f"{label} {_show(_key(value))} differs from family {name!r}: "
                    f"{counts[top]} of {len(known)} use {_show(top)}", field=attr))
    return report


def _key(value: Any) -> Any:
    if isinstance(value, (frozenset, set, tuple, list)):
        return tuple(sorted(value))
    return value


def _show(key: Any) -> Any:
    if isinstance(key, tuple):
        return "[" + ", ".join(key) + "]"
    return "none" if key is None else key


__all__ = ["DEFAULT_FAMILY", "Entry", "FamilyReport", "discover", "family_checks", "run"]
