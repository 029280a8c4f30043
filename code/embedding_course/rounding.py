"""How large is rounding? A bound that a page can quote on any machine.

Float arithmetic rounds, and by how much depends on the order in which the operations run:
the width of the CPU's vector instructions (AVX2 or AVX-512), the number of threads, the GPU.
So a check such as "these two tables are the same" ends in a tiny number that is 3.4e-13 on
one machine and 6.3e-13 on the next. What a lesson claims is its size, so it quotes the power
of ten just above it: "below 10⁻¹²". Nor does it quote a bound finer than the type resolves
(its machine epsilon, rounded up the same way): 6.0e-08 on one machine and 1.2e-07 on another
are both float32 rounding, "below 10⁻⁶".

A number from training or sampling moves a little from one machine to the next too, and a
page quotes it to one decimal, say. That holds on every machine only if the number is not near
the point where its rounding changes: :func:`steady` checks that, and :func:`enclosing_range`
writes the range of several seeds with its ends rounded outwards (every seed lies inside it);
:func:`outward_ends` gives those ends as numbers, for "at least" and "at most".
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import torch

from embedding_course import checks


def power_of_ten_above(error: float, dtype: torch.dtype = torch.float64) -> float:
    """The smallest power of ten greater than ``error``, and than ``dtype``'s machine epsilon.

    1e-12 for 3.4e-13 and for 6.3e-13 (float64); 1e-06 for 6.0e-08, 1.2e-07 or 0 in float32.

    Args:
        error: a rounding error, a finite number >= 0 (a GPU may round where a CPU does not).
        dtype: the floating-point type the error arose in.

    Returns:
        ``10.0 ** k`` for the smallest whole ``k`` with ``max(error, eps) < 10 ** k``.
    """
    error = checks.non_negative(error, "error")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point torch.dtype such as torch.float32, got {dtype!r}")
    error = max(error, torch.finfo(dtype).eps)
    exponent = math.floor(math.log10(error)) + 1
    if 10.0 ** (exponent - 1) > error:  # log10 rounded up across a power of ten
        exponent -= 1
    if not error < 10.0 ** exponent:  # log10 rounded down at a power of ten
        exponent += 1
    return 10.0 ** exponent


SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def written(bound: float) -> str:
    """A power of ten as prose writes it: "10⁻⁶" for 1e-06 (as Python prints it), "10³" for 1000.

    Args:
        bound: a whole power of ten, such as :func:`power_of_ten_above` returns.
    """
    bound = checks.non_negative(bound, "bound")
    exponent = round(math.log10(bound)) if bound > 0 else None
    if exponent is None or not math.isclose(bound, 10.0 ** exponent, rel_tol=1e-9):
        raise ValueError(f"bound must be a whole power of ten such as 1e-06, got {bound!r}")
    return "10" + str(exponent).translate(SUPERSCRIPTS)


STEADY_SHARE = 0.05  # a quoted number's distance from a rounding boundary: a 20th of a step (0.005 at 0.1)
MAX_DECIMALS = 15  # float64 holds about 16 significant digits


def _grid(decimals: int, margin: float | None) -> tuple[float, float]:
    """The step of ``decimals`` places and the margin (by default a 20th of the step)."""
    checks.whole(decimals, "decimals", minimum=0, hint="a number of decimal places")
    if decimals > MAX_DECIMALS:
        raise ValueError(f"decimals must be at most {MAX_DECIMALS} (float64's resolution), got {decimals}")
    step = 10.0 ** -decimals
    if margin is None:
        return step, STEADY_SHARE * step
    margin = checks.non_negative(margin, "margin")
    if margin >= step / 2:
        raise ValueError(f"margin must be below half a step ({step / 2:g} at {decimals} decimals), "
                         f"got {margin!r}")
    return step, margin


def steady(value: float, decimals: int = 1, margin: float | None = None) -> float:
    """``value``, after checking that rounding it to ``decimals`` places cannot flip.

    0.584 to one decimal is 0.6 on any machine that gives it within 0.005; 0.6504 is not
    (0.6496 gives 0.6). ``margin`` is a 20th of a step unless given (0.005 at one decimal).

    Raises:
        ValueError: when ``value`` lies within ``margin`` of a boundary between two roundings.
    """
    value = checks.number(value, "value")
    step, margin = _grid(decimals, margin)
    boundary = (math.floor(value / step) + 0.5) * step  # the rounding boundary in value's step
    if abs(value - boundary) < margin:
        raise ValueError(f"value {value!r} is within {margin:g} of {boundary:.{decimals + 1}f}, where its "
                         f"rounding to {decimals} decimals changes; quote it otherwise")
    return value


def outward_ends(values: Iterable[float], decimals: int = 1, margin: float | None = None,
                 within: tuple[float, float] = (-math.inf, math.inf)) -> tuple[float, float]:
    """The lowest and highest value, rounded outwards to ``decimals`` places: (0.5, 0.7) for 0.52 and 0.65.

    An end moves only if a value crosses a grid point, so each value must lie ``margin`` (as
    in :func:`steady`) or more from the grid points that would move an end. ``within`` are
    limits no value can pass (an accuracy's (0, 1)): an end at a limit cannot move, so 0.9988
    gives the end 1.0 on any machine; a value at a limit (1.0: every answer right) is a count,
    not a rounding, and is taken as it is. The low end is what every value reaches ("at least
    0.9"), the high end what none passes ("within 1.4").

    Raises:
        ValueError: for no values, values outside ``within``, or a value whose end would move
            with a rounding difference.
    """
    values = [checks.number(value, "values") for value in values]
    if not values:
        raise ValueError("values must hold at least one number, got none")
    if (not isinstance(within, tuple) or len(within) != 2 or not within[0] < within[1]
            or not all(within[0] <= value <= within[1] for value in values)):
        raise ValueError(f"within must be a pair (lowest, highest) that holds every value, got {within!r} "
                         f"for values from {min(values)!r} to {max(values)!r}")
    step, margin = _grid(decimals, margin)
    low, high = min(values), max(values)
    ends = (math.floor(low / step + 1e-9) * step, math.ceil(high / step - 1e-9) * step)
    # the grid points that would move an end if a value crossed them: the end itself, unless it
    # is a limit, and the next grid point inwards
    for value, end, inwards, limit in ((low, ends[0], step, within[0]), (high, ends[1], -step, within[1])):
        if value in within:  # at a limit: every answer right (or none), a count, not a rounding
            continue
        crossable = [end + inwards] + ([] if math.isclose(end, limit) else [end])
        for point in crossable:
            if abs(value - point) < margin:
                raise ValueError(f"value {value!r} is within {margin:g} of {point:.{decimals}f}, so the "
                                 f"end {end:.{decimals}f} could move; quote it otherwise")
    return round(ends[0], decimals), round(ends[1], decimals)


def enclosing_range(values: Iterable[float], decimals: int = 1, margin: float | None = None,
                    within: tuple[float, float] = (-math.inf, math.inf)) -> str:
    """The smallest range at ``decimals`` places that holds every value: "0.5–0.7" for 0.52 and 0.65.

    Its ends are :func:`outward_ends`, which checks that no rounding difference moves them.
    """
    low, high = outward_ends(values, decimals, margin, within)
    return f"{low:.{decimals}f}–{high:.{decimals}f}"
