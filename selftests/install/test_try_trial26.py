"""Trial 26 P-4: ``try`` on an empty rollout (nothing delivered, so no model call: ``judge_calls`` 0) said "every
row was decided without a model" and then the built-in simulator's note "the built-in simulator judged this run, not
a model … an empty deliverable can score like a good one". The note is said only when the simulator was asked
(``extra_fields.judge_called``). The real ``try`` in a child process, sandboxed, with the built-in simulator (no
endpoint set)."""

from __future__ import annotations

import json
from pathlib import Path

from cowork_judge.install import dryrun
from install.test_try_output import inited_task, shared_cache, try_cli

ROWS = [
    {"id": "A-TCP", "description": "The answer says TCP provides reliable, ordered delivery.", "weight": 2},
    {"id": "H-PLACEHOLDER", "description": "The answer still holds placeholder text such as TODO or lorem ipsum.",
     "weight": 0, "hurdle": True},
]
NOTE = "the built-in simulator judged this run"


def _try(tmp_path: Path, task: Path, name: str, *args: str) -> tuple[str, dict]:
    out = tmp_path / f"out-{name}"
    proc = try_cli(str(task), *args, "--out", str(out), cache=shared_cache(tmp_path / f"cache-{name}"),
                   tmpdir=tmp_path / "tmp")
    assert "built-in simulator" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads((out / "logs" / "verifier" / "result.json").read_text())
    return proc.stdout + proc.stderr, doc


def test_nothing_delivered_gets_no_simulator_note_and_a_judged_message_does(tmp_path, sandbox_ready):
    task = inited_task(tmp_path / "tasks" / "my-chat", ROWS, "Explain the difference between TCP and UDP.\n")
    (tmp_path / "empty").mkdir()
    said, doc = _try(tmp_path, task, "empty", "--rollout", str(tmp_path / "empty"))
    assert doc["extra_fields"]["judge_called"] is False and doc["extra_fields"]["judge_calls"] == 0
    assert "every row was decided without a model" in said and NOTE not in said, said
    assert "an empty deliverable can score like a good one" not in said
    (tmp_path / "answer.txt").write_text("TCP provides reliable, ordered delivery; UDP does not.\n")
    said, doc = _try(tmp_path, task, "answer", "--final-message", str(tmp_path / "answer.txt"))
    assert doc["extra_fields"]["judge_called"] is True and NOTE in said, said


def test_the_outcome_reads_whether_the_judge_was_called(tmp_path):
    from cowork_judge.commands import try_

    (tmp_path / "reward.txt").write_text("0.0\n")
    for extra, called in (({"judge_called": False, "judge_calls": 0}, False), ({"judge_calls": 3}, True), ({}, None)):
        (tmp_path / "result.json").write_text(json.dumps({"status": "success", "extra_fields": extra,
                                                          "results": [{"id": "a", "judged": True}]}))
        outcome = dryrun.read_outcome(tmp_path)
        assert outcome.judge_called is called
        assert (try_.simulated_note(outcome) is None) is (called is False)
