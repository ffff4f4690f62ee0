"""Sniffing: what a deliverable IS, from its bytes, before any parser touches it.

Never raises for any file content: every outcome is a named ``SniffStatus`` (documented in
:mod:`cowork_judge.evidence.documents`).
"""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path
from typing import Any

from .documents import SniffFlags, SniffResult, SniffStatus
from .kinds import SUFFIX_KIND

MAX_UNCOMPRESSED_BYTES = 512 * 1024 * 1024
"""Refuse packages declaring more than 512 MiB uncompressed (our choice: ~10x the largest
image-heavy decks seen in practice; LibreOffice itself would need GBs of RAM past this)."""
MAX_ENTRIES = 10_000
"""Refuse packages with more members (a 60-slide deck with media has a few hundred)."""
MAX_RATIO = 100.0
RATIO_GRACE_BYTES = 32 * 1024 * 1024
"""Per-member inflate ratio limit 100:1 (Apache POI's ``ZipSecureFile`` MIN_INFLATE_RATIO
= 0.01), applied only to members over 32 MiB uncompressed. POI's 100 KiB grace refused
real decks: a plain 1600×900 BMP picture (4.3 MB) deflates over 1000:1. Declared sizes
bound what zipfile inflates, so the total cap is the real guard; the ratio only catches
large members before anything is inflated."""

ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
CFB_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")

_PML = "application/vnd.openxmlformats-officedocument.presentationml."
_MS_PML = "application/vnd.ms-powerpoint."
MAIN_CONTENT_TYPES: dict[str, tuple[str, SniffFlags]] = {
    _PML + "presentation.main+xml": ("pptx", SniffFlags()),
    _PML + "slideshow.main+xml": ("ppsx", SniffFlags(slideshow=True)),
    _PML + "template.main+xml": ("potx", SniffFlags(template=True)),
    _MS_PML + "presentation.macroEnabled.main+xml": ("pptm", SniffFlags(macro=True)),
    _MS_PML + "slideshow.macroEnabled.main+xml": ("ppsm", SniffFlags(macro=True, slideshow=True)),
    _MS_PML + "template.macroEnabled.main+xml": ("potm", SniffFlags(macro=True, template=True)),
}
"""ECMA-376 Part 1 §13.3.6 and [MS-OFFCRYPTO]/[MS-PPTX] main-part content types."""

STRICT_MARK = b"http://purl.oclc.org/ooxml/"
_OFFICE_DOC_REL = re.compile(rb'Type="[^"]*/officeDocument"[^>]*Target="/?([^"]+)"'
                             rb'|Target="/?([^"]+)"[^>]*Type="[^"]*/officeDocument"')
_EXT_KIND = SUFFIX_KIND


def sniff_deck(path: Path | str) -> SniffResult:
    """Classify ``path`` by magic bytes, then by container-specific checks.

    Returns a :class:`SniffResult` for ANY input (missing file, directory, garbage, zip
    bomb); the status names the outcome and ``reason`` says it in one sentence.
    """
    p = Path(path)
    base: dict[str, Any] = {"path": str(path)}
    try:
        size = p.stat().st_size
        if not p.is_file():
            return SniffResult(**base, status="unreadable", reason="not a regular file")
        with p.open("rb") as fh:
            head = fh.read(8192)
    except OSError as exc:
        return SniffResult(**base, status="unreadable", reason=f"cannot read: {exc.strerror or exc}")
    base["size_bytes"] = size
    if size == 0:
        return SniffResult(**base, status="empty", reason="file is empty")
    try:
        if head.startswith(ZIP_MAGIC) or head.startswith(EMPTY_ZIP_MAGIC):
            res = _sniff_zip(p, base)
        elif head.startswith(CFB_MAGIC):
            res = _sniff_cfb(p, base)
        elif b"%PDF-" in head[:1024]:
            res = _sniff_pdf(p, base)
        elif _looks_html(head):
            res = SniffResult(**base, status="ok_html", container="html", kind="html",
                              reason="HTML document")
        else:
            res = SniffResult(**base, status="unknown_format",
                              reason=f"unrecognised magic bytes {head[:8].hex()}")
    except Exception as exc:  # noqa: BLE001 - sniffing must never raise for file content
        res = SniffResult(**base, status="unknown_format", reason=f"sniff failed: {type(exc).__name__}: {exc}")
    ext_kind = _EXT_KIND.get(p.suffix.lower())
    if res.kind and ext_kind and ext_kind != res.kind:
        res.flags.extension_mismatch = True
        res.reason += f" (named {p.suffix.lower()} but content is {res.kind})"
    return res


CONTENT_KIND_PART_BYTES = 1024 * 1024
"""`content_kind` reads a package's ``_rels/.rels`` and ``[Content_Types].xml`` only when
each is at most 1 MiB uncompressed (real ones are a few KiB): no inflating of a bomb."""
CONTENT_KIND_CFB_BYTES = 64 * 1024 * 1024
"""`content_kind` reads at most this much of a CFB (OLE2) file to find its streams; a
larger one is classified from the names found in that prefix."""


def content_kind(path: Path | str) -> str | None:
    """The deck kind of `path` from its content, cheaply: ``pptx``/``pptm``/``ppsx``/
    ``ppsm``/``potx``/``potm`` (an OOXML package whose main part has that content type),
    ``ppt`` (binary PowerPoint 97-2003), ``pdf``, ``html``; None when the bytes hold no
    recognisable deck (empty, unreadable, encrypted, another document, garbage).

    The same magic-byte order as `sniff_deck`, without its integrity pass (no member is
    inflated except the two small package parts, each at most `CONTENT_KIND_PART_BYTES`),
    so choosing among many candidate decks stays cheap. A None or a kind here says what
    the file claims to be; whether it opens is `sniff_deck`'s question. Never raises.
    """
    p = Path(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(8192)
        if head.startswith(ZIP_MAGIC):
            with zipfile.ZipFile(p) as zf:
                infos = {i.filename: i for i in zf.infolist()}
                small: set[str] = {n for n in ("_rels/.rels", "[Content_Types].xml")
                         if n in infos and infos[n].file_size <= CONTENT_KIND_PART_BYTES}
                main = _main_part(zf, small | ({"ppt/presentation.xml"} & set(infos)))
                ctype = _override_type(zf, small, main) if main in infos else None
            entry = MAIN_CONTENT_TYPES.get(ctype or "")
            return entry[0] if entry else None
        if head.startswith(CFB_MAGIC):
            with p.open("rb") as fh:
                names = cfb_stream_names(fh.read(CONTENT_KIND_CFB_BYTES))
            if "PowerPoint Document" in names and "EncryptedPackage" not in names:
                return "ppt"
            return None
        if b"%PDF-" in head[:1024]:
            return "pdf"
        if _looks_html(head):
            return "html"
    except Exception:  # noqa: BLE001 - any content: None means "no recognisable deck"
        return None
    return None


def no_document(path: Path | str) -> str | None:
    """Why the bytes of `path` are no document at all, else None.

    ``"no document by its content (165 bytes, unrecognised magic bytes 0b4a6f686e20536d)"``
    when the file reads and its first bytes are none of the containers `sniff_deck` knows
    (zip, OLE2/CFB, PDF, HTML) — an Office owner file ``~$deck.pptx``, a text note, garbage —
    or it is empty. None for any such container, whole or broken (a truncated zip IS a
    document: a broken deck, which the open check names), and for a file that cannot be read
    (nothing is known of it). Reads at most 8 KiB; never raises.
    """
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(8192)
            size = Path(path).stat().st_size
    except OSError:
        return None
    if not head:
        return "no document by its content (empty)"
    if (head.startswith((ZIP_MAGIC, EMPTY_ZIP_MAGIC, CFB_MAGIC)) or b"%PDF-" in head[:1024]
            or _looks_html(head)):
        return None
    return f"no document by its content ({size} bytes, unrecognised magic bytes {head[:8].hex()})"


def _looks_html(head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<!doctype html", b"<html")):
        return True
    return bool(re.search(rb"<(html|body|section)[\s>]", text[:4096]))


# --------------------------------------------------------------------------- zip


def _sniff_zip(p: Path, base: dict[str, Any]) -> SniffResult:
    try:
        zf = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as exc:
        return SniffResult(**base, status="corrupt_zip", container="zip",
                           reason=f"zip is truncated or unreadable: {exc}")
    with zf:
        infos = zf.infolist()
        total = sum(i.file_size for i in infos)
        ratios = [i.file_size / max(i.compress_size, 1) for i in infos if i.file_size >= RATIO_GRACE_BYTES]
        max_ratio = round(max(ratios, default=1.0), 2)
        zbase = {**base, "container": "zip", "zip_entries": len(infos), "uncompressed_bytes": total,
                 "max_ratio": max_ratio}
        refused = _over_zip_limits(infos, total, max_ratio)
        if refused is not None:
            return SniffResult(**zbase, status=refused[0], reason=refused[1])
        bad = _first_bad_member(zf, infos)
        if bad:
            return SniffResult(**zbase, status="corrupt_zip", reason=f"member {bad}")
        names = {i.filename for i in infos}
        main = _main_part(zf, names)
        ctype = _override_type(zf, names, main) if main else None
        if main is None or main not in names:
            odf = _odf_mimetype(zf, names)
            if odf is not None:
                return SniffResult(**zbase, status="not_presentation", main_content_type=odf,
                                   reason=_odf_reason(odf, p.name))
            return SniffResult(**zbase, status="not_presentation", main_content_type=ctype,
                               reason="zip has no presentation main part (not a deck)")
        if ctype not in MAIN_CONTENT_TYPES:
            return SniffResult(**zbase, status="not_presentation", main_content_type=ctype,
                               reason=f"main part content type is {ctype!r}")
        kind, flags = MAIN_CONTENT_TYPES[ctype]
        flags = flags.model_copy()
        with zf.open(main) as fh:
            flags.strict = STRICT_MARK in fh.read(4096)
        status = "ok_strict" if flags.strict else "ok"
        what = "ISO/IEC 29500 Strict OOXML " if flags.strict else "OOXML "
        return SniffResult(**zbase, status=status, kind=kind, main_content_type=ctype, flags=flags,
                           reason=f"{what}{kind} package")


def _mib(n: float) -> str:
    """`n` bytes in MiB, whole (one decimal under 10 MiB): ``530 MiB``, ``2.0 MiB``."""
    return f"{n / (1 << 20):.1f} MiB" if n < 10 << 20 else f"{n / (1 << 20):.0f} MiB"


def _over_zip_limits(infos: list[zipfile.ZipInfo], total: int, max_ratio: float) -> tuple[SniffStatus, str] | None:
    """The status and reason of a package over the zip limits, None within them (trial 11 F9).

    What is refused is the package past any limit (`MAX_ENTRIES`, `MAX_UNCOMPRESSED_BYTES`,
    `MAX_RATIO`); the status says why: ``zip_bomb`` when a member over `RATIO_GRACE_BYTES`
    inflates past `MAX_RATIO`, or the whole package, past a limit, inflates past it (many small
    members of zeros); else ``too_large``, an honest package (a stored video) over the size or
    entry limit. Reads the central directory only: nothing is inflated.
    """
    big = total > MAX_UNCOMPRESSED_BYTES
    many = len(infos) > MAX_ENTRIES
    if not (big or many or max_ratio > MAX_RATIO):
        return None
    limit = _mib(MAX_UNCOMPRESSED_BYTES)
    if max_ratio > MAX_RATIO:
        worst = max((i for i in infos if i.file_size >= RATIO_GRACE_BYTES),
                    key=lambda i: i.file_size / max(i.compress_size, 1))
        return "zip_bomb", (f"zip bomb: member {worst.filename} inflates {max_ratio:g}:1 to {_mib(worst.file_size)} "
                            f"(the judge's limit is {MAX_RATIO:g}:1 for a member over {_mib(RATIO_GRACE_BYTES)}); "
                            f"nothing was inflated")
    packed = sum(i.compress_size for i in infos)
    overall = round(total / max(packed, 1), 1)
    over = ([f"{_mib(total)} uncompressed, over the judge's {limit} limit for a deck"] if big else []) + (
        [f"{len(infos)} zip entries, over the judge's limit of {MAX_ENTRIES} entries for a deck"] if many else [])
    if overall > MAX_RATIO:
        return "zip_bomb", (f"zip bomb: {len(infos)} members inflate {overall:.1f}:1 overall from {_mib(packed)} to "
                            f"{'; '.join(over)}; nothing was inflated")
    return "too_large", (f"{'; '.join(over)} ({total} bytes in {len(infos)} entries, {overall:.1f}:1 overall: "
                         f"a large package, not a zip bomb)")


ODF_MIMETYPE_BYTES = 256
"""An OpenDocument package's first member ``mimetype`` names its type in a few dozen bytes
(ODF 1.2 part 3, §3.3); longer is not a mimetype member."""


def _odf_mimetype(zf: zipfile.ZipFile, names: set[str]) -> str | None:
    """The ``mimetype`` member of an OpenDocument package (``application/vnd.oasis.opendocument.*``),
    else None."""
    if "mimetype" not in names or zf.getinfo("mimetype").file_size > ODF_MIMETYPE_BYTES:
        return None
    with zf.open("mimetype") as fh:
        text = fh.read(ODF_MIMETYPE_BYTES).decode("ascii", errors="replace").strip()
    return text if text.startswith("application/vnd.oasis.opendocument.") else None


def _odf_reason(mimetype: str, name: str) -> str:
    """What an OpenDocument file is, named as such (issue 35: an .odp renamed .pptx was 'no
    presentation main part')."""
    kind = mimetype.rsplit(".", 1)[-1]
    ext = {"presentation": ".odp", "text": ".odt", "spreadsheet": ".ods", "graphics": ".odg"}.get(kind, "")
    what = f"an OpenDocument {kind}" + (f" ({ext})" if ext else "")
    return (f"{what} named {Path(name).suffix or 'without an extension'}, not an OOXML deck ({mimetype})"
            if Path(name).suffix.lower() != ext else f"{what}, not an OOXML deck ({mimetype})")


def listed_slide_count(path: Path | str) -> int | None:
    """Slides in the presentation's slide list (``p:sldIdLst/p:sldId``, Transitional or
    Strict namespace) — what PowerPoint and LibreOffice show; a slide part missing from
    the list is not shown. None when the package or its main part cannot be read.
    Call after `sniff_deck` said ``ok``/``ok_strict`` (the zip limits are checked there).
    Uses the standard library's parser (the core install has no lxml); its expat (≥ 2.4.1
    in every supported Python) refuses entity-amplification bombs."""
    try:
        with zipfile.ZipFile(path) as zf:
            found = _presentation(zf)
    except Exception:  # noqa: BLE001 - zip or XML errors: nothing countable
        return None
    return None if found is None else len(found[2].findall("{*}sldIdLst/{*}sldId"))


def _presentation(zf: zipfile.ZipFile) -> tuple[set[str], str, Any] | None:
    """(the package's part names, its main part, that part's parsed root) — None when the main
    part is not found. Raises what ``zipfile`` and ``ElementTree`` raise (callers catch them)."""
    from xml.etree import ElementTree

    names = set(zf.namelist())
    main = _main_part(zf, names)
    if main is None or main not in names:
        return None
    return names, main, ElementTree.fromstring(zf.read(main))


_SLIDE_ROOT = re.compile(rb"<(?:\w+:)?sld\b[^>]*>")
_HIDDEN_SHOW = re.compile(rb"""\sshow\s*=\s*["'](?:0|false)["']""")
SLIDE_HEAD_BYTES = 64 * 1024
"""How much of a slide part `hidden_slide_count` reads to find its root element."""


def hidden_slide_count(path: Path | str) -> int | None:
    """How many slides of the presentation's slide list are hidden (root ``p:sld`` with
    ``show="0"``: PowerPoint's "Hide Slide", skipped in a slide show). Reads only the first
    `SLIDE_HEAD_BYTES` of each listed slide part. None when the package, its main part or its
    relationships cannot be read. Call after `sniff_deck` said ``ok``/``ok_strict``."""
    from xml.etree import ElementTree

    try:
        with zipfile.ZipFile(path) as zf:
            found = _presentation(zf)
            if found is None:
                return None
            names, main, presentation = found
            folder, _, base = main.rpartition("/")
            rels_name = f"{folder}/_rels/{base}.rels" if folder else f"_rels/{base}.rels"
            if rels_name not in names:
                return None
            targets = {r.get("Id"): r.get("Target") or "" for r in ElementTree.fromstring(zf.read(rels_name))}
            hidden = 0
            for sld in presentation.findall("{*}sldIdLst/{*}sldId"):
                rid = next((v for k, v in sld.attrib.items() if k.endswith("}id")), None)
                part = _resolve(folder, targets.get(rid, ""))
                if part in names:
                    with zf.open(part) as fh:
                        root = _SLIDE_ROOT.search(fh.read(SLIDE_HEAD_BYTES))
                    hidden += bool(root and _HIDDEN_SHOW.search(root.group(0)))
            return hidden
    except Exception:  # noqa: BLE001 - zip or XML errors: nothing countable
        return None


def _resolve(folder: str, target: str) -> str:
    """A relationship's `target` as a package part name, relative to `folder` (``..`` resolved)."""
    parts = [] if target.startswith("/") else [p for p in folder.split("/") if p]
    for piece in target.lstrip("/").split("/"):
        if piece == "..":
            parts = parts[:-1]
        elif piece not in ("", "."):
            parts.append(piece)
    return "/".join(parts)


def _first_bad_member(zf: zipfile.ZipFile, infos: list[zipfile.ZipInfo]) -> str | None:
    """Read every member in chunks (CRC checked at EOF); cap actual output at the limit."""
    produced = 0
    for info in infos:
        try:
            with zf.open(info) as fh:
                while chunk := fh.read(1 << 20):
                    produced += len(chunk)
                    if produced > MAX_UNCOMPRESSED_BYTES:
                        return f"{info.filename}: inflates past {MAX_UNCOMPRESSED_BYTES} bytes"
        except Exception as exc:  # noqa: BLE001 - zlib.error, BadZipFile, EOFError, ...
            return f"{info.filename}: {type(exc).__name__}: {exc}"
    return None


def _main_part(zf: zipfile.ZipFile, names: set[str]) -> str | None:
    if "_rels/.rels" in names:
        m = _OFFICE_DOC_REL.search(zf.read("_rels/.rels"))
        if m:
            return (m.group(1) or m.group(2)).decode("utf-8", "replace")
    return "ppt/presentation.xml" if "ppt/presentation.xml" in names else None


def _override_type(zf: zipfile.ZipFile, names: set[str], part: str) -> str | None:
    if "[Content_Types].xml" not in names:
        return None
    xml = zf.read("[Content_Types].xml")
    pat = rb'PartName="/' + re.escape(part.encode()) + rb'"\s+ContentType="([^"]+)"'
    m = re.search(pat, xml, re.I) or re.search(
        rb'ContentType="([^"]+)"\s+PartName="/' + re.escape(part.encode()) + rb'"', xml, re.I)
    return m.group(1).decode("utf-8", "replace") if m else None


# --------------------------------------------------------------------------- CFB (OLE2)


def _sniff_cfb(p: Path, base: dict[str, Any]) -> SniffResult:
    names = cfb_stream_names(p.read_bytes())
    cbase = {**base, "container": "cfb"}
    if {"EncryptionInfo", "EncryptedPackage"} <= names:
        return SniffResult(**cbase, status="encrypted",
                           reason="password-protected OOXML (EncryptionInfo + EncryptedPackage)")
    if "PowerPoint Document" in names:
        return SniffResult(**cbase, status="ok_legacy_ppt", kind="ppt",
                           reason="binary PowerPoint 97-2003 (.ppt)")
    shown = ", ".join(sorted(names)[:6]) or "none readable"
    return SniffResult(**cbase, status="not_presentation",
                       reason=f"OLE2 file without a PowerPoint stream (streams: {shown})")


def cfb_stream_names(data: bytes) -> set[str]:
    """Names in a Compound File Binary directory ([MS-CFB] §2.2, §2.6).

    Walks the FAT chain of the directory; on any inconsistency falls back to scanning for
    the UTF-16LE names we care about. Returns an empty set for garbage.
    """
    try:
        return _cfb_directory(data)
    except (struct.error, ValueError, IndexError):
        wanted = ("PowerPoint Document", "EncryptionInfo", "EncryptedPackage", "WordDocument", "Workbook")
        return {w for w in wanted if w.encode("utf-16-le") in data}


def _cfb_directory(data: bytes) -> set[str]:
    shift = struct.unpack_from("<H", data, 30)[0]
    if shift not in (9, 12):
        raise ValueError("bad sector shift")
    ssz = 1 << shift
    n_fat, first_dir = struct.unpack_from("<I", data, 44)[0], struct.unpack_from("<I", data, 48)[0]
    first_difat, n_difat = struct.unpack_from("<II", data, 68)
    fat_sectors = [s for s in struct.unpack_from("<109I", data, 76) if s < 0xFFFFFFFA]
    sec = first_difat
    for _ in range(min(n_difat, 4096)):
        if sec >= 0xFFFFFFFA:
            break
        vals = struct.unpack_from(f"<{ssz // 4}I", data, (sec + 1) * ssz)
        fat_sectors += [s for s in vals[:-1] if s < 0xFFFFFFFA]
        sec = vals[-1]
    fat: list[int] = []
    for s in fat_sectors[: max(n_fat, 1)]:
        fat += struct.unpack_from(f"<{ssz // 4}I", data, (s + 1) * ssz)
    names: set[str] = set()
    sec, seen = first_dir, set[int]()
    while sec < 0xFFFFFFFA and sec not in seen and len(seen) < 100_000:
        seen.add(sec)
        off = (sec + 1) * ssz
        for e in range(ssz // 128):
            entry = data[off + e * 128: off + (e + 1) * 128]
            if len(entry) < 128:
                raise ValueError("directory past end of file")
            nlen, etype = struct.unpack_from("<HB", entry, 64)
            if etype in (1, 2, 5) and 2 <= nlen <= 64:
                names.add(entry[: nlen - 2].decode("utf-16-le", "replace"))
        sec = fat[sec]
    return names


# --------------------------------------------------------------------------- PDF


def _sniff_pdf(p: Path, base: dict[str, Any]) -> SniffResult:
    pbase = {**base, "container": "pdf", "kind": "pdf"}
    try:
        import pymupdf
    except ImportError:
        return SniffResult(**pbase, status="ok_pdf", reason="PDF header (page count unknown: no PyMuPDF)")
    try:
        with pymupdf.open(p) as doc:
            if doc.needs_pass:
                return SniffResult(**pbase, status="encrypted", reason="PDF needs a password")
            n = doc.page_count
    except Exception as exc:  # noqa: BLE001 - any MuPDF failure means a broken PDF
        return SniffResult(**pbase, status="corrupt_pdf", reason=f"PDF does not open: {exc}")
    if n < 1:
        return SniffResult(**pbase, status="corrupt_pdf", page_count=0, reason="PDF has no pages")
    return SniffResult(**pbase, status="ok_pdf", page_count=n, reason=f"PDF with {n} pages")
