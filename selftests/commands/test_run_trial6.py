"""Issue 39, trial 6 F9: ``cowork-judge run --logs-dir DIR`` naming a folder that does not exist
never scores "nothing delivered" as the agent's 0: with no deliverable files it is the judge's
input error (``judge:scorer_error``, rows ``delivery_unreadable``, as a wrong ``--app-dir``); with
files they are judged and a warning names the folder. An existing logs folder without ``agent/``
is judged without a word (Harbor's ``/logs``, `try` and `batch` always have the folder)."""

from __future__ import annotations

from pathlib import Path

from testkit import code_only_task, run_cli, verifier_result


def _instance(root: Path) -> tuple[Path, Path]:
    """(app dir, tests dir) of a one-row code-only instance (no model call)."""
    code_only_task(root)
    return root / "app", root / "tests"


ABSENT = ("--logs-dir {logs} did not exist when the run began (the judge created it for the verdicts): the agent's "
          "final message (agent/) could not be looked for (check --logs-dir)")


def test_a_logs_dir_that_does_not_exist_is_not_nothing_delivered(tmp_path):
    app, tests = _instance(tmp_path)
    (app / "output" / "report.md").unlink()  # a chat rollout whose answer sits in the logs folder the user mistyped
    typo = tmp_path / "typo-logs"
    proc = run_cli(app, typo, tests)
    assert proc.returncode == 1, proc.stderr
    doc = verifier_result(typo)
    reason = ABSENT.format(logs=typo) + ", so nothing was scored (not 'nothing delivered')"
    assert (doc["exit_code"], doc["exit_reason"]) == ("judge:scorer_error", reason)
    assert [(r["judged"], r["error_kind"]) for r in doc["results"]] == [(False, "delivery_unreadable")]
    assert reason in proc.stderr


def test_files_are_judged_with_a_warning_when_the_logs_dir_did_not_exist(tmp_path):
    app, tests = _instance(tmp_path)
    typo = tmp_path / "typo-logs"
    proc = run_cli(app, typo, tests)
    assert proc.returncode == 0, proc.stderr
    doc = verifier_result(typo)
    assert doc["reward"] == 1.0 and doc["exit_code"] is None
    assert f"delivery: {ABSENT.format(logs=typo)}; only the deliverable files were judged" in doc["details"]["warnings"]


def test_an_existing_logs_dir_without_agent_is_judged_without_a_word(tmp_path):
    app, tests = _instance(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    proc = run_cli(app, logs, tests)
    assert proc.returncode == 0, proc.stderr
    doc = verifier_result(logs)
    assert doc["reward"] == 1.0 and not any("--logs-dir" in w for w in doc["details"]["warnings"])
