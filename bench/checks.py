"""Per-kind precision and recall of the deterministic checks on the labelled synthetic decks.

    .venv/bin/python bench/deckgen.py --out /tmp/deckbench
    .venv/bin/python bench/checks.py --decks /tmp/deckbench [--public-venv /tmp/pubck] [--out bench/RESULTS-checks.md]

Runs ``cowork_judge.evidence.build_evidence`` (LibreOffice + PyMuPDF, as in a judge run) on
every deck of ``labels.json`` and compares its findings with the labels.

Unit of scoring: one (deck, slide, check kind, shape name) item. A finding counts with any
confidence (a rubric row decided by a kind fails on any finding of that kind). A finding
matches a labelled item of the same slide and kind when the shape names agree, or when
either side names no shape (page-level kinds: blank pages, glyphs found in the PDF);
``text_overlap`` findings match on either shape of the pair. Duplicate findings of one item
count once.

- precision of a kind = matched findings / findings;
- recall of a kind = labelled items matched by a finding / labelled items;
- clean-slide false-alarm rate = clean slides (no label) with at least one finding of any
  kind / clean slides.

``--public-venv`` also runs the public checkers installed in that venv (overset,
ooxml-integrity, pptx-lint) and scores their findings mapped to our kinds
(:data:`PUBLIC_MAP`); a checker that does not run is reported with its error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

KINDS = ["off_slide", "text_overlap", "text_overflow", "tiny_font", "placeholder_text", "missing_glyph",
         "blank_page"]
BAR = 0.95
"""The issue's bar: precision AND recall ≥ 0.95 per kind, ≤ 1 clean slide in 40 flagged."""


def found_items_ours(build_out: Path, summary) -> dict[str, list[dict]]:
    """Deck file name → findings ``{"check", "slide", "shape", "other"}`` from checks.json."""
    out: dict[str, list[dict]] = {}
    for deck in summary.decks:
        if not deck.checks:
            out[deck.source] = []
            continue
        doc = json.loads((build_out / deck.checks).read_text())
        out[deck.source] = [{"check": f["check"], "slide": f["slide"], "shape": f.get("shape_name"),
                             "other": (f.get("measure") or {}).get("other_shape_name")} for f in doc["findings"]]
    return out


def score(labels: dict, found: dict[str, list[dict]], kinds: list[str]) -> dict:
    """Per-kind tp/fp/fn, precision, recall and the clean-slide false-alarm count.

    ``found`` maps deck file names to findings as :func:`found_items_ours` returns them.
    Findings of kinds outside ``kinds`` are ignored."""
    stats = {k: {"tp": 0, "fp": 0, "fn": 0, "fp_cases": defaultdict(int), "fn_cases": defaultdict(int)}
             for k in kinds}
    clean_total = clean_flagged = 0
    clean_flag_cases: dict[str, int] = defaultdict(int)
    for deck, info in labels["decks"].items():
        findings = [f for f in found.get(deck, []) if f["check"] in kinds]
        for slide_no, slide in info["slides"].items():
            here = [f for f in findings if str(f["slide"]) == slide_no]
            expect = slide["expect"]
            if not expect:
                clean_total += 1
                if here:
                    clean_flagged += 1
                    clean_flag_cases[slide["case"]] += 1
            matched_labels = set()
            seen = set()
            for f in here:
                key = (f["check"], f["shape"], f.get("other"))
                if key in seen:
                    continue
                seen.add(key)
                hit = [i for i, e in enumerate(expect) if e["check"] == f["check"] and _same(e["shape"], f)]
                if hit:
                    matched_labels.update(hit)
                    stats[f["check"]]["tp"] += 1
                else:
                    stats[f["check"]]["fp"] += 1
                    stats[f["check"]]["fp_cases"][slide["case"]] += 1
            for i, e in enumerate(expect):
                if e["check"] in stats and i not in matched_labels:
                    stats[e["check"]]["fn"] += 1
                    stats[e["check"]]["fn_cases"][slide["case"]] += 1
    for k, s in stats.items():
        labelled = s["fn"] + sum(1 for d in labels["decks"].values() for sl in d["slides"].values()
                                 for e in sl["expect"] if e["check"] == k) - s["fn"]
        s["labelled"] = labelled
        s["recall"] = (labelled - s["fn"]) / labelled if labelled else None
        s["precision"] = s["tp"] / (s["tp"] + s["fp"]) if (s["tp"] + s["fp"]) else None
    return {"kinds": stats, "clean_total": clean_total, "clean_flagged": clean_flagged,
            "clean_flag_cases": dict(clean_flag_cases)}


def _same(label_shape: str | None, f: dict) -> bool:
    if label_shape is None or f["shape"] is None:
        return True
    return label_shape in (f["shape"], f.get("other"))


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def table(name: str, result: dict, kinds: list[str]) -> list[str]:
    rows = [f"### {name}", "", "| kind | labelled | TP | FP | FN | precision | recall | meets bar |",
            "|---|---:|---:|---:|---:|---:|---:|---|"]
    for k in kinds:
        s = result["kinds"][k]
        ok = s["precision"] is not None and s["recall"] is not None and s["precision"] >= BAR and s["recall"] >= BAR
        rows.append(f"| {k} | {s['labelled']} | {s['tp']} | {s['fp']} | {s['fn']} | {_fmt(s['precision'])} | "
                    f"{_fmt(s['recall'])} | {'yes' if ok else 'no'} |")
    ct, cf = result["clean_total"], result["clean_flagged"]
    rows += ["", f"Clean slides flagged (any kind): {cf} / {ct} = {cf / ct:.3f} "
                 f"(bar: ≤ 1 in 40 = 0.025) — {'meets' if cf / ct <= 1 / 40 else 'misses'} the bar.", ""]
    misses = [(k, c, n) for k in kinds for c, n in sorted(result["kinds"][k]["fn_cases"].items())]
    extras = [(k, c, n) for k in kinds for c, n in sorted(result["kinds"][k]["fp_cases"].items())]
    if misses:
        rows.append("Missed (kind: case × slides): " + "; ".join(f"{k}: {c} × {n}" for k, c, n in misses))
    if extras:
        rows.append("False findings (kind: case × slides): " + "; ".join(f"{k}: {c} × {n}" for k, c, n in extras))
    rows.append("")
    return rows


# --------------------------------------------------------------------------- public checkers

PUBLIC_MAP = {
    "overset 0.1.0": {"OVS001": "text_overflow", "OVS002": "text_overflow", "OVS003": "text_overlap",
                      "OVS004": "off_slide", "OVS101": "tiny_font", "OVS201": "placeholder_text"},
    "ooxml-integrity 0.8.4": {"PPT001": "text_overflow", "PPT003": "text_overflow", "PPT005": "text_overflow",
                              "PPT004": "off_slide", "PPT006": "text_overlap"},
    "pptx-lint 0.2.0": {"Overflow": "off_slide", "Overlap": "text_overlap", "SmallFont": "tiny_font",
                        "EmptySlide": "blank_page"},
}
"""Public rule codes → our kinds (rules with no counterpart here are left out; read from each
tool's ``--list-rules`` / messages / source). pptx-lint's "Overflow" is a shape past the slide
edge, hence ``off_slide``. Kinds a tool has no rule for score recall 0 with no findings."""
_QUOTED = re.compile(r"'([^']+)'")

PPTX_LINT_RUNNER = """
import json, sys
from pptx import Presentation
from pptx_lint.checker import check_pptx
out = {}
for path in sys.argv[1:]:
    prs = Presentation(path)
    names = [[sh.name for sh in slide.shapes] for slide in prs.slides]
    found = []
    results, _name, _dims = check_pptx(path)
    for res in results:
        n = res["slide_num"]
        for level in ("errors", "warnings", "infos"):
            for item in res[level]:
                shape = None
                detail = item.get("detail", "")
                if detail.startswith("Shape#"):
                    idx = int(detail[6:].split(" ", 1)[0].rstrip(":"))
                    shape = names[n - 1][idx] if idx < len(names[n - 1]) else None
                found.append({"rule": item["type"], "slide": n, "shape": shape})
    out[path.rsplit("/", 1)[-1]] = found
print(json.dumps(out))
"""
"""pptx-lint 0.2.0's CLI does not start on Python 3.11 (an f-string with a backslash, Python
3.12 syntax, in its console reporter), so its checker is called as a library."""


def run_public(tool: str, venv: Path, decks: Path, labels: dict) -> tuple[dict[str, list[dict]] | None, str]:
    """Findings of one public checker mapped to our kinds, or None and the reason it did not run."""
    rules = PUBLIC_MAP[tool]
    found: dict[str, list[dict]] = {}
    paths = [str(decks / d) for d in labels["decks"]]
    try:
        if tool.startswith("pptx-lint"):
            proc = subprocess.run([str(venv / "bin" / "python"), "-c", PPTX_LINT_RUNNER, *paths],
                                  capture_output=True, text=True, timeout=900)
            raw = json.loads(proc.stdout)
            for deck, items in raw.items():
                found[deck] = [{"check": rules[i["rule"]], "slide": i["slide"], "shape": i["shape"], "other": None}
                               for i in items if i["rule"] in rules]
            return found, ""
        for deck, path in zip(labels["decks"], paths):
            if tool.startswith("overset"):
                proc = subprocess.run([str(venv / "bin" / "overset"), path, "--format", "json", "-q"],
                                      capture_output=True, text=True, timeout=900)
                items = [(f.get("code"), f.get("slide"), f.get("message", "")) for r in json.loads(proc.stdout)
                         for f in r.get("findings", [])]
                notes = [n for r in json.loads(proc.stdout) for n in r.get("notes", [])]
                if notes:
                    return None, f"{tool}: {notes[0]}"
            else:
                proc = subprocess.run([str(venv / "bin" / "ooxml-integrity"), "check", "--json", "--fail-on", "info",
                                       path], capture_output=True, text=True, timeout=900)
                items = []
                for f in json.loads(proc.stdout)["files"][0]["findings"]:
                    where = f.get("where", "")
                    slide = int(where.split("/")[0][5:]) if where.startswith("slide") else None
                    items.append((f["code"], slide, f"'{where.split('/', 1)[1]}'" if "/" in where else ""))
            found[deck] = []
            for code, slide, message in items:
                if code in rules:
                    names = _QUOTED.findall(message)
                    found[deck].append({"check": rules[code], "slide": slide, "shape": names[0] if names else None,
                                        "other": names[1] if len(names) > 1 else None})
        return found, ""
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
        return None, f"{tool}: did not run ({type(exc).__name__}: {exc})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", type=Path, required=True, help="folder written by bench/deckgen.py")
    ap.add_argument("--public-venv", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None, help="write the tables (markdown) here")
    ap.add_argument("--json", type=Path, default=None, help="write raw scores here")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.environ.get("BENCH_SRC") or str(Path(__file__).resolve().parents[1] / "src"))
    from cowork_judge.evidence import build_evidence

    labels = json.loads((args.decks / "labels.json").read_text())
    with tempfile.TemporaryDirectory(prefix="bench-checks-") as tmp:
        summary = build_evidence(list(labels["decks"]), Path(tmp), budget_sec=1800, width_px=800, root=args.decks)
        ours = found_items_ours(Path(tmp), summary)
    results = {"cowork_judge.evidence": score(labels, ours, KINDS)}
    notes = []
    if args.public_venv:
        for tool in PUBLIC_MAP:
            got, err = run_public(tool, args.public_venv, args.decks, labels)
            if got is None:
                notes.append(err)
            else:
                results[tool] = score(labels, got, KINDS)
    lines = []
    for name, res in results.items():
        lines += table(name, res, KINDS)
    lines += notes
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=dict), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
