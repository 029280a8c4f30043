"""Tests of the frequency-spacing figure of lesson 4's "in the wild" section."""

import math

import numpy as np
import pytest

from embedding_course.figures import sinusoidal_variants as figures


def test_left_panel_draws_both_spacings_ending_where_the_formulas_say():
    figure = figures.frequency_spacing_figure(d_model=16, d_models=(16, 512))
    left, right = figure.axes
    paper, spaced = left.get_lines()[:2]
    assert np.asarray(paper.get_ydata())[-1] == pytest.approx(2 * math.pi * 10000 ** (14 / 16))
    assert np.asarray(spaced.get_ydata())[-1] == pytest.approx(2 * math.pi * 10000)
    ratios = [np.asarray(line.get_ydata()) for line in right.get_lines()]
    assert ratios[0][-1] == pytest.approx(10000 ** (2 / 16))  # the last pair, d = 16
    assert ratios[1][-1] == pytest.approx(10000 ** (2 / 512))


def test_no_widths_raise_value_error():
    with pytest.raises(ValueError, match="d_models"):
        figures.frequency_spacing_figure(d_models=())
