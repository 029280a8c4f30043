"""Stretching RoPE past its training length: each method as the frequencies it gives each pair.

A RoPE model trained on ``original_len`` positions has seen every pair turn by at most
``original_len * theta_i``. To read ``factor`` times as many positions, the methods change
the per-pair frequencies ``theta_i`` (and YaRN also the attention's temperature):

* ``linear`` (Position Interpolation, Chen et al. 2023): every ``theta_i / factor``, so
  position ``p`` looks like ``p / factor``; nothing leaves the trained range of angles.
* ``ntk`` ("NTK-aware", bloc97 2023): a larger base, ``base * factor ** (d / (d - 2))``:
  the fastest pair is unchanged, the slowest divided by ``factor``, the others in between.
* ``dynamic`` (dynamic NTK, emozilla 2023): ``ntk`` with the factor grown from the current
  length: ``base * (factor * T / original_len - (factor - 1)) ** (d / (d - 2))`` for
  ``T > original_len``, plain RoPE below.
* ``yarn`` (Peng et al. 2023): pairs that turned many times in training keep ``theta_i``,
  pairs that turned less than once get ``theta_i / factor``, a linear ramp between; and
  attention logits sharpened by ``(0.1 ln(factor) + 1) ** 2``.
* ``llama3`` (Meta, Llama 3.1): like YaRN with wavelength thresholds: wavelengths below
  ``original_len / high_freq_factor`` unchanged, above ``original_len / low_freq_factor``
  divided by ``factor``, a smooth blend between.

Every function follows Hugging Face's ``modeling_rope_utils`` (compared in the tests), in
float64 where it computes in float32.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from embedding_course import checks
from embedding_course.positional import inverse_frequencies

METHODS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
"""The methods, in the order the course shows them."""

METHOD_NAMES = {
    "none": "unchanged RoPE",
    "linear": "Position Interpolation",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}
"""How figures and tables name each method."""

LLAMA31 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_len": 8192}
"""Llama 3.1's ``rope_scaling`` (with base 500,000 and head width 128)."""


def _check_head(dim, base) -> tuple[int, float]:
    dim = checks.even(dim, "dim", minimum=4, hint="the rotated channels of a head, turned in pairs")
    base = checks.number(base, "base", above=1.0, hint="the RoPE base, e.g. 10000")
    return dim, base


def _check(dim, base, factor) -> tuple[int, float, float]:
    dim, base = _check_head(dim, base)
    factor = checks.number(factor, "factor", above=0.0, hint="the scale factor s, e.g. 4")
    return dim, base, factor


def _check_llama3(original_len, low_freq_factor, high_freq_factor) -> tuple[int, float, float]:
    original_len = checks.whole(original_len, "original_len", hint="the training context")
    low_freq_factor = checks.number(low_freq_factor, "low_freq_factor", above=0.0)
    high_freq_factor = checks.number(high_freq_factor, "high_freq_factor", above=low_freq_factor,
                                     hint="above low_freq_factor")
    return original_len, low_freq_factor, high_freq_factor


def linear_frequencies(dim: int, base: float, factor: float) -> torch.Tensor:
    """Position Interpolation: every pair's frequency divided by ``factor``. Shape (dim/2,), float64."""
    dim, base, factor = _check(dim, base, factor)
    return inverse_frequencies(dim, base) / factor


def ntk_base(base: float, factor: float, dim: int) -> float:
    """The NTK-aware base ``base * factor ** (dim / (dim - 2))``: the slowest pair is divided by s."""
    dim, base, factor = _check(dim, base, factor)
    return base * factor ** (dim / (dim - 2))


def ntk_frequencies(dim: int, base: float, factor: float) -> torch.Tensor:
    """NTK-aware scaling: plain RoPE frequencies with the base :func:`ntk_base`. Shape (dim/2,)."""
    return inverse_frequencies(dim, ntk_base(base, factor, dim))


def dynamic_frequencies(
    dim: int, base: float, factor: float, seq_len: int, original_len: int
) -> torch.Tensor:
    """Dynamic NTK at the length ``seq_len``: unchanged up to ``original_len``, then a growing base."""
    dim, base, factor = _check(dim, base, factor)
    seq_len = max(checks.whole(seq_len, "seq_len"), checks.whole(original_len, "original_len"))
    grown = base * (factor * seq_len / original_len - (factor - 1)) ** (dim / (dim - 2))
    return inverse_frequencies(dim, grown)


def yarn_attention_factor(factor: float) -> float:
    """YaRN's factor on queries and keys, ``0.1 * ln(factor) + 1`` (1 for ``factor <= 1``).

    Both are multiplied by it, so the logits are multiplied by its square (the paper's ``1/t``).
    """
    factor = checks.number(factor, "factor", above=0.0)
    return 1.0 if factor <= 1 else 0.1 * math.log(factor) + 1.0


def yarn_correction_range(
    dim: int,
    base: float,
    original_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> tuple[float, float]:
    """The pair indices where YaRN's ramp starts and ends.

    Pair ``i`` turns ``original_len / (2 pi base ** (2i/d))`` times in training; the ramp runs
    from the pair that turns ``beta_fast`` times to the one that turns ``beta_slow`` times
    (rounded outwards when ``truncate``, as in the reference code), clipped to ``0 .. dim-1``.
    """
    dim, base = _check_head(dim, base)
    original_len = checks.whole(original_len, "original_len", hint="the training context")
    beta_slow = checks.positive(beta_slow, "beta_slow", hint="turns in training where the ramp ends")
    beta_fast = checks.number(beta_fast, "beta_fast", above=beta_slow,
                              hint="turns in training where the ramp starts, more than beta_slow")

    def pair_turning(turns: float) -> float:  # solve original_len / wavelength_i = turns for i
        return dim * math.log(original_len / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_turning(beta_fast), pair_turning(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(
    dim: int,
    base: float,
    original_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> torch.Tensor:
    """Per pair, how much YaRN interpolates: 0 keeps ``theta_i``, 1 divides it by the factor; (dim/2,)."""
    low, high = yarn_correction_range(dim, base, original_len, beta_fast, beta_slow, truncate)
    if low == high:
        high += 0.001  # as the reference code: no division by zero
    pair = torch.arange(dim // 2, dtype=torch.float64)
    return ((pair - low) / (high - low)).clamp(0, 1)


def yarn_frequencies(
    dim: int,
    base: float,
    factor: float,
    original_len: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> tuple[torch.Tensor, float]:
    """YaRN: per pair a blend of the frequency and the frequency divided by ``factor``.

    Returns:
        ``(inv_freq, attention_factor)``: (dim/2,) float64, and :func:`yarn_attention_factor`.
    """
    dim, base, factor = _check(dim, base, factor)
    checks.whole(original_len, "original_len")
    original = inverse_frequencies(dim, base)
    interpolate = yarn_ramp(dim, base, original_len, beta_fast, beta_slow, truncate)  # (dim/2,)
    inv_freq = original / factor * interpolate + original * (1 - interpolate)
    return inv_freq, yarn_attention_factor(factor)


def llama3_frequencies(
    dim: int,
    base: float,
    factor: float = 8.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_len: int = 8192,
) -> torch.Tensor:
    """Llama 3.1: short wavelengths kept, long ones divided by ``factor``, a smooth blend between.

    A pair's wavelength ``2 pi / theta_i`` is compared with ``original_len / high_freq_factor``
    (below: unchanged) and ``original_len / low_freq_factor`` (above: divided by ``factor``).
    """
    dim, base, factor = _check(dim, base, factor)
    original_len, low_freq_factor, high_freq_factor = _check_llama3(original_len, low_freq_factor,
                                                                    high_freq_factor)
    original = inverse_frequencies(dim, base)
    wavelengths = 2 * math.pi / original
    smooth = (original_len / wavelengths - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * original / factor + smooth * original
    long_waves = wavelengths > original_len / low_freq_factor
    short_waves = wavelengths < original_len / high_freq_factor
    return torch.where(long_waves, original / factor, torch.where(short_waves, original, blended))


def llama3_class(
    wavelength: float, original_len: int = 8192, low_freq_factor: float = 1.0, high_freq_factor: float = 4.0
) -> str:
    """Which of Llama 3.1's three rules a pair of this wavelength falls under: ``"kept"``, ``"blended"``
    or ``"divided"``."""
    wavelength = checks.positive(wavelength, "wavelength")
    original_len, low_freq_factor, high_freq_factor = _check_llama3(original_len, low_freq_factor,
                                                                    high_freq_factor)
    if wavelength < original_len / high_freq_factor:
        return "kept"
    if wavelength > original_len / low_freq_factor:
        return "divided"
    return "blended"


def scaled_frequencies(
    method: str, dim: int, base: float, factor: float, original_len: int, seq_len: int | None = None
) -> tuple[torch.Tensor, float]:
    """Any method's per-pair frequencies and its factor on queries and keys.

    Args:
        method: one of :data:`METHODS`.
        dim: rotated channels per head.
        base: the model's RoPE base.
        factor: the scale factor ``s`` (target length / ``original_len``).
        original_len: the training context.
        seq_len: the current length (``dynamic`` only; ``original_len * factor`` by default).

    Returns:
        ``(inv_freq (dim/2,) float64, attention_factor)``.
    """
    checks.one_of(method, "method", METHODS)
    dim, base, factor = _check(dim, base, factor)
    if method == "none":
        return inverse_frequencies(dim, base), 1.0
    if method == "linear":
        return linear_frequencies(dim, base, factor), 1.0
    if method == "ntk":
        return ntk_frequencies(dim, base, factor), 1.0
    if method == "dynamic":
        seq_len = round(original_len * factor) if seq_len is None else seq_len
        return dynamic_frequencies(dim, base, factor, seq_len, original_len), 1.0
    if method == "yarn":
        return yarn_frequencies(dim, base, factor, original_len)
    return llama3_frequencies(dim, base, factor, original_len=original_len), 1.0


def classify_pairs(
    original: torch.Tensor, scaled: torch.Tensor, factor: float, rtol: float = 1e-9
) -> dict[str, int]:
    """Count the pairs a method leaves ``unchanged``, ``divided`` (by ``factor``) or ``between``."""
    original, scaled = (
        torch.as_tensor(original, dtype=torch.float64),
        torch.as_tensor(scaled, dtype=torch.float64),
    )
    if original.shape != scaled.shape or original.ndim != 1:
        raise ValueError(
            f"original and scaled must be 1-D of one shape, got {tuple(original.shape)} "
            f"and {tuple(scaled.shape)}"
        )
    factor = checks.positive(factor, "factor", hint="the scale factor s, e.g. 4")
    rtol = checks.non_negative(rtol, "rtol", hint="the relative tolerance of a match")
    ratio = scaled / original
    unchanged = torch.isclose(ratio, torch.ones_like(ratio), rtol=rtol, atol=0)
    divided = torch.isclose(ratio, torch.full_like(ratio, 1 / factor), rtol=rtol, atol=0) & ~unchanged
    return {
        "unchanged": int(unchanged.sum()),
        "divided": int(divided.sum()),
        "between": int((~unchanged & ~divided).sum()),
    }


def scaling_hook(method: str, head_dim: int, base: float, factor: float, original_len: int):
    """A function ``seq_len -> (inv_freq, attention_factor)`` for ``CausalSelfAttention.rope_scaling``."""
    scaled_frequencies(method, head_dim, base, factor, original_len)  # check the arguments now

    def frequencies(seq_len: int) -> tuple[torch.Tensor, float]:
        return scaled_frequencies(method, head_dim, base, factor, original_len, seq_len)

    return frequencies


def fitted_score(
    dim: int = 128,
    base: float = 10000.0,
    length: int = 2048,
    n_points: int = 200,
    seed: int = 0,
    far_factor: float = 1.5,
) -> dict:
    """Position Interpolation's Figure 2: fit a RoPE score function, then read it outside and between points.

    A RoPE attention score as a function of the offset ``s`` is
    ``a(s) = Re(sum_j h_j exp(i s theta_j))``: ``dim`` real coefficients on ``cos(s theta_j)``
    and ``sin(s theta_j)``. They are fitted by least squares (``numpy.linalg.lstsq``, minimum
    norm) to ``n_points`` random values in [-1, 1] at random offsets in ``[0, length]``.

    Returns:
        dict with the fitted ``points`` and ``targets``; ``far`` (whole positions up to
        ``far_factor * length``) and ``far_score``; ``near`` (every 0.1 in ``[0, length]``)
        and ``near_score``; ``length``; and the largest ``|a|`` inside (``inside_max``, at the
        0.1 steps) and past ``length`` (``outside_max``).
    """
    checks.even(dim, "dim", hint="a head's channels, turned in pairs")
    checks.whole(length, "length")
    checks.whole(n_points, "n_points")
    far_factor = checks.number(far_factor, "far_factor", above=1.0, hint="how far past length to read")
    if int(far_factor * length) <= length:
        raise ValueError(f"far_factor * length must reach past length, to {length + 1} at least; "
                         f"got {far_factor:g} * {length}")
    rng = np.random.default_rng(checks.seed(seed))
    points = np.sort(rng.uniform(0, length, n_points))  # (N,)
    targets = rng.uniform(-1, 1, n_points)  # (N,)
    thetas = inverse_frequencies(dim, base).numpy()  # (dim/2,)

    def basis(offsets):  # (M,) -> (M, dim)
        angles = offsets[:, None] * thetas[None, :]
        return np.concatenate([np.cos(angles), np.sin(angles)], axis=1)

    coefficients = np.linalg.lstsq(basis(points), targets, rcond=None)[0]  # (dim,)
    far = np.arange(0, int(far_factor * length) + 1, dtype=np.float64)
    near = np.linspace(0, length, 10 * length + 1)
    far_score, near_score = basis(far) @ coefficients, basis(near) @ coefficients
    return {
        "points": points,
        "targets": targets,
        "far": far,
        "far_score": far_score,
        "near": near,
        "near_score": near_score,
        "length": length,
        "inside_max": float(np.abs(near_score).max()),
        "outside_max": float(np.abs(far_score[far > length]).max()),
    }
