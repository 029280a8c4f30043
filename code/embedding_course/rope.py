"""Positions inside attention: rotary embeddings (RoPE) and ALiBi biases.

Sinusoidal and learned encodings are *added* to the token vectors at the input.
RoPE (Su et al., 2021) and ALiBi (Press et al., 2022) instead act inside every
attention layer, on the scores between a query at position ``m`` and a key at ``n``:

* **RoPE** rotates each (even, odd) pair of channels of the query and of the key by
  the angle ``position * w_i`` with ``w_i = base ** (-2i / d_head)``: the sinusoidal
  encoding's frequencies for base 10000 and the head width (LLaMA 3 uses base 500,000).
  Since ``R(m)^T R(n) = R(n - m)``, the score ``(R(m) q) . (R(n) k)`` depends on the
  offset ``n - m`` only. Nothing is added to the input.
* **ALiBi** adds no vector at all: it subtracts ``slope * (m - n)`` from the score of
  a query at ``m`` and an earlier key at ``n``, one slope per head, so distant tokens
  get less attention.
"""

from __future__ import annotations

import math

import torch

from embedding_course import checks
from embedding_course.positional import inverse_frequencies

LAYOUTS = ("interleaved", "rotate_half")
"""Which channels form a pair: ``(2i, 2i + 1)`` (RoFormer, GPT-J, Meta's LLaMA code) or
``(i, i + d/2)`` (GPT-NeoX, Hugging Face's LLaMA, whose ``rotate_half`` swaps the two halves)."""


def positions_of_rows(x: torch.Tensor, positions=None) -> torch.Tensor:
    """Check ``x`` (..., T, d), ``d`` even, and one position per row; return them as (T,) float64, on the CPU.

    ``positions=None`` means ``0 .. T-1``.
    """
    if not torch.is_tensor(x) or x.ndim < 2:
        raise ValueError(f"x must be a tensor of shape (..., T, d), got {getattr(x, 'shape', type(x))}")
    seq_len = x.shape[-2]
    checks.even(x.shape[-1], "the last dimension of x", hint="channels are rotated in pairs")
    if positions is None:
        positions = torch.arange(seq_len)
    positions = torch.as_tensor(positions, dtype=torch.float64).to("cpu")
    if positions.shape != (seq_len,):
        raise ValueError(
            f"positions must have shape ({seq_len},), one per row of x, got {tuple(positions.shape)}"
        )
    finite = torch.isfinite(positions)  # (T,)
    if not bool(finite.all()):
        raise ValueError(f"positions must be finite numbers; {int((~finite).sum())} of {seq_len} "
                         "are NaN or infinite")
    return positions


def apply_rope(x: torch.Tensor, positions=None, base: float = 10000.0, *, inv_freq=None,
               layout: str = "interleaved") -> torch.Tensor:
    """Rotate each channel pair of ``x`` by ``position * base ** (-2i / d)``.

    Args:
        x: tensor of shape (..., T, d) with an even ``d`` (queries or keys of one head).
        positions: (T,) positions of the rows; ``0 .. T-1`` by default.
        base: the frequency base (10000 in RoFormer, like the sinusoidal encoding).
        inv_freq: optional (d/2,) angular frequency of each pair, in place of the ones ``base``
            gives (a context-extension method changes them; see :mod:`embedding_course.rope_scaling`).
        layout: ``"interleaved"`` pairs channels ``(2i, 2i + 1)``; ``"rotate_half"`` pairs
            ``(i, i + d/2)``. See :data:`LAYOUTS`.

    Returns:
        Tensor of the same shape and dtype as ``x``.
    """
    checks.one_of(layout, "layout", LAYOUTS)
    positions = positions_of_rows(x, positions)  # (T,)
    if not x.dtype.is_floating_point:  # cos and sin would be cast to x's dtype, rounded to 0
        raise ValueError(f"x must hold floating-point numbers, got dtype {x.dtype} "
                         "(convert it with x.float())")
    dim = x.shape[-1]
    if inv_freq is None:
        inv_freq = inverse_frequencies(dim, base)
    inv_freq = torch.as_tensor(inv_freq, dtype=torch.float64).to("cpu")
    if inv_freq.shape != (dim // 2,):
        raise ValueError(f"inv_freq must have shape ({dim // 2},), one frequency per channel pair, "
                         f"got {tuple(inv_freq.shape)}")
    angles = positions[:, None] * inv_freq[None, :]  # (T, d/2)
    cos = torch.cos(angles).to(x.device, x.dtype)
    sin = torch.sin(angles).to(x.device, x.dtype)
    if layout == "rotate_half":
        first, second = x[..., : dim // 2], x[..., dim // 2:]  # (..., T, d/2) each
        return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)  # (..., T, d)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., T, d/2) each
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)  # (..., T, d/2, 2)
    return rotated.flatten(-2)  # (..., T, d)


def _check_vector(v, name: str) -> torch.Tensor:
    v = torch.as_tensor(v, dtype=torch.float64)
    if v.ndim != 1 or v.numel() == 0 or v.numel() % 2:
        raise ValueError(f"{name} must be a 1-D vector of even length, got shape {tuple(v.shape)}")
    return v


def rope_score(query, key, query_position: float, key_position: float, base: float = 10000.0) -> float:
    """The attention score (before scaling) of a query at one position and a key at another, with RoPE."""
    query, key = _check_vector(query, "query"), _check_vector(key, "key")
    if query.shape != key.shape:
        raise ValueError(f"query and key must have the same length, got {query.numel()} and {key.numel()}")
    query_position = checks.number(query_position, "query_position", hint="a position")
    key_position = checks.number(key_position, "key_position", hint="a position")
    q = apply_rope(query[None, :], [query_position], base)[0]
    k = apply_rope(key[None, :], [key_position], base)[0]
    return float(q @ k)


def rope_score_matrix(query, key, seq_len: int, base: float = 10000.0) -> torch.Tensor:
    """Scores of the *same* query and key vectors placed at every pair of positions.

    Entry ``[m, n]`` is ``(R(m) q) . (R(n) k)``. It depends only on ``n - m``, so the
    matrix is Toeplitz (constant along each diagonal).

    Returns:
        Tensor of shape (seq_len, seq_len), float64.
    """
    query, key = _check_vector(query, "query"), _check_vector(key, "key")
    if query.shape != key.shape:
        raise ValueError(f"query and key must have the same length, got {query.numel()} and {key.numel()}")
    checks.whole(seq_len, "seq_len", hint="a number of positions")
    queries = apply_rope(query.expand(seq_len, -1), None, base)  # (T, d): q at every position
    keys = apply_rope(key.expand(seq_len, -1), None, base)  # (T, d)
    return queries @ keys.T  # (T, T)


def shifted_scores_gap(queries, keys, shift: float, base: float = 10000.0) -> float:
    """How far RoPE scores move when every position moves on by ``shift`` (as left padding does).

    Row ``m`` of ``queries`` and of ``keys`` sits at position ``m``, then at ``m + shift``; the
    scores ``(R(m) q_m) . (R(n) k_n)`` depend only on ``n - m``, so they move by rounding only.

    Args:
        queries, keys: (T, d) tensors, one query and one key per position, ``d`` even.
        shift: how many positions every row moves on.

    Returns:
        The largest change of a score, relative to the largest score.
    """
    queries, keys = torch.as_tensor(queries, dtype=torch.float64), torch.as_tensor(keys, dtype=torch.float64)
    if queries.ndim != 2 or queries.shape != keys.shape or queries.shape[1] % 2 or not queries.numel():
        raise ValueError(f"queries and keys must be (T, d) tensors of one shape with an even d, "
                         f"got {tuple(queries.shape)} and {tuple(keys.shape)}")
    shift = checks.number(shift, "shift")
    positions = torch.arange(queries.shape[0], dtype=torch.float64)  # (T,)
    scores = apply_rope(queries, positions, base) @ apply_rope(keys, positions, base).T  # (T, T)
    shifted = apply_rope(queries, positions + shift, base) @ apply_rope(keys, positions + shift, base).T
    return float((scores - shifted).abs().max() / scores.abs().max())


def pairs_telling_apart(head_width: int, near: int, far: int, min_angle: float = 0.5,
                        base: float = 10000.0) -> int:
    """How many of a RoPE head's pairs turn a key ``far`` places back at least ``min_angle`` rad
    (round the circle) away from a key ``near`` places back.

    Pair ``i`` turns a key ``k`` places back by ``k * base ** (-2i / head_width)``, so it tells
    the two keys apart by ``(far - near)`` times its speed, modulo a full turn: a fast pair can
    come round to almost the same angle (lesson 7: in a 4-channel head, 9 back looks like 3
    back to both pairs), a slow one barely moves.

    Returns:
        The number of pairs, 0 .. head_width / 2.
    """
    head_width = checks.even(head_width, "head_width", hint="channels in one attention head, turned in pairs")
    near = checks.whole(near, "near", minimum=0, hint="a number of places back")
    far = checks.whole(far, "far", minimum=0, hint="a number of places back")
    min_angle = checks.number(min_angle, "min_angle", above=0, below=math.pi, hint="an angle in rad")
    turned = (far - near) * inverse_frequencies(head_width, base)  # (head_width/2,) rad
    apart = torch.remainder(turned + math.pi, 2 * math.pi) - math.pi  # in [-pi, pi): round the circle
    return int((apart.abs() > min_angle).sum())


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """The per-head slopes of ALiBi: a geometric sequence starting at ``2 ** (-8 / num_heads)``.

    For a head count that is not a power of two, the paper's recipe is used: the slopes
    of the nearest lower power of two, then every other slope of the next one.
    """
    checks.whole(num_heads, "num_heads")

    def power_of_two_slopes(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]

    if math.log2(num_heads).is_integer():
        slopes = power_of_two_slopes(num_heads)
    else:
        closest = 2 ** math.floor(math.log2(num_heads))
        slopes = power_of_two_slopes(closest) + power_of_two_slopes(2 * closest)[0::2][: num_heads - closest]
    return torch.tensor(slopes, dtype=torch.float64)


def alibi_bias(seq_len: int, slope: float, causal: bool = True) -> torch.Tensor:
    """The ALiBi bias added to the scores of one head: ``-slope * (m - n)`` for key ``n`` <= query ``m``.

    Args:
        seq_len: number of positions.
        slope: the head's slope (see :func:`alibi_slopes`).
        causal: if True, keys after the query get ``-inf`` (masked); else ``-slope * |m - n|``.

    Returns:
        Tensor of shape (seq_len, seq_len), float64 (rows: queries, columns: keys).
    """
    checks.whole(seq_len, "seq_len", hint="a number of positions")
    slope = checks.positive(slope, "slope")
    positions = torch.arange(seq_len, dtype=torch.float64)
    distance = positions[:, None] - positions[None, :]  # (T, T): m - n
    bias = -slope * distance.abs() + 0.0  # + 0.0 turns -0.0 into 0.0
    if causal:
        bias = bias.masked_fill(distance < 0, float("-inf"))
    return bias


