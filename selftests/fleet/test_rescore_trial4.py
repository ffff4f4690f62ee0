"""Trial 4 L4: ``rescore --out <a folder> --force`` says it cannot write a folder in plain words, as
``summarize`` and ``report`` do, instead of leaking ``[Errno 21]``; nothing is written into the folder."""

from __future__ import annotations

import subprocess
import sys

from fleet.factory import make_doc, write


def test_rescore_out_a_folder_is_refused_in_plain_words(tmp_path):
    source = tmp_path / "run" / "result.json"
    write(source, make_doc())
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "f").write_text("keep\n")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(source), "--mode", "binary",
                           "--out", str(victim), "--force"], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"cannot write {victim}: is a folder, not a file" in proc.stderr, proc.stderr
    assert "Errno" not in proc.stderr
    assert [p.name for p in victim.iterdir()] == ["f"] and (victim / "f").read_text() == "keep\n"
