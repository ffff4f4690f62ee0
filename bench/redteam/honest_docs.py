"""The honest corpus of the red-team benchmark, made into the files an agent would deliver.

``bench/redteam/honest/`` holds documents written for this corpus: security write-ups,
red-team reports, research summaries, postmortems, course handouts and policies that quote
attacks as their subject, and documents that use grading vocabulary for a purpose of their
own (a marking rubric, a review checklist, judging guidelines, an API reference with
``"hit": true`` fields, an autograder's README). ``tasks.json`` gives each the task prompt it
answers. A source named ``<name>.pptx.md``, ``<name>.pdf.md`` or ``<name>.docx.md`` is built
into that format (committed generator, no binaries in the repository): slides separated by
``---`` with ``# title``, ``- bullets`` and ``Notes:`` lines; PDF and DOCX one paragraph per
blank-line-separated block.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

HONEST = Path(__file__).resolve().parent / "honest"
ROUND_DIRS = sorted(Path(__file__).resolve().parent.glob("round*/honest"))
"""Later rounds' honest documents (``round<N>/honest/`` with its own ``tasks.json``, where a
document may also give its own rubric: five row descriptions, R1–R4 and the penalty N1)."""


@dataclass(frozen=True)
class HonestDoc:
    """One honest deliverable: its file name, the built file, its task prompt and kind."""

    name: str
    path: Path
    task: str
    kind: str
    set: str = ""
    rubric: tuple[str, ...] = ()
    """``""`` (the rules were tuned on it), ``held-out`` (written after issue 27's discourse rules
    were tuned), ``round3`` (written before the round-3 rule changes, kept out of their tuning),
    ``user-trial`` (a user trial's document, tuned on), ``round4`` (written after round 3's rule
    changes, measured once)."""

    @property
    def held_out(self) -> bool:
        """Written after the rules it is measured against were tuned (not tuned on)."""
        return self.set in ("held-out", "round3", "round4")


def _deck(source: str, path: Path) -> None:
    from pptx import Presentation

    prs = Presentation()
    for block in source.split("\n---\n"):
        lines = [ln for ln in block.strip().splitlines() if ln.strip()]
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        title = next((ln[2:] for ln in lines if ln.startswith("# ")), "")
        bullets = [ln[2:] for ln in lines if ln.startswith("- ")]
        notes = [ln[len("Notes:"):].strip() for ln in lines if ln.startswith("Notes:")]
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0] if bullets else ""
        for b in bullets[1:]:
            body.add_paragraph().text = b
        if notes:
            slide.notes_slide.notes_text_frame.text = "\n".join(notes)
    prs.save(path)


def _pdf(source: str, path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    page, y = doc.new_page(), 56.0
    for para in [p.strip() for p in source.split("\n\n") if p.strip()]:
        text = " ".join(para.split())
        while True:
            rect = pymupdf.Rect(56, y, page.rect.width - 56, page.rect.height - 56)
            left = page.insert_textbox(rect, text, fontsize=10.5, fontname="helv")
            if left >= 0:
                y = page.rect.height - 56 - left + 8
                break
            page, y = doc.new_page(), 56.0
    doc.save(path)
    doc.close()


def _docx(source: str, path: Path) -> None:
    paragraphs = "".join(f'<w:p><w:r><w:t xml:space="preserve">{escape(" ".join(p.split()))}</w:t></w:r></w:p>'
                         for p in source.split("\n\n") if p.strip())
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'))
        zf.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            'relationships/officeDocument" Target="word/document.xml"/></Relationships>'))
        zf.writestr("word/document.xml", (
            '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
            f'wordprocessingml/2006/main"><w:body>{paragraphs}</w:body></w:document>'))


BUILDERS = {".pptx": _deck, ".pdf": _pdf, ".docx": _docx}


def honest_documents(out: Path) -> list[HonestDoc]:
    """Every honest document as a deliverable file under `out` (built when its source says so)."""
    out.mkdir(parents=True, exist_ok=True)
    docs = []
    for folder in (HONEST, *ROUND_DIRS):
        docs += _documents(folder, out)
    return docs


def _documents(folder: Path, out: Path) -> list[HonestDoc]:
    tasks = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))["documents"]
    docs = []
    for name, meta in sorted(tasks.items()):
        source = (folder / name).read_text(encoding="utf-8")
        stem = name.removesuffix(".md")
        build = BUILDERS.get(Path(stem).suffix)
        if build is None:
            target = folder / name
        else:
            target = out / stem
            build(source, target)
        docs.append(HonestDoc(target.name, target, meta["task"], meta["kind"], meta.get("set", ""),
                              tuple(meta.get("rubric", ()))))
    return docs
