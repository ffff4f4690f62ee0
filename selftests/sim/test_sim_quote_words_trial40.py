"""Trial 40 P-1: the simulator's stand-in quote (an oracle entry without ``quote``) was a fixed 100-character window
that started and ended mid-word (``'nthesis: how plants make food …'``), shown on the report page as the row's quote.
It now drops a word cut at either end, and stays a verbatim passage of the line (so it grounds as before)."""

from __future__ import annotations

from cowork_judge.sim.quotes import QUOTE_CHARS, honest_quote

LINE = ("Photosynthesis: how plants make food A guide for 8th-grade science students Light energy -> chemical energy "
        "and more about chloroplasts, glucose and oxygen")


def test_a_window_near_the_end_starts_on_a_word():
    quote = honest_quote({"description": "The deck names glucose and oxygen."}, [LINE])
    assert quote is not None and quote in LINE and len(quote) <= QUOTE_CHARS
    start = LINE.index(quote)
    assert LINE[start - 1] == " " and quote.endswith("oxygen"), quote


def test_a_window_from_the_start_ends_on_a_word():
    quote = honest_quote({"description": "how plants make food"}, [LINE])
    assert quote is not None and quote.startswith("how plants make food") and quote in LINE
    end = LINE.index(quote) + len(quote)
    assert LINE[end] == " ", quote


def test_a_short_line_and_a_single_long_word_are_kept():
    assert honest_quote({"description": "water"}, ["The water cycle"]) == "The water cycle"
    assert honest_quote({"description": "x"}, ["a" * 300]) == "a" * QUOTE_CHARS  # no space to cut at
