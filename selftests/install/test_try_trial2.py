"""Issue 39, trial 2 leftovers for ``try``: a half pair names the variable the caller set; a file
given as the rollout gets a command that puts it in a folder (never ``--rollout .``); a
``--trajectory`` that is not JSON is refused before anything is built or judged."""

from __future__ import annotations

import os

import pytest

from cowork_judge.commands import main as cli
from install.test_try import make_task, passing_credentials

CREDENTIALS = ("JUDGE_BASE_URL", "JUDGE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_GATEWAY_AUTH")


@pytest.fixture
def no_credentials(monkeypatch):
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)


def test_only_openai_api_key_names_openai_base_url_not_judge_api_key(tmp_path, capsys, monkeypatch, no_credentials):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-1234567890")
    (tmp_path / "answer.txt").write_text("Hello.\n")
    task = passing_credentials(make_task(tmp_path))  # a task that passes OPENAI_* (trial 21 P-7: else they are ignored)
    assert cli(["try", str(task), "--final-message", str(tmp_path / "answer.txt")]) == 2
    err = capsys.readouterr().err
    assert ("error: OPENAI_API_KEY is set but OPENAI_BASE_URL is not set: a trial would not reach your endpoint" in err), err
    assert "Set OPENAI_BASE_URL to judge with your endpoint, or unset OPENAI_API_KEY" in err
    assert "JUDGE_API_KEY" not in err and "sk-openai" not in err


def test_a_file_as_the_rollout_gets_a_folder_of_its_own_not_the_working_folder(tmp_path, capsys, no_credentials):
    task = make_task(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "answer.txt").write_text("Hello.\n")
    (work / "notes.md").write_text("not a deliverable\n")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        assert cli(["try", str(task), "--rollout", "answer.txt"]) == 2
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err.strip()
    assert err == ("cowork-judge try: error: --rollout answer.txt is a file, not a folder: put the deliverable in a folder "
                   "of its own: mkdir answer-rollout && cp answer.txt answer-rollout/ then give --rollout answer-rollout "
                   "(every file in it is judged); if it is the agent's final chat message, give --final-message answer.txt "
                   "instead"), err
    assert "--rollout ." not in err


def test_a_trajectory_that_is_not_json_is_refused_up_front_with_line_and_column(tmp_path, capsys, no_credentials):
    bad = tmp_path / "trajectory.json"
    bad.write_text('{"schema_version": "ATIF-v1.4",\n "steps": [{"source": "agent",, }]}\n')
    rollout = tmp_path / "rollout"
    rollout.mkdir()
    (rollout / "report.md").write_text("# Report\n")
    for args in (["--trajectory", str(bad)], ["--rollout", str(rollout), "--trajectory", str(bad)]):
        assert cli(["try", str(make_task(tmp_path / args[0].strip("-"))), *args]) == 2
        out = capsys.readouterr()
        assert out.err.strip() == (f"cowork-judge try: error: --trajectory {bad}:2:31: not valid JSON (Expecting property "
                                   "name enclosed in double quotes): the judge would not find the agent's final message "
                                   "in it; fix the file, or give a plain-text message with --final-message"), out.err
        assert "endpoint" not in out.out and "simulator" not in out.out and "sandbox" not in out.out
