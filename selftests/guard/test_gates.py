"""A rule's gate (`lexicon.Rule.gate`) only skips texts the rule cannot match, and the lazily
compiled expressions (`lexicon.Lazy`) read as their compiled form: on every attack of the
red-team corpus, every honest document and every rule example of this folder, each gated rule
finds the same matches with its gate as without it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cowork_judge.guard import lexicon
from cowork_judge.guard.scan import comparable

ROOT = Path(__file__).resolve().parents[2]


def _texts() -> list[str]:
    corpus = json.loads((ROOT / "bench" / "redteam" / "corpus.json").read_text(encoding="utf-8"))
    texts = [a["text"].replace("{TOKEN}", corpus["token"]) for a in corpus["attacks"] if isinstance(a.get("text"), str)]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "bench" / "redteam" / "honest").glob("*.md"))]
    # the string literals of the guard's own tests: the rule examples, attacks and near misses alike
    for test in sorted(Path(__file__).parent.glob("test_*.py")):
        texts += [m.group(2) for m in re.finditer(r"(\"|')((?:(?!\1).){12,400})\1", test.read_text(encoding="utf-8"))]
    return [comparable(t) for t in texts]


TEXTS = _texts()
GATED = [r for r in lexicon.RULES if r.gate is not None]


def test_the_corpus_is_read_and_rules_are_gated():
    assert len(TEXTS) > 500 and len(GATED) >= 3


@pytest.mark.parametrize("rule", GATED, ids=lambda r: r.id)
def test_a_gate_never_hides_a_match(rule: lexicon.Rule):
    assert rule.gate is not None
    matched = 0
    for text in TEXTS:
        found = [m.span() for m in rule.pattern.finditer(text)]
        if found:
            matched += 1
            assert rule.gate.search(text), (rule.id, text[:200])
    assert matched > 0, f"{rule.id} matched no text of the corpus: the check above proved nothing"


def test_a_lazy_expression_compiles_once_and_reads_as_compiled():
    lazy = lexicon.Lazy(r"\bgrader\b")
    assert lazy.search("the Grader said") and not lazy.search("upgrader")
    first = lazy.compiled
    assert lazy.compiled is first and [m.span() for m in lazy.finditer("grader, grader")] == [(0, 6), (8, 14)]
    assert lazy.search("a grader", 3) is None and lazy.search("a grader", 2) is not None
