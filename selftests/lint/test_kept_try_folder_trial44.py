"""Trial 44 P-1: ``cowork-judge try TASK --out run1`` beside the tasks keeps try's copy (``run1/app``, ``logs``,
``tests`` and its marker ``cowork-judge-try.json``). ``lint-rubric .`` then named run1 among the task folders and the
advised ``lint-rubric */`` linted it as a task (false ERRORs, exit 1). Now a kept try folder is no task: ``.`` does
not list it, ``*/`` (and ``--batch .``) skip it with one line and count it as no instance."""

from __future__ import annotations

import glob
import json

from cowork_judge.commands.lint import main
from cowork_judge.install.dryrun import TRY_MARKER


def _tasks_and_a_kept_try(make_instance) -> None:
    """tasks/chat (a clean task) and tasks/run1, laid out as ``try --out`` keeps it (its tests/ a copy, no task.toml)."""
    make_instance(name="tasks/chat")
    run1 = make_instance(name="tasks/run1", toml=None).parent
    for sub in ("app/output", "logs/agent", "logs/verifier"):
        (run1 / sub).mkdir(parents=True)
    marker = {"written_by": "cowork-judge try", "version": "2.0.0", "task": "chat",
              "note": "give this folder to `cowork-judge try --rollout` to re-judge it"}
    (run1 / TRY_MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")


def test_the_folder_of_the_tasks_does_not_list_a_kept_try_folder(make_instance, tmp_path, capsys, monkeypatch):
    _tasks_and_a_kept_try(make_instance)
    monkeypatch.chdir(tmp_path / "tasks")
    assert main(["."]) == 1
    (line, summary) = capsys.readouterr().out.splitlines()
    assert "; . holds task folders (chat): lint each of them with `lint-rubric */`" in line, line
    assert summary == "1 instance: 1 error, 0 warnings"


def test_the_advised_star_skips_a_kept_try_folder_with_one_line(make_instance, tmp_path, capsys, monkeypatch):
    _tasks_and_a_kept_try(make_instance)
    monkeypatch.chdir(tmp_path / "tasks")
    assert main(sorted(glob.glob("*/"))) == 0  # the advice, as a shell expands it: chat/ run1/
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["1 instance: 0 errors, 0 warnings"], captured.out
    assert ("cowork-judge lint: run1 is a folder `cowork-judge try --out` kept, not a task: skipped (re-judge it "
            "with `cowork-judge try --rollout run1`)") in captured.err.splitlines(), captured.err
    assert "linting run1/tests" not in captured.err
    assert main(["--batch", "."]) == 0  # nor is it an instance of the batch
    assert capsys.readouterr().out.splitlines()[-1] == "1 instance: 0 errors, 0 warnings"


def test_a_kept_try_folder_alone_is_a_usage_error(make_instance, tmp_path, capsys, monkeypatch):
    _tasks_and_a_kept_try(make_instance)
    monkeypatch.chdir(tmp_path / "tasks")
    assert main(["run1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "run1 is a folder `cowork-judge try --out` kept, not a task: skipped" in captured.err
