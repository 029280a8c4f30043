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


@pytest.mark.parametrize("value, decimals", [(0.584, 1), (0.962, 1), (1.0, 1), (0.0, 1), (0.2005, 1),
                                             (0.133, 2)])
def test_a_value_away_from_a_rounding_boundary_is_steady(value, decimals):
    assert rounding.steady(value, decimals) == value


@pytest.mark.parametrize("value, decimals", [(0.6504, 1), (0.6496, 1), (0.1348, 2), (0.9501, 1)])
def test_a_value_a_rounding_difference_could_flip_is_refused(value, decimals):
    with pytest.raises(ValueError, match=r"rounding to \d decimals changes"):
        rounding.steady(value, decimals)


def test_the_range_holds_every_value_with_its_ends_rounded_outwards():
    assert rounding.enclosing_range([0.52, 0.6504, 0.58]) == "0.5–0.7"  # nearest: 0.7 by 0.0004
    assert rounding.enclosing_range([0.89, 1.0, 0.99], within=(0, 1)) == "0.8–1.0"
    assert rounding.enclosing_range([1.0, 1.0], within=(0, 1)) == "1.0–1.0"  # at a limit: cannot move
    assert rounding.enclosing_range([0.175, 0.222]) == "0.1–0.3"
    assert rounding.enclosing_range([0.8912, 0.9588], decimals=2) == "0.89–0.96"


@pytest.mark.parametrize("values", [[0.9003, 1.0], [0.8998, 1.0], [0.5, 0.7002], [0.5, 0.6998],
                                    [0.3, 0.55], [0.25, 0.7]])  # on an inner grid point: 0.7000001 moves it
def test_a_range_whose_end_could_move_is_refused(values):
    with pytest.raises(ValueError, match="could move"):
        rounding.enclosing_range(values)


@pytest.mark.parametrize("call, message", [
    (lambda: rounding.enclosing_range([]), "at least one number"),
    (lambda: rounding.enclosing_range([0.5, float("nan")]), "values must be"),
    (lambda: rounding.steady(0.5, decimals=-1), "decimals must be"),
    (lambda: rounding.steady("0.5"), "value must be"),
    (lambda: rounding.steady(0.5, decimals=400), "decimals must be at most 15"),
    (lambda: rounding.steady(0.42, margin=0.05), "margin must be below half a step"),
    (lambda: rounding.enclosing_range([0.5], within=(1, 0)), "within must be a pair"),
    (lambda: rounding.enclosing_range([0.5], within=(0,)), "within must be a pair"),
    (lambda: rounding.enclosing_range([1.2], within=(0, 1)), "that holds every value"),
])
def test_bad_input_is_refused_with_what_is_allowed(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_ends_are_what_every_value_reaches_and_what_none_passes():
    assert rounding.outward_ends([0.52, 0.65]) == (0.5, 0.7)
    assert rounding.outward_ends([0.9922, 0.9961], decimals=2, within=(0, 1)) == (0.99, 1.0)
    assert rounding.outward_ends([1.366], within=(0, math.inf)) == (1.3, 1.4)
    low, high = rounding.outward_ends([0.8912, 0.9588], decimals=2)
    assert low <= 0.8912 and high >= 0.9588
    with pytest.raises(ValueError, match="could move"):
        rounding.outward_ends([0.9902], decimals=2)  # a rounding difference could give 0.98


def test_an_end_at_a_limit_no_value_can_pass_stays():
    assert rounding.enclosing_range([0.9988, 0.95], within=(0.0, 1.0)) == "0.9–1.0"
    assert rounding.enclosing_range([0.0012, 0.05], within=(0.0, 1.0)) == "0.0–0.1"
    with pytest.raises(ValueError, match="could move"):
        rounding.enclosing_range([0.9988, 0.95])  # without the limit 1.0 could become 1.1
