"""Trial 10 F2/F3 (real ``calibrate`` over HTTP against the simulator).

F2: a hurdle row nobody labelled was read as unjudged on the human side, which the default policy counts as
violated: human reward 0, reward MAE 0.75 although every label agreed. An instance with an unlabelled model row
now has no human reward (left out of MAE/bias/Spearman) and the headline says so.
F3: a label level that is not one of the row's levels was snapped silently and counted as exact level agreement:
a warning now names it and the level pair keeps the level as written."""

from __future__ import annotations

import fleet.test_calibrate_trial9 as t9
from fleet.test_calibrate_trial9 import JUDGED, ROWS, _calibrate

HURDLE = {"id": "H-EMPTY", "description": "The answer is empty.", "weight": 1, "hurdle": True}


def test_an_unlabelled_hurdle_does_not_zero_the_human_reward(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(t9, "ROWS", [*ROWS, HURDLE])
    monkeypatch.setattr(t9, "JUDGED", {**JUDGED, "H-EMPTY": {"hit": False}})
    report, said = _calibrate(tmp_path, monkeypatch, capsys,
                              {"A-WAVELENGTH": {"hit": True, "level": 1}, "A-WRONG": {"hit": True}})
    assert report["agreement"]["accuracy"] == 1.0
    assert report["per_instance"][0]["human_reward"] is None, report["per_instance"]
    assert report["reward"]["mae"] is None and report["reward"]["instances"] == 0, report["reward"]
    assert report["reward"]["human_partial"] == 1
    assert "human reward withheld on 1 of 1 instance(s): 1 model row(s) without a label" in said, said


def test_an_off_grid_label_level_is_said_and_not_an_exact_match(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(t9, "JUDGED", {"A-WAVELENGTH": {"hit": True, "level": 0.5}, "A-WRONG": {"hit": True}})
    report, said = _calibrate(tmp_path, monkeypatch, capsys,
                              {"A-WAVELENGTH": {"hit": True, "level": 0.3}, "A-WRONG": {"hit": True}})
    assert report["levels"]["pairs"] == 1 and report["levels"]["exact"] == 0.0, report["levels"]
    assert abs(report["levels"]["mae"] - 0.2) < 1e-9
    assert "label 'A-WAVELENGTH': level 0.3 is not one of the row's levels 0, 0.5, 1: read as 0.5" in said, said
    assert report["rows"]["label_conflicts"] == 1
