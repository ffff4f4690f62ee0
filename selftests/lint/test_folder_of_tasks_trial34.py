"""Trial 34 P-3: ``lint-rubric tasks`` on a folder of unrelated tasks told the author to run ``lint-rubric --batch
tasks``, which checks them as one family: a chat task beside deck tasks got F002 (an ERROR: another extras), exit 1,
and the summary said "0 with errors: 2 errors". Now the folder's R001 is its only finding and names ``lint-rubric
tasks/*/`` (each task alone) first, ``--batch`` for instances of one task; and the batch summary counts an instance a
family ERROR names among those with errors."""

from __future__ import annotations

import glob

from cowork_judge.commands.lint import main

from .conftest import BASE_SH


def _tasks(make_instance) -> None:
    """tasks/{deck-a,deck-b,chat}: the chat task's judge has other extras (F002 in one family)."""
    for name in ("deck-a", "deck-b"):
        make_instance(name=f"tasks/{name}")
    make_instance(name="tasks/chat", sh=BASE_SH.replace("cowork-judge[workflow]==", "cowork-judge[pptx,workflow]=="))


def test_a_folder_of_tasks_gets_one_finding_naming_each_task_first(make_instance, tmp_path, capsys, monkeypatch):
    _tasks(make_instance)
    monkeypatch.chdir(tmp_path)
    assert main(["tasks"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 instance: 1 error, 0 warnings", out  # no T010/S001 about the folder, which is no task
    (line,) = out[:-1]
    assert line.startswith("tasks/rubric.json: ERROR R001: cannot be read: not found; tasks holds task folders "
                           "(chat, deck-a, deck-b): lint each of them with `lint-rubric tasks/*/`; `lint-rubric --batch "
                           "tasks` also checks that they are packaged alike"), line
    assert main(sorted(glob.glob("tasks/*/"))) == 0  # the advice, as a shell expands it
    assert capsys.readouterr().out.splitlines()[-1] == "3 instances: 0 errors, 0 warnings"


def test_the_batch_summary_counts_an_instance_a_family_error_names(make_instance, tmp_path, capsys, monkeypatch):
    _tasks(make_instance)
    monkeypatch.chdir(tmp_path)
    assert main(["--batch", "tasks"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1] for line in out[:-1]] == ["ERROR F002 field extras"], out
    assert out[-1] == "3 instances in 1 family, 1 with errors: 1 error, 0 warnings", out
