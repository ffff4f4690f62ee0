"""Stored vs drawn text sizes: what the file (our structure reader, and python-pptx) says a
frame's text size is, against the smallest body span LibreOffice drew for it in the PDF.

    .venv/bin/python bench/drawn_sizes.py selftests/fixtures/decks/*.pptx [--out /tmp/sizes.json]

Runs ``build_evidence`` (LibreOffice + PyMuPDF, as in a judge run) on the decks and records,
for every text frame whose rendered lines were matched, its autofit, the smallest non-script
stored run size (``fontScale`` included), the smallest explicit size python-pptx reports for
its runs (None when every run inherits), and the smallest drawn body span. Prints one line per
frame whose drawn size differs from the stored one by more than 0.5 pt, then a summary per
autofit kind; and the ``tiny_font`` findings the checks wrote. Used for issue 35: whether
judging shrink-to-fit frames at the drawn size could flag ordinary text (it cannot: only
``normAutofit`` frames are judged at the drawn size; ordinary frames were already).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from cowork_judge.evidence import build_evidence, checks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("decks", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, help="write every frame's row as JSON here")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    real = checks.tiny_findings

    def spy(slide, page, assigned, w_pt, h_pt):  # record every frame the tiny-font check looks at
        for s in slide.shapes:
            lines = [ln for ln in assigned.get((slide.index, s.id), []) if ln.sizes_pt]
            if s.text is None or not lines:
                continue
            stored = [r.size_pt for p in s.text.paragraphs for r in p.runs if r.text.strip() and r.size_pt and not r.script]
            rows.append({"deck": current[0], "slide": slide.index, "shape_id": s.id, "shape": s.name,
                         "autofit": s.text.autofit, "font_scale": s.text.font_scale,
                         "stored_pt": min(stored) if stored else None,
                         "drawn_pt": round(min(min(ln.sizes_pt) for ln in lines), 2)})
        return real(slide, page, assigned, w_pt, h_pt)

    checks.tiny_findings = spy
    current = [""]
    tiny: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for deck in args.decks:
            current[0] = deck.name
            out = Path(tmp) / deck.name
            summary = build_evidence([deck.name], out, budget_sec=600, width_px=320, root=deck.parent)
            for d in summary.decks:
                if d.checks:
                    found = json.loads((out / d.checks).read_text())["findings"]
                    tiny += [f"{deck.name} slide {f['slide']} {f['shape_name']!r}: {f['message']} "
                             f"(measured {f['measured']})" for f in found if f["check"] == "tiny_font"]
    _pptx_sizes(rows, {d.name: d for d in args.decks})
    _report(rows, tiny)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


def _pptx_sizes(rows: list[dict], decks: dict[str, Path]) -> None:
    """Each row's smallest explicit run size as python-pptx reads it (points, no fontScale)."""
    import pptx

    by_deck: dict[str, dict[tuple[int, str], float | None]] = {}
    for name, path in decks.items():
        try:
            prs = pptx.Presentation(str(path))
        except Exception:  # noqa: BLE001 - a deck python-pptx cannot open has no python-pptx sizes
            continue
        sizes: dict[tuple[int, str], float | None] = {}
        for i, slide in enumerate(prs.slides, start=1):
            for shape in slide.shapes:
                if not shape.has_text_frame:
                    continue
                pts = [r.font.size.pt for p in shape.text_frame.paragraphs for r in p.runs
                       if r.text.strip() and r.font.size is not None]
                sizes[(i, str(shape.shape_id))] = min(pts) if pts else None
        by_deck[name] = sizes
    for r in rows:
        r["python_pptx_pt"] = by_deck.get(r["deck"], {}).get((r["slide"], r["shape_id"]))


def _report(rows: list[dict], tiny: list[str]) -> None:
    print(f"{len(rows)} frames with matched rendered lines")
    for kind in ("none", "shape", "norm"):
        diffs = [r["drawn_pt"] - r["stored_pt"] for r in rows if r["autofit"] == kind and r["stored_pt"]]
        if diffs:
            off = sum(1 for d in diffs if abs(d) > 0.5)
            print(f"autofit={kind}: {len(diffs)} frames, drawn - stored: median {statistics.median(diffs):+.2f} pt, "
                  f"min {min(diffs):+.2f}, max {max(diffs):+.2f}; {off} differ by more than 0.5 pt")
    for r in rows:
        if r["stored_pt"] and abs(r["drawn_pt"] - r["stored_pt"]) > 0.5:
            print(f"  {r['deck']} slide {r['slide']} {r['shape']!r} autofit={r['autofit']} scale={r['font_scale']}: "
                  f"stored {r['stored_pt']} pt, python-pptx {r['python_pptx_pt']}, drawn {r['drawn_pt']} pt")
    print(f"tiny_font findings: {len(tiny)}")
    for line in tiny:
        print("  " + line)


if __name__ == "__main__":
    sys.exit(main())
