"""How the deck-request classifier (`cowork_judge.evidence.deck_request.asks_for_deck`) reads task prompts.

Prints, per category of a labelled prompt set, how many prompts it reads as asking for a deck, beside the old rule
(a dotted PowerPoint suffix anywhere in the prompt, 2.0 up to trial 38). Sets: the two blind sets of trial 38 P-2
(`blind_deck_trial38.json`, written before the classifier; `blind_deck_trial38_round2.json`, written by another helper
after it and measured once before one last change; neither writer saw the code) and the real prompts of the bundled
fixtures (DevAI, HealthBench: none asks for a deck).

    python bench/task_kind/deck_request.py [--show]      # --show lists each misread prompt
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cowork_judge.evidence.deck_request import asks_for_deck
from cowork_judge.evidence.kinds import DECK_FILE_MENTION

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parents[1] / "selftests" / "fixtures"
WANT_DECK = {"deck_no_suffix": True, "deck_suffix": True, "chat_about_decks": False,
             "other_file_mentions_decks": False, "fixtures": False}


def fixture_prompts() -> list[str]:
    """The prompts of the bundled DevAI instances and HealthBench examples (none asks for a deck)."""
    out = [json.loads(p.read_text())["query"] for p in sorted((FIXTURES / "devai" / "instances").glob("*.json"))]
    for path in sorted((FIXTURES / "healthbench").glob("*.json")):
        out.append(" ".join(m["content"] for m in json.loads(path.read_text())["prompt"]))
    return out


def main(argv: list[str]) -> int:
    sets = {f"{k} ({'round 1' if stem.endswith('trial38') else 'round 2'})": v for stem in ("blind_deck_trial38", "blind_deck_trial38_round2")
            for k, v in json.loads((HERE / f"{stem}.json").read_text()).items() if k in WANT_DECK}
    sets["fixtures"] = fixture_prompts()
    print(f"{'set':38} {'n':>3}  {'new: deck':>9}  {'old: deck':>9}")
    for label, prompts in sets.items():
        name = label.split(" ")[0]
        new = sum(asks_for_deck(p) for p in prompts)
        old = sum(DECK_FILE_MENTION.search(p) is not None for p in prompts)
        print(f"{label:38} {len(prompts):>3}  {new:>9}  {old:>9}  want {'all' if WANT_DECK[name] else 'none'}")
        if "--show" in argv:
            for p in prompts:
                if asks_for_deck(p) != WANT_DECK[name]:
                    print("   misread:", p.replace("\n", " ")[:160])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
