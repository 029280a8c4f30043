"""Positional encodings: where each token sits in the sequence.

The sinusoidal encoding of Vaswani et al. (2017):

    PE(p, 2i)   = sin(p / base^(2i / d_model))
    PE(p, 2i+1) = cos(p / base^(2i / d_model))

where ``i`` runs over the ``d_model / 2`` frequency *pairs*, not over all dimensions.
Every value lies in [-1, 1]. Moving from position ``p`` to ``p + k`` turns each
(sin, cos) pair by the angle ``k * w_i``: one fixed rotation per pair, whatever ``p``
is (see :func:`rotation_matrix`). So the dot product of two encodings depends only
on the offset between the positions.

The module also holds the alternatives a lesson compares against: naive integer or
fraction positions, a binary counter, and *learned* position tables (as in BERT and
GPT-2), which have no row past their last position.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from embedding_course import checks
from embedding_course.device import pick_device
from embedding_course.similarity import cosine_similarity_matrix

LAYOUTS = ("interleaved", "halves")
LAYOUT_NAMES = {  # as figure titles: two short lines each, to sit side by side
    "interleaved": "interleaved: sin, cos, sin, cos, ...\n(as in the paper)",
    "halves": "concatenated halves:\nall sines, then all cosines",
}


# ---------------------------------------------------------------- argument checks

def _check_d_model(d_model) -> None:
    checks.even(d_model, "d_model", minimum=1, hint="sin and cos come in pairs")


def _check_base(base) -> None:
    checks.number(base, "base", above=1, hint="the paper uses 10000")


def _check_layout(layout) -> None:
    checks.one_of(layout, "layout", LAYOUTS)


def _check_encoding_args(max_len, d_model, base) -> None:
    checks.whole(max_len, "max_len", hint="a number of positions")
    _check_d_model(d_model)
    _check_base(base)


# ---------------------------------------------------------------- naive alternatives

def naive_positions(length: int, kind: str = "integer") -> torch.Tensor:
    """One number per position: the index itself, or the index divided by ``length - 1``.

    Both fail as encodings: integers grow without bound, and the step between two
    neighbours of a fraction depends on how long the sequence is.

    Args:
        length: number of positions, at least 1.
        kind: ``"integer"`` (0, 1, 2, ...) or ``"fraction"`` (0 ... 1).

    Returns:
        Tensor of shape (length,), float64.
    """
    checks.whole(length, "length", hint="a number of positions")
    positions = torch.arange(length, dtype=torch.float64)
    if kind == "integer":
        return positions
    if kind == "fraction":
        return positions / max(length - 1, 1)
    raise ValueError(f"kind must be 'integer' or 'fraction', got {kind!r}")


def binary_counter(max_len: int, bits: int) -> torch.Tensor:
    """The binary digits of 0 .. max_len-1, least significant bit first.

    Column ``j`` flips every ``2**j`` positions: the fastest column first, like the
    first sin/cos pair of the sinusoidal encoding.

    Returns:
        Tensor of shape (max_len, bits) holding 0.0 and 1.0.
    """
    checks.whole(max_len, "max_len", hint="a number of positions")
    checks.whole(bits, "bits", hint="a number of binary digits")
    positions = torch.arange(max_len)[:, None]  # (T, 1)
    return ((positions >> torch.arange(bits)[None, :]) & 1).to(torch.float64)  # (T, bits)


# ---------------------------------------------------------------- the sinusoidal encoding

def inverse_frequencies(d_model: int, base: float = 10000.0, device=None) -> torch.Tensor:
    """The angular frequency of each sin/cos pair: ``base ** (-2i / d_model)``, shape (d_model/2,)."""
    _check_encoding_args(1, d_model, base)
    pair_index = torch.arange(0, d_model // 2, device=device, dtype=torch.float64)  # i = 0 .. d/2-1
    return base ** (-2.0 * pair_index / d_model)


def wavelengths(d_model: int, base: float = 10000.0) -> torch.Tensor:
    """How many positions each sin/cos pair takes to repeat: ``2*pi * base ** (2i / d_model)``.

    They run from ``2*pi`` (pair 0) to ``2*pi * base ** ((d_model - 2) / d_model)`` (the last
    pair), a geometric progression. Shape (d_model/2,), float64.
    """
    return 2 * math.pi / inverse_frequencies(d_model, base)


def encode_positions(positions, d_model: int, base: float = 10000.0, layout: str = "interleaved",
                     device: torch.device | str | None = None, dtype: torch.dtype = torch.float32
                     ) -> torch.Tensor:
    """The sinusoidal vectors of any positions (whole or not, as large as you like).

    Args:
        positions: a sequence or 1-D tensor of positions, e.g. ``[0, 5, 100000]``.
        d_model, base, layout, device, dtype: as in :func:`sinusoidal_encoding`.

    Returns:
        Tensor of shape (len(positions), d_model).
    """
    _check_d_model(d_model)
    _check_base(base)
    _check_layout(layout)
    positions = torch.as_tensor(positions).detach().to("cpu", torch.float64)
    if positions.ndim != 1 or positions.numel() == 0:
        raise ValueError(f"positions must be a non-empty 1-D sequence, got shape {tuple(positions.shape)}")
    if not bool(torch.isfinite(positions).all()):
        raise ValueError("positions must be finite numbers")
    device = pick_device() if device is None else torch.device(device)
    # float64 on the CPU for the angles: p * freq loses digits in float32 for large p,
    # and not every GPU backend (e.g. mps) has float64.
    angles = positions[:, None] * inverse_frequencies(d_model, base)[None, :]  # (T, C/2)
    sines, cosines = torch.sin(angles), torch.cos(angles)  # (T, C/2) each
    if layout == "interleaved":
        table = torch.stack([sines, cosines], dim=-1).reshape(len(positions), d_model)  # (T, C)
    else:
        table = torch.cat([sines, cosines], dim=-1)  # (T, C)
    return table.to(device=device, dtype=dtype)


def sinusoidal_encoding(
    max_len: int,
    d_model: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    device: torch.device | str | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The sinusoidal position table, one row per position.

    Args:
        max_len: number of positions (rows), at least 1.
        d_model: width of each vector; must be even.
        base: the constant 10000 of the paper; must be greater than 1.
        layout: ``"interleaved"`` (sin, cos, sin, cos, ... as in the paper) or
            ``"halves"`` (all sines, then all cosines, as some libraries store it).
        device: where to build it; by default :func:`~embedding_course.device.pick_device`.
        dtype: the result's floating type (angles are computed in float64 either way).

    Returns:
        Tensor of shape (max_len, d_model) with values in [-1, 1].
    """
    checks.whole(max_len, "max_len", hint="a number of positions")
    return encode_positions(torch.arange(max_len), d_model, base, layout, device, dtype)  # checks the rest


def sinusoidal_encoding_loop(
    max_len: int, d_model: int, base: float = 10000.0, layout: str = "interleaved"
) -> torch.Tensor:
    """The same table as :func:`sinusoidal_encoding`, one number at a time (for reading, not speed).

    Returns:
        Tensor of shape (max_len, d_model), float64, on the CPU.
    """
    _check_encoding_args(max_len, d_model, base)
    _check_layout(layout)
    half = d_model // 2
    table = []
    for position in range(max_len):
        row = [0.0] * d_model
        for i in range(half):  # i counts sin/cos pairs: 0 .. d_model/2 - 1
            angle = position / base ** (2 * i / d_model)
            if layout == "interleaved":
                row[2 * i], row[2 * i + 1] = math.sin(angle), math.cos(angle)
            else:
                row[i], row[half + i] = math.sin(angle), math.cos(angle)
        table.append(row)
    return torch.tensor(table, dtype=torch.float64)


# ---------------------------------------------------------------- the two layouts

def halves_permutation(d_model: int) -> torch.Tensor:
    """Channel order that turns the interleaved layout into halves: ``halves = interleaved[:, perm]``.

    It is ``[0, 2, 4, ..., d-2, 1, 3, ..., d-1]``: all sine channels, then all cosine channels.
    """
    _check_d_model(d_model)
    return torch.cat([torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)])


# ---------------------------------------------------------------- relative positions

def rotation_matrix(
    offset: float, d_model: int, base: float = 10000.0, layout: str = "interleaved"
) -> torch.Tensor:
    """The matrix ``R_k`` with ``PE(p + k) = R_k @ PE(p)`` for *every* position ``p``.

    For each pair ``(sin(w p), cos(w p))`` the angle-addition formulas give

        sin(w (p+k)) =  cos(w k) sin(w p) + sin(w k) cos(w p)
        cos(w (p+k)) = -sin(w k) sin(w p) + cos(w k) cos(w p)

    so ``R_k`` is block diagonal: one 2x2 rotation by ``w_i k`` per frequency pair. It
    depends on the offset ``k`` only, never on ``p``.

    Returns:
        Tensor of shape (d_model, d_model), float64.
    """
    _check_layout(layout)
    checks.number(offset, "offset", hint="a number of positions")
    angles = offset * inverse_frequencies(d_model, base)  # (C/2,)
    cos, sin = torch.cos(angles), torch.sin(angles)
    matrix = torch.zeros(d_model, d_model, dtype=torch.float64)
    even, odd = torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)
    matrix[even, even], matrix[even, odd] = cos, sin
    matrix[odd, even], matrix[odd, odd] = -sin, cos
    if layout == "halves":
        perm = halves_permutation(d_model)
        matrix = matrix[perm][:, perm]
    return matrix


def rotation_error(max_len: int, d_model: int, offset: int, base: float = 10000.0,
                   layout: str = "interleaved") -> float:
    """Largest ``|PE(p + k) - R_k PE(p)|`` over positions ``p = 0 .. max_len-1`` (float64)."""
    checks.whole(max_len, "max_len", hint="a number of positions")
    checks.whole(offset, "offset", hint="a number of positions")
    table = sinusoidal_encoding(max_len + offset, d_model, base, layout, device="cpu", dtype=torch.float64)
    rotated = table[:max_len] @ rotation_matrix(offset, d_model, base, layout).T  # rows are R_k PE(p)
    return float((table[offset:] - rotated).abs().max())


def position_scores(table: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """The position-position part of attention scores: ``PE(p)^T W PE(q)`` for every p, q.

    With ``W = W_q W_k^T`` this is one of the four terms of the score between
    ``x_p + PE(p)`` and ``x_q + PE(q)``. It depends on ``p - q`` alone only when ``W``
    commutes with every rotation ``R_k`` (the identity does; a random matrix does not).

    Args:
        table: (T, C) position vectors.
        weight: (C, C) matrix.

    Returns:
        Tensor of shape (T, T), float64.
    """
    table = torch.as_tensor(table).detach().to("cpu", torch.float64)
    weight = torch.as_tensor(weight).detach().to("cpu", torch.float64)
    if table.ndim != 2 or weight.shape != (table.shape[1], table.shape[1]):
        raise ValueError(f"need a (T, C) table and a (C, C) weight, got {tuple(table.shape)} "
                         f"and {tuple(weight.shape)}")
    return table @ weight @ table.T  # (T, T)


def position_similarity(table: torch.Tensor, kind: str = "cosine") -> torch.Tensor:
    """How alike every pair of positions is: ``table @ table.T`` (``"dot"``) or its cosine.

    Args:
        table: (T, C) position vectors, any kind (sinusoidal or learned).
        kind: ``"cosine"`` (``similarity.cosine_similarity_matrix``, in float64; a zero row
            is an error) or ``"dot"`` (in the table's own dtype and device).

    Returns:
        Tensor of shape (T, T).
    """
    if kind not in ("cosine", "dot"):
        raise ValueError(f"kind must be 'cosine' or 'dot', got {kind!r}")
    if kind == "cosine":
        return torch.from_numpy(cosine_similarity_matrix(checks.array(table, "table", ndim=2)))
    table = torch.as_tensor(table).detach()
    if table.ndim != 2 or table.numel() == 0:
        raise ValueError(f"table must be a non-empty 2-D array, got shape {tuple(table.shape)}")
    return table @ table.T


def toeplitz_deviation(matrix: torch.Tensor) -> float:
    """How far a square matrix is from Toeplitz (constant along every diagonal).

    Returns:
        The largest spread (max - min) of the values on any one diagonal; 0 for Toeplitz.
    """
    matrix = torch.as_tensor(matrix).detach().to("cpu", torch.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(f"matrix must be square and non-empty, got shape {tuple(matrix.shape)}")
    size = matrix.shape[0]
    spreads = [float(d.max() - d.min()) for d in (torch.diagonal(matrix, k) for k in range(1 - size, size))]
    return max(spreads)


# ---------------------------------------------------------------- position modules

class SinusoidalPositionalEncoding(nn.Module):
    """Fixed sinusoidal positions: ``forward(T)`` returns the first ``T`` rows, shape (T, C).

    The table is computed once for ``max_len`` rows (a buffer, not a parameter). The
    formula is defined for any position, so a longer ``T`` is computed on the fly;
    whether a trained model copes with such positions is another matter.
    """

    def __init__(self, max_len: int, d_model: int, base: float = 10000.0, layout: str = "interleaved"):
        super().__init__()
        _check_encoding_args(max_len, d_model, base)
        _check_layout(layout)
        self.max_len, self.d_model, self.base, self.layout = max_len, d_model, float(base), layout
        table = sinusoidal_encoding(max_len, d_model, base, layout, device="cpu")
        self.register_buffer("table", table, persistent=False)  # (max_len, C)

    def forward(self, seq_len: int) -> torch.Tensor:
        checks.whole(seq_len, "seq_len", hint="a number of positions")
        if seq_len <= self.max_len:
            return self.table[:seq_len]  # (T, C)
        return encode_positions(torch.arange(seq_len), self.d_model, self.base, self.layout,
                                device=self.table.device, dtype=self.table.dtype)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}, base={self.base:g}, layout={self.layout!r}"


class LearnedPositionalEmbedding(nn.Module):
    """A learned position table (as in BERT and GPT-2): one trainable row per position.

    Args:
        max_len: number of rows; positions ``0 .. max_len-1`` exist, no others.
        d_model: width of each row.
        init_std: standard deviation of the random start; ``None`` keeps PyTorch's
            ``nn.Embedding`` default N(0, 1) (BERT and GPT-2 start at 0.02 instead).
    """

    def __init__(self, max_len: int, d_model: int, init_std: float | None = None):
        super().__init__()
        checks.whole(max_len, "max_len", hint="a number of positions")
        checks.whole(d_model, "d_model")
        self.max_len, self.d_model = max_len, d_model
        self.table = nn.Embedding(max_len, d_model)
        init_std = checks.optional_positive(init_std, "init_std", hint="or None for PyTorch's N(0, 1)")
        if init_std is not None:
            nn.init.normal_(self.table.weight, mean=0.0, std=init_std)

    @classmethod
    def from_table(cls, table, freeze: bool = True) -> LearnedPositionalEmbedding:
        """Wrap an existing (max_len, d_model) table, e.g. a trained model's position embeddings."""
        weight = torch.as_tensor(np.asarray(table) if not torch.is_tensor(table) else table,
                                 dtype=torch.float32)
        if weight.ndim != 2 or weight.numel() == 0:
            raise ValueError(
                f"table must be a non-empty (max_len, d_model) matrix, got {tuple(weight.shape)}"
            )
        module = cls(weight.shape[0], weight.shape[1])
        with torch.no_grad():
            module.table.weight.copy_(weight)
        module.table.weight.requires_grad_(not freeze)
        return module

    def lookup(self, positions: torch.Tensor) -> torch.Tensor:
        """The rows for given positions; an ``IndexError`` for a position the table has no row for."""
        positions = torch.as_tensor(positions, device=self.table.weight.device)
        if positions.dtype.is_floating_point or positions.dtype == torch.bool:
            raise ValueError(f"positions must be whole numbers, got dtype {positions.dtype}")
        if positions.numel() and (int(positions.max()) >= self.max_len or int(positions.min()) < 0):
            outside = positions[(positions >= self.max_len) | (positions < 0)]
            bad = int(outside.min())
            if bad < 0:
                raise IndexError(f"position {bad} is negative; positions count from 0")
            raise IndexError(
                f"position {bad} is past the learned table, which has rows for positions "
                f"0..{self.max_len - 1} only; a learned table has no vector for a position "
                f"it was never trained on (a sinusoidal encoding is defined for any position)"
            )
        return self.table(positions)

    def forward(self, seq_len: int) -> torch.Tensor:
        checks.whole(seq_len, "seq_len", hint="a number of positions")
        return self.lookup(torch.arange(seq_len, device=self.table.weight.device))  # (T, C)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}"


# ---------------------------------------------------------------- worked example

def worked_example_rows(position: int = 1, d_models: Sequence[int] = (512, 8), dims: int = 8,
                        base: float = 10000.0) -> str:
    """A Markdown table of the first ``dims`` values of PE(position) for several ``d_model``.

    It shows why "the first 8 of 512 dimensions" cannot hold the numbers of a d_model = 8 table.
    """
    checks.whole(dims, "dims")
    position = checks.whole(position, "position", minimum=0)
    d_models = checks.many(d_models, "d_models", "width", checks.whole)
    header = "| dimension | " + " | ".join(f"d_model = {d}" for d in d_models) + " |"
    lines = [header, "|---" * (len(d_models) + 1) + "|"]
    columns = []
    for d in d_models:
        if dims > d:
            raise ValueError(f"dims ({dims}) is larger than d_model ({d})")
        columns.append(encode_positions([position], d, base, device="cpu", dtype=torch.float64)[0, :dims])
    for dim in range(dims):
        kind = "sin" if dim % 2 == 0 else "cos"
        cells = " | ".join(f"{float(column[dim]):.3f}" for column in columns)
        lines.append(f"| {dim} ({kind}, pair {dim // 2}) | {cells} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- one position against all


def similarity_profiles(tables: Mapping[str, torch.Tensor], position: int) -> dict[str, np.ndarray]:
    """Cosine similarity of ``position`` to every position, for each table (for a line plot)."""
    profiles = {}
    for name, table in tables.items():
        table = torch.as_tensor(table, dtype=torch.float64)
        row = checks.index(position, "position", table.shape[0], of=f"table {name!r}")
        profiles[name] = position_similarity(table)[row].numpy()
    return profiles




# ---------------------------------------------------------------- why sin *and* cos

def sine_only_encoding(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The sinusoidal table with its cosine columns dropped: ``sin(p * w_i)`` for each pair ``i``.

    It is what "sines alone" would give with the paper's frequencies. Shape
    (max_len, d_model / 2), float64, on the CPU.
    """
    table = sinusoidal_encoding(max_len, d_model, base, device="cpu", dtype=torch.float64)
    return table[:, 0::2]  # (T, C/2): the sine column of every pair


def closest_positions(table: torch.Tensor) -> tuple[int, int, float]:
    """The two distinct rows of a position table that lie closest together.

    Returns:
        ``(p, q, distance)`` with ``p < q`` and the Euclidean distance between rows p and q.
    """
    table = torch.from_numpy(checks.array(table, "table"))  # float64, on the CPU
    if table.ndim != 2 or table.shape[0] < 2:
        raise ValueError(f"table must be 2-D with at least two rows (positions), "
                         f"got shape {tuple(table.shape)}")
    distances = torch.cdist(table, table)  # (T, T)
    distances.fill_diagonal_(math.inf)
    flat = int(distances.argmin())
    p, q = sorted(divmod(flat, table.shape[0]))
    return p, q, float(distances[p, q])


def linear_shift_residual(table: torch.Tensor, offset: int) -> float:
    """How far ``row p -> row p + offset`` is from being one linear map for every ``p``.

    Fits the best matrix ``M`` with ``table[p + k] ~ M table[p]`` by least squares over all
    positions and returns the relative error ``|fit - target| / |target|`` (Frobenius norms).
    Zero (up to rounding) for the sinusoidal table, where ``M`` is the rotation ``R_k``.
    """
    table = torch.from_numpy(checks.array(table, "table"))  # float64, on the CPU
    checks.whole(offset, "offset", hint="a number of positions")
    if table.ndim != 2 or table.shape[0] <= offset:
        raise ValueError(f"table must be 2-D with more than offset={offset} rows, "
                         f"got shape {tuple(table.shape)}")
    source, target = table[:-offset], table[offset:]  # (T - k, C) each
    solution = torch.linalg.lstsq(source, target, driver="gelsd").solution  # (C, C): target ~ source @ M^T
    return float((source @ solution - target).norm() / target.norm())


# ---------------------------------------------------------------- why 10,000

def offset_similarity(offsets, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Cosine similarity of ``PE(p)`` and ``PE(p + k)`` for each offset ``k`` (the same for every ``p``).

    Each pair contributes ``cos(k * w_i)`` and every encoding has norm ``sqrt(d_model / 2)``, so
    the similarity is the mean of ``cos(k * w_i)`` over the pairs. Shape (len(offsets),), float64.
    """
    offsets = torch.as_tensor(offsets, dtype=torch.float64).reshape(-1)
    if offsets.numel() == 0 or not bool(torch.isfinite(offsets).all()):
        raise ValueError("offsets must be a non-empty sequence of finite numbers")
    angles = offsets[:, None] * inverse_frequencies(d_model, base)[None, :]  # (K, C/2)
    return torch.cos(angles).mean(dim=1).numpy()


def pairs_slower_than(length: float, d_model: int, base: float = 10000.0) -> int:
    """How many sin/cos pairs do not complete one turn within ``length`` positions (wavelength > length)."""
    checks.positive(length, "length", hint="a number of positions")
    return int((wavelengths(d_model, base) > length).sum())
