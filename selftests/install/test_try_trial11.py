"""Trial 11 F10: ``COWORK_JUDGE_VERSION=9.9.9 cowork-judge try …`` judged with the checkout's version (result.json
``requested_version`` 2.0.0, ``version_source: injection``) and no line said 9.9.9 was ignored. One warning line now
names the ignored value and how to try that version (``--index-url URL --version 9.9.9``)."""

from __future__ import annotations

import json

import pytest

from cowork_judge import __version__
from cowork_judge.commands import main as cli
from cowork_judge.commands.try_ import ignored_version_warning
from install.test_try_chat_only import ANSWER, chat_task
from install.test_try_output import shared_cache, try_cli


@pytest.mark.parametrize("shell, chosen_by, expected", [
    (None, "cowork-judge 2.0.0, built from x", None),
    ("", "cowork-judge 2.0.0, built from x", None),
    ("  ", "cowork-judge 2.0.0, built from x", None),
    ("2.0.0", "cowork-judge 2.0.0, built from x", None),  # the same version: nothing is ignored
    ("9.9.9", "cowork-judge 2.0.0, built from x",
     "warning: COWORK_JUDGE_VERSION='9.9.9' in your environment is ignored: this run judges with cowork-judge 2.0.0, "
     "built from x; to try that version, pass --index-url URL --version 9.9.9 (the index your fleet installs the judge from)"),
    ("9.9.9", "--version 2.0.0", "warning: COWORK_JUDGE_VERSION='9.9.9' in your environment is ignored: this run judges "
                                 "with --version 2.0.0; --version 9.9.9 tries that one"),
    ("1.0; rm -rf /", "--version 2.0.0", "warning: COWORK_JUDGE_VERSION='1.0; rm -rf /' in your environment is ignored: "
                                         "this run judges with --version 2.0.0; --version '1.0; rm -rf /' tries that one"),
])
def test_the_warning_names_the_ignored_value(shell, chosen_by, expected):
    assert ignored_version_warning(shell, "2.0.0", chosen_by) == expected


@pytest.mark.slow
def test_a_shell_version_is_named_as_ignored_in_a_real_dry_run(tmp_path, sandbox_ready):
    """The whole dry run (this checkout's wheel, the simulator) under COWORK_JUDGE_VERSION=9.9.9."""
    task = chat_task(tmp_path)
    assert cli(["init", str(task), "--force"]) == 0
    answer = tmp_path / "answer.txt"
    answer.write_text(ANSWER)
    proc = try_cli(str(task), "--final-message", str(answer), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=None, env={"COWORK_JUDGE_VERSION": "9.9.9"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    warned = [line for line in proc.stderr.splitlines() if "COWORK_JUDGE_VERSION='9.9.9'" in line]
    assert len(warned) == 1 and "is ignored" in warned[0] and "--version 9.9.9" in warned[0], proc.stderr
    doc = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())
    assert (doc["requested_version"], doc["version_source"]) == (__version__, "injection")
