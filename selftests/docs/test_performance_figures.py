"""Performance figures the docs quote that do not depend on the machine's load: the prompt
tokens of this judge in `docs/performance/peers.md` (issue 39 #24: the table was 9.6 % below
what the command printed, because the prompts grew after it was measured)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PEERS_MD = REPO / "docs" / "performance" / "peers.md"


def _row(text: str, judge: str, rows: int) -> list[str]:
    """The cells of the fault-free table row of `judge` at `rows` rows."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and cells[0] == judge and cells[1] == str(rows) and cells[2] == "0%":
            return cells
    raise AssertionError(f"no fault-free row of {judge!r} at {rows} rows")


def test_the_prompt_tokens_peers_md_quotes_are_what_the_command_prints(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "peers.py"), "--rows", "20", "--faults", "0",
                           "--latency-ms", "1", "--venvs", str(tmp_path / "no-peers")],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    measured = _row(proc.stdout, "cowork-judge", 20)
    quoted = _row(PEERS_MD.read_text(encoding="utf-8"), "cowork-judge (now)", 20)
    assert (quoted[3], quoted[5]) == (measured[3], measured[5]), "calls / prompt tokens in peers.md are stale: re-run the command it gives"
    assert re.search(r"load (average )?\d", PEERS_MD.read_text(encoding="utf-8"))
