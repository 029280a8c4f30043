import math

import pytest
import torch

from embedding_course import rounding


@pytest.mark.parametrize("error, bound", [
    (3.4e-13, 1e-12), (6.3e-13, 1e-12), (1.5e-14, 1e-13), (1.6e-14, 1e-13),
    (9.99e-7, 1e-6), (1e-12, 1e-11), (1e-7, 1e-6), (2.0, 10.0), (0.5, 1.0),
])
def test_the_bound_is_the_smallest_power_of_ten_above_the_error(error, bound):
    assert rounding.power_of_ten_above(error) == pytest.approx(bound, rel=1e-12)


@pytest.mark.parametrize("exponent", range(-15, 5))
def test_the_bound_is_above_the_error_and_the_next_power_down_is_not(exponent):
    for error in (10.0 ** exponent, math.nextafter(10.0 ** exponent, 0), 3 * 10.0 ** exponent):
        bound = rounding.power_of_ten_above(error)
        power = round(math.log10(bound))
        assert bound == 10.0 ** power
        assert error < bound
        assert 10.0 ** (power - 1) <= error


def test_no_bound_is_finer_than_the_type_resolves():
    # float32's epsilon is 1.2e-07: every float32 rounding error is "below 10⁻⁶".
    for error in (0.0, 6.0e-08, 1.2e-07, 3.0e-08):
        assert rounding.power_of_ten_above(error, torch.float32) == pytest.approx(1e-6, rel=1e-12)
    assert rounding.power_of_ten_above(2.7e-06, torch.float32) == pytest.approx(1e-5, rel=1e-12)
    assert rounding.power_of_ten_above(0.0) == pytest.approx(1e-15, rel=1e-12)  # float64: eps 2.2e-16
    assert rounding.power_of_ten_above(3e-20, torch.float64) == pytest.approx(1e-15, rel=1e-12)
    assert rounding.power_of_ten_above(6.3e-13, torch.float64) == pytest.approx(1e-12, rel=1e-12)


@pytest.mark.parametrize("bad", [-1e-13, float("nan"), float("inf"), "1e-13", None, True])
def test_an_error_that_is_not_a_number_at_least_zero_is_refused(bad):
    with pytest.raises(ValueError, match="error must be a finite number >= 0"):
        rounding.power_of_ten_above(bad)


@pytest.mark.parametrize("bad", [torch.int64, torch.bool, "float32", None])
def test_a_dtype_that_is_not_a_float_type_is_refused(bad):
    with pytest.raises(ValueError, match=r"dtype must be a floating-point torch\.dtype"):
        rounding.power_of_ten_above(1e-13, bad)


@pytest.mark.parametrize("bound, text", [(1e-6, "10⁻⁶"), (1e-12, "10⁻¹²"), (1e-15, "10⁻¹⁵"), (1.0, "10⁰"),
                                         (1000.0, "10³")])
def test_a_bound_is_written_as_a_power_of_ten(bound, text):
    assert rounding.written(bound) == text
    assert rounding.written(rounding.power_of_ten_above(bound / 2)) == text


@pytest.mark.parametrize("bad", [0.0, 2e-6, 3.0, -1e-6, float("nan")])
def test_only_a_power_of_ten_is_written_as_one(bad):
    with pytest.raises(ValueError, match="bound must be"):
        rounding.written(bad)
