"""Measuring a position table: where it goes flat, its signs, how much the offset explains.

Three numbers that lesson 4 quotes about the tables it draws, each computed rather than read
off a picture:

* :func:`first_flat_dimension`: past which column a table barely changes over its rows;
* :func:`last_moving_dimension`: the last sine (or cosine) column that still changes by a
  given amount (the sines keep changing well past the first flat cosine);
* :func:`negative_sine_share`: how many of the sine values are negative (far from one half
  in a short table);
* :func:`offset_explained_variance`: how much of a position-similarity matrix depends on the
  offset alone (all of it for the sinusoidal table, about half for MiniLM's learned one).
"""

from __future__ import annotations

import torch

from embedding_course import checks
from embedding_course.positional import sinusoidal_encoding


def offset_explained_variance(similarity: torch.Tensor) -> float:
    """The share of the variance of the off-diagonal similarities that the offset alone explains.

    Each off-diagonal entry ``(p, q)`` is predicted by the mean of its diagonal ``p - q``; the
    result is ``1 - residual variance / total variance`` (R squared): 1 for a Toeplitz matrix,
    near 0 when the offset says nothing.

    Args:
        similarity: a square (T, T) matrix with T >= 2.

    Returns:
        A float in [0, 1].
    """
    matrix = torch.as_tensor(similarity).detach().to("cpu", torch.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 2:
        raise ValueError(f"similarity must be square with at least 2 rows, got shape {tuple(matrix.shape)}")
    size = matrix.shape[0]
    values = torch.cat([torch.diagonal(matrix, k) for k in range(1 - size, size) if k])  # off-diagonal
    fitted = torch.cat([torch.diagonal(matrix, k).mean().expand(size - abs(k))
                        for k in range(1 - size, size) if k])  # each entry -> its diagonal's mean
    total = float(((values - values.mean()) ** 2).sum())
    if total == 0:
        return 1.0
    return 1.0 - float(((values - fitted) ** 2).sum()) / total


def first_flat_dimension(table: torch.Tensor, threshold: float) -> int:
    """The first dimension (column) whose values vary by less than ``threshold`` over the rows.

    In a sinusoidal table the slow pairs on the right barely change over a few hundred
    positions: this says where, for the positions the table holds.

    Args:
        table: (T, C) encoding.
        threshold: a positive number; a column is flat when ``max - min < threshold``.

    Returns:
        The column index, or ``C`` when every column varies by at least ``threshold``.
    """
    table = torch.as_tensor(table).detach().to("cpu", torch.float64)
    if table.ndim != 2 or table.numel() == 0:
        raise ValueError(f"table must be a non-empty (positions, d_model) matrix, got {tuple(table.shape)}")
    threshold = checks.positive(threshold, "threshold")
    spread = table.max(dim=0).values - table.min(dim=0).values  # (C,)
    flat = torch.nonzero(spread < threshold).flatten()
    return int(flat[0]) if len(flat) else table.shape[1]


def last_moving_dimension(table: torch.Tensor, threshold: float, columns: str) -> int:
    """The last sine (even) or cosine (odd) column whose values vary by at least ``threshold``.

    Args:
        table: (T, C) interleaved encoding: sines in the even columns, cosines in the odd ones.
        threshold: a positive number; a column moves when ``max - min >= threshold``.
        columns: ``"sin"`` (even columns) or ``"cos"`` (odd columns).

    Returns:
        The column index, or -1 when no such column moves that much.
    """
    table = torch.as_tensor(table).detach().to("cpu", torch.float64)
    if table.ndim != 2 or table.numel() == 0:
        raise ValueError(f"table must be a non-empty (positions, d_model) matrix, got {tuple(table.shape)}")
    threshold = checks.positive(threshold, "threshold")
    if columns not in ("sin", "cos"):
        raise ValueError(f"columns must be 'sin' (even columns) or 'cos' (odd columns), got {columns!r}")
    first = 0 if columns == "sin" else 1
    spread = table.max(dim=0).values - table.min(dim=0).values  # (C,)
    moving = torch.nonzero(spread[first::2] >= threshold).flatten()  # indices among those columns
    return int(moving[-1]) * 2 + first if len(moving) else -1


def negative_sine_share(max_len: int, d_model: int, base: float = 10000.0) -> float:
    """The share of the sine values ``PE(p, 2i)``, p < max_len, that are negative.

    Far from one half for short tables: the slow pairs have not yet turned past pi.
    """
    table = sinusoidal_encoding(max_len, d_model, base, device="cpu", dtype=torch.float64)
    return float((table[:, 0::2] < 0).double().mean())
