"""The verifier folder layout, once: what a judge run writes under its logs dir, for the run
itself (`run.paths.RunPaths` delegates here) and for every fleet tool and command that reads or
prepares such folders (batch, calibrate, summarize, report, rescore, demo). Standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LOGS_DIR = "logs"
AGENT_DIR = "agent"
VERIFIER_DIR = "verifier"
RESULT_NAME = "result.json"
REWARD_TXT_NAME = "reward.txt"
REWARD_JSON_NAME = "reward.json"
REWARD_DETAILS_NAME = "reward-details.json"
JUDGE_LOG_NAME = "judge.log"
ENV_CAPABILITIES_NAME = "env_capabilities.json"
STRAY_DIR = "stray_not_scored"
EVIDENCE_DIR = "evidence"
AUDIT_DIR = "judge"
EXIT_MESSAGE_NAME = "reward_exit_message.json"
"""The original 1.3.6's exit message (``exit_code``, ``exit_reason``, ``extra_fields``): core.legacy."""
JUDGE_VERDICT_NAME = "judge_verdict.json"
"""The original 1.3.6's verdict rows (``details.criteria``), written when a rubric was read: core.legacy."""
CTRF_NAME = "ctrf.json"
"""The CTRF test report of the run (`run.ctrf`)."""
JUDGE_FILE_NAMES = (RESULT_NAME, REWARD_TXT_NAME, REWARD_JSON_NAME, REWARD_DETAILS_NAME, CTRF_NAME, EXIT_MESSAGE_NAME,
                    JUDGE_VERDICT_NAME, JUDGE_LOG_NAME, ENV_CAPABILITIES_NAME)
"""Every file the judge itself writes in a verifier folder: no other tool writes a file of these
names there (``rescore --name`` refuses them)."""


@dataclass(frozen=True)
class VerifierLayout:
    """The folders and files of one judge run under its logs dir (Harbor's ``/logs``; a batch
    instance's ``<out>/<name>/logs``; a sample rollout's ``<rollout>/logs``)::

        <logs_dir>/                   logs_dir
        ├── agent/                    agent_dir              trajectory.json, final_answer.txt
        └── verifier/                 verifier_dir
            ├── reward.txt            reward_txt
            ├── reward.json           reward_json            {"reward": <float>} (Harbor reads it first)
            ├── result.json           result_json
            ├── reward-details.json   reward_details_json
            ├── reward_exit_message.json  exit_message_json  the original 1.3.6's exit message
            ├── judge_verdict.json    judge_verdict_json     the original 1.3.6's verdict rows
            ├── judge.log             judge_log
            ├── env_capabilities.json env_capabilities_json
            ├── stray_not_scored/     stray_dir
            ├── evidence/             kept_evidence_dir      a copy of the deck evidence (no PDFs)
            └── judge/                audit_dir              prompts, raw replies, parsed verdicts
    """

    logs_dir: Path

    @classmethod
    def under(cls, folder: Path | str) -> VerifierLayout:
        """The layout whose logs dir is ``<folder>/logs`` (a rollout, a batch instance's folder)."""
        return cls(Path(folder) / LOGS_DIR)

    @classmethod
    def of_verifier_dir(cls, verifier_dir: Path | str) -> VerifierLayout:
        """The layout a ``…/verifier`` folder belongs to."""
        return cls(Path(verifier_dir).parent)

    @property
    def agent_dir(self) -> Path:
        return self.logs_dir / AGENT_DIR

    @property
    def verifier_dir(self) -> Path:
        return self.logs_dir / VERIFIER_DIR

    @property
    def reward_txt(self) -> Path:
        return self.verifier_dir / REWARD_TXT_NAME

    @property
    def reward_json(self) -> Path:
        return self.verifier_dir / REWARD_JSON_NAME

    @property
    def result_json(self) -> Path:
        return self.verifier_dir / RESULT_NAME

    @property
    def reward_details_json(self) -> Path:
        return self.verifier_dir / REWARD_DETAILS_NAME

    @property
    def exit_message_json(self) -> Path:
        return self.verifier_dir / EXIT_MESSAGE_NAME

    @property
    def judge_verdict_json(self) -> Path:
        return self.verifier_dir / JUDGE_VERDICT_NAME

    @property
    def judge_log(self) -> Path:
        return self.verifier_dir / JUDGE_LOG_NAME

    @property
    def env_capabilities_json(self) -> Path:
        return self.verifier_dir / ENV_CAPABILITIES_NAME

    @property
    def stray_dir(self) -> Path:
        return self.verifier_dir / STRAY_DIR

    @property
    def kept_evidence_dir(self) -> Path:
        return self.verifier_dir / EVIDENCE_DIR

    @property
    def audit_dir(self) -> Path:
        return self.verifier_dir / AUDIT_DIR


__all__ = [
    "AGENT_DIR", "AUDIT_DIR", "ENV_CAPABILITIES_NAME", "EVIDENCE_DIR", "EXIT_MESSAGE_NAME", "JUDGE_LOG_NAME",
    "JUDGE_VERDICT_NAME", "LOGS_DIR", "RESULT_NAME",
    "REWARD_DETAILS_NAME", "REWARD_JSON_NAME", "REWARD_TXT_NAME", "STRAY_DIR", "VERIFIER_DIR", "VerifierLayout",
]
