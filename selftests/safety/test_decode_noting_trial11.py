"""`decode_noting` notes only bytes it could not decode (a byte-order mark decoded cleanly is not a
problem: trial 11 F4), and `whole_characters` cuts at a read limit without splitting a character in
the encoding `decode` reads (UTF-8, or the mark's)."""

from __future__ import annotations

import codecs

import pytest

from cowork_judge.safety.agent_text import decode, decode_noting, whole_characters

TEXT = "Rayleigh — ciel 😀 bleu"


@pytest.mark.parametrize("codec", ["utf-8", "utf-8-sig", "utf-16", "utf-32"])
def test_clean_text_is_not_noted_whatever_its_mark(codec):
    data = TEXT.encode(codec)
    assert decode_noting(data) == (TEXT, None) == (decode(data), None)


def test_undecodable_bytes_are_noted_in_the_encoding_read():
    assert decode_noting(b"caf\xe9!") == ("caf\ufffd!", "not UTF-8 (first undecodable byte at offset 3: 0xe9)")
    data = "ab".encode("utf-16") + b"\x00\xd8"  # a mark, then a lone high surrogate at offset 6
    text, note = decode_noting(data)
    assert text == decode(data) and text.startswith("ab\ufffd")
    assert note == "not UTF-16-LE (first undecodable byte at offset 6: 0x00)"
    text, note = decode_noting("ab".encode("utf-16") + b"c")  # a code unit cut in two at the end
    assert note is not None and note.startswith("not UTF-16-LE (first undecodable byte at offset 6")


@pytest.mark.parametrize("codec,mark", [("utf-8", b""), ("utf-16-le", codecs.BOM_UTF16_LE),
                                        ("utf-16-be", codecs.BOM_UTF16_BE), ("utf-32-le", codecs.BOM_UTF32_LE)])
def test_a_cut_never_splits_a_character(codec, mark):
    data = mark + TEXT.encode(codec)
    for limit in range(len(mark), len(data) + 1):
        cut = whole_characters(data[:limit])
        text, note = decode_noting(cut)
        assert note is None and TEXT.startswith(text), (codec, limit, cut)
        assert len(data[:limit]) - len(cut) < 4
