"""Trial 39 P-5: a ``sim --oracle`` entry ``"na": true`` on an agentic row (whose answer has no "not applicable":
only ``ppt_judge``'s page rows have one) was scored a plain miss, its weight still counted, with no word from the
simulator or ``try``. The score stays what the entry's ``hit`` says, but the simulator's console names the entry once
and the row's reason says the flag was not read. The real ``sim`` CLI and ``try``."""

from __future__ import annotations

import json

from install.test_try_oracle_gap_trial26 import try_against_oracle

from cowork_judge.sim.pages import NA_UNREAD


def test_na_on_an_agentic_row_is_said_by_the_sim_and_in_the_reason(tmp_path, sandbox_ready):
    console = tmp_path / "sim.log"
    proc = try_against_oracle(tmp_path, {"A-DOSE": {"hit": False, "na": True, "reason": "not applicable here"}},
                              sim_log=console)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = next(r for r in json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())["results"]
               if r["id"] == "A-DOSE")
    assert row["hit"] is False and row["reason"] == "not applicable here" + NA_UNREAD, row
    said = console.read_text()
    assert said.count("warning: oracle entry 'A-DOSE': \"na\": true is not read for this row") == 1, said


def test_an_entry_without_na_is_answered_as_before(tmp_path, sandbox_ready):
    console = tmp_path / "sim.log"
    proc = try_against_oracle(tmp_path, {"A-DOSE": {"hit": False, "reason": "no dose"}}, sim_log=console)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "is not read for this row" not in console.read_text()
    row = next(r for r in json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())["results"]
               if r["id"] == "A-DOSE")
    assert row["reason"] == "no dose", row
