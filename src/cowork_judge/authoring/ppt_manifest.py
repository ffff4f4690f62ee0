"""``gen-ppt-rubrics --fix-manifest`` (trial 28 P-6): the task_check_dir's ``manifest.json`` with the fields the checks
determine (``counts``, ``pairs``, ``type1_only``: `TaskChecks.derived_manifest`, the values lint's A010 compares
with) set from the checks; every other key, and the file's key order, kept. Pure: the command writes the text."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cowork_judge.workflow.ppt_judge.assets import MANIFEST_FILE, Manifest, TaskChecks
from cowork_judge.workflow.ppt_judge.legacy_assets import ORIGINAL_FORMAT


class ManifestFixError(Exception):
    """Why ``manifest.json`` cannot be fixed (nothing is written): no task_check_dir, a broken check, a file that
    is not a JSON object, the original 1.3.x format, or a manifest still invalid after the fix."""


@dataclass(frozen=True)
class ManifestFix:
    """The planned fix: the manifest's `path`, its new `text` (None: the derived fields already agree) and one
    line per field that changes (``counts.type1: 2 → 3``)."""

    path: Path
    text: str | None
    changes: list[str] = field(default_factory=list)


def plan_manifest_fix(checks: TaskChecks) -> ManifestFix:
    """The fix of ``<checks.folder>/manifest.json`` (`ManifestFix`); reads the file, writes nothing.

    Raises:
        ManifestFixError: see the class.
    """
    path = checks.folder / MANIFEST_FILE
    if not checks.present:
        raise ManifestFixError(f"{checks.folder} does not exist: there is no manifest.json to fix")
    if checks.broken or checks.files_broken:
        raise ManifestFixError(f"{checks.folder}: some checks are unusable (lint-rubric A010 names them): fix them "
                               "first, the manifest's counts follow the usable checks")
    if ORIGINAL_FORMAT in checks.formats.get("manifest", ""):
        raise ManifestFixError(f"{path} is the original cowork-judge 1.3.x format: --fix-manifest writes only this "
                               "project's manifest (docs/deck-judging.md)")
    try:
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ManifestFixError(f"{path}: cannot read: {exc}") from None
    if not isinstance(doc, dict):
        raise ManifestFixError(f"{path} is not a JSON object (it holds a {type(doc).__name__}): write the manifest "
                               "by hand first (docs/deck-judging.md)")
    new, changes = _fixed(doc, checks.derived_manifest())
    if not changes:
        return ManifestFix(path, None)
    try:
        Manifest.model_validate(new)
    except ValidationError as exc:
        raise ManifestFixError(f"{path} would still be invalid after the fix: {exc.errors()[0]['msg']} at "
                               f"{'.'.join(map(str, exc.errors()[0]['loc']))}") from None
    found = re.search(r'\n([ \t]+)"', text)
    indent = found.group(1) if found else "  "
    return ManifestFix(path, json.dumps(new, indent=indent, ensure_ascii=False) + "\n", changes)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (``true`` is not ``1``; key order does not count)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _shown(pairs: dict[str, Any], key: str) -> str:
    return repr(pairs[key]) if key in pairs else "(none)"


def _fixed(doc: dict[str, Any], derived: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`doc` with `derived`'s fields where they differ (keys in place, new ones last) and the change lines."""
    new, changes = dict(doc), []
    counts = dict(doc["counts"]) if isinstance(doc.get("counts"), dict) else {}
    for key, value in derived["counts"].items():
        if not _same(counts.get(key), value):
            changes.append(f"counts.{key}: {counts.get(key, '(none)')} → {value}")
            counts[key] = value
    if not _same(doc.get("counts"), counts):
        new["counts"] = counts
    if not _same(doc.get("pairs"), derived["pairs"]):
        was = doc["pairs"] if isinstance(doc.get("pairs"), dict) else {}
        lines = [f"pairs[{t2!r}]: {_shown(was, t2)} → {_shown(derived['pairs'], t2)}"
                 for t2 in sorted(set(was) | set(derived["pairs"])) if not _same(was.get(t2), derived["pairs"].get(t2))]
        changes += lines or [f"pairs: {doc.get('pairs', '(none)')!r} → {derived['pairs']!r}"]
        new["pairs"] = derived["pairs"]
    only = doc.get("type1_only", [])  # absent: none (the manifest's default)
    if not (isinstance(only, list) and all(isinstance(i, str) for i in only) and sorted(only) == sorted(derived["type1_only"])):
        changes.append(f"type1_only: {only!r} → {derived['type1_only']!r}")
        new["type1_only"] = derived["type1_only"]
    return new, changes
