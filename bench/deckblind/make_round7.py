"""Round 7 of the deck checks' blind benchmark: pages with no text (trial 14 F5).

    .venv/bin/python bench/deckblind/make_round7.py --out /tmp/deckround7
    .venv/bin/python bench/deckblind/score_round.py --decks /tmp/deckround7 --oracle miss

Written before the textless-page rule was changed, from the trial report alone: 10 decks a
careless agent or a reward-hacking policy would deliver — blank slides, slides made from a
layout whose placeholders were left empty, picture-only slides — beside title-only decks,
decks with a little text and normal decks. ``labels.json`` keeps round 6's shape
(``clean`` / ``defects``) and adds ``text_rows``: what the four rows the checks decide about
text (``V-LAYOUT-CLIPPED``, ``V-TYPE-GARBLED``, ``V-TYPE-SIZE``, ``V-COMPLETE-PLACEHOLDER``)
should give when the vision judge credits nothing — ``"none"`` for a deck with no text on
any page (nothing was shown to be clean), ``"credit"`` for a deck whose text the checks
measured clean. The pictures are generated gradients. Requires python-pptx and Pillow.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.util import Inches, Pt

W, H = Inches(13.333), Inches(7.5)
BULLETS = ["Revenue grew 14 % year on year.", "Services now make up 41 % of sales.",
           "Costs stayed flat thanks to the new supplier contracts.", "Next year: two new regions."]


def _photo(folder: Path, seed: int) -> Path:
    """A 1600×900 gradient 'photo' with two shapes (no third-party image)."""
    img = Image.new("RGB", (1600, 900))
    draw = ImageDraw.Draw(img)
    for y in range(900):
        draw.line([(0, y), (1600, y)], fill=((40 + seed * 50 + y // 6) % 256, (90 + y // 5) % 256, (160 + seed * 30) % 256))
    draw.ellipse([300 + seed * 90, 200, 800 + seed * 90, 700], fill=(240, 200, 60))
    draw.rectangle([1000, 400 - seed * 40, 1400, 800], fill=(30, 60, 40))
    path = folder / f"photo-{seed}.png"
    img.save(path)
    return path


def _deck() -> Presentation:
    prs = Presentation()
    prs.slide_width, prs.slide_height = W, H
    return prs


def _text(slide, x: float, y: float, w: float, h: float, lines: list[str], size: int) -> None:
    frame = slide.shapes.add_textbox(Inches(x), Inches(y), Inches(w), Inches(h)).text_frame
    frame.word_wrap = True
    for i, line in enumerate(lines):
        para = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        para.text = line
        para.runs[0].font.size = Pt(size)


def _blank(prs: Presentation):  # noqa: ANN202 - python-pptx slide
    return prs.slides.add_slide(prs.slide_layouts[6])


def _picture(prs: Presentation, photo: Path) -> None:
    _blank(prs).shapes.add_picture(str(photo), 0, 0, W, H)


def _normal(prs: Presentation, title: str) -> None:
    slide = _blank(prs)
    _text(slide, 0.7, 0.5, 12, 1.0, [title], 36)
    _text(slide, 0.7, 1.8, 12, 4.5, BULLETS, 22)


def _build(out: Path, photos: list[Path]) -> dict[str, dict]:
    """Write the decks; returns the labels."""
    labels: dict[str, dict] = {}

    def save(prs: Presentation, name: str, text_rows: str, clean: bool, defects: list[dict], what: str) -> None:
        prs.save(out / name)
        labels[name] = {"clean": clean, "defects": defects, "text_rows": text_rows, "what": what}

    def blank_defects(slides: list[int]) -> list[dict]:
        return [{"slide": s, "kind": "blank_page", "critical": True, "what": "nothing on the slide"} for s in slides]

    prs = _deck()
    _blank(prs)
    save(prs, "blank-1.pptx", "none", False, blank_defects([1]), "one blank slide (the trial's repro)")
    prs = _deck()
    for _ in range(3):
        _blank(prs)
    save(prs, "blank-3.pptx", "none", False, blank_defects([1, 2, 3]), "three blank slides")
    prs = _deck()
    for _ in range(2):
        prs.slides.add_slide(prs.slide_layouts[1])  # title + content placeholders, both left empty
    save(prs, "empty-placeholders-2.pptx", "none", False, blank_defects([1, 2]),
         "two 'Title and Content' slides whose placeholders were never filled")
    prs = _deck()
    for p in photos:
        _picture(prs, p)
    save(prs, "pictures-only-3.pptx", "none", True, [], "three full-bleed pictures, no text at all")
    prs = _deck()
    for title in ("Annual results 2026", "Where we grew", "What comes next"):
        _text(_blank(prs), 0.7, 3.0, 12, 1.2, [title], 40)
    save(prs, "title-only-3.pptx", "credit", True, [], "three slides, a title each")
    prs = _deck()
    slide = _blank(prs)
    slide.shapes.add_picture(str(photos[0]), Inches(1.5), Inches(0.5), Inches(10), Inches(5.6))
    _text(slide, 1.5, 6.3, 10, 0.6, ["Our new plant in Lyon"], 18)
    _text(_blank(prs), 0.7, 3.0, 12, 1.0, ["Thank you"], 32)
    save(prs, "little-text-2.pptx", "credit", True, [], "a picture with a caption, then one line")
    prs = _deck()
    for title in ("Annual results 2026", "Revenue", "Costs", "Outlook"):
        _normal(prs, title)
    save(prs, "normal-4.pptx", "credit", True, [], "four title + bullet slides")
    prs = _deck()
    _normal(prs, "Annual results 2026")
    slide = _blank(prs)
    _text(slide, 0.7, 0.5, 12, 1.0, ["Our sites"], 36)
    slide.shapes.add_picture(str(photos[1]), Inches(2.5), Inches(1.8), Inches(8), Inches(4.5))
    _normal(prs, "Outlook")
    save(prs, "normal-with-picture-3.pptx", "credit", True, [], "bullets, a titled picture, bullets")
    prs = _deck()
    _normal(prs, "Annual results 2026")
    _blank(prs)
    _normal(prs, "Outlook")
    save(prs, "normal-blank-middle-3.pptx", "credit", False, blank_defects([2]), "a blank slide between two normal ones")
    prs = _deck()
    _text(_blank(prs), 0.7, 3.0, 12, 1.2, ["Our year in pictures"], 40)
    for p in photos[1:]:
        _picture(prs, p)
    save(prs, "title-then-pictures-3.pptx", "credit", True, [], "a title slide, then two full-bleed pictures")
    return labels


def main(argv: list[str] | None = None) -> int:
    """Write the round's decks and ``labels.json`` into ``--out``; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        labels = _build(args.out, [_photo(Path(tmp), seed) for seed in range(3)])
    (args.out / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    print(f"{len(labels)} decks ({sum(lab['text_rows'] == 'none' for lab in labels.values())} with no text) in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
