"""Tests of the exercises of lesson 7: the worked answers pass, typical mistakes are named."""

import math

import numpy as np
import torch

from embedding_course.exercises import length_generalisation as ex


def test_copy_targets_accepts_the_answer_as_list_array_or_tensor():
    answer = [-100] * 3 + list(ex.COPY_IDS[:-3])
    assert ex.copy_targets_exercise().answer.expected == answer
    for form in (answer, np.array(answer), torch.tensor(answer)):
        assert ex.check_copy_targets(form)


def test_copy_targets_names_the_typical_mistakes():
    assert "No answer yet" in str(ex.check_copy_targets(None))
    assert "put -100 at the first 3 positions" in str(ex.check_copy_targets(list(ex.COPY_IDS[:-3])))
    assert "copies 1 place(s) back" in str(ex.check_copy_targets([-100, *ex.COPY_IDS[:-1]]))
    assert "copies 5 place(s) back" in str(ex.check_copy_targets([-100] * 5 + list(ex.COPY_IDS[:-5])))
    padded_with_zero = [0, 0, 0, *ex.COPY_IDS[:-3]]
    assert "the first 3 positions must be -100" in str(ex.check_copy_targets(padded_with_zero))
    padded_with_minus_one = [-1, -1, -1, *ex.COPY_IDS[:-3]]
    assert str(ex.check_copy_targets(padded_with_minus_one)).count("so it gets -100") == 3
    assert "give 8 numbers" in str(ex.check_copy_targets([1, 2]))
    assert "is text" in str(ex.check_copy_targets("5 1 4"))
    assert "whole number" in str(ex.check_copy_targets([-100] * 3 + [5.5, 1, 4, 4, 2]))


def test_the_curve_of_exercise_2_has_no_answer_exactly_where_copy_back_has_none():
    """The page says lengths 1 to 3 are NaN because copy back has no answer there: as in the task."""
    from embedding_course.length_generalisation import make_batch

    _, targets = make_batch("copy_back", 4, len(ex.CURVE), torch.Generator().manual_seed(0))
    no_answer = (targets == -100).all(0).numpy()  # (lengths,): position p is length p + 1
    assert np.array_equal(np.isnan(np.array(ex.CURVE)), no_answer)


def test_beyond_mean_accepts_the_mean_of_the_unseen_lengths():
    assert ex.check_beyond_mean(float(np.mean(ex.CURVE[8:])))
    assert ex.check_beyond_mean(torch.tensor(np.mean(ex.CURVE[8:])))


def test_beyond_mean_names_the_typical_mistakes():
    curve = np.array(ex.CURVE)
    assert "every length" in str(ex.check_beyond_mean(float(np.nanmean(curve))))
    assert "off by one" in str(ex.check_beyond_mean(float(np.mean(curve[7:]))))
    assert "off by one" in str(ex.check_beyond_mean(float(np.mean(curve[9:]))))
    assert "you included lengths 1 to 3" in str(ex.check_beyond_mean(float(np.mean(curve))))  # NaN
    assert "you included lengths 1 to 3" in str(ex.check_beyond_mean(torch.tensor(math.nan)))
    assert "finite" in str(ex.check_beyond_mean(math.inf))
    assert "one number" in str(ex.check_beyond_mean([0.1, 0.2]))
    assert "not an accuracy" in str(ex.check_beyond_mean(69.0))
    assert not ex.check_beyond_mean(0.9)


def test_spread_wants_false_because_the_ranges_overlap():
    assert ex.check_spread(False) and ex.check_spread(np.bool_(False)) and ex.check_spread(0)
    verdict = ex.check_spread(True)
    assert not verdict and "ranges" in str(verdict)
    assert "True or False" in str(ex.check_spread("no"))
    assert "within the seeds' spread" in str(ex.check_spread(0.5))
    assert "No answer yet" in str(ex.check_spread(None))

