"""Rendering lint results: one line per finding for people, one JSON document for machines.

The JSON document (``--format json``)::

    {"schema": "cowork-judge.lint/1", "linter_version": "0.1.0", "abi": 1,
     "errors": 2, "warnings": 1, "exit_status": 1,
     "instances": [{"tests_dir", "errors", "warnings", "findings": [...], "waived": [...],
                    "facts": {"version", "version_source", "extras", "code_methods", "workflows"}}],
     "families": [{"family", "instances", "majority": {...}, "findings": [...]}],
     "batch": [...findings about the batch input...],
     "fix": [{"file", "changed", "written", "rows": {id: [added ids]}, "diff", "refused",
              "write_error"}] | null}

A finding is ``{"code", "level", "file", "row", "field", "message"}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cowork_judge import ABI, __version__
from cowork_judge.lint.batch import FamilyReport
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.instance import InstanceReport
from cowork_judge.lint.testsh import init_fixes

SCHEMA = "cowork-judge.lint/1"


def exit_status(instances: Sequence[InstanceReport], families: Sequence[FamilyReport], batch: Sequence[Finding]) -> int:
    """1 when any ERROR was found anywhere, else 0."""
    findings = [f for r in instances for f in r.findings] + [f for fam in families for f in fam.findings] + list(batch)
    return 1 if any(f.level == "ERROR" for f in findings) else 0


def text(instances: Sequence[InstanceReport], families: Sequence[FamilyReport], batch: Sequence[Finding]) -> str:
    """Findings one per line, then a summary line."""
    lines = [f.line() for f in batch]
    for report in instances:
        lines += [f.line() for f in sorted(report.findings, key=lambda f: not init_fixes(f))]  # trial 43 P-4
    for family in families:
        lines += [f.line() for f in family.findings]
    errors, warnings = _totals(instances, families, batch)
    waived = sum(len(r.waived) for r in instances)
    summary = f"{_what(instances, families)}: {errors} error{'s' if errors != 1 else ''}, " \
              f"{warnings} warning{'s' if warnings != 1 else ''}"
    if waived:
        summary += f" ({waived} waived by lint_ignore)"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def _what(instances: Sequence[InstanceReport], families: Sequence[FamilyReport]) -> str:
    """The summary's count: ``"2 instances"``, ``"3 instances in 2 families, 1 with errors"`` (its own or a family's
    ERROR naming it, F001/F002); a path given that is no
    folder (its P001) is no instance (trial 25 P-1): ``"1 path not linted (P001)"``, ``"1 instance, 1 path not …"``."""
    unlinted = sum(1 for r in instances if any(f.code == "P001" for f in r.findings))
    linted = len(instances) - unlinted
    what = f"{linted} instance{'s' if linted != 1 else ''}"
    if families and len(instances) > 1:
        what += f" in {len(families)} famil{'ies' if len(families) != 1 else 'y'}"
        named = {f.file for family in families for f in family.findings if f.level == "ERROR"}
        failing = sum(1 for r in instances if r.errors or r.tests_dir in named)  # trial 34 P-3: family errors count
        what += f", {failing} with errors"
    if unlinted:
        path = f"{unlinted} path{'s' if unlinted != 1 else ''} not linted (P001)"
        what = path if not linted and not families else f"{what}, {path}"
    return what


def document(instances: Sequence[InstanceReport], families: Sequence[FamilyReport], batch: Sequence[Finding],
             fix: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``--format json`` document (shape in the module docstring)."""
    errors, warnings = _totals(instances, families, batch)
    return {
        "schema": SCHEMA, "linter_version": __version__, "abi": ABI,
        "errors": errors, "warnings": warnings, "exit_status": exit_status(instances, families, batch),
        "instances": [r.as_dict() for r in instances],
        "families": [f.as_dict() for f in families],
        "batch": [f.as_dict() for f in batch],
        "fix": fix,
    }


def dumps(doc: dict[str, Any]) -> str:
    """The JSON document as text (UTF-8 kept readable, keys in schema order)."""
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _totals(instances: Sequence[InstanceReport], families: Sequence[FamilyReport],
            batch: Sequence[Finding]) -> tuple[int, int]:
    findings = [f for r in instances for f in r.findings] + [f for fam in families for f in fam.findings] + list(batch)
    errors = sum(1 for f in findings if f.level == "ERROR")
    return errors, len(findings) - errors


__all__ = ["SCHEMA", "document", "dumps", "exit_status", "text"]
