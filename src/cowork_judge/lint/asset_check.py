"""What an asset check receives and answers (`AssetContext`, `AssetResult`): the contract between
`lint.assets` (the table of checks) and each workflow's check (`lint.ppt_assets`), kept apart so
neither imports the other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import RubricDoc


@dataclass
class AssetContext:
    """What an asset check receives: the rubric and its workflow's asset folder."""

    tests_dir: Path
    asset_dir: Path
    doc: RubricDoc
    display: str


@dataclass
class AssetResult:
    """An asset check's answer: findings, and the files it uses (None: every file)."""

    findings: list[Finding] = field(default_factory=list)
    used: set[Path] | None = None


AssetCheck = Callable[[AssetContext], AssetResult]
"""An asset check: `AssetContext` in, `AssetResult` out."""

__all__ = ["AssetCheck", "AssetContext", "AssetResult"]
