"""Cached-prefix token accounting of the simulated judge, as OpenAI-compatible endpoints report it.

The rule (OpenAI's prompt caching, applied to every endpoint of the simulator): a request's
``cached_tokens`` is the length of the longest prefix its serialized prompt shares with the
prompt of any earlier ANSWERED request to this server, counted with the simulator's token
estimate (4 characters = 1 token), rounded DOWN to a multiple of 128 tokens, and 0 when
that is under 1024 tokens. So it is 0 or 1024, 1152, 1280, ... and never more than the
prompt. The serialized prompt is the text the simulator counts as the prompt, in order
(``SimRequest.prompt_text``): an image stands in it, in its place, as a stand-in string as long
as its tokens (`image_tokens.placeholder`), as OpenAI caches images; tool definitions are
not part of it.

Implementation: the prompt is cut into blocks of 512 characters (128 tokens); a chain of
BLAKE2b digests (each over the previous digest and one block) names every block prefix, so
a prefix is shared exactly when its chain digest was seen before. Nothing expires (real
caches drop prefixes after minutes of disuse).
"""

from __future__ import annotations

import hashlib
import threading

__all__ = ["CACHE_BLOCK_TOKENS", "CACHE_MIN_TOKENS", "CHARS_PER_TOKEN", "PrefixCache"]

CACHE_MIN_TOKENS = 1024
"""Shorter shared prefixes are not reported (OpenAI caches prompts of 1024 tokens or more)."""
CACHE_BLOCK_TOKENS = 128
"""Cached tokens come in steps of this many tokens."""
CHARS_PER_TOKEN = 4
"""The simulator's token estimate (``turn.estimate_tokens``)."""


class PrefixCache:
    """Remembers the prompts of answered requests; tells how many leading tokens were seen.

    Args:
        min_tokens: smallest reported prefix, tokens (>= block_tokens).
        block_tokens: reporting step, tokens (>= 1).

    Thread-safe. Memory: one 16-byte digest per 512 characters of distinct prompt prefix.
    """

    def __init__(self, min_tokens: int = CACHE_MIN_TOKENS, block_tokens: int = CACHE_BLOCK_TOKENS) -> None:
        if block_tokens < 1 or min_tokens < block_tokens:
            raise ValueError("need block_tokens >= 1 and min_tokens >= block_tokens")
        self.min_tokens = min_tokens
        self.block_tokens = block_tokens
        self._block_chars = block_tokens * CHARS_PER_TOKEN
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()

    def _chain(self, text: str) -> list[bytes]:
        digests, prev = [], b""
        # blocks are cut on characters, not bytes, so the count matches the token estimate
        for start in range(0, len(text) - self._block_chars + 1, self._block_chars):
            block = text[start : start + self._block_chars].encode("utf-8", "surrogatepass")
            prev = hashlib.blake2b(prev + block, digest_size=16).digest()
            digests.append(prev)
        return digests

    def lookup(self, text: str) -> int:
        """Cached tokens of ``text`` against the prompts stored so far (0 or >= ``min_tokens``)."""
        with self._lock:
            return self._count(self._chain(text))

    def _count(self, chain: list[bytes]) -> int:
        blocks = 0
        for digest in chain:
            if digest not in self._seen:
                break
            blocks += 1
        tokens = blocks * self.block_tokens
        return tokens if tokens >= self.min_tokens else 0

    def lookup_and_store(self, text: str) -> int:
        """``lookup(text)``, then remember ``text``'s prefixes for later requests (atomic)."""
        chain = self._chain(text)
        with self._lock:
            cached = self._count(chain)
            self._seen.update(chain)
        return cached

    def clear(self) -> None:
        """Forget every stored prompt."""
        with self._lock:
            self._seen.clear()
