"""Text the agent controls, made safe to handle: every string is valid Unicode that
encodes to UTF-8.

A Python ``str`` may hold lone surrogates (U+D800–U+DFFF): ``json.loads`` turns the
escape ``"\\ud83d"`` (half an emoji, cut by a truncating agent) into one, and the file
system's ``surrogateescape`` turns an undecodable byte of a file name into one. Such a
string cannot be encoded to UTF-8: writing it to a file, an HTTP body or a log raises
``UnicodeEncodeError``. Text from the agent goes through `repair` (or `decode` for bytes)
where it is read, so nothing downstream ever meets a surrogate (SPEC §22: nothing the
agent writes may crash the judge).
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
"""U+FFFD REPLACEMENT CHARACTER: what a lone surrogate or an undecodable byte becomes
(the Unicode Standard's recommended substitute, §3.9)."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def repair(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.

    A high surrogate directly followed by a low one (two code units of one character that
    reached a ``str`` separately) is joined into that character; everything else in
    U+D800–U+DFFF becomes one U+FFFD each. Text without surrogates is returned as is
    (the common case costs one regular-expression scan).
    """
    if not _SURROGATE.search(text):
        return text
    # UTF-16 with surrogatepass keeps every code unit; decoding pairs the valid pairs and
    # replaces each unpaired unit with U+FFFD
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def decode(data: bytes) -> str:
    """UTF-8 `data` as text; undecodable bytes become U+FFFD (never raises)."""
    return data.decode("utf-8", errors="replace")
