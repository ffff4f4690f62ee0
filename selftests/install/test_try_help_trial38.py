"""Trial 38 P-4: ``try --help`` said a container-layout rollout's final message comes from trajectory.json only;
final_answer.txt and response.txt under logs/agent/ are read too, as the docs say."""

from __future__ import annotations

import subprocess
import sys


def test_try_help_names_every_final_message_file():
    out = subprocess.run([sys.executable, "-m", "cowork_judge", "try", "--help"], capture_output=True, text=True,
                         timeout=60).stdout
    flat = " ".join(out.split())
    assert "its trajectory.json, else final_answer.txt or response.txt, holds the final message" in flat, out
