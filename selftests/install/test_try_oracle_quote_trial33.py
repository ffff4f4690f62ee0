"""Trial 33 P-1: a ``sim --oracle`` entry whose ``quote`` is not in the agent's text the request sent (a paraphrase
of the answer) was swapped silently for a line the request showed, so the credit grounded and neither the simulator's
console nor ``try`` said the quote was not used. The swap stays (an honest judge quotes what it was shown; a deck
row's quote may be on another page), but it is said: the console names the entry once, the row's reason ends with
the simulator's note, and ``try`` names the row under the reward. The real ``sim`` CLI and ``try``."""

from __future__ import annotations

import json

from cowork_judge.install.dryrun import UNSHOWN_ORACLE_QUOTE, read_outcome
from cowork_judge.sim.quotes import UNSHOWN_QUOTE_NOTE
from install.test_try_oracle_gap_trial26 import try_against_oracle

PARAPHRASE = "Paracetamol, 500 mg up to 1 g, each 4-6 hours"  # the answer says "500 mg to 1 g every 4 to 6 hours"
VERBATIM = "500 mg to 1 g every 4 to 6 hours"


def _rehearse(tmp_path, quote: str) -> tuple[str, str, str, dict]:
    """``try`` of the chat answer judged by ``sim --oracle`` giving A-DOSE `quote`: (try's stderr, all try said, the
    simulator's console, A-DOSE's result row); asserts reward 1."""
    console = tmp_path / "sim.log"
    proc = try_against_oracle(tmp_path, {"A-DOSE": {"hit": True, "reason": "gives the dose", "quote": quote}},
                              sim_log=console)
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "reward: 1" in said, said
    rows = json.loads((tmp_path / "out" / "logs" / "verifier" / "result.json").read_text())["results"]
    return proc.stderr, said, console.read_text(), next(r for r in rows if r["id"] == "A-DOSE")


def test_a_quote_not_in_the_answer_is_named_by_the_sim_and_by_try(tmp_path, sandbox_ready):
    stderr, said, sim_said, row = _rehearse(tmp_path, PARAPHRASE)
    assert ("the oracle's quote of row(s) A-DOSE is not in the agent's text the judge sent (not verbatim in the "
            "deliverable or final message") in stderr, said
    assert sim_said.count("warning: oracle entry 'A-DOSE': its quote 'Paracetamol, 500 mg") == 1, sim_said
    assert "Copy the quote verbatim from the deliverable" in sim_said, sim_said
    assert row["reason"] == f"gives the dose [{UNSHOWN_QUOTE_NOTE}: a line it showed is quoted]", row
    assert row["quote"] != PARAPHRASE and row["grounded"] is True, row


def test_a_verbatim_quote_is_passed_on_and_nothing_is_said(tmp_path, sandbox_ready):
    _stderr, said, sim_said, row = _rehearse(tmp_path, VERBATIM)
    assert "the oracle's quote of row(s)" not in said and "its quote" not in sim_said, said
    assert row["quote"] == VERBATIM and row["reason"] == "gives the dose", row


def test_the_marker_try_reads_is_the_one_the_simulator_writes(tmp_path):
    """The simulator imports nothing of the package, so the marker has two owners; they must agree."""
    assert UNSHOWN_ORACLE_QUOTE == UNSHOWN_QUOTE_NOTE
    verifier = tmp_path / "verifier"
    verifier.mkdir()
    (verifier / "reward.txt").write_text("1\n")
    (verifier / "result.json").write_text(json.dumps({"status": "success", "results": [
        {"id": "A", "judged": True, "hit": True, "reason": f"ok [{UNSHOWN_QUOTE_NOTE}: a line it showed is quoted]"},
        {"id": "B", "judged": True, "hit": True, "reason": "ok"},
        {"id": "C", "judged": False, "reason": f"x [{UNSHOWN_QUOTE_NOTE}]"}]}))
    assert read_outcome(verifier).unshown_quotes == ["A"]
