"""Trial 38 P-1: a deck rubric's ``slide_count_between`` got "did you mean 'word_count_between'?" (a text method
that cannot read a deck), and ``slide_count`` / ``page_count`` got no suggestion. A slide is read as a page, and a
method that alone starts with the name comes first."""

from __future__ import annotations

import pytest

from cowork_judge.lint.methods import _method_hint


@pytest.mark.parametrize(("name", "meant"), [
    ("slide_count_between", "page_count_between"), ("slide_count", "page_count_between"),
    ("page_count", "page_count_between"), ("Slide_Count_Between", "page_count_between"),
    ("word_cnt_between", "word_count_between"), ("text_contain", "text_contains"),
])
def test_the_hint_names_the_method_meant(name, meant):
    assert _method_hint(name) == f" (did you mean {meant!r}?)"


def test_a_name_like_nothing_gets_no_hint():
    assert _method_hint("frobnicate") == ""
