"""Trial 32 P-5: a hurdle that was never judged (unjudged, counted as hit under
``JUDGE_UNJUDGED_NEGATIVE=deduct``) got the same ``A hurdle zeroed the reward: row H counted as hit``
headline as a fault that was found. The one sentence (`core.fatal.zeroed_sentence`, shared by
``try``, ``demo`` and the report page) now says the row was not judged, with its ``error_kind``.

A real ``cowork-judge run`` with the judge's endpoint out of quota (the simulator over HTTP) (every agentic row unjudged) and a real
``cowork-judge report``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cowork_judge.sim.faults import FaultPlan
from cowork_judge.core.fatal import fatal_rows, unjudged_kinds, zeroed_sentence
from fleet.test_report_share_trial25 import sky_package

ROWS = [{"id": "A", "description": "The answer explains Rayleigh scattering.", "weight": 1},
        {"id": "H", "description": "The answer refuses or is off-topic.", "weight": 0, "hurdle": True}]


def test_an_unjudged_hurdle_is_said_to_be_unjudged(judge_run, tmp_path: Path) -> None:
    tests, rollout = sky_package(tmp_path, ROWS)
    run = judge_run(tests, rollout, sim={"faults": FaultPlan(rates={"insufficient_quota": 1.0})})
    doc = run.doc
    assert doc["fatal"] is True and fatal_rows(doc) == ["H"], doc
    kind = unjudged_kinds(doc)["H"]
    sentence = zeroed_sentence(fatal_rows(doc), unjudged=unjudged_kinds(doc))
    assert f"row H was not judged (error_kind {kind}) and counts as hit (JUDGE_UNJUDGED_NEGATIVE=deduct)" in sentence
    assert "counted as hit" not in sentence
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "report", str(run.verifier)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    costs = Path(proc.stdout.strip()).read_text(encoding="utf-8").split("<h2>Where the points went</h2>")[1]
    assert f"row H was not judged (error_kind {kind}) and counts as hit" in costs.split("<h2>")[0]


def test_a_found_fault_keeps_its_sentence() -> None:
    assert zeroed_sentence(["H"], unjudged={"A": "rate_limit"}) == (
        "A hurdle zeroed the reward: row H counted as hit, so the reward is 0 whatever the rows earned")
