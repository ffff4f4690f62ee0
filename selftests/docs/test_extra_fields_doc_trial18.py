"""Trial 18 P-8: docs/result-document.md said ``extra_fields.judge_model`` repeats the judge's model, but
``result.json``'s ``extra_fields`` has no such key (only ``reward_exit_message.json``'s legacy ``extra_fields``
has). Every ``extra_fields.X`` the docs name is a key of the schema's ``ExtraFields``, or one of the original's
legacy keys named together with ``reward_exit_message.json`` (the only document that carries them)."""

from __future__ import annotations

import re
from pathlib import Path

from cowork_judge.core.legacy import LEGACY_EXTRA_KEYS
from cowork_judge.core.result import ExtraFields

REPO = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"extra_fields\.([A-Za-z_]+)")
NEAR = 120
"""Characters before a legacy key's mention in which ``reward_exit_message`` must be named."""


def _mentions() -> list[tuple[str, str, str]]:
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    return [(page.relative_to(REPO).as_posix(), m.group(1), page.read_text()[max(0, m.start() - NEAR):m.start()])
            for page in pages for m in NAMED.finditer(page.read_text())]


def test_every_extra_field_the_docs_name_is_in_the_document_they_name():
    mentions = _mentions()
    assert mentions, "no extra_fields.X found: the pattern no longer matches the docs"
    own = set(ExtraFields.model_fields)
    for page, key, before in mentions:
        if key in own:
            continue
        assert key in LEGACY_EXTRA_KEYS, f"{page}: extra_fields.{key} is no key of result.json or the exit message"
        assert "reward_exit_message" in before, (f"{page}: extra_fields.{key} is only in reward_exit_message.json's "
                                                 "extra_fields; name that document")
