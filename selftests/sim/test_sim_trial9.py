"""Trial 9 F3: an oracle label whose ``level`` contradicts its ``hit`` (``{hit: false, level: 1}``) was read as a miss
by calibrate's agreement, as full credit by its human reward, and as a score of 1 by the simulator's generic mode.
The simulator now names each such label when it starts (``sim --oracle``, a real child process) and its generic
mode scores it by the judge's rule (docs/scoring.md): a miss with no credit."""

from __future__ import annotations

import json

from test_sim_generic import _chat
from testkit import sim_oracle_stderr

from cowork_judge.sim import OraclePolicy, SimServer

PROMPT = "Check the answer against:\n- States the capital\n- Names the river\n\nAnswer: Paris on the Seine."


def test_the_generic_mode_scores_a_contradicting_label_as_a_miss(client):
    oracle = {"States the capital": {"hit": False, "level": 1}, "Names the river": {"hit": True, "level": 0.5}}
    with SimServer(OraclePolicy.from_dict(oracle)) as sim:
        doc = _chat(sim, client, PROMPT)
    assert [(c["met"], c["score"]) for c in doc["criteria"]] == [(False, 0.0), (True, 0.5)]


def test_sim_oracle_names_each_contradicting_label_when_it_starts(tmp_path):
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps({"A-WAVELENGTH": {"hit": False, "level": 1}, "A-HALF": {"hit": False, "level": 0.5},
                                  "A-ZERO": {"hit": True, "level": 0}, "A-OK": {"hit": True, "level": 0.5}}))
    err = sim_oracle_stderr(oracle)
    assert "'A-WAVELENGTH': hit=false with level 1: the judge reads it as a miss with no credit (docs/scoring.md)" in err
    assert "'A-HALF': hit=false with level 0.5: the judge reads it as a miss with no credit, unless the row's " \
           "pass_level is above 0.5" in err
    assert "'A-ZERO': hit=true with level 0: the judge reads it by the level, a miss with no credit" in err
    assert "A-OK" not in err and err.count("warning: oracle file") == 3, err
