"""Benchmark: ``lint-rubric --batch`` over many generated instances (SPEC §21 "lint time over many
instances"), and the hurdle-wording heuristic's rates on the fixture rubrics.

Generates `--instances` packages (default 1000; seeded) shaped like a real family: 8–40 rows
each (code gates, agentic rows with closed ``depends_on``, graded rows, a hurdle, a
deduction, some workflow rows), a task.toml, a pinned test.sh and an instruction. Then,
interleaved over `--repeat` rounds (median reported):

- bare: ``json.load`` of every rubric.json (the floor: reading the rubrics at all);
- lint: `discover` + `lint_instance` on every instance + family checks, in this process;
- cli: ``lint-rubric --batch DIR`` end to end (interpreter start and imports included).

Reports instances/second and the ratio lint / bare. ``--polarity`` prints how the
hurdle-wording heuristic classifies every fixture criterion (a violation-worded HealthBench
deduction that gets flagged is a false positive), then R026/R027 (a weight that contradicts the
wording, trial 22 P-1) on the honest fixture rows (false positives) and on the blind set
``bench/polarity/blind_trial22.json`` (recall). The fixtures default to ``selftests/fixtures``.

Usage: ``python bench/lint.py [--instances 1000] [--repeat 3] [--seed 7] [--polarity]
[--fixtures selftests/fixtures] [--out FILE.md]``
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from cowork_judge.lint import batch
from cowork_judge.lint.instance import lint_instance
from cowork_judge.lint.polarity import classify, fault_cues, reads_as_requirement

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "selftests" / "fixtures"
TOML = """version = "1.0"

[verifier]
timeout_sec = 2280

[verifier.env]
JUDGE_API_KEY = "${JUDGE_API_KEY}"
JUDGE_BASE_URL = "${JUDGE_BASE_URL}"
JUDGE_MODEL = "${JUDGE_MODEL:-gpt-5.5}"
JUDGE_CONCURRENCY = "${JUDGE_CONCURRENCY:-2}"
JUDGE_DEADLINE = "${JUDGE_DEADLINE:-1800}"
COWORK_JUDGE_VERSION = "${COWORK_JUDGE_VERSION:-0.1.0}"
COWORK_JUDGE_VERSION_SOURCE = "${COWORK_JUDGE_VERSION_SOURCE:-placeholder}"
COWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-workflow}"
"""
SH = """#!/usr/bin/env bash
set -u
version="${COWORK_JUDGE_VERSION:-0.1.0}"
extras="${COWORK_JUDGE_EXTRAS:-}"
python3 -m pip install -q "cowork-judge${extras:+[$extras]}==${version}" && exec cowork-judge run
"""


def rubric(rng: random.Random, n_rows: int) -> dict[str, Any]:
    """A clean rubric of `n_rows` rows with closed gates."""
    rows: list[dict[str, Any]] = [
        {"id": "C-LOCATE", "description": "Exactly one deck is among the deliverables.", "weight": 1,
         "judge_method": "code", "code_method_name": "locate_deck", "code_method_params": {"prefer": ["pptx"]}},
        {"id": "C-OPEN", "description": "The deck opens.", "weight": 1, "depends_on": ["C-LOCATE"],
         "judge_method": "code", "code_method_name": "check_deck_openable"},
        {"id": "H-MISSING", "description": "The deliverable is missing: no deck in output/.", "weight": 0, "hurdle": True},
        {"id": "N-TYPOS", "description": "The deck has spelling mistakes.", "weight": -1},
        {"id": "W-LEGIBLE", "description": "The slides are legible.", "weight": 2, "judge_method": "workflow",
         "workflow_name": "stub", "type": "gradient", "levels": {"1": "all", "0.5": "half", "0": "none"},
         "depends_on": ["C-LOCATE", "C-OPEN"]},
    ]
    gates = ["C-LOCATE", "C-OPEN"]
    for i in range(n_rows - len(rows)):
        row: dict[str, Any] = {"id": f"A-{i:03d}", "description": f"The deck covers topic {i} with evidence.",
                               "weight": rng.choice([1, 2, 3, 4]), "tag": rng.choice(["content", "layout", "data"])}
        if rng.random() < 0.2:
            row.update(type="gradient", levels={"1": "fully", "0.5": "partly", "0": "not at all"})
        if rng.random() < 0.1:
            row.update(judge_method="workflow", workflow_name="stub", type="gradient",
                       levels={"1": "all pages", "0.55": "most", "0": "none"})
        row["depends_on"] = list(gates)
        if rng.random() < 0.3 and i > 0:  # gated on an earlier content row too, listed closed
            row["depends_on"] = [f"A-{rng.randrange(i):03d}", *gates]
            parent = next(r for r in rows if r["id"] == row["depends_on"][0])
            for dep in parent.get("depends_on", []):  # the parent's list is closed: adding it closes this one
                if dep not in row["depends_on"]:
                    row["depends_on"].append(dep)
        rows.append(row)
    return {"rubrics": rows}


def generate(root: Path, count: int, seed: int) -> list[Path]:
    """`count` instances under `root`/family/…, returns their tests dirs."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        tests = root / "family" / f"inst-{n:05d}" / "tests"
        tests.mkdir(parents=True)
        (tests / "rubric.json").write_text(json.dumps(rubric(rng, rng.randint(8, 40)), indent=2))
        (tests / "test.sh").write_text(SH)
        (tests / "judge_instruction.md").write_text("Judge the deck in output/ against each row.\n")
        (tests / "task_prompt.md").write_text(f"# Task {n}\n\nBuild a deck.\n")
        (tests.parent / "task.toml").write_text(TOML)
        out.append(tests)
    return out


def bare(tests_dirs: list[Path]) -> float:
    t0 = time.perf_counter()
    for tests in tests_dirs:
        with open(tests / "rubric.json", encoding="utf-8") as handle:
            json.load(handle)
    return time.perf_counter() - t0


def lint_all(root: Path) -> tuple[float, int]:
    t0 = time.perf_counter()
    entries, problems = batch.discover(root)
    reports, families = batch.run(entries, lambda e: lint_instance(e.tests_dir, display=e.display))
    findings = len(problems) + sum(len(r.findings) for r in reports) + sum(len(f.findings) for f in families)
    return time.perf_counter() - t0, findings


def cli(root: Path) -> float:
    script = Path(sys.executable).with_name("lint-rubric")
    t0 = time.perf_counter()
    proc = subprocess.run([str(script), "--batch", str(root)], capture_output=True, text=True, timeout=600, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"lint-rubric failed on the generated batch:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return elapsed


def polarity(fixtures: Path) -> str:
    """Markdown table: how the heuristic reads each fixture corpus (as weight-0 hurdles)."""
    from cowork_judge.authoring.importers import paperbench

    corpora: dict[str, list[str]] = {"HealthBench deductions (violation-worded)": [], "HealthBench positive rows": [],
                                     "DevAI requirements + preferences": [], "PaperBench leaves": []}
    for path in sorted((fixtures / "healthbench").glob("*.json")):
        for item in json.loads(path.read_text())["rubrics"]:
            key = "HealthBench deductions (violation-worded)" if item["points"] < 0 else "HealthBench positive rows"
            corpora[key].append(item["criterion"])
    for path in sorted((fixtures / "devai" / "instances").glob("*.json")):
        task = json.loads(path.read_text())
        corpora["DevAI requirements + preferences"] += [r["criteria"] for r in task["requirements"] + task["preferences"]]
    for path in sorted((fixtures / "paperbench").glob("*.json")):
        corpora["PaperBench leaves"] += [r["description"] for r in paperbench.flatten(json.loads(path.read_text()))]
    lines = ["| corpus | rows | R020 ERROR (requirement wording) | R021 WARN (no violation wording) | not flagged |",
             "|---|---|---|---|---|"]
    for name, texts in corpora.items():
        c = Counter(classify(t) for t in texts)
        n = len(texts) or 1
        lines.append(f"| {name} | {n} | {c['requirement']} ({c['requirement'] / n:.1%}) | {c['neutral']} "
                     f"({c['neutral'] / n:.1%}) | {c['violation']} ({c['violation'] / n:.1%}) |")
    return "\n".join(lines)


BLIND_T22 = ROOT / "bench" / "polarity" / "blind_trial22.json"
BLIND_T34 = ROOT / "bench" / "polarity" / "blind_trial34_claims.json"
"""Trial 34 P-1's blind round: hurdles with claim verbs, worded backwards ("does not claim …") or as the fault."""


def row_wording(fixtures: Path) -> str:
    """Markdown table: R026 (positive row worded as a fault) and R027 (deduction worded as a requirement)
    on the honest fixture rows (flags are false positives) and on the trial 22 blind set (flags are hits)."""
    from cowork_judge.authoring.importers import paperbench

    positive: list[str] = []
    deductions: list[str] = []
    for path in [*sorted((fixtures / "healthbench").glob("*.json"))]:
        for item in json.loads(path.read_text())["rubrics"]:
            (deductions if item["points"] < 0 else positive).append(item["criterion"])
    for path in sorted((fixtures / "devai" / "instances").glob("*.json")):
        task = json.loads(path.read_text())
        positive += [r["criteria"] for r in task["requirements"] + task["preferences"]]
    for path in sorted((fixtures / "paperbench").glob("*.json")):
        positive += [r["description"] for r in paperbench.flatten(json.loads(path.read_text()))]
    for path in (ROOT / "tests" / "rubric.json", ROOT / "examples" / "healthbench-bbd759b4" / "tests" / "rubric.json"):
        for row in json.loads(path.read_text())["rubrics"]:
            weight = float(row.get("weight", row.get("points", 0)))
            if not row.get("hurdle") and row.get("judge_method") != "code" and weight != 0:
                (positive if weight > 0 else deductions).append(row.get("description") or row["criterion"])
    blind = json.loads(BLIND_T22.read_text())
    sets = [("R026", "honest positive rows (HealthBench, DevAI, PaperBench, demo deck, example)", positive, fault_cues),
            ("R026", "blind: fault-worded positive rows", blind["fault_positive"], fault_cues),
            ("R027", "honest deductions (HealthBench, demo deck, example)", deductions, reads_as_requirement),
            ("R027", "blind: requirement-worded deductions", blind["requirement_deduction"], reads_as_requirement)]
    claims = json.loads(BLIND_T34.read_text())  # a hurdle is flagged (R020/R021) unless read as a violation
    backwards = lambda t: classify(t) != "violation"  # noqa: E731
    sets += [("R020/R021", "blind (trial 34): claim-verb hurdles worded backwards", claims["requirement"], backwards),
             ("R020/R021", "blind (trial 34): claim-verb hurdles worded as the fault (false alarms)", claims["fault"], backwards),
             ("R027", "blind (trial 34): the backwards ones as deductions", claims["requirement"], reads_as_requirement),
             ("R027", "blind (trial 34): the fault-worded ones as deductions (false alarms)", claims["fault"], reads_as_requirement)]
    lines = ["| check | rows | flagged |", "|---|---|---|"]
    for code, name, texts, rule in sets:
        flagged = sum(bool(rule(t)) for t in texts)
        lines.append(f"| {code} | {name}: {len(texts)} | {flagged} ({flagged / max(len(texts), 1):.1%}) |")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--polarity", action="store_true", help="also print the heuristic's rates on the fixtures")
    p.add_argument("--fixtures", type=Path, default=FIXTURES)
    p.add_argument("--out", type=Path, help="also write the report (Markdown) here")
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-lint-"))
    try:
        tests_dirs = generate(work, args.instances, args.seed)
        rows = sum(len(json.loads((t / "rubric.json").read_text())["rubrics"]) for t in tests_dirs)
        _, findings = lint_all(work)  # warm-up: imports, page cache, workflow loader
        if findings:
            raise SystemExit(f"the generated instances are not clean: {findings} findings")
        bare_s, lint_s, cli_s = [], [], []
        for _ in range(args.repeat):
            bare_s.append(bare(tests_dirs))
            lint_s.append(lint_all(work)[0])
            cli_s.append(cli(work))
        b, li, c = statistics.median(bare_s), statistics.median(lint_s), statistics.median(cli_s)
        n = args.instances
        report = [
            f"# lint-rubric --batch: {n} generated instances ({rows} rows, seed {args.seed}, median of {args.repeat})",
            "",
            "| what | seconds | instances/s | ratio to bare json.load |",
            "|---|---|---|---|",
            f"| bare `json.load` of every rubric.json | {b:.3f} | {n / b:,.0f} | 1 |",
            f"| lint in process (discover + every check + family checks) | {li:.3f} | {n / li:,.0f} | {li / b:.1f} |",
            f"| `lint-rubric --batch` end to end (interpreter + imports) | {c:.3f} | {n / c:,.0f} | {c / b:.1f} |",
        ]
        if args.polarity:
            report += ["", "## Hurdle-wording heuristic on the fixture rubrics (every criterion read as a weight-0 hurdle)",
                       "", polarity(args.fixtures), "",
                       "## Row wording against weight (R026, R027): honest rows (false positives) and the trial 22 "
                       "blind set (recall)", "", row_wording(args.fixtures)]
        text = "\n".join(report) + "\n"
        sys.stdout.write(text)
        if args.out:
            args.out.write_text(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
