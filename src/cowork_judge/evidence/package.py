"""The readable copy: an in-memory OOXML package python-pptx can open, whatever the deck is.

python-pptx refuses template/slideshow content types, does not know ISO Strict namespaces
and aborts the whole deck on one malformed XML part. The copy patches all three, and records
every patch so nothing is silently "fixed".
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from .sniff import MAIN_CONTENT_TYPES, MAX_UNCOMPRESSED_BYTES

PRESENTATION_CT = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"

_STRICT_SUBS: list[tuple[re.Pattern[bytes], bytes]] = [
    (re.compile(rb"http://purl\.oclc\.org/ooxml/officeDocument/relationships"),
     b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"),
    (re.compile(rb"http://purl\.oclc\.org/ooxml/(drawingml|presentationml|spreadsheetml|wordprocessingml)/(\w+)"),
     rb"http://schemas.openxmlformats.org/\1/2006/\2"),
    (re.compile(rb"http://purl\.oclc\.org/ooxml/officeDocument/(\w+)"),
     rb"http://schemas.openxmlformats.org/officeDocument/2006/\1"),
]
"""ISO/IEC 29500-1 Strict → Transitional namespace map (Annex A lists both sets; only the
URI prefix and the ``/2006/`` segment differ)."""

_BLANK_SLIDE = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    b'<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    b'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree>'
    b'<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
    b"</p:spTree></p:cSld></p:sld>"
)

_SAFE_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
_RECOVER_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, recover=True)


@dataclass
class ReadableCopy:
    """Zip bytes for python-pptx plus the list of patches applied.

    ``repairs`` holds ``(part_name, what)``; part names without the leading slash.
    """

    data: bytes
    repairs: list[tuple[str, str]] = field(default_factory=list)
    blanked_parts: set[str] = field(default_factory=set)


def readable_copy(path: Path, *, strict: bool) -> ReadableCopy:
    """Build the patched in-memory copy of the OOXML package at ``path``.

    Raises ``zipfile.BadZipFile``/``OSError`` only for files the sniffer would already have
    refused; callers turn any exception into a deck-level extract error.
    """
    out = io.BytesIO()
    repairs: list[tuple[str, str]] = []
    blanked: set[str] = set()
    produced = 0
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if info.is_dir():
                continue
            data = src.read(info)
            produced += len(data)
            if produced > MAX_UNCOMPRESSED_BYTES:
                raise ValueError(f"package inflates past {MAX_UNCOMPRESSED_BYTES} bytes")
            name = info.filename
            if name.endswith((".xml", ".rels")):
                if strict:
                    for pat, rep in _STRICT_SUBS:
                        data = pat.sub(rep, data)
                if name == "[Content_Types].xml":
                    data, note = _patch_content_types(data)
                    if note:
                        repairs.append((name, note))
                data, note = _check_xml(name, data)
                if note:
                    repairs.append((name, note))
                    if data is _BLANK_SLIDE:
                        blanked.add(name)
            dst.writestr(name, data)
    if strict:
        repairs.append(("", "Strict namespaces mapped to Transitional for reading"))
    return ReadableCopy(out.getvalue(), repairs, blanked)


def _patch_content_types(data: bytes) -> tuple[bytes, str | None]:
    for ctype in MAIN_CONTENT_TYPES:
        if ctype != PRESENTATION_CT and "macroEnabled" not in ctype and ctype.encode() in data:
            return data.replace(ctype.encode(), PRESENTATION_CT.encode()), f"main content type {ctype} read as presentation"
    return data, None


def _check_xml(name: str, data: bytes) -> tuple[bytes, str | None]:
    """Return parseable XML: unchanged, recovered by lxml, or (slides only) a blank slide."""
    try:
        etree.fromstring(data, _SAFE_PARSER)
        return data, None
    except etree.XMLSyntaxError as exc:
        error = str(exc)
    try:
        root = etree.fromstring(data, _RECOVER_PARSER)
    except etree.XMLSyntaxError:
        root = None
    if root is not None:
        fixed = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        try:
            etree.fromstring(fixed, _SAFE_PARSER)
            return fixed, f"malformed XML recovered (content may be lost): {error}"
        except etree.XMLSyntaxError:
            pass
    if re.fullmatch(r"ppt/slides/slide\d+\.xml", name):
        return _BLANK_SLIDE, f"unreadable slide XML replaced by a blank slide: {error}"
    return data, f"unreadable XML: {error}"


_EXTERNAL_REL = re.compile(rb"<Relationship\b[^>]*>", re.IGNORECASE)
_HYPERLINK_TYPE = b"/hyperlink"
BLOCKED_TARGET = b"blocked:external-target-removed-by-cowork-judge"


def strip_external_targets(src: Path, dst: Path) -> bool:
    """Write a copy of the OOXML package `src` to `dst` with external link targets blanked.

    Relationships with ``TargetMode="External"`` (linked pictures, OLE links, …) make
    LibreOffice fetch ``file:`` paths or URLs while rendering: a deck could pull files
    from outside the output tree into the page images the judge sees. Hyperlinks are
    kept (never fetched). Returns False, writing nothing, when `src` has no such target
    or is not a readable zip (the caller then renders the original).
    """
    try:
        with zipfile.ZipFile(src) as zf:
            rels = [i for i in zf.infolist() if i.filename.endswith(".rels") and i.file_size < 16 * 1024 * 1024]
            patched: dict[str, bytes] = {}
            for info in rels:
                data = zf.read(info)
                new = _EXTERNAL_REL.sub(_blank_external, data)
                if new != data:
                    patched[info.filename] = new
            if not patched:
                return False
            with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
                for info in zf.infolist():
                    out.writestr(info, patched.get(info.filename) or zf.read(info))
        return True
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError):
        try:
            dst.unlink()
        except OSError:
            pass
        return False


def _blank_external(match: re.Match[bytes]) -> bytes:
    element = match.group(0)
    if b'TargetMode="External"' not in element or _HYPERLINK_TYPE in element:
        return element
    return re.sub(rb'Target="[^"]*"', b'Target="' + BLOCKED_TARGET + b'"', element)
