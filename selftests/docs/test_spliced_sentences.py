"""No sentence of the docs is cut in two by a paragraph spliced into it (trial 28 P-2, trial 29 P-3).

Both splices had one shape: a prose line ending mid-sentence (``… into the sandbox's``, ``… is refused``), then
the inserted text starting a new sentence (``When such a file …``, ``When `JUDGE_MODEL` is unset …``) on the next
line, and the rest of the cut sentence further down. The check flags a prose line (outside code fences, headings,
tables and quotes) without closing punctuation followed by a line opening with a sentence-starting word. A paragraph
starting in lower case after a blank line (the first rule tried) catches neither: the splices were inside bullets,
with no blank line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]
STARTERS = frozenset("When If The A An It This That These Those Each Every Its Then So But Since Where While After "
                     "Before Once There Unless Although".split())
CLOSING = tuple(".:;!?)]}\"'`*,>-—–|")


def spliced(text: str) -> list[tuple[int, str, str]]:
    """(line number, the end of the cut line, the start of the next) for each suspected splice in `text`."""
    lines, fence, found = text.split("\n"), False, []
    for number, (line, following) in enumerate(zip(lines, lines[1:]), start=1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence or not line.strip() or not following.strip() or line.lstrip().startswith(("|", "#", ">")):
            continue
        if following.lstrip().startswith(("|", "#", "-", "*", "```", ">")) or re.match(r"\s*\d+\.", following):
            continue
        if not line.rstrip().endswith(CLOSING) and following.split()[0] in STARTERS:
            found.append((number, line.strip()[-60:], following.strip()[:60]))
    return found


def test_the_rule_catches_both_splices_it_was_written_for():
    trial28 = ("  good-link.txt` is judged as `good.txt`) and writes the file it points at into the sandbox's\n"
               "  When such a file lies inside the flat `--rollout` folder (or a subfolder of it, or a link to it lies\n"
               "  there), it is **not** copied to `/app/output` as well.\n"
               "  `/logs/agent/trajectory.json` (or init's collect-hook copy).\n")
    trial29 = ("  reused\"). The base URL ends at `/v1`: one ending in the route (`…/v1/chat/completions`) is refused\n"
               "  When `JUDGE_MODEL` is unset and the loopback endpoint answers `GET /v1/models` as `cowork-judge sim`\n"
               "  at start, since the judge adds the route itself.\n")
    assert [n for n, _, _ in spliced(trial28)] == [1] and [n for n, _, _ in spliced(trial29)] == [1]
    assert spliced("```\nrun the\nWhen\n```\n- a list item that\n- The next\n") == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_sentence_is_cut_by_a_spliced_paragraph(page):
    assert spliced(page.read_text(encoding="utf-8")) == [], f"{page.relative_to(REPO)}: a paragraph cuts a sentence"
