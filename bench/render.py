"""Benchmark: our deck rendering vs. bare ``soffice --convert-to pdf`` + PyMuPDF (SPEC §21).

For every fixture deck LibreOffice can convert, in the same run and interleaved
(ours, bare, ours, bare, …; median of ``--repeat`` runs after one warm-up each):

- conversion: ``evidence.render.soffice_to_pdf`` (private profile copied from a per-process
  seed, hidden slides exported) vs. bare ``soffice --headless --convert-to pdf`` with one
  warm persistent profile;
- raster: ``evidence.render.pdf_to_pngs`` vs. a bare PyMuPDF loop, same width;
- full: ``build_evidence`` on the deck (sniff + structure + render + checks);
- structure: ``extract_structure`` on the largest fixture (most uncompressed XML).

Usage: ``python bench/render.py [--decks DIR] [--repeat 3] [--width-px 1600] [--out FILE.md]``
Target (issue): conversion ratio ≤ 1.15.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from cowork_judge.evidence import build_evidence, probe_capabilities, sniff_deck
from cowork_judge.evidence.render import pdf_to_pngs, soffice_to_pdf
from cowork_judge.evidence.structure import extract_structure
from cowork_judge._util.procs import run_command

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DECKS = ROOT / "selftests" / "fixtures" / "decks"


def bare_convert(soffice: str, deck: Path, out: Path, home: Path) -> float:
    t0 = time.perf_counter()
    run_command([soffice, "--headless", "--convert-to", "pdf", "--outdir", str(out), str(deck)],
                timeout_sec=300, env={**os.environ, "HOME": str(home)})
    elapsed = time.perf_counter() - t0
    if not (out / (deck.stem + ".pdf")).is_file():
        raise RuntimeError(f"bare soffice produced no PDF for {deck.name}")
    return elapsed


def bare_raster(pdf: Path, out: Path, width_px: int) -> float:
    import pymupdf

    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    with pymupdf.open(pdf) as doc:
        for i, page in enumerate(doc, start=1):
            zoom = width_px / page.rect.width
            page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False).save(out / f"{i}.png")
    return time.perf_counter() - t0


def ours(soffice: str, version, deck: Path, kind: str, work: Path, width_px: int) -> tuple[float, float, Path]:
    t0 = time.perf_counter()
    res = soffice_to_pdf(deck, kind, work, soffice=soffice, timeout_sec=300, version=version)
    conv = time.perf_counter() - t0
    if res.pdf is None:
        raise RuntimeError(f"our conversion failed for {deck.name}: {res.reason}")
    t1 = time.perf_counter()
    pdf_to_pngs(res.pdf, work / "png", width_px=width_px, deadline=time.monotonic() + 300)
    return conv, time.perf_counter() - t1, res.pdf


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", type=Path, default=DEFAULT_DECKS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--width-px", type=int, default=1600)
    ap.add_argument("--out", type=Path, help="write the markdown section here")
    args = ap.parse_args(argv)
    caps = probe_capabilities()
    if not (caps.soffice.available and caps.pymupdf.available):
        print(f"bench needs soffice and PyMuPDF: {caps.soffice.reason or caps.pymupdf.reason}", file=sys.stderr)
        return 2
    soffice, version = caps.soffice.path, caps.soffice.version_tuple()
    convertible = ("ok", "ok_strict", "ok_legacy_ppt")
    decks = [(p, s) for p in sorted(args.decks.iterdir()) if (s := sniff_deck(p)).status in convertible]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
        tmp = Path(tmp)
        home = tmp / "bare-home"
        home.mkdir()
        warm = decks[0][0]
        bare_convert(soffice, warm, tmp / "warm-bare", home)           # bare: create its profile
        ours(soffice, version, warm, decks[0][1].kind, tmp / "warm-ours", args.width_px)  # ours: create the seed
        n = 0
        for deck, sniff in decks:
            o_conv, o_rast, b_conv, b_rast, full = [], [], [], [], []
            for _ in range(args.repeat):
                n += 1
                c, r, _pdf = ours(soffice, version, deck, sniff.kind, tmp / f"o{n}", args.width_px)
                o_conv.append(c)
                o_rast.append(r)
                b_conv.append(bare_convert(soffice, deck, tmp / f"b{n}", home))
                b_rast.append(bare_raster(tmp / f"b{n}" / (deck.stem + ".pdf"), tmp / f"b{n}" / "png", args.width_px))
                t0 = time.perf_counter()
                build_evidence([deck], tmp / f"f{n}", budget_sec=600, width_px=args.width_px, capabilities=caps)
                full.append(time.perf_counter() - t0)
            med = statistics.median
            rows.append((deck.name, med(o_conv), med(b_conv), med(o_rast), med(b_rast), med(full)))
            print(f"{deck.name[:50]:50s} conv {med(o_conv):6.2f}/{med(b_conv):6.2f}  "
                  f"raster {med(o_rast):5.2f}/{med(b_rast):5.2f}  full {med(full):6.2f}", flush=True)
    largest = max((p for p, s in decks if s.container == "zip"),
                  key=lambda p: sum(i.file_size for i in zipfile.ZipFile(p).infolist()))
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        res = extract_structure(largest, strict=False)
        times.append(time.perf_counter() - t0)
    md = report(rows, largest, len(res.slides), statistics.median(times), args, caps)
    print(md)
    if args.out:
        args.out.write_text(md, encoding="utf-8")
    return 0


def report(rows, largest: Path, slides: int, struct_sec: float, args, caps) -> str:
    oc, bc = sum(r[1] for r in rows), sum(r[2] for r in rows)
    orr, br = sum(r[3] for r in rows), sum(r[4] for r in rows)
    full = sum(r[5] for r in rows)
    ratios = [r[1] / r[2] for r in rows]
    lines = [
        "### Rendering benchmark (`bench/render.py`)",
        "",
        f"{len(rows)} fixture decks LibreOffice converts, median of {args.repeat} interleaved runs each, "
        f"PNG width {args.width_px} px; {caps.soffice.version}, PyMuPDF {caps.pymupdf.version}, "
        f"{os.cpu_count()} CPUs. Ratios are ours / bare (`soffice --headless --convert-to pdf` + a PyMuPDF loop).",
        "",
        "| measure | ours (s) | bare (s) | ratio |",
        "|---|---:|---:|---:|",
        f"| conversion, sum over decks | {oc:.2f} | {bc:.2f} | **{oc / bc:.3f}** |",
        f"| conversion, per-deck ratio median (min–max) | | | {statistics.median(ratios):.3f} ({min(ratios):.3f}–{max(ratios):.3f}) |",
        f"| raster, sum over decks | {orr:.2f} | {br:.2f} | {orr / br:.3f} |",
        f"| conversion + raster | {oc + orr:.2f} | {bc + br:.2f} | {(oc + orr) / (bc + br):.3f} |",
        f"| full `build_evidence` (sniff+structure+render+checks) | {full:.2f} | {bc + br:.2f} | {full / (bc + br):.3f} |",
        "",
        f"Structure extraction of the largest fixture (`{largest.name}`, {slides} slides, "
        f"{sum(i.file_size for i in zipfile.ZipFile(largest).infolist()) / 1e6:.1f} MB uncompressed): "
        f"**{struct_sec:.3f} s** (median of 5).",
        "",
        "<details><summary>per deck (s): conversion ours/bare, raster ours/bare, full</summary>",
        "",
        "| deck | conv ours | conv bare | raster ours | raster bare | full |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {r[0]} | {r[1]:.2f} | {r[2]:.2f} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.2f} |" for r in rows]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
