"""Trial 31 P-2 and P-3, messages of ``try``: the verdict cache line under the reward gives its advice once (a
loopback ``sim --oracle`` endpoint says the oracle part in place of the generic one, not after it); a file named as a
final message (``final_answer.txt``, ``response.txt``) given as ``--rollout`` is answered with ``--final-message``
first and the folder advice second."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from cowork_judge._util.procs import ProcResult
from cowork_judge.commands import main as cli
from cowork_judge.commands import try_
from install.test_try import cached_rows_outcome, make_task
from install.test_try_trial2 import no_credentials  # noqa: F401  (fixture)


def test_the_verdict_cache_line_of_a_loopback_sim_gives_its_advice_once(tmp_path: Path, capsys: Any) -> None:
    outcome, staged = cached_rows_outcome(tmp_path, [True, True, True, False, False])
    env = {"JUDGE_VERDICT_CACHE": "/opt/cowork-judge/verdict-cache", "JUDGE_BASE_URL": "http://127.0.0.1:18499/v1"}
    line = try_._cache_line(outcome, env, sandboxed=True, judge_home=tmp_path / "home", builtin=False)
    try_._report(outcome, staged, ProcResult(returncode=0, stdout="", stderr="", seconds=1.0), 1.0, line)
    said = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("verdict cache: 3 of 5"))
    assert said.count("JUDGE_VERDICT_CACHE=off") == 1 and said.count("(JUDGE_VERDICT_CACHE") == 1, said
    assert said.endswith(": the reward holds verdicts of an earlier run, not asked now " + try_.ORACLE_CACHE_NOTE), said


@pytest.mark.usefixtures("no_credentials")
@pytest.mark.parametrize("name", ["final_answer.txt", "response.txt"])
def test_a_final_message_file_as_the_rollout_leads_with_final_message(tmp_path: Path, capsys: Any, name: str) -> None:
    task = make_task(tmp_path)
    work = tmp_path / "work"
    (work / "solution").mkdir(parents=True)
    (work / "solution" / name).write_text("Steep green tea at 80 C for two minutes.\n")
    (work / "solution" / "solve.sh").write_text("#!/bin/sh\n")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        assert cli(["try", str(task), "--rollout", f"solution/{name}"]) == 2
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err.strip()
    stem = name.removesuffix(".txt")
    assert err == (f"cowork-judge try: error: --rollout solution/{name} is a file, not a folder: if it is the agent's "
                   "final chat message (its name is one the judge reads a final message from), give --final-message "
                   f"solution/{name} instead; if it is a deliverable, put the deliverable in a folder of its own: mkdir "
                   f"solution/{stem}-rollout && cp solution/{name} solution/{stem}-rollout/ then give --rollout "
                   f"solution/{stem}-rollout (every file in it is judged)"), err
