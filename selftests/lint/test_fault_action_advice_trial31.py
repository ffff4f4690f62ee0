"""Trial 31 P-1 and P-4 (lint wording heuristics, `lint.polarity`).

P-1: R026 ("weight > 0 on a row worded as a fault") flagged honest requirement rows that ask for a fault to be
pointed out — "The answer names a common mistake …", "… identifies the off-by-one error …" — and advised a sign
flip that would score the task backwards. A verb that acts on the fault (R021's list: identify, explain, name,
list, point out, warn about…) before a fault noun now clears the row; a row that IS the fault ("contains a factual
mistake", "gives the wrong unit") still gets R026.

P-4: R021 warned on an advice-style hurdle, "The answer tells the reader to use boiling water …". Advice with an
action (tells … to, recommends/advises/suggests + to/that/-ing) now reads as the fault on a hurdle; a bare object
("The answer recommends a doctor.") names no action and keeps R021. On a positive row the same advice is the
requirement: "The answer recommends seeing a doctor." gets no R026.
"""

from __future__ import annotations

from pathlib import Path

from lint.test_hurdle_reported_reason_trial30 import lint_wording

POSITIVE = {"A-MISTAKE": "The answer names a common mistake, such as using boiling water or steeping too long.",
            "A-ERROR": "The answer identifies the off-by-one error in the loop.",
            "A-EXPLAIN": "The answer explains the most common mistake beginners make.",
            "A-CRASH": "The answer warns about the risk of a crash on empty input.",
            "A-DOCTOR": "The answer recommends seeing a doctor.",
            "C-FAULT": "The answer contains a factual mistake.",
            "C-UNIT": "The answer gives the wrong unit for the final result."}
HURDLES = {"H-BOIL": "The answer tells the reader to use boiling water (100 °C) for green tea.",
           "H-ADVISES": "The response advises the user to skip the prescribed antibiotics.",
           "H-BARE": "The answer recommends a doctor.",
           "H-SHOULD": "The answer should tell the reader to use water at 80 °C."}


def test_lint_cli_fault_actions_and_advice(tmp_path: Path):
    rubric = [{"id": rid, "description": text, "weight": 2} for rid, text in POSITIVE.items()]
    rubric += [{"id": rid, "description": text, "weight": 0, "hurdle": True} for rid, text in HURDLES.items()]
    findings, out = lint_wording(tmp_path, "In your final message explain how to brew green tea.\n", rubric)
    wording = {f["row"]: f["code"] for f in findings if f["code"] in ("R020", "R021", "R026")}
    assert wording == {"C-FAULT": "R026", "C-UNIT": "R026", "H-BARE": "R021", "H-SHOULD": "R020"}, out
    r021 = next(f["message"] for f in findings if f["row"] == "H-BARE")
    assert "tells the reader to" in r021 and "recommends taking" in r021, r021
