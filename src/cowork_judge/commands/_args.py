"""Argument helpers shared by the command modules."""

from __future__ import annotations

import argparse
from typing import NoReturn


def path_args(p: argparse.ArgumentParser) -> None:
    """The root overrides every command that reads a rollout accepts (SPEC §1)."""
    p.add_argument("--app-dir", help="agent workdir holding output/ (default $JUDGE_APP_DIR or /app)")
    p.add_argument("--logs-dir", help="logs root holding agent/ and verifier/ (default $JUDGE_LOGS_DIR, else /logs where "
                   "/logs/verifier exists, as in a Harbor verifier container; elsewhere required)")
    p.add_argument("--tests-dir", help="the task's tests dir with rubric.json (default $JUDGE_TESTS_DIR or /tests)")
    p.add_argument("--work-dir", help="scratch dir for the evidence and block workspaces, kept after the run (default: a new temp dir, "
                   "removed); a dir another live run holds gets a private subfolder, removed at the end")
    p.add_argument("--alt-output-dir", help="extra output dir read by lenient delivery (default /output)")


class UsageError(Exception):
    """A command-line mistake: the command prints it in one line and exits 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors raise `UsageError` instead of exiting, so a command
    reports them its own way (one line, exit status 2, no traceback)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def choice_word(text: str) -> str:
    """A choice option's value read the way the configuration reads a choice variable
    (``JUDGE_REWARD_MODE=" BINARY"`` is ``binary``): spaces stripped, lower case. Given as
    ``type=`` beside ``choices=``, argparse checks the choices after it."""
    return text.strip().lower()
