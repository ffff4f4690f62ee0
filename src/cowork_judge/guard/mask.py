"""Masking what the guard flagged, for the confirmation re-judging (issue 35).

`mask_delivery` writes a copy of the delivery in which every span a flagging finding stands
on is replaced by `MASK` (the judge is told text was removed there), so the judge can judge
the rows a second time without the flagged text. A span is:

- in a text file or the final message: the block of lines around the finding's line (the
  paragraph, list item or comment it belongs to: non-blank lines up to a blank one), every
  line of it replaced, so line numbers stay;
- a flagged file name: the file is delivered under a neutral name (``masked-<n><suffix>``);
- in a deck: the speaker notes of the slide (notes findings), the alternative texts of the
  slide (alt-text findings), or the text runs of the slide whose text the finding's excerpt
  contains (or that contain it); when no run matches, every run of that slide.

PDF, DOCX and XLSX findings cannot be masked here: `MaskedDelivery.unmaskable` names them and
the caller treats the flag as confirmed (the reward falls as before confirmation existed).
"""

from __future__ import annotations

import re
import shutil
import zipfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from cowork_judge.core.findings import Finding
from cowork_judge.guard.gather import DECK_SUFFIXES, PDF_SUFFIXES, SHEET_SUFFIXES, WORD_SUFFIXES
from cowork_judge.guard.scan import comparable

MASK = "[text removed here by the judge's guard: it was flagged as addressed to the evaluator]"
"""What stands where a flagged span was."""
_NOTES_RULE = re.compile(r"^hidden:notes/")
_AT = re.compile(r"(<a:t(?:\s[^>]*)?>)([^<]*)(</a:t>)")
_DESCR = re.compile(r'(\sdescr=")([^"]*)(")')


@dataclass
class MaskedDelivery:
    """The delivery with the flagged spans masked.

    Attributes:
        files: (relative name, path) of every deliverable as the judge should read it now
            (masked copies, or the originals when nothing in them was flagged).
        final_message: the final message with its flagged blocks masked.
        spans: spans masked.
        masked_files: relative names (as delivered) of the files that were changed or renamed.
        message_masked: the final message was changed.
        unmaskable: relative names of flagged files this module cannot mask (PDF, DOCX, XLSX,
            an unreadable deck).
    """

    files: list[tuple[str, Path]]
    final_message: str | None
    spans: int = 0
    masked_files: list[str] = field(default_factory=list)
    message_masked: bool = False
    unmaskable: list[str] = field(default_factory=list)


def mask_lines(text: str, lines: Sequence[int]) -> tuple[str, int]:
    """`text` with the block (non-blank lines up to a blank one) around each 1-based line of
    `lines` replaced by `MASK` (its first line) and blank lines (the others); the number of
    blocks masked. Line numbers stay those of `text`."""
    rows = text.split("\n")
    done: set[int] = set()
    blocks = 0
    for line in sorted(set(lines)):
        i = line - 1
        if not 0 <= i < len(rows) or i in done:
            continue
        a = i
        while a > 0 and rows[a - 1].strip() and a - 1 not in done:
            a -= 1
        b = i
        while b + 1 < len(rows) and rows[b + 1].strip() and b + 1 not in done:
            b += 1
        for k in range(a, b + 1):
            rows[k] = MASK if k == a else ""
            done.add(k)
        blocks += 1
    return "\n".join(rows), blocks


def _folded(text: str) -> str:
    return " ".join(comparable(text).split()).lower()


def _mask_deck(src: Path, dst: Path, findings: Sequence[Finding]) -> int:
    """Copy the deck `src` to `dst` with the flagged slides' spans masked; spans masked.

    Raises:
        OSError, zipfile.BadZipFile, KeyError: the package cannot be read.
    """
    with zipfile.ZipFile(src) as zf:
        names = zf.namelist()
        pres = zf.read("ppt/presentation.xml").decode("utf-8", errors="replace")
        rels = zf.read("ppt/_rels/presentation.xml.rels").decode("utf-8", errors="replace")
        targets = dict(re.findall(r'Id="([^"]+)"[^>]*Target="([^"]+)"', rels))
        targets.update({k: v for v, k in re.findall(r'Target="([^"]+)"[^>]*Id="([^"]+)"', rels)})
        order = [targets.get(rid, "") for rid in re.findall(r'<p:sldId\b[^>]*\br:id="([^"]+)"', pres)]
        slides = ["ppt/" + t.lstrip("/").removeprefix("ppt/") if not t.startswith("/") else t.lstrip("/") for t in order]
        parts = {n: zf.read(n) for n in names}
    by_slide: dict[int, list[Finding]] = defaultdict(list)
    for f in findings:
        by_slide[f.page or 0].append(f)
    spans = 0
    for page, found in by_slide.items():
        if not 1 <= page <= len(slides) or slides[page - 1] not in parts:
            continue
        slide = slides[page - 1]
        rel_name = slide.replace("slides/", "slides/_rels/", 1) + ".rels"
        notes = None
        if rel_name in parts:
            m = re.search(r'Target="([^"]*notesSlide[^"]*)"', parts[rel_name].decode("utf-8", errors="replace"))
            if m:
                notes = "ppt/" + m.group(1).replace("../", "")
        for f in found:
            if _NOTES_RULE.match(f.rule) and notes in parts:
                xml = parts[notes].decode("utf-8", errors="replace")
                parts[notes] = _AT.sub(lambda m: m.group(1) + (escape(MASK) if m.group(2).strip() else "") + m.group(3),
                                       xml).encode("utf-8")
            elif f.channel == "alt_text":
                xml = parts[slide].decode("utf-8", errors="replace")
                parts[slide] = _DESCR.sub(lambda m: m.group(1) + (escape(MASK) if m.group(2).strip() else "") + m.group(3),
                                          xml).encode("utf-8")
            else:
                xml = parts[slide].decode("utf-8", errors="replace")
                want = _folded(f.excerpt.rstrip("…"))
                runs = [m for m in _AT.finditer(xml) if len(_folded(m.group(2))) >= 3
                        and (_folded(m.group(2)) in want or want in _folded(m.group(2)))]
                hit = {m.start() for m in runs}
                parts[slide] = _AT.sub(lambda m: m.group(1) + (escape(MASK) if (not hit or m.start() in hit) and m.group(2).strip()
                                                               else m.group(2)) + m.group(3), xml).encode("utf-8")
            spans += 1
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
        for n in names:
            out.writestr(n, parts[n])
    return spans


def mask_delivery(files: Sequence[tuple[str, Path]], final_message: str | None, findings: Sequence[Finding],
                  dest: Path) -> MaskedDelivery:
    """The delivery with every span a flagging finding of `findings` stands on masked, masked
    copies written under `dest` (created; the originals are never changed).

    Args:
        files: (relative name, path) of each deliverable, as the guard read them.
        final_message: the final message (None: none).
        findings: the guard's findings (only those that flag are masked).
        dest: a folder of the caller's for the masked copies.

    Returns:
        The masked delivery (`MaskedDelivery`).

    Raises:
        OSError: `dest` cannot be written.
    """
    flagging = [f for f in findings if f.flags]
    out = MaskedDelivery(files=[], final_message=final_message)
    dest.mkdir(parents=True, exist_ok=True)
    msg_lines = [f.line or 1 for f in flagging if f.file is None]
    if final_message is not None and msg_lines:
        out.final_message, n = mask_lines(final_message, msg_lines)
        out.spans += n
        out.message_masked = n > 0
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for f in flagging:
        if f.file is not None:
            by_file[f.file].append(f)
    for i, (rel, path) in enumerate(files):
        found = by_file.get(rel, [])
        if not found:
            out.files.append((rel, path))
            continue
        suffix = path.suffix.lower()
        renamed = any(f.channel == "file_name" for f in found)
        name = f"masked-{i}{suffix}" if renamed else rel
        target = dest / f"f{i}" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        inner = [f for f in found if f.channel != "file_name"]
        out.spans += renamed
        try:
            if not inner:
                shutil.copyfile(path, target)
            elif suffix in DECK_SUFFIXES:
                out.spans += _mask_deck(path, target, inner)
            elif suffix in PDF_SUFFIXES | WORD_SUFFIXES | SHEET_SUFFIXES:
                out.unmaskable.append(rel)
                shutil.copyfile(path, target)
            else:
                text = path.read_bytes().decode("utf-8", errors="replace")  # as `agent_text.decode` reads it
                masked, n = mask_lines(text, [f.line or 1 for f in inner])
                target.write_text(masked, encoding="utf-8")
                out.spans += n
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            out.unmaskable.append(rel)
            shutil.copyfile(path, target)
        out.files.append((name, target))
        out.masked_files.append(rel)
    return out


__all__ = ["MASK", "MaskedDelivery", "mask_delivery", "mask_lines"]
