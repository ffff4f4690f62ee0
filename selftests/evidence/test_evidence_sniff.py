"""sniff_deck: named statuses for real and hostile files; never raises."""

from __future__ import annotations

import io
import os
import random
import zipfile

import pytest

from cowork_judge.evidence.documents import SniffResult
from cowork_judge.evidence.sniff import MAX_RATIO, cfb_stream_names, sniff_deck

from .conftest import require_decks

EXPECTED_STATUS = {
    "01__python-pptx__minimal.pptx": ("ok", "pptx", {}),
    "02__python-pptx__no-slides.pptx": ("ok", "pptx", {}),
    "14__poi__SmartArt.pptx": ("ok", "pptx", {}),
    "23__poi__aascu.org_workarea_downloadasset.aspx_id=5864.pptx": ("ok", "pptx", {}),
    "25__poi__clusterfuzz-testcase-minimized-POIXSLFFuzzer-6254434927378432.pptx": ("corrupt_zip", None, {}),
    "27__poi__testPPT.ppsx": ("ok", "ppsx", {"slideshow": True}),
    "29__poi__44296.ppt": ("ok_legacy_ppt", "ppt", {}),
    "30__Open-XML-SDK__Accent1sysClr.pptx": ("ok_strict", "pptx", {"strict": True}),
    "31__Open-XML-SDK__encrypted_pptx.pptx": ("encrypted", None, {}),
    "33__Open-XML-SDK__Presentation.potx": ("ok", "potx", {"template": True}),
    "43__unstructured__eng_spa_mult.ppt": ("ok", "pptx", {"extension_mismatch": True}),
    "45__PPTAgent__build_effective_agents.pptx": ("ok", "pptx", {}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_STATUS))
def test_fixture_statuses(name):
    decks = require_decks()
    status, kind, flags = EXPECTED_STATUS[name]
    res = sniff_deck(decks / name)
    assert (res.status, res.kind) == (status, kind), res.reason
    for flag, value in flags.items():
        assert getattr(res.flags, flag) is value
    assert res.openable is status.startswith("ok")
    assert res.reason


def test_every_fixture_sniffs_without_raising():
    decks = require_decks()
    for path in sorted(decks.iterdir()):
        assert isinstance(sniff_deck(path), SniffResult)


def _zip_bytes(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_zip_bomb_ratio_is_refused(tmp_path):
    # a member above the ratio grace size (32 MiB) that deflates ~1000:1
    bomb = tmp_path / "bomb.pptx"
    bomb.write_bytes(_zip_bytes({"[Content_Types].xml": b"<Types/>", "ppt/big.xml": b"\0" * (40 << 20)}))
    res = sniff_deck(bomb)
    assert res.status == "zip_bomb"
    assert res.max_ratio > MAX_RATIO


def test_small_highly_compressible_members_are_not_a_bomb(tmp_path):
    deck = tmp_path / "deck.pptx"
    deck.write_bytes(_zip_bytes({"[Content_Types].xml": b"<Types/>", "ppt/media/white.bmp": b"\xff" * (4 << 20)}))
    assert sniff_deck(deck).status != "zip_bomb"


def test_docx_is_not_a_presentation(tmp_path):
    ct = (b'<Types><Override PartName="/word/document.xml" ContentType="application/'
          b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
    rels = b'<Relationships><Relationship Id="r" Type="http://x/officeDocument" Target="word/document.xml"/></Relationships>'
    path = tmp_path / "report.pptx"
    path.write_bytes(_zip_bytes({"[Content_Types].xml": ct, "_rels/.rels": rels, "word/document.xml": b"<w/>"}))
    res = sniff_deck(path)
    assert res.status == "not_presentation"
    assert "wordprocessingml" in (res.main_content_type or "")


def test_truncated_and_crc_broken_decks_are_corrupt(tmp_path):
    src = (require_decks() / "05__python-pptx__shp-groupshape.pptx").read_bytes()
    cut = tmp_path / "cut.pptx"
    cut.write_bytes(src[: len(src) // 2])
    assert sniff_deck(cut).status == "corrupt_zip"
    flipped = bytearray(src)
    with zipfile.ZipFile(io.BytesIO(src)) as zf:
        info = zf.getinfo("ppt/slides/slide1.xml")
    data_start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    flipped[data_start + 10] ^= 0xFF
    bad = tmp_path / "crc.pptx"
    bad.write_bytes(bytes(flipped))
    res = sniff_deck(bad)
    assert res.status == "corrupt_zip"
    assert "slide1.xml" in res.reason


def test_small_cases(tmp_path):
    (tmp_path / "empty.pptx").write_bytes(b"")
    (tmp_path / "junk.pptx").write_bytes(b"hello world, not a deck")
    (tmp_path / "deck.html").write_text("<!doctype html><section>hi</section>")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\n garbage")
    assert sniff_deck(tmp_path / "empty.pptx").status == "empty"
    assert sniff_deck(tmp_path / "junk.pptx").status == "unknown_format"
    assert sniff_deck(tmp_path / "deck.html").status == "ok_html"
    assert sniff_deck(tmp_path / "broken.pdf").status == "corrupt_pdf"
    assert sniff_deck(tmp_path / "missing.pptx").status == "unreadable"
    assert sniff_deck(tmp_path).status == "unreadable"


def test_cfb_directory_reader_names_streams():
    decks = require_decks()
    assert "PowerPoint Document" in cfb_stream_names((decks / "29__poi__44296.ppt").read_bytes())
    assert {"EncryptionInfo", "EncryptedPackage"} <= cfb_stream_names(
        (decks / "31__Open-XML-SDK__encrypted_pptx.pptx").read_bytes())


def test_hostile_bytes_never_raise(tmp_path):
    rng = random.Random(1234)
    heads = [b"PK\x03\x04", b"PK\x05\x06", bytes.fromhex("d0cf11e0a1b11ae1"), b"%PDF-1.4", b"<html>", b""]
    for i in range(60):
        path = tmp_path / f"fuzz{i}.pptx"
        path.write_bytes(heads[i % len(heads)] + os.urandom(rng.randint(0, 4096)))
        res = sniff_deck(path)
        assert res.status in SniffResult.model_fields["status"].annotation.__args__


@pytest.mark.parametrize("data,expected", [
    (b"\x0bJohn Smith" + b" " * 150, "no document by its content (161 bytes, unrecognised magic bytes 0b4a6f686e20536d)"),
    (b"TODO: slides\n", "no document by its content (13 bytes, unrecognised magic bytes 544f444f3a20736c)"),
    (b"", "no document by its content (empty)"),
    (b"PK\x03\x04truncated", None),  # a broken zip is a (broken) document
    (bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 100, None),
    (b"%PDF-1.7\n", None),
    (b"<!doctype html><html></html>", None),
], ids=["owner-file", "text", "empty", "broken-zip", "ole2", "pdf", "html"])
def test_no_document_says_why_a_file_is_no_document_at_all(tmp_path, data, expected):
    from cowork_judge.evidence.sniff import no_document

    path = tmp_path / "~$deck.pptx"
    path.write_bytes(data)
    assert no_document(path) == expected
    assert no_document(tmp_path / "missing.pptx") is None  # unreadable: nothing is known of it
