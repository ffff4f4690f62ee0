"""Where a segment reads and writes: the part of the run's folder layout the segments see
(`SegmentPaths`); the run's `run.paths.RunPaths` derives the same folders from here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SegmentPaths:
    """Where a segment reads and writes (absolute paths; the run's `run.paths.RunPaths` hands
    out the same ones)::

        <app_dir>/output/             output_dir        deliverables (strict delivery)
        <tests_dir>/workflow_assets/<name>/  workflow_assets_dir(name)
        <work_dir>/evidence/          evidence_dir      deck evidence shared by every block
        <work_dir>/blocks/<block>/    block_dir(name)   one agentic workspace per block
    """

    app_dir: Path
    tests_dir: Path
    work_dir: Path

    @property
    def output_dir(self) -> Path:
        """The deliverables' folder (``<app>/output``)."""
        return self.app_dir / "output"

    @property
    def evidence_dir(self) -> Path:
        """The run's deck evidence (``<work>/evidence``: pages, checks, artifacts.json)."""
        return self.work_dir / "evidence"

    def block_dir(self, name: str) -> Path:
        """Workspace of one agentic block (``name`` like ``block-01``)."""
        return self.work_dir / "blocks" / name

    def workflow_assets_dir(self, name: str) -> Path:
        """Per-instance assets of workflow `name` (``tests/workflow_assets/<name>/``; may not exist)."""
        return workflow_assets_dir(self.tests_dir, name)


def workflow_assets_dir(tests_dir: Path, name: str) -> Path:
    """``<tests_dir>/workflow_assets/<name>/``: the per-instance assets of workflow `name`
    (for tools that have an instance's tests dir but no run, such as gen-ppt-rubrics)."""
    return Path(tests_dir) / "workflow_assets" / name
