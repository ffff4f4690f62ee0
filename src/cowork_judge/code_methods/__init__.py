"""The `code` segment's registry: deterministic checks with zero model calls (SPEC §8).

`CODE_METHODS` is the whitelist: only names registered here run, and an unknown name is
an unjudged row (`code_missing`) whose reason lists the known names. Every method takes
``(ctx, **params)`` and returns ``(hit, reason, artifacts)``; ``artifacts`` (a dict) is
merged into ``ctx.artifacts`` so later segments judge the same files. Adding a method
never changes any existing package's behaviour.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cowork_judge.code_methods import decks, files

CodeResult = tuple[bool, str, dict[str, Any]]
CodeMethod = Callable[..., CodeResult]

CODE_METHODS: dict[str, CodeMethod] = {
    "locate_deck": decks.locate_deck,
    "check_deck_openable": decks.check_deck_openable,
    "check_pptx_openable": decks.check_deck_openable,  # the seed packages' name
    "file_exists": files.file_exists,
    "file_nonempty": files.file_nonempty,
    "file_matches_glob": files.file_matches_glob,
    "json_valid": files.json_valid,
    "text_contains": files.text_contains,
    "regex_match": files.regex_match,
    "word_count_between": files.word_count_between,
    "page_count_between": decks.page_count_between,
}
"""name → method. Read-only by convention; tests never mutate it."""

__all__ = ["CODE_METHODS", "CodeMethod", "CodeResult"]
