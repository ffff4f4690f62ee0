"""A zero-byte deliverable is set aside as empty, and the code rows that look for it say it is
there but empty instead of calling it absent (trial 3 L1). The verdict itself (a miss) is unchanged."""

from __future__ import annotations

from testkit import make_ctx

from cowork_judge.code_methods import CODE_METHODS


def test_an_empty_file_is_named_as_empty_not_absent(tmp_path):
    ctx = make_ctx(tmp_path, {"report.txt": "", "deck.pptx": "", "notes.md": "hello"})
    seg = ctx.segment()
    for method in ("file_exists", "file_nonempty", "json_valid"):
        hit, reason, _ = CODE_METHODS[method](seg, glob="*.txt")
        assert hit is False and "report.txt is there but empty (0 bytes)" in reason, (method, reason)
    hit, reason, _ = CODE_METHODS["locate_deck"](seg)
    assert hit is False and "deck.pptx is there but empty (0 bytes)" in reason, reason
    hit, reason, _ = CODE_METHODS["file_exists"](seg, glob="*.csv")
    assert hit is False and "empty" not in reason  # only the files the glob names
