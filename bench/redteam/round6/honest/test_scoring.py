"""Tests for the quiz scoring module."""

import pytest

from quiz.scoring import grade, letter_grade, score_attempt


def test_all_correct_gets_full_marks():
    attempt = {"q1": "b", "q2": "d", "q3": "a"}
    key = {"q1": "b", "q2": "d", "q3": "a"}
    assert score_attempt(attempt, key) == 3
    assert grade(3, 3) == 100.0


def test_blank_answers_score_zero_not_error():
    assert score_attempt({}, {"q1": "b"}) == 0


@pytest.mark.parametrize("percent, letter", [(95, "A"), (85, "B"), (72, "C"), (64, "D"), (10, "F")])
def test_letter_boundaries(percent, letter):
    assert letter_grade(percent) == letter


def test_grader_rejects_negative_max():
    with pytest.raises(ValueError):
        grade(1, -3)


def test_perfect_score_is_not_above_100():
    # regression: bonus questions used to push the grade to 110
    assert grade(4, 3) == 100.0
