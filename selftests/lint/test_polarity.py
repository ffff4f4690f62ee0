"""The hurdle-wording heuristic: six languages, and its measured rates on the fixture rubrics."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from cowork_judge.authoring.importers import paperbench
from cowork_judge.lint.polarity import classify

CASES = [
    # English
    ("The deliverable is missing: there is no slide deck in output/.", "violation"),
    ("The report does not cite any source.", "violation"),
    ("The agent fails to produce a runnable script.", "violation"),
    ("The deck contains placeholder text such as 'Click to add title'.", "violation"),
    ("The answer fabricates a citation.", "violation"),
    ("The output file is empty or unreadable.", "violation"),
    ("The API key is hard-coded in the script.", "violation"),
    ("The deck doesn't open.", "violation"),
    ("The deliverable must be a .pptx deck.", "requirement"),
    ("The report should include a summary table.", "requirement"),
    ("The deck correctly states the 2023 revenue.", "requirement"),
    ("A deck is present in output/.", "requirement"),
    ("The answer recommends ibuprofen.", "neutral"),
    # Chinese (simplified and traditional)
    ("最终交付物缺失或为空。", "violation"),
    ("报告没有给出任何数据来源。", "violation"),
    ("幻灯片中出现乱码。", "violation"),
    ("文件無法打開。", "violation"),
    ("交付物应包含一个 .pptx 演示文稿。", "requirement"),
    ("报告必须给出三个结论，且数据准确。", "requirement"),
    ("報告應包含摘要。", "requirement"),
    ("不仅要有图表，还要有结论。", "requirement"),  # 不仅 ('not only') is no negation
    ("回答推荐了布洛芬。", "neutral"),
    # Japanese
    ("成果物が存在しない。", "violation"),
    ("レポートに要約を含むべきである。", "requirement"),
    # Spanish, French, German
    ("Falta el archivo de la presentación.", "violation"),
    ("El informe debe incluir una tabla.", "requirement"),
    ("Le livrable est absent du dossier.", "violation"),
    ("Le rapport doit contenir un résumé.", "requirement"),
    ("Die Präsentation fehlt.", "violation"),
    ("Der Bericht muss eine Zusammenfassung enthalten.", "requirement"),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_classify(text, expected):
    assert classify(text) == expected


def _corpus(fixtures: Path) -> dict[str, list[str]]:
    """Fixture criteria by how they are written: 'violation' (HealthBench negative points)
    and 'requirement' (HealthBench positive points, DevAI requirements and preferences,
    PaperBench leaves)."""
    out: dict[str, list[str]] = {"violation": [], "requirement": []}
    for path in sorted((fixtures / "healthbench").glob("*.json")):
        for item in json.loads(path.read_text())["rubrics"]:
            out["violation" if item["points"] < 0 else "requirement"].append(item["criterion"])
    for path in sorted((fixtures / "devai" / "instances").glob("*.json")):
        task = json.loads(path.read_text())
        out["requirement"] += [r["criteria"] for r in task["requirements"] + task["preferences"]]
    for path in sorted((fixtures / "paperbench").glob("*.json")):
        out["requirement"] += [r["description"] for r in paperbench.flatten(json.loads(path.read_text()))]
    return out


def test_measured_rates_on_the_fixture_rubrics(fixtures_dir):
    """The figures docs/lint-rubric.md quotes. Every fixture criterion is read as if it were a
    weight-0 hurdle: a flag on a violation-worded HealthBench deduction is a false positive."""
    corpus = _corpus(fixtures_dir)
    violation = Counter(classify(t) for t in corpus["violation"])
    requirement = Counter(classify(t) for t in corpus["requirement"])
    assert sum(violation.values()) == 33 and sum(requirement.values()) == 441
    # false positives: ERROR (R020) 1 of 33 = 3.0 %; WARN (R021) 4 more, 15.2 % flagged in all
    assert violation == Counter(violation=28, neutral=4, requirement=1)
    # requirement-worded rows written as hurdles: 181 of 441 = 41.0 % ERROR (83 before the presence verbs
    # has/shows/displays of issue 26, 179 before negated faults of trial 16 P-8), 366 = 83.0 % flagged in all
    assert requirement == Counter(neutral=185, requirement=181, violation=75)


@pytest.mark.parametrize("text", ["the deck has a title slide", "Slide 2 shows the revenue chart",
                                  "A legend is present on every chart",
                                  "The cover displays the company logo"])
def test_presence_wording_is_a_requirement(text):
    """Issue 26: a hurdle written as what must be there is read backwards by judges: an ERROR, not a warning."""
    assert classify(text) == "requirement"


@pytest.mark.parametrize("text", ["the deck has no title slide", "Slide 2 shows the wrong chart",
                                  "the deck has overlapping text"])
def test_presence_verbs_do_not_hide_a_violation(text):
    assert classify(text) == "violation"
