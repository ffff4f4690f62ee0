"""``gen-ppt-rubrics`` run again over hand-edited generated rows (trial 3 M5): it names each row whose
weight or wording it would change and refuses (exit 2, nothing written) unless ``--force``."""

from __future__ import annotations

import json
import subprocess
import sys

from authoring.test_gen_ppt_chat_task import chat_task

from cowork_judge.commands import main


def test_hand_edits_are_named_and_kept_without_force(tmp_path, capsys):
    tests = chat_task(tmp_path, "Make a slide deck of 8 slides about fever medicines; save it as a .pptx file.")
    assert main(["gen-ppt-rubrics", str(tests)]) == 0
    assert main(["gen-ppt-rubrics", str(tests)]) == 0  # a second run changes nothing
    doc = json.loads((tests / "rubric.json").read_text())
    row = next(r for r in doc["rubrics"] if r["id"] == "V-LAYOUT-CLIPPED")
    row["weight"], row["description"] = 5, "MY HAND-EDITED WORDING"
    (tests / "rubric.json").write_text(json.dumps(doc, indent=2))
    before = (tests / "rubric.json").read_bytes()
    capsys.readouterr()
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "gen-ppt-rubrics", str(tests)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "V-LAYOUT-CLIPPED: weight 5 →" in proc.stderr and "wording replaced" in proc.stderr, proc.stderr
    assert "--force" in proc.stderr and "Traceback" not in proc.stderr
    assert (tests / "rubric.json").read_bytes() == before
    assert main(["gen-ppt-rubrics", str(tests), "--force"]) == 0
    row = next(r for r in json.loads((tests / "rubric.json").read_text())["rubrics"] if r["id"] == "V-LAYOUT-CLIPPED")
    assert row["weight"] != 5 and row["description"] != "MY HAND-EDITED WORDING"
