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
from matplotlib.figure import Figure
from torch import nn

from embedding_course import plotting
from embedding_course.device import pick_device

LAYOUTS = ("interleaved", "halves")
LAYOUT_NAMES = {
    "interleaved": "interleaved: sin, cos, sin, cos, ... (as in the paper)",
    "halves": "concatenated halves: all sines, then all cosines",
}


# ---------------------------------------------------------------- argument checks

def _check_whole(value, name: str, allowed: str = "a positive whole number") -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be {allowed}, got {value!r}")


def _check_d_model(d_model) -> None:
    _check_whole(d_model, "d_model")
    if d_model % 2:
        raise ValueError(
            f"d_model must be even (sin and cos come in pairs), got {d_model}; "
            f"try {d_model - 1 if d_model > 1 else 2} or {d_model + 1}"
        )


def _check_base(base) -> None:
    if not isinstance(base, (int, float, np.integer, np.floating)) or isinstance(base, bool) \
            or not math.isfinite(base) or not base > 1:
        raise ValueError(f"base must be a finite number greater than 1 (the paper uses 10000), got {base!r}")


def _check_layout(layout) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")


def _check_encoding_args(max_len, d_model, base) -> None:
    _check_whole(max_len, "max_len", "a positive whole number of positions")
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
    _check_whole(length, "length", "a positive whole number of positions")
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
    _check_whole(max_len, "max_len", "a positive whole number of positions")
    _check_whole(bits, "bits", "a positive whole number of binary digits")
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


def encode_positions(
    positions,
    d_model: int,
    base: float = 10000.0,
    layout: str = "interleaved",
    device: torch.device | str | None = None,
    dtype: torch.dtype = torch.float32,
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
    _check_whole(max_len, "max_len", "a positive whole number of positions")
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


def convert_layout(table: torch.Tensor, to: str) -> torch.Tensor:
    """Reorder the channels of a sinusoidal table between the two layouts.

    Args:
        table: tensor of shape (T, d_model) in the *other* layout.
        to: ``"halves"`` (from interleaved) or ``"interleaved"`` (from halves).
    """
    _check_layout(to)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (positions, d_model), got {tuple(table.shape)}")
    perm = halves_permutation(table.shape[1]).to(table.device)
    if to == "halves":
        return table[:, perm]
    return table[:, torch.argsort(perm)]


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
    if isinstance(offset, bool) or not isinstance(offset, (int, float, np.integer, np.floating)) \
            or not math.isfinite(offset):
        raise ValueError(f"offset must be a finite number of positions, got {offset!r}")
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
    _check_whole(offset, "offset", "a positive whole number of positions")
    table = sinusoidal_encoding(max_len + offset, d_model, base, layout, device="cpu", dtype=torch.float64)
    rotated = table[:max_len] @ rotation_matrix(offset, d_model, base, layout).T  # rows are R_k PE(p)
    return float((table[offset:] - rotated).abs().max())


def dot_product_at_offset(offsets, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """``PE(p) . PE(p + k) = sum_i cos(w_i k)``: a function of the offset ``k`` alone.

    Returns:
        Tensor with one value per offset, float64.
    """
    offsets = torch.as_tensor(offsets, dtype=torch.float64).reshape(-1)
    angles = offsets[:, None] * inverse_frequencies(d_model, base)[None, :]  # (K, C/2)
    return torch.cos(angles).sum(dim=1)


def position_similarity(table: torch.Tensor, kind: str = "cosine") -> torch.Tensor:
    """How alike every pair of positions is: ``table @ table.T`` (``"dot"``) or its cosine.

    Args:
        table: (T, C) position vectors, any kind (sinusoidal or learned).
        kind: ``"cosine"`` or ``"dot"``.

    Returns:
        Tensor of shape (T, T).
    """
    table = torch.as_tensor(table).detach()
    if table.ndim != 2 or table.numel() == 0:
        raise ValueError(f"table must be a non-empty (positions, d_model) matrix, got {tuple(table.shape)}")
    if kind == "dot":
        return table @ table.T
    if kind == "cosine":
        unit = table / table.norm(dim=1, keepdim=True).clamp_min(1e-12)
        return unit @ unit.T
    raise ValueError(f"kind must be 'cosine' or 'dot', got {kind!r}")


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
        _check_whole(seq_len, "seq_len", "a positive whole number of positions")
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
        _check_whole(max_len, "max_len", "a positive whole number of positions")
        _check_whole(d_model, "d_model")
        self.max_len, self.d_model = max_len, d_model
        self.table = nn.Embedding(max_len, d_model)
        if init_std is not None:
            if not isinstance(init_std, (int, float)) or isinstance(init_std, bool) or not init_std > 0:
                raise ValueError(f"init_std must be a positive number or None, got {init_std!r}")
            nn.init.normal_(self.table.weight, mean=0.0, std=float(init_std))

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
        _check_whole(seq_len, "seq_len", "a positive whole number of positions")
        return self.lookup(torch.arange(seq_len, device=self.table.weight.device))  # (T, C)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}"


# ---------------------------------------------------------------- worked example

def worked_example_rows(position: int = 1, d_models: Sequence[int] = (512, 8), dims: int = 8,
                        base: float = 10000.0) -> str:
    """A Markdown table of the first ``dims`` values of PE(position) for several ``d_model``.

    It shows why "the first 8 of 512 dimensions" cannot hold the numbers of a d_model = 8 table.
    """
    _check_whole(dims, "dims")
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


# ---------------------------------------------------------------- figures for the lesson

def _robust_limit(matrix: np.ndarray, quantile: float = 1.0) -> float:
    """A symmetric colour limit: the ``quantile`` of ``|values|`` (1.0 = the largest)."""
    finite = np.abs(matrix[np.isfinite(matrix)])
    limit = float(np.quantile(finite, quantile)) if finite.size else 1.0
    return limit if limit > 0 else 1.0


def _float32(values) -> np.ndarray:
    """Figure data as float32: plenty for a plot, half the page weight of float64."""
    return plotting.as_array(values).astype(np.float32)


def heatmap_panels(
    matrices: Sequence,
    titles: Sequence[str],
    *,
    xlabel: str = "",
    ylabel: str = "",
    diverging: bool | Sequence[bool] = True,
    limits: tuple[float, float] | Sequence[tuple[float, float] | None] | None = None,
    robust: float | None = None,
    colorbar_label: str = "",
    suptitle: str = "",
    size: tuple[float, float] | None = None,
    rows: int = 1,
    ticklabels: Sequence[Sequence[str] | None] | None = None,
    annotate: bool = False,
    extent: tuple[float, float, float, float] | None = None,
    shared_colorbar: bool = False,
) -> Figure:
    """Several heatmaps side by side, each with its own colour bar.

    Args:
        matrices: 2-D arrays (tensors are fine).
        titles: one title per panel.
        diverging: a red-blue map centred on 0 (one flag for all, or one per panel).
        limits: a colour range for all panels, or one per panel (``None`` = automatic).
        robust: if given (e.g. 0.99), automatic symmetric limits use that quantile of
            ``|values|`` instead of the maximum, so a few outliers do not wash out the rest.
        rows: panel rows (panels fill row by row).
        ticklabels: per panel, labels for both axes (e.g. the tokens of a sentence), or ``None``.
        annotate: write each value in its cell (for small matrices).
        extent: axis coordinates ``(left, right, bottom, top)`` of every image, e.g. to label
            the rows of a matrix that keeps every 4th position with the true positions.
        shared_colorbar: one colour bar for all panels (give shared ``limits``).
    """
    if len(matrices) == 0 or len(matrices) != len(titles):
        raise ValueError(f"give one title per matrix and at least one matrix; got {len(matrices)} "
                         f"matrices and {len(titles)} titles")
    count = len(matrices)
    columns = math.ceil(count / rows)
    flags = [diverging] * count if isinstance(diverging, bool) else list(diverging)
    if limits is None or (len(limits) == 2 and not isinstance(limits[0], (tuple, list, type(None)))):
        panel_limits = [limits] * count
    else:
        panel_limits = list(limits)
    figure = plotting._new_figure(*(size or (4.2 * columns, 3.6 * rows)))
    axes_grid = figure.subplots(rows, columns, squeeze=False)
    for index, (matrix, title) in enumerate(zip(matrices, titles, strict=True)):
        axes = axes_grid[index // columns][index % columns]
        matrix = plotting.as_array(matrix, f"matrix {index}", ndim=2)
        panel = panel_limits[index]
        if panel is None and flags[index]:
            limit = _robust_limit(matrix, robust or 1.0)
            panel = (-limit, limit)
        vmin, vmax = panel if panel is not None else (None, None)
        image = axes.imshow(matrix, cmap=plotting.DIVERGING if flags[index] else plotting.SEQUENTIAL,
                            vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest", extent=extent)
        if not shared_colorbar:
            colorbar = figure.colorbar(image, ax=axes, shrink=0.9)
            if colorbar_label:
                colorbar.set_label(colorbar_label)
        if ticklabels is not None and ticklabels[index] is not None:
            labels = list(ticklabels[index])
            axes.set_xticks(range(len(labels)), labels=labels, rotation=45, ha="right")
            axes.set_yticks(range(len(labels)), labels=labels)
        if annotate:
            low, high = image.get_clim()
            for (row, col), value in np.ndenumerate(matrix):
                if flags[index]:
                    dark = abs(value) > 0.6 * max(abs(low), abs(high))
                else:
                    dark = value > (low + high) / 2
                axes.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=8,
                          color="white" if dark else "black")
        axes.set_title(title, fontsize=10)
        axes.set_xlabel(xlabel)
        if index % columns == 0:
            axes.set_ylabel(ylabel)
    for index in range(count, rows * columns):
        axes_grid[index // columns][index % columns].set_visible(False)
    if shared_colorbar:
        colorbar = figure.colorbar(image, ax=axes_grid.ravel().tolist(), shrink=0.9)
        if colorbar_label:
            colorbar.set_label(colorbar_label)
    if suptitle:
        figure.suptitle(suptitle)
    return figure


def binary_counter_figure(max_len: int = 64, bits: int = 6, d_model: int = 16,
                          base: float = 10000.0) -> Figure:
    """Bits of a binary counter next to the columns of a sinusoidal table (interleaved layout)."""
    counter = binary_counter(max_len, bits)
    table = sinusoidal_encoding(max_len, d_model, base, device="cpu")
    figure = heatmap_panels(
        [counter, table],
        ["binary counter: bit j flips every 2^j positions", f"sinusoidal, d_model = {d_model} (interleaved)"],
        xlabel="column", ylabel="position", diverging=[False, True], limits=[(0, 1), (-1, 1)],
        size=(9.5, 4.2),
    )
    figure.axes[0].set_xticks(range(bits), labels=[f"bit {j}" for j in range(bits)], rotation=45, ha="right")
    figure.axes[2].set_yticks([0, 1])  # the first panel's colour bar: a bit is 0 or 1
    return figure


def compare_tables_figure(tables: Mapping[str, torch.Tensor], *, robust: float = 0.99,
                          positions: int | None = None, dims: int | None = None) -> Figure:
    """Heatmaps of several (positions x dims) tables, each with its own symmetric colour range.

    Args:
        robust: quantile of ``|values|`` used as each panel's colour limit.
        positions: show only the first ``positions`` rows (all by default); a smaller image
            keeps the page light.
        dims: show only the first ``dims`` dimensions (all by default).
    """
    shown = [torch.as_tensor(table)[:positions, :dims] for table in tables.values()]
    return heatmap_panels(shown, list(tables.keys()), xlabel="dimension", ylabel="position",
                          diverging=True, robust=robust, size=(3.4 * len(tables), 3.3))


def compare_similarity_figure(tables: Mapping[str, torch.Tensor], step: int = 1) -> Figure:
    """Cosine similarity of every position to every other (full vectors), one panel per table.

    Args:
        step: show every ``step``-th position (the axes still count true positions).
    """
    _check_whole(step, "step")
    matrices = [position_similarity(torch.as_tensor(table, dtype=torch.float64)[::step])
                for table in tables.values()]
    size = matrices[0].shape[0] * step
    return heatmap_panels(matrices, list(tables.keys()), xlabel="position", ylabel="position",
                          diverging=True, limits=(-1, 1), colorbar_label="cosine similarity",
                          size=(3.2 * len(tables) + 0.8, 3.3), extent=(-0.5, size - 0.5, size - 0.5, -0.5),
                          shared_colorbar=True)


def similarity_profiles(tables: Mapping[str, torch.Tensor], position: int) -> dict[str, np.ndarray]:
    """Cosine similarity of ``position`` to every position, for each table (for a line plot)."""
    profiles = {}
    for name, table in tables.items():
        table = torch.as_tensor(table, dtype=torch.float64)
        if not 0 <= position < table.shape[0]:
            raise IndexError(f"position {position} is outside table {name!r} (0..{table.shape[0] - 1})")
        profiles[name] = position_similarity(table)[position].cpu().numpy()
    return profiles


def position_explorer_figure(max_len: int = 50, d_model: int = 64, base: float = 10000.0,
                             positions: Sequence[int] | None = None) -> plotting.go.Figure:
    """A Plotly figure with a position slider: the table, that position's vector, its similarities.

    Left: the whole table (interleaved) with the chosen row marked. Right, top: the
    chosen row, one value per dimension. Right, bottom: the cosine similarity of the
    chosen position to every position. All states are computed here, in advance.
    """
    from plotly.subplots import make_subplots

    table = sinusoidal_encoding(max_len, d_model, base, device="cpu", dtype=torch.float64)
    similarity = position_similarity(table)
    positions = list(range(max_len)) if positions is None else list(positions)
    for position in positions:
        if not 0 <= position < max_len:
            raise IndexError(f"position {position} is outside 0..{max_len - 1}")
    figure = make_subplots(
        rows=2, cols=2, column_widths=[0.45, 0.55], specs=[[{"rowspan": 2}, {}], [None, {}]],
        horizontal_spacing=0.1, vertical_spacing=0.16,
        subplot_titles=("PE table (interleaved)", "PE(p): one value per dimension",
                        "cosine similarity of p to every position"),
    )
    hover = "position %{y}<br>dim %{x}<br>%{z:.3f}<extra></extra>"
    figure.add_trace(plotting.heatmap_trace(table, diverging=True, limits=(-1, 1), showscale=False,
                                            hovertemplate=hover), row=1, col=1)
    for index, position in enumerate(positions):
        visible = index == 0
        # y only: Plotly numbers the x values 0, 1, 2, ... itself, which keeps each state small
        figure.add_trace(plotting.go.Bar(y=_float32(table[position]), marker_color=plotting.PALETTE[0],
                                         visible=visible, hovertemplate="dim %{x}: %{y:.3f}<extra></extra>"),
                         row=1, col=2)
        figure.add_trace(plotting.go.Scatter(y=_float32(similarity[position]), mode="lines+markers",
                                             marker=dict(size=4), line=dict(color=plotting.PALETTE[1]),
                                             visible=visible, hovertemplate="%{x}: %{y:.3f}<extra></extra>"),
                         row=2, col=2)

    def marker(position):  # a box around the chosen row of the heatmap
        return [dict(type="rect", xref="x", yref="y", x0=-0.5, x1=d_model - 0.5, y0=position - 0.5,
                     y1=position + 0.5, line=dict(color="black", width=2))]

    steps = []
    for index, position in enumerate(positions):
        visible = [True] + [False] * (2 * len(positions))
        visible[1 + 2 * index] = visible[2 + 2 * index] = True
        steps.append(dict(method="update", label=str(position),
                          args=[{"visible": visible}, {"shapes": marker(position)}]))
    plotting.style(figure, height=520)
    figure.update_layout(
        shapes=marker(positions[0]), showlegend=False,
        sliders=[dict(active=0, steps=steps, currentvalue=dict(prefix="position: ", font=dict(size=14)),
                      pad=dict(t=50, b=10), len=1.0)],
        margin=dict(t=50, b=40),
    )
    figure.update_yaxes(autorange="reversed", title_text="position", row=1, col=1)
    figure.update_xaxes(title_text="dimension", row=1, col=1)
    figure.update_yaxes(range=[-1.1, 1.1], row=1, col=2)
    figure.update_yaxes(range=[-1.05, 1.05], row=2, col=2)

    return figure


def encoding_grid_figure(d_models: Sequence[int] = (16, 32, 64, 128),
                         bases: Sequence[float] = (10, 100, 1000, 10000),
                         max_len: int = 50) -> plotting.go.Figure:
    """A Plotly slider over every (base, d_model) pair: one heatmap per state, colours fixed to [-1, 1]."""
    states, labels, titles = [], [], []
    for base in bases:
        for d_model in d_models:
            table = sinusoidal_encoding(max_len, d_model, base, device="cpu")
            states.append([plotting.heatmap_trace(
                table, diverging=True, limits=(-1, 1),
                hovertemplate="position %{y}<br>dim %{x}<br>%{z:.3f}<extra></extra>")])
            labels.append(f"b={base:g}, d={d_model}")
            titles.append(f"base = {base:g}, d_model = {d_model} ({max_len} positions, interleaved)")
    figure = plotting.slider_figure(states, labels, slider_title="base, d_model", titles=titles,
                                    active=len(states) - 1 if len(states) else 0, height=480)
    figure.update_yaxes(autorange="reversed", title_text="position")
    figure.update_xaxes(title_text="dimension")
    return figure
