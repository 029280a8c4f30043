"""How large is rounding? A bound that a page can quote on any machine.

Float arithmetic rounds, and by how much depends on the order in which the operations run:
the width of the CPU's vector instructions (AVX2 or AVX-512), the number of threads, the GPU.
So a check such as "these two tables are the same" ends in a tiny number that is 3.4e-13 on
one machine and 6.3e-13 on the next. What a lesson claims is its size, so it quotes the power
of ten just above it: "below 10⁻¹²". Nor does it quote a bound finer than the type resolves
(its machine epsilon, rounded up the same way): 6.0e-08 on one machine and 1.2e-07 on another
are both float32 rounding, "below 10⁻⁶".
"""

from __future__ import annotations

import math

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
