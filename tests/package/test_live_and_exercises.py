"""The shared parts of exercise checkers (live explorers: test_live.py)."""

from embedding_course import exercises


def test_feedback_is_truthy_only_when_correct():
    assert exercises.correct("well done")
    verdict = exercises.wrong("shape is (3, 4), expected (4, 3)")
    assert not verdict
    assert "shape is (3, 4)" in str(verdict)
    assert verdict._repr_markdown_().startswith("**Not yet.**")


def test_not_answered_gives_a_hint():
    verdict = exercises.not_answered("start from torch.zeros")
    assert not verdict and "torch.zeros" in str(verdict) and "None" in str(verdict)


def test_answers_are_read_as_numbers_or_rejected():
    import numpy as np
    import torch

    np.testing.assert_array_equal(exercises.as_array(torch.tensor([[1, 2]])), [[1.0, 2.0]])
    assert exercises.as_array("1, 2") is None
    assert exercises.as_array([[1], [2, 3]]) is None  # ragged
    assert exercises.as_number(torch.tensor([0.5])) == 0.5
    assert exercises.as_number([1, 2]) is None
    assert exercises.as_number(True) is None


def test_number_pair_reads_two_numbers_or_says_what_is_wrong():
    assert exercises.number_pair(("3", 4.5), "(a, b)") == (3.0, 4.5)
    assert exercises.number_pair([7, 8], "(a, b)", whole=True) == (7, 8)
    for bad, message in [("ab", "give a pair: (a, b)"), ([1, 2, 3], "give a pair"),
                         (["x", 1], "must be numbers")]:
        verdict = exercises.number_pair(bad, "(a, b)")
        assert isinstance(verdict, exercises.Feedback) and not verdict and message in str(verdict)
