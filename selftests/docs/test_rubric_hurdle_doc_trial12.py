"""docs/rubric.md says up front, in the row bullet that introduces ``hurdle``, that a hurdle
row takes weight 0 (trial 12, F1: a new author wrote ``"weight": 1, "hurdle": true`` from it;
lint-rubric R022 warns on that rubric afterwards)."""

from __future__ import annotations

from pathlib import Path

RUBRIC_MD = Path(__file__).resolve().parents[2] / "docs" / "rubric.md"


def test_the_first_hurdle_bullet_says_weight_0():
    lines = RUBRIC_MD.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if "`hurdle: true`" in line)
    bullet = [lines[start]]
    for line in lines[start + 1:]:
        if line.startswith("- ") or not line.strip():
            break
        bullet.append(line)
    text = " ".join(" ".join(bullet).split())
    assert "a hurdle row takes weight 0" in text, text
    assert "R022" in text, text
