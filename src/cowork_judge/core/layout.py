"""The folder tree of a judge run, described once (issue 38): where the run reads (the agent's
app folder, the task's tests folder), where it works (its private work folder) and what it writes
under its logs dir (the verifier folder). Standard library only.

Two views of the one tree, both pure data: `RunFolders` (what the segments read and write: app,
tests, work) and `VerifierLayout` (what a judge run leaves under its logs dir, which every fleet tool
and command that reads or prepares such folders also uses: batch, calibrate, summarize, report,
rescore, demo). The run's own `run.paths.RunPaths` is both at once (it adds only where its roots
come from); nobody else builds these path strings. The whole tree, container defaults (every root is
a setting: ``JUDGE_APP_DIR``, ``JUDGE_TESTS_DIR``, ``JUDGE_LOGS_DIR``, ``JUDGE_WORK_DIR``,
``JUDGE_ALT_OUTPUT_DIR``, or the matching command-line flag)::

    /app/                         app_dir          the agent's workdir
    └── output/                   output_dir       deliverables (strict delivery)
    /output/                      alt_output_dir   lenient delivery only (run.paths.RunPaths)
    /tests/                       tests_dir        rubric.json, instruction, task_prompt.md
    ├── rubric.json               rubric_json
    ├── task_prompt.md            task_prompt
    └── workflow_assets/<name>/   workflow_assets_dir(name)  per-instance assets of one workflow
    /logs/                        logs_dir         VerifierLayout (its tree in its docstring)
    <work>/                       work_dir         private temp dir, removed at the end when made by the run
    ├── evidence/                 evidence_dir     deck evidence shared by every block (artifacts.json, pages/)
    └── blocks/<block>/           block_dir(name)  one agentic workspace per block
"""

from __future__ import annotations

import os
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
KEPT_MESSAGE_NAME = "final_message"
"""The audit file (``judge/final_message.json``) that keeps the agent's final message the run read: ``source``,
``chars`` (its length as read), ``cut`` (what of its source was not read, or null) and ``text`` (redacted, cut in
its middle past the audit's cap). Written only when a final message was read; the report page shows it."""
OUTPUT_DIR = "output"
RUBRIC_NAME = "rubric.json"
TASK_PROMPT_NAME = "task_prompt.md"
WORKFLOW_ASSETS_DIR = "workflow_assets"
BLOCKS_DIR = "blocks"
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
REPORT_PAGE_NAME = "report.html"
"""What ``cowork-judge report`` writes beside a run's result.json by default."""
RESCORED_NAME = "result.rescored.json"
"""What ``cowork-judge rescore`` writes beside a run's result.json by default."""
TRAJECTORY_NAME = "trajectory.json"
"""The agent's ATIF trajectory in the agent logs dir: its last agent step is the final message."""
ANSWER_NAMES = ("final_answer.txt", "response.txt")
"""The plain-text final-message files of the agent logs dir, in the order the judge reads them (after the trajectory)."""
MESSAGE_NAMES = (TRAJECTORY_NAME, *ANSWER_NAMES)
"""Every file of the agent logs dir the judge reads the agent's final message from, in its order (`run.answer`;
JUDGE_RESPONSE_FILE aside), and no other: what init's collect hook carries to a separate verifier, what a batch copies
of a rollout's ``logs/agent``, what lint's A006 and ``try`` look for. Spelled here only."""
SET_ASIDE_DIR = "set-aside"
"""Where a run moves what an earlier run's tools derived from its result (``report``'s page,
``rescore``'s document) before writing a new one (``<logs>/verifier/set-aside/``), and where a
batch moves what an instance's ``logs/`` held that no judge run writes (``<out>/<name>/set-aside/``)."""


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
                └── final_message.json kept_final_message  the final message the run read (redacted)
    """

    logs_dir: Path

    @classmethod
    def under(cls, folder: Path | str) -> VerifierLayout:
        """The layout whose logs dir is ``<folder>/logs`` (a rollout, a batch instance's folder)."""
        return VerifierLayout(Path(folder) / LOGS_DIR)

    @classmethod
    def of_verifier_dir(cls, verifier_dir: Path | str) -> VerifierLayout:
        """The layout of a verifier folder given by path: the folder itself is `verifier_dir` whatever its name (a
        run kept as ``runs/good-deck`` reads ``runs/good-deck/evidence``, ``…/judge/``, ``…/result.json``; trial 26
        P-1), and its parent is taken as the logs dir (only meaningful for `agent_dir` when the name is ``verifier``). A path that ends in no name (``.``, ``..``, ``x/..``) is
        made absolute first, so that ``.`` inside the verifier folder has the logs dir as its parent (trial 18 P-7;
        the commands pass `_util.given_paths.absolute` paths, which also keep a linked working folder as typed)."""
        given = Path(verifier_dir)
        if not given.name or given.name == "..":
            given = Path(os.path.abspath(given))
        return GivenVerifierLayout(given.parent, given)

    @property
    def agent_dir(self) -> Path:
        return self.logs_dir / AGENT_DIR

    @property
    def verifier_dir(self) -> Path:
        """``<logs_dir>/verifier`` (`GivenVerifierLayout`: the folder given, whatever its name)."""
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

    @property
    def kept_final_message(self) -> Path:
        """``judge/final_message.json``: the final message the run read (`KEPT_MESSAGE_NAME`)."""
        return self.audit_dir / f"{KEPT_MESSAGE_NAME}.json"


@dataclass(frozen=True)
class GivenVerifierLayout(VerifierLayout):
    """A `VerifierLayout` whose verifier folder was given by path (`VerifierLayout.of_verifier_dir`): every file of
    the run (result.json, reward files, ``evidence/``, ``judge/``) is read from `verifier_at` itself, whatever its
    name (a run kept as ``runs/good-deck-sim``; trial 26 P-1), never from ``<logs_dir>/verifier``. `logs_dir` is its
    parent; `agent_dir` beside it means the run's agent logs only when the folder is named ``verifier``."""

    verifier_at: Path

    @property
    def verifier_dir(self) -> Path:
        """The folder given (`verifier_at`)."""
        return self.verifier_at


@dataclass(frozen=True)
class RunFolders:
    """Where a run reads and works (absolute paths): the part of the tree the segments see
    (`segment.segment_context.SegmentContext.paths`)::

        <app_dir>/output/                    output_dir        deliverables (strict delivery)
        <tests_dir>/rubric.json              rubric_json
        <tests_dir>/task_prompt.md           task_prompt
        <tests_dir>/workflow_assets/<name>/  workflow_assets_dir(name)
        <work_dir>/evidence/                 evidence_dir      deck evidence shared by every block
        <work_dir>/blocks/<block>/           block_dir(name)   one agentic workspace per block
    """

    app_dir: Path
    tests_dir: Path
    work_dir: Path

    @property
    def output_dir(self) -> Path:
        """The deliverables' folder (``<app>/output``)."""
        return self.app_dir / OUTPUT_DIR

    @property
    def rubric_json(self) -> Path:
        """The task's rubric (``<tests>/rubric.json``)."""
        return self.tests_dir / RUBRIC_NAME

    @property
    def task_prompt(self) -> Path:
        """The task's prompt as the agent saw it (``<tests>/task_prompt.md``; may not exist)."""
        return self.tests_dir / TASK_PROMPT_NAME

    @property
    def evidence_dir(self) -> Path:
        """The run's deck evidence (``<work>/evidence``: pages, checks, artifacts.json)."""
        return self.work_dir / EVIDENCE_DIR

    def block_dir(self, name: str) -> Path:
        """Workspace of one agentic block (``name`` like ``block-01``)."""
        return self.work_dir / BLOCKS_DIR / name

    def workflow_assets_dir(self, name: str) -> Path:
        """Per-instance assets of workflow `name` (``tests/workflow_assets/<name>/``; may not exist)."""
        return workflow_assets_dir(self.tests_dir, name)


def workflow_assets_dir(tests_dir: Path | str, name: str) -> Path:
    """``<tests_dir>/workflow_assets/<name>/``: the per-instance assets of workflow `name`
    (for tools that have an instance's tests dir but no run, such as gen-ppt-rubrics)."""
    return Path(tests_dir) / WORKFLOW_ASSETS_DIR / name


__all__ = [
    "AGENT_DIR", "AUDIT_DIR", "KEPT_MESSAGE_NAME", "BLOCKS_DIR", "OUTPUT_DIR", "RUBRIC_NAME", "TASK_PROMPT_NAME", "WORKFLOW_ASSETS_DIR", "ENV_CAPABILITIES_NAME", "EVIDENCE_DIR", "EXIT_MESSAGE_NAME", "JUDGE_LOG_NAME",
    "JUDGE_VERDICT_NAME", "LOGS_DIR", "RESULT_NAME", "REPORT_PAGE_NAME", "RESCORED_NAME", "SET_ASIDE_DIR",
    "REWARD_DETAILS_NAME", "REWARD_JSON_NAME", "REWARD_TXT_NAME", "STRAY_DIR", "VERIFIER_DIR", "RunFolders", "VerifierLayout",
    "workflow_assets_dir",
]


def judge_file_in_verifier(path: Path | str) -> bool:
    """Whether writing `path` would replace a file the judge itself writes in a verifier folder:
    its name (or, through symbolic links, its target's) is one of `JUDGE_FILE_NAMES` and its
    folder is a verifier folder (named ``verifier``, or holding a ``result.json``, ``reward.txt``
    or ``reward.json``). The fleet tools (``rescore --out``, ``report --out``) refuse such a
    path even with ``--force``: Harbor reads those files, and the seal covers them."""
    for candidate in {Path(path).absolute(), Path(os.path.realpath(path))}:
        folder = candidate.parent
        if candidate.name in JUDGE_FILE_NAMES and (
                folder.name == VERIFIER_DIR
                or any((folder / name).exists() for name in (RESULT_NAME, REWARD_TXT_NAME, REWARD_JSON_NAME))):
            return True
    return False
