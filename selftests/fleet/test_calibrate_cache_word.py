"""Left over from trial 9 F5: ``calibrate --out`` with ``JUDGE_VERDICT_CACHE=on`` passed the word to its runs, which
warned "using the default (none)" and cached nothing. A yes word now means ``<out>/verdict-cache``, as in a batch;
unset, calibrate caches nothing (its re-runs measure the judge again). Real ``calibrate`` over HTTP against the
simulator."""

from __future__ import annotations

import json
import os

import pytest
from fleet.test_calibrate_trial9 import JUDGED, _instance
from testkit import SIM_KEY

from cowork_judge.commands import main
from cowork_judge.sim import SimServer
from cowork_judge.sim.policies import OraclePolicy


@pytest.mark.parametrize("word, cached", [("on", True), ("", False)])
def test_a_yes_word_caches_in_the_out_folder(tmp_path, monkeypatch, capsys, word, cached):
    _instance(tmp_path / "cal", {"A-WAVELENGTH": {"hit": True, "level": 1}, "A-WRONG": {"hit": True}})
    server = SimServer(OraclePolicy.from_dict(JUDGED), api_key=SIM_KEY).start()
    try:
        for k in [k for k in os.environ if k.startswith(("JUDGE_", "OPENAI_"))]:
            monkeypatch.delenv(k)
        for k, v in {"JUDGE_API_KEY": SIM_KEY, "JUDGE_BASE_URL": server.url, "JUDGE_EVIDENCE": "0",
                     "JUDGE_VERDICT_CACHE": word}.items():
            monkeypatch.setenv(k, v)
        code = main(["calibrate", str(tmp_path / "cal"), "--out", str(tmp_path / "runs"), "--report",
                     str(tmp_path / "report.json")])
    finally:
        server.stop()
    assert code == 0, capsys.readouterr().err
    doc = json.loads((tmp_path / "runs" / "chat-good" / "logs" / "verifier" / "result.json").read_text())
    assert not [w for w in doc["details"]["warnings"] if "JUDGE_VERDICT_CACHE" in w], doc["details"]["warnings"]
    cache = tmp_path / "runs" / "verdict-cache"
    assert (cache.is_dir() and any(cache.rglob("*.json"))) is cached
