"""Prompt tokens of an image part, as the real endpoints count them (the simulator's estimate).

OpenAI (chat ``image_url`` and Responses ``input_image`` parts, GPT-4o-class vision
models), from its vision guide: ``detail: "low"`` costs ``BASE_TOKENS`` (85); ``"high"`` and
``"auto"`` scale the image to fit in 2048 × 2048, then so that its shorter side is at most
768 pixels, and cost ``85 + 170 · tiles`` where tiles are the 512 × 512 squares that cover
it. A 1280 × 720 page: 1365 × 768 after scaling, 3 × 2 tiles, 1105 tokens.

Anthropic (Messages ``image`` blocks), from its vision guide: ``width · height / 750``
after scaling the long edge to at most 1568 pixels.

The size is read from the image's header (PNG ``IHDR``, JPEG ``SOF``, GIF, WebP ``VP8X``/
``VP8 ``/``VP8L``) in a ``data:`` URL (base64, standard or URL-safe); an ``http(s)`` URL,
which the simulator does not fetch, is counted as ``UNKNOWN_SIZE``. Anything else is
refused as a real endpoint refuses it (`BadImage`: a part with no URL, another scheme, a
data URL that holds no such image). Images are part of the prompt prefix OpenAI caches (the same image and
detail at the same place), so `placeholder` gives the prefix cache one stand-in string per
distinct image, as long as its tokens.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import struct

__all__ = ["UNKNOWN_SIZE", "BadImage", "anthropic_tokens", "image_size", "openai_tokens", "placeholder"]

BASE_TOKENS = 85
"""OpenAI: tokens of every image (all of a ``low`` one)."""
TILE_TOKENS = 170
"""OpenAI: tokens per 512-pixel tile of a ``high``/``auto`` image."""
UNKNOWN_SIZE = (1024, 1024)
"""Pixels assumed for an image whose size cannot be read (4 tiles: 765 OpenAI tokens)."""
_HEAD_BYTES = 64 * 1024
"""Bytes of the decoded image read for its size (a JPEG's SOF may follow its EXIF data)."""


class BadImage(ValueError):
    """An image part a real endpoint would refuse (the message says why)."""


def _decoded_head(url: str) -> bytes | None:
    """The first bytes of a base64 ``data:`` URL's image (standard or URL-safe alphabet),
    None when they cannot be decoded."""
    head, _, payload = url.partition(",")
    if not head.lower().endswith(";base64"):
        return None
    chunk = "".join(payload[: _HEAD_BYTES * 4 // 3 + 64].split())
    chunk = chunk[: len(chunk) // 4 * 4]  # whole base64 quads only
    for altchars in (None, b"-_"):
        try:
            data = base64.b64decode(chunk, altchars=altchars, validate=True)
        except (binascii.Error, ValueError):
            continue
        if image_size(data) is not None:
            return data
    return None


def image_size(data: bytes | None) -> tuple[int, int] | None:
    """``(width, height)`` in pixels from the header of PNG, JPEG, GIF or WebP `data`, else None."""
    if not data:
        return None
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            kind = data[12:16]
            if kind == b"VP8X":
                w = int.from_bytes(data[24:27], "little") + 1
                h = int.from_bytes(data[27:30], "little") + 1
                return w, h
            if kind == b"VP8 ":
                w, h = struct.unpack("<HH", data[26:30])
                return w & 0x3FFF, h & 0x3FFF
            if kind == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if data[:2] == b"\xff\xd8":
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    i += 1
                    continue
                marker = data[i + 1]
                if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                    i += 2
                    continue
                length = struct.unpack(">H", data[i + 2 : i + 4])[0]
                if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                    h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                    return w, h
                i += 2 + length
    except struct.error:
        return None
    return None


def size_of(url: str) -> tuple[int, int]:
    """``(width, height)`` of the image a part names, in pixels.

    Raises:
        BadImage: no URL; a scheme other than ``data:``, ``http:``, ``https:``; a data URL
            that holds no PNG, JPEG, GIF or WebP image with a size above zero.
    """
    if not isinstance(url, str) or not url.strip():
        raise BadImage("an image part needs a url (a data: URL or http(s))")
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme in ("http", "https"):
        return UNKNOWN_SIZE
    if scheme != "data":
        raise BadImage(f"an image url must be a data: URL or http(s), not {scheme or 'a bare path'}")
    size = image_size(_decoded_head(url))
    if size is None or size[0] <= 0 or size[1] <= 0:
        raise BadImage("the data: URL holds no PNG, JPEG, GIF or WebP image (base64)")
    return size


def openai_tokens(url: str, detail: str | None) -> int:
    """OpenAI's prompt tokens for an image part (see the module docstring).

    Raises:
        BadImage: see `size_of` (also at ``detail: low``: the image must be readable).
    """
    width_px, height_px = size_of(url)
    if (detail or "auto") == "low":
        return BASE_TOKENS
    scale = min(1.0, 2048 / max(width_px, height_px))
    w, h = width_px * scale, height_px * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return BASE_TOKENS + TILE_TOKENS * math.ceil(w / 512) * math.ceil(h / 512)


def anthropic_tokens(data_url: str) -> int:
    """Anthropic's prompt tokens for an image block (see the module docstring).

    Raises:
        BadImage: see `size_of`.
    """
    w, h = size_of(data_url)
    scale = min(1.0, 1568 / max(w, h))
    return max(1, math.ceil(w * scale * h * scale / 750))


def placeholder(url: str, detail: str | None, tokens: int, chars_per_token: int) -> str:
    """A stand-in for the image in the serialized prompt: ``tokens · chars_per_token``
    characters, the same for the same image and detail, different for any other (a BLAKE2b
    digest of both, repeated)."""
    digest = hashlib.blake2b(f"{detail or 'auto'}\n{url}".encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    unit = f"\u241eimage:{digest}\u241e"
    need = tokens * chars_per_token
    return (unit * (need // len(unit) + 1))[:need]
