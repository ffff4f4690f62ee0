"""Image parts in the simulator's prompt: counted as OpenAI and Anthropic count them, and
cached as part of the prefix (the same image in the same place), over real HTTP."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from cowork_judge.sim import image_tokens as it
from cowork_judge.sim.prefix_cache import PrefixCache
from cowork_judge.sim.turn import PromptText, SimRequest


def png(width: int, height: int) -> bytes:
    """A real (blank, 1-bit) PNG of the given size."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


def data_url(data: bytes, media: str = "image/png") -> str:
    return f"data:{media};base64," + base64.b64encode(data).decode("ascii")


@pytest.mark.parametrize(("size", "detail", "tokens"), [
    ((1280, 720), "high", 85 + 170 * 6),   # 1365 × 768 after scaling: 3 × 2 tiles (OpenAI's worked example shape)
    ((1024, 1024), "auto", 85 + 170 * 4),  # 768 × 768: 2 × 2 tiles
    ((2048, 4096), "high", 85 + 170 * 6),  # 1024 × 2048 → 768 × 1536: 2 × 3 tiles (OpenAI's own example)
    ((4000, 3000), "low", 85),
    ((100, 50), None, 85 + 170),
])
def test_openai_rule(size, detail, tokens):
    assert it.image_size(png(*size)) == size
    assert it.openai_tokens(data_url(png(*size)), detail) == tokens


def test_anthropic_rule_and_unknown_images():
    assert it.anthropic_tokens(data_url(png(1000, 750))) == 1000  # 1000 · 750 / 750
    assert it.anthropic_tokens(data_url(png(3136, 1568))) == 1568 * 784 // 750 + 1  # long edge scaled to 1568
    assert it.openai_tokens("https://example.org/page.png", "high") == 85 + 170 * 4  # not fetched: UNKNOWN_SIZE


@pytest.mark.parametrize("url", ["", "data:image/png;base64,!!!not-base64", data_url(b"plain text, no image"),
                                 "file:///etc/passwd", "page-001.png", "data:image/png,%89PNG"])
def test_an_unusable_image_is_refused(url):
    with pytest.raises(it.BadImage):
        it.openai_tokens(url, "low")


def test_long_data_url_headers_and_url_safe_base64_are_read():
    raw = png(1280, 720)
    long_head = "data:image/png;name=" + "x" * 200 + ";base64," + base64.b64encode(raw).decode()
    assert it.openai_tokens(long_head, "high") == 1105
    urlsafe = "data:image/png;base64," + base64.urlsafe_b64encode(raw + b"\xfb\xff" * 40).decode()
    assert it.openai_tokens(urlsafe, "high") == 1105


def test_jpeg_gif_and_webp_sizes_are_read():
    jpeg = b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9 \
        + b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 600, 800) + b"\x03" + b"\x00" * 9
    assert it.image_size(jpeg) == (800, 600)
    assert it.image_size(b"GIF89a" + struct.pack("<HH", 320, 200) + b"\x00" * 8) == (320, 200)
    vp8x = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x0a\x00\x00\x00" + b"\x00" * 4 + (639).to_bytes(3, "little") + (479).to_bytes(3, "little")
    assert it.image_size(vp8x) == (640, 480)
    assert it.image_size(b"not an image") is None and it.image_size(b"") is None


def _prompt(*parts: tuple[str, str]) -> SimRequest:
    prompt = PromptText()
    for kind, value in parts:
        if kind == "image":
            prompt.add_image(value, "high")
        else:
            prompt.add("user", value)
    return prompt.finish(SimRequest(rows=[]))


def test_an_image_is_part_of_the_cached_prefix_in_its_place():
    page1, page2 = data_url(png(1280, 720)), data_url(png(1280, 721))
    system = "s" * 800
    cache = PrefixCache()
    first = _prompt(("text", system), ("image", page1), ("text", "rows A" * 40))
    assert first.images == 1 and first.image_tokens == 1105
    assert first.prompt_chars == len(system) + 1105 * 4 + len("rows A" * 40)
    assert cache.lookup_and_store(first.prompt_text) == 0
    # the same page image after the same system text: system + image (1305 tokens) are cached, in 128 steps
    again = _prompt(("text", system), ("image", page1), ("text", "rows B" * 40))
    assert cache.lookup_and_store(again.prompt_text) == (200 + 1105) // 128 * 128
    # another image at that place shares only the text before it (200 tokens < 1024: nothing)
    other = _prompt(("text", system), ("image", page2), ("text", "rows A" * 40))
    assert cache.lookup_and_store(other.prompt_text) == 0
    # the image after the rows: the rows differ before it, so the image cannot be reused
    late_a = _prompt(("text", system), ("text", "rows A" * 40), ("image", page1))
    late_b = _prompt(("text", system), ("text", "rows C" * 40), ("image", page1))
    fresh = PrefixCache()
    fresh.lookup_and_store(late_a.prompt_text)
    assert fresh.lookup_and_store(late_b.prompt_text) == 0


def test_usage_over_http_counts_images_and_caches_them():
    """The real openai client over HTTP: prompt_tokens include the image, and the second
    request on the same page reports the image and the text before it as cached."""
    import openai

    from cowork_judge.sim import OraclePolicy, SimServer

    page = data_url(png(1280, 720))
    system = "You judge ONE page. " * 60  # 1200 characters: 300 tokens

    def msgs(row: str):
        return [{"role": "system", "content": system},
                {"role": "user", "content": [{"type": "text", "text": "<page_number>1</page_number> the page:"},
                                             {"type": "image_url", "image_url": {"url": page, "detail": "high"}},
                                             {"type": "text", "text": f'<rubric_rows>[{{"id": "{row}"}}]</rubric_rows>'}]}]

    with SimServer(OraclePolicy.from_dict({"R1": {"hit": True}, "R2": {"hit": False}})) as sim:
        client = openai.OpenAI(base_url=sim.url, api_key="sk-sim", max_retries=0)
        try:
            a = client.chat.completions.create(model="m", messages=msgs("R1"))
            b = client.chat.completions.create(model="m", messages=msgs("R2"))
        finally:
            client.close()
    head = len(system) + len("<page_number>1</page_number> the page:")
    assert a.usage.prompt_tokens == -(-(head + 1105 * 4 + len('<rubric_rows>[{"id": "R1"}]</rubric_rows>')) // 4)
    assert (a.usage.prompt_tokens_details.cached_tokens or 0) == 0
    assert b.usage.prompt_tokens_details.cached_tokens == (head // 4 + 1105) // 128 * 128


@pytest.mark.parametrize(("part", "why"), [
    ({"type": "image_url", "image_url": None}, "needs a url"),
    ({"type": "image_url"}, "needs a url"),
    ({"type": "image_url", "image_url": {"url": 12345}}, "needs a url"),
    ({"type": "image_url", "image_url": {"url": "file:///etc/hosts"}}, "data: URL or http(s)"),
    ({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, "holds no PNG"),
])
def test_the_endpoint_refuses_unusable_image_parts_with_400(part, why):
    import openai

    from cowork_judge.sim import SimServer

    msgs = [{"role": "user", "content": [{"type": "text", "text": '<rubric_rows>[{"id": "R1"}]</rubric_rows>'}, part]}]
    with SimServer() as sim:
        client = openai.OpenAI(base_url=sim.url, api_key="sk-sim", max_retries=0)
        try:
            with pytest.raises(openai.BadRequestError) as info:
                client.chat.completions.create(model="m", messages=msgs)
        finally:
            client.close()
        entry = sim.log[0]
    assert why in str(info.value) and info.value.param == "messages"
    assert entry.status == 400 and entry.kind == "error" and not sim.errors
