"""Tests of the exercise checkers of lesson 7: the worked answers pass, typical mistakes are named."""

import math

import numpy as np
import torch

from embedding_course.exercises import length_generalisation as ex


def test_copy_targets_accepts_the_answer_as_list_array_or_tensor():
    answer = [-100] * 3 + list(ex.COPY_IDS[:-3])
    for form in (answer, np.array(answer), torch.tensor(answer)):
        assert ex.check_copy_targets(form)


def test_copy_targets_names_the_typical_mistakes():
    assert "No answer yet" in str(ex.check_copy_targets(None))
    assert "-100 at the first 3" in str(ex.check_copy_targets(list(ex.COPY_IDS[:-3])))
    assert "copies 1 place(s) back" in str(ex.check_copy_targets([-100, *ex.COPY_IDS[:-1]]))
    padded_with_zero = [0, 0, 0, *ex.COPY_IDS[:-3]]
    assert "the first 3 must be -100" in str(ex.check_copy_targets(padded_with_zero))
    assert "8 numbers" in str(ex.check_copy_targets([1, 2]))
    assert "list of 8 whole numbers" in str(ex.check_copy_targets("5 1 4"))


def test_beyond_mean_accepts_the_mean_of_the_unseen_lengths():
    assert ex.check_beyond_mean(float(np.mean(ex.CURVE[8:])))
    assert ex.check_beyond_mean(torch.tensor(np.mean(ex.CURVE[8:])))


def test_beyond_mean_names_the_typical_mistakes():
    curve = np.array(ex.CURVE)
    assert "every length" in str(ex.check_beyond_mean(float(np.nanmean(curve))))
    assert "off by one" in str(ex.check_beyond_mean(float(np.mean(curve[7:]))))
    assert "NaN" in str(ex.check_beyond_mean(math.nan))
    assert "one number" in str(ex.check_beyond_mean([0.1, 0.2]))
    assert not ex.check_beyond_mean(0.9)


def test_spread_wants_false_because_the_ranges_overlap():
    assert ex.check_spread(False)
    verdict = ex.check_spread(True)
    assert not verdict and "ranges" in str(verdict)
    assert "True" in str(ex.check_spread("no"))
    assert "No answer yet" in str(ex.check_spread(None))
