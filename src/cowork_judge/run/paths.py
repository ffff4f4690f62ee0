"""Paths in one place: where the rollout is read from and where the judge writes.

Nobody else builds these path strings. Layout (container defaults; every root can be
overridden by CLI flag or env var — read by `run.config` — so the judge runs outside a
container and in tests)::

    /app/                         app_dir          (agent workdir; JUDGE_APP_DIR / --app-dir)
    └── output/                   output_dir       deliverables (strict delivery)
    /output/                      alt_output_dir   lenient delivery only (JUDGE_ALT_OUTPUT_DIR)
    /tests/                       tests_dir        rubric.json, instruction, task_prompt.md
    └── workflow_assets/<name>/   workflow_assets_dir(name)  per-instance assets of one workflow
    /logs/                        logs_dir         (JUDGE_LOGS_DIR / --logs-dir; `layout`, a VerifierLayout, below it)
    ├── agent/                    agent_logs_dir   trajectory.json, final_answer.txt
    └── verifier/                 verifier_dir
        ├── reward.txt            reward_txt
        ├── reward.json           reward_json     {"reward": <float>} (Harbor reads it first)
        ├── result.json           result_json
        ├── reward-details.json   reward_details_json
        ├── reward_exit_message.json exit_message_json  (the original 1.3.6's readers)
        ├── judge_verdict.json    judge_verdict_json  (the original 1.3.6's readers)
        ├── judge.log             judge_log
        ├── env_capabilities.json env_capabilities_json
        ├── stray_not_scored/     stray_dir
        ├── evidence/             kept_evidence_dir  a copy of the deck evidence for reports (no PDFs)
        └── judge/                audit_dir        prompts, raw replies, parsed verdicts
    <work>/                       work_dir         (private temp dir; JUDGE_WORK_DIR / --work-dir)
    ├── evidence/                 evidence_dir     shared by every block (artifacts.json, pages/)
    └── blocks/<block>/           block_dir(name)  one agentic workspace per block
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cowork_judge._util.fsutil import make_scratch_dir
from cowork_judge.core.layout import VerifierLayout
from cowork_judge.run.config import JudgeConfig, load_config
from cowork_judge.segment.paths import SegmentPaths


def default_logs_dir_refusal(logs_dir: Path) -> str | None:
    """Why a run must not write under the DEFAULT logs dir (no ``--logs-dir``, no ``JUDGE_LOGS_DIR``),
    or None when it may.

    The default (``/logs``) is Harbor's mount: in a verifier container ``/logs/verifier`` exists
    before ``tests/test.sh`` runs (Harbor redirects test.sh's output into it; ``cowork-judge
    try`` mounts it the same way). Anywhere else — a developer's machine, a container that is not
    a Harbor verifier — a bare ``cowork-judge run`` would create ``/logs/verifier`` at the
    filesystem root, so it is refused instead. Not detected from ``/.dockerenv`` (a development
    container has one too).
    """
    verifier = VerifierLayout(logs_dir).verifier_dir
    if verifier.is_dir():
        return None
    return (f"no --logs-dir (or JUDGE_LOGS_DIR) given and {verifier} does not exist, so this is not a Harbor verifier "
            f"container: the judge would create {verifier} here. Give --logs-dir DIR (the result goes to "
            "DIR/verifier/), or run it through the task's tests/test.sh (`cowork-judge try`)")


@dataclass(frozen=True)
class RunPaths:
    """The roots of one run; every other path is derived from them."""

    app_dir: Path
    logs_dir: Path
    tests_dir: Path
    work_dir: Path
    alt_output_dir: Path = Path("/output")
    ephemeral_work: bool = False
    """True when `work_dir` is a temp dir created here: the run deletes it at the end."""

    @classmethod
    def from_config(
        cls,
        config: JudgeConfig,
        *,
        app_dir: str | os.PathLike[str] | None = None,
        logs_dir: str | os.PathLike[str] | None = None,
        tests_dir: str | os.PathLike[str] | None = None,
        work_dir: str | os.PathLike[str] | None = None,
        alt_output_dir: str | os.PathLike[str] | None = None,
    ) -> RunPaths:
        """The paths of a run: explicit values (command-line flags) win over the
        configuration (``JUDGE_APP_DIR`` … or the container defaults).

        A missing work dir becomes a fresh private temp directory, removed at the end.
        """

        def pick(explicit: str | os.PathLike[str] | None, configured: str) -> Path:
            return Path(str(explicit if explicit is not None else configured)).absolute()

        work = work_dir if work_dir is not None else config.work_dir
        ephemeral = not work
        if not work:
            work = make_scratch_dir("cowork-judge-")
        return cls(
            app_dir=pick(app_dir, config.app_dir),
            logs_dir=pick(logs_dir, config.logs_dir),
            tests_dir=pick(tests_dir, config.tests_dir),
            work_dir=Path(str(work)).absolute(),
            alt_output_dir=pick(alt_output_dir, config.alt_output_dir),
            ephemeral_work=ephemeral,
        )

    @classmethod
    def resolve(
        cls,
        *,
        app_dir: str | os.PathLike[str] | None = None,
        logs_dir: str | os.PathLike[str] | None = None,
        tests_dir: str | os.PathLike[str] | None = None,
        work_dir: str | os.PathLike[str] | None = None,
        alt_output_dir: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> RunPaths:
        """`from_config` with the configuration read from `environ` (default: the process
        environment) by `cowork_judge.run.config.load_config`."""
        return cls.from_config(load_config(environ).config, app_dir=app_dir, logs_dir=logs_dir, tests_dir=tests_dir,
                               work_dir=work_dir, alt_output_dir=alt_output_dir)

    @property
    def output_dir(self) -> Path:
        return self.segment.output_dir

    @property
    def layout(self) -> VerifierLayout:
        """What the run writes under `logs_dir` (`cowork_judge.core.layout.VerifierLayout`)."""
        return VerifierLayout(self.logs_dir)

    @property
    def agent_logs_dir(self) -> Path:
        return self.layout.agent_dir

    @property
    def verifier_dir(self) -> Path:
        return self.layout.verifier_dir

    @property
    def reward_txt(self) -> Path:
        return self.layout.reward_txt

    @property
    def reward_json(self) -> Path:
        return self.layout.reward_json

    @property
    def result_json(self) -> Path:
        return self.layout.result_json

    @property
    def reward_details_json(self) -> Path:
        return self.layout.reward_details_json

    @property
    def exit_message_json(self) -> Path:
        return self.layout.exit_message_json

    @property
    def judge_verdict_json(self) -> Path:
        return self.layout.judge_verdict_json

    @property
    def judge_log(self) -> Path:
        return self.layout.judge_log

    @property
    def env_capabilities_json(self) -> Path:
        return self.layout.env_capabilities_json

    @property
    def stray_dir(self) -> Path:
        return self.layout.stray_dir

    @property
    def kept_evidence_dir(self) -> Path:
        return self.layout.kept_evidence_dir

    @property
    def audit_dir(self) -> Path:
        return self.layout.audit_dir

    @property
    def rubric_json(self) -> Path:
        return self.tests_dir / "rubric.json"

    @property
    def task_prompt(self) -> Path:
        return self.tests_dir / "task_prompt.md"

    @property
    def segment(self) -> SegmentPaths:
        """The part of the layout the segments read (`segment.paths.SegmentPaths`: the
        output, evidence, block and workflow-asset folders are derived there, once)."""
        return SegmentPaths(app_dir=self.app_dir, tests_dir=self.tests_dir, work_dir=self.work_dir)

    def workflow_assets_dir(self, name: str) -> Path:
        """Per-instance assets of workflow `name` (``tests/workflow_assets/<name>/``; may not exist)."""
        return self.segment.workflow_assets_dir(name)

    @property
    def evidence_dir(self) -> Path:
        return self.segment.evidence_dir

    def block_dir(self, name: str) -> Path:
        """Workspace of one agentic block (``name`` like ``block-01``)."""
        return self.segment.block_dir(name)
