"""Sinusoidal encodings as real libraries build them.

"The sinusoidal encoding" is not one table. Each function below follows one documented
formula, and the docstring says where it comes from:

- :func:`paper_encoding`: Vaswani et al. (2017), section 3.5. Interleaved (sin, cos, sin,
  cos, ...), frequency ``10000 ** (-2i / d)`` for pair ``i``.
- :func:`package_halves_encoding`: the same numbers with all sines first, then all
  cosines; a pure permutation of the paper's columns.
- :func:`tensor2tensor_encoding` and :func:`fairseq_table`: halves, but the frequencies
  are spaced as ``exp(-i * ln(10000) / (d/2 - 1))``, so the last one is exactly 1/10000.
  fairseq also starts the positions at ``padding_idx + 1`` and zeroes the padding row.
- :func:`timestep_embedding`: the timestep embedding of diffusion models (DDPM and
  Hugging Face diffusers), the same idea with two switches.

The rest compares them: how far a variant's table is from the paper's after the best
reordering of its columns (:func:`best_permutation_difference`), and a summary table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from embedding_course import checks, positional

VARIANTS = ("paper", "halves", "tensor2tensor", "fairseq", "ddpm", "stable_diffusion")
"""The variants compared on the page, in the order of its table."""

FAIRSEQ_PADDING_IDX = 1
"""fairseq's dictionaries reserve index 1 for padding (``<s>``=0, ``<pad>``=1)."""


# ---------------------------------------------------------------- argument checks

def _check_width(d_model, smallest: int = 2) -> None:
    checks.whole(d_model, "d_model", minimum=smallest, hint="the width of each vector")


def _as_positions(positions, name: str = "positions") -> torch.Tensor:
    positions = torch.as_tensor(positions).detach().to("cpu", torch.float64)
    if positions.ndim != 1 or positions.numel() == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {tuple(positions.shape)}")
    if not bool(torch.isfinite(positions).all()):
        raise ValueError(f"{name} must be finite numbers")
    return positions


def _halves(positions: torch.Tensor, frequencies: torch.Tensor, d_model: int) -> torch.Tensor:
    """``[sin(p w), cos(p w)]`` side by side, plus a zero column when ``d_model`` is odd."""
    angles = positions[:, None] * frequencies[None, :]  # (T, C/2)
    table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)  # (T, 2 * (C/2))
    if d_model % 2:
        table = torch.cat([table, torch.zeros(len(positions), 1, dtype=table.dtype)], dim=1)  # (T, C)
    return table


# ---------------------------------------------------------------- frequencies

def paper_frequencies(d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The paper's angular frequencies ``base ** (-2i / d_model)``, i = 0 .. d/2-1, float64."""
    return positional.inverse_frequencies(d_model, base)


def tensor2tensor_frequencies(d_model: int, min_timescale: float = 1.0,
                              max_timescale: float = 1.0e4) -> torch.Tensor:
    """tensor2tensor's ``inv_timescales``: ``min * exp(-i * ln(max/min) / max(d/2 - 1, 1))``.

    From ``get_timing_signal_1d`` in ``tensor2tensor/layers/common_attention.py``: a geometric
    sequence whose first and last timescales are exactly ``min_timescale`` and ``max_timescale``.

    Returns:
        Tensor of shape (d_model // 2,), float64.
    """
    _check_width(d_model)
    min_timescale = checks.positive(min_timescale, "min_timescale", hint="the shortest timescale")
    max_timescale = checks.number(max_timescale, "max_timescale", above=min_timescale,
                                  hint="the longest timescale, above min_timescale")
    num_timescales = d_model // 2
    increment = math.log(max_timescale / min_timescale) / max(num_timescales - 1, 1)
    return min_timescale * torch.exp(-increment * torch.arange(num_timescales, dtype=torch.float64))


def timestep_frequencies(d_model: int, downscale_freq_shift: float = 1.0,
                         max_period: float = 10000.0) -> torch.Tensor:
    """diffusers' frequencies ``exp(-ln(max_period) * i / (d/2 - downscale_freq_shift))``.

    ``downscale_freq_shift = 1`` gives tensor2tensor's spacing (DDPM); ``0`` gives the paper's.
    ``max_period`` must be above 1: at 1 every frequency is 1, below 1 they grow past 1.
    """
    downscale_freq_shift = checks.number(downscale_freq_shift, "downscale_freq_shift",
                                         hint="1 in DDPM, 0 in Stable Diffusion")
    _check_width(d_model, 4 if downscale_freq_shift == 1 else 2)
    half = d_model // 2
    if half - downscale_freq_shift <= 0:
        raise ValueError(f"downscale_freq_shift must be below d_model // 2 = {half}, "
                         f"got {downscale_freq_shift:g}")
    max_period = checks.number(max_period, "max_period", above=1.0,
                               hint="the longest period, 10000 in diffusers; at 1 every frequency is 1")
    exponent = -math.log(max_period) * torch.arange(half, dtype=torch.float64) / (half - downscale_freq_shift)
    return torch.exp(exponent)


# ---------------------------------------------------------------- the variants

def paper_encoding(positions, d_model: int) -> torch.Tensor:
    """Vaswani et al. (2017), "Attention Is All You Need", section 3.5.

    ``PE(p, 2i) = sin(p / 10000^(2i/d))``, ``PE(p, 2i+1) = cos(p / 10000^(2i/d))``: interleaved.

    Returns:
        Tensor of shape (len(positions), d_model), float64, on the CPU.
    """
    return positional.encode_positions(_as_positions(positions), d_model, device="cpu", dtype=torch.float64)


def package_halves_encoding(positions, d_model: int) -> torch.Tensor:
    """The course package's ``layout="halves"``: the paper's numbers, all sines then all cosines."""
    return positional.encode_positions(_as_positions(positions), d_model, layout="halves",
                                       device="cpu", dtype=torch.float64)


def tensor2tensor_encoding(positions, d_model: int, min_timescale: float = 1.0,
                           max_timescale: float = 1.0e4) -> torch.Tensor:
    """tensor2tensor's ``get_timing_signal_1d`` (``tensor2tensor/layers/common_attention.py``).

    ``concat([sin(p * inv_timescales), cos(p * inv_timescales)])`` with the frequencies of
    :func:`tensor2tensor_frequencies`, padded with a zero column when ``d_model`` is odd.

    Returns:
        Tensor of shape (len(positions), d_model), float64.
    """
    frequencies = tensor2tensor_frequencies(d_model, min_timescale, max_timescale)
    return _halves(_as_positions(positions), frequencies, d_model)


def fairseq_table(num_embeddings: int, d_model: int,
                  padding_idx: int | None = FAIRSEQ_PADDING_IDX) -> torch.Tensor:
    """fairseq's ``SinusoidalPositionalEmbedding.get_embedding``.

    From ``fairseq/modules/sinusoidal_positional_embedding.py``, whose docstring says it
    "matches the implementation in tensor2tensor, but differs slightly from the description
    in Section 3.5": frequencies ``exp(-i * ln(10000) / (d/2 - 1))``, sines then cosines, a
    zero column when ``d_model`` is odd, and row ``padding_idx`` set to zero.

    Returns:
        Tensor of shape (num_embeddings, d_model), float64; row p is position p.
    """
    checks.whole(num_embeddings, "num_embeddings", hint="the number of rows")
    _check_width(d_model, 4)
    half = d_model // 2
    step = math.log(10000) / (half - 1)
    frequencies = torch.exp(torch.arange(half, dtype=torch.float64) * -step)  # (C/2,)
    table = _halves(torch.arange(num_embeddings, dtype=torch.float64), frequencies, d_model)
    padding_idx = checks.optional_index(padding_idx, "padding_idx", num_embeddings, of="the table")
    if padding_idx is not None:
        table[padding_idx] = 0.0
    return table


def fairseq_positions(tokens, padding_idx: int = FAIRSEQ_PADDING_IDX) -> torch.Tensor:
    """fairseq's ``utils.make_positions``: which table row each token reads.

    Real tokens are numbered ``padding_idx + 1, padding_idx + 2, ...``; padding tokens get
    ``padding_idx`` itself, the zeroed row.

    Args:
        tokens: integer tensor of shape (B, T) or (T,).

    Returns:
        Integer tensor of the same shape.
    """
    tokens = torch.as_tensor(tokens)
    if tokens.dtype.is_floating_point or tokens.ndim not in (1, 2):
        raise ValueError("tokens must be an integer tensor of shape (T,) or (B, T), "
                         f"got {tokens.dtype} {tuple(tokens.shape)}")
    mask = (tokens != padding_idx).long()
    return torch.cumsum(mask, dim=-1) * mask + padding_idx


def timestep_embedding(timesteps, d_model: int, flip_sin_to_cos: bool = False,
                       downscale_freq_shift: float = 1.0, max_period: float = 10000.0) -> torch.Tensor:
    """The timestep embedding of diffusion models: diffusers' ``get_timestep_embedding``.

    From ``src/diffusers/models/embeddings.py``. Its defaults (``downscale_freq_shift=1``,
    sines first) are DDPM's ``get_timestep_embedding`` (Ho et al. 2020, ``diffusion_tf/nn.py``,
    itself copied "from Fairseq"). Stable Diffusion's UNet sets ``flip_sin_to_cos=True`` and
    ``freq_shift=0``: cosines first, and the paper's frequencies.

    Returns:
        Tensor of shape (len(timesteps), d_model), float64.
    """
    frequencies = timestep_frequencies(d_model, downscale_freq_shift, max_period)
    table = _halves(_as_positions(timesteps, "timesteps"), frequencies, d_model)
    if flip_sin_to_cos:
        half = d_model // 2
        table = torch.cat([table[:, half:2 * half], table[:, :half], table[:, 2 * half:]], dim=1)
    return table


def variant_encoding(name: str, length: int, d_model: int) -> torch.Tensor:
    """The vectors that the first ``length`` tokens of a sequence receive in each variant.

    For fairseq that is rows ``padding_idx + 1 ..`` of its table, not rows ``0 ..``.

    Returns:
        Tensor of shape (length, d_model), float64.
    """
    checks.one_of(name, "name", VARIANTS)
    checks.whole(length, "length", hint="the number of tokens")
    positions = torch.arange(length)
    if name == "paper":
        return paper_encoding(positions, d_model)
    if name == "halves":
        return package_halves_encoding(positions, d_model)
    if name == "tensor2tensor":
        return tensor2tensor_encoding(positions, d_model)
    if name == "fairseq":
        rows = fairseq_positions(torch.full((length,), 7), FAIRSEQ_PADDING_IDX)  # any non-padding token
        return fairseq_table(int(rows.max()) + 1, d_model)[rows]
    if name == "ddpm":
        return timestep_embedding(positions, d_model)
    return timestep_embedding(positions, d_model, flip_sin_to_cos=True, downscale_freq_shift=0)


# ---------------------------------------------------------------- comparing tables

def _perfect_matching(allowed: np.ndarray, start: np.ndarray | None = None) -> np.ndarray | None:
    """A column for every row, each column used once, only where ``allowed``; None if impossible.

    Kuhn's algorithm, the textbook one for a bipartite matching (no dependency of the course
    has an assignment solver; SciPy's ``linear_sum_assignment`` would be one): each row left
    without a column takes a free one, or one whose row can move to another, recursively.
    It starts from the allowed part of ``start``. A column is tried once per search, so the
    recursion is at most one call per row (512 for the lesson's widest table).
    """
    n = allowed.shape[0]
    row_of = np.full(n, -1)  # column -> the row that holds it
    if start is not None:
        for row, col in enumerate(start):
            if allowed[row, col] and row_of[col] < 0:
                row_of[col] = row

    def give_a_column(row: int, tried: np.ndarray) -> bool:
        cols = np.flatnonzero(allowed[row] & ~tried)
        tried[cols] = True
        free = cols[row_of[cols] < 0]
        for col in free[:1] if free.size else cols:  # a free column first: the short path
            if row_of[col] < 0 or give_a_column(row_of[col], tried):
                row_of[col] = row
                return True
        return False

    for row in np.setdiff1d(np.arange(n), row_of):
        if not give_a_column(row, np.zeros(n, dtype=bool)):
            return None
    row_to_col = np.empty(n, dtype=int)
    row_to_col[row_of] = np.arange(n)
    return row_to_col


def best_permutation_difference(table, reference, guess=None) -> tuple[float, torch.Tensor]:
    """The smallest possible largest difference between ``table[:, perm]`` and ``reference``.

    Every column of ``table`` is matched to one column of ``reference`` so that the worst
    entry-wise gap is as small as it can be (a bottleneck assignment, solved exactly).

    Args:
        table, reference: tensors of the same shape (T, C).
        guess: an optional permutation to start from (e.g. the obvious one); it speeds the search.

    Returns:
        ``(difference, perm)`` with ``(table[:, perm] - reference).abs().max() == difference``.
    """
    table = torch.as_tensor(table, dtype=torch.float64)
    reference = torch.as_tensor(reference, dtype=torch.float64)
    if table.ndim != 2 or table.shape != reference.shape:
        raise ValueError("table and reference must be 2-D of one shape, "
                         f"got {tuple(table.shape)} and {tuple(reference.shape)}")
    # cost[j, k]: largest gap over positions between column k of table and column j of reference
    cost = torch.cdist(reference.T.contiguous(), table.T.contiguous(), p=float("inf")).numpy()  # (C, C)
    start = None if guess is None else np.asarray(torch.as_tensor(guess))
    if start is not None and sorted(start.tolist()) != list(range(cost.shape[0])):
        raise ValueError(f"guess must be a permutation of 0 .. {cost.shape[0] - 1}")
    upper = cost.max() if start is None else cost[np.arange(len(start)), start].max()
    lower = max(cost.min(axis=1).max(), cost.min(axis=0).max())  # no matching can do better
    candidates = np.unique(cost[(cost >= lower) & (cost <= upper)])
    low, high = 0, len(candidates) - 1
    best = _perfect_matching(cost <= candidates[high], start)
    while low < high:  # the smallest threshold that still allows a full matching
        middle = (low + high) // 2
        matching = _perfect_matching(cost <= candidates[middle], best)
        if matching is None:
            low = middle + 1
        else:
            high, best = middle, matching
    perm = torch.as_tensor(best)
    return float((table[:, perm] - reference).abs().max()), perm


def paper_order(name: str, d_model: int) -> torch.Tensor:
    """The column order that puts a variant's channels where the paper has them (pair i on pair i).

    ``variant[:, paper_order(name, d)]`` is interleaved, sine before cosine.
    """
    checks.one_of(name, "name", VARIANTS)
    _check_width(d_model)
    half = d_model // 2
    if name == "paper":
        return torch.arange(d_model)
    sines, cosines = torch.arange(half), torch.arange(half, 2 * half)
    if name == "stable_diffusion":  # cosines first
        sines, cosines = cosines, sines
    return torch.stack([sines, cosines], dim=1).reshape(-1)


@dataclass(frozen=True)
class VariantSummary:
    """One row of the comparison: what a variant is and how far it is from the paper's table."""

    name: str
    d_model: int
    source: str
    layout: str
    frequency_rule: str
    last_wavelength: float
    """Positions per cycle of the slowest pair."""
    pair_difference: float
    """Largest difference from the paper's table when pair i is put on pair i."""
    best_difference: float
    """Largest difference after the best possible column permutation."""


DESCRIPTIONS = {
    "paper": ("Vaswani et al. 2017, section 3.5", "interleaved: sin, cos, sin, cos",
              "10000^(-2i/d)"),
    "halves": ("this course, `layout=\"halves\"`", "halves: sines, then cosines", "10000^(-2i/d)"),
    "tensor2tensor": ("tensor2tensor", "halves: sines, then cosines", "exp(-i ln(10000) / (d/2 - 1))"),
    "fairseq": ("fairseq", "halves: sines, then cosines; first token on row 2",
                "exp(-i ln(10000) / (d/2 - 1))"),
    "ddpm": ("DDPM / diffusers (defaults)", "halves: sines, then cosines", "exp(-i ln(10000) / (d/2 - 1))"),
    "stable_diffusion": ("Stable Diffusion's UNet (diffusers)", "halves: cosines, then sines",
                         "10000^(-2i/d)"),
}
"""Each variant's source, layout and frequency rule, as the comparison table gives them (the
functions' names are in lesson 4's text, so that the table fits a desktop column)."""


def variant_frequencies(name: str, d_model: int) -> torch.Tensor:
    """The angular frequency of each sin/cos pair of a variant, shape (d_model // 2,)."""
    checks.one_of(name, "name", VARIANTS)
    if name in ("paper", "halves"):
        return paper_frequencies(d_model)
    if name == "stable_diffusion":
        return timestep_frequencies(d_model, downscale_freq_shift=0)
    return tensor2tensor_frequencies(d_model)


def summarise(name: str, length: int, d_model: int = 512) -> VariantSummary:
    """Compare one variant with the paper's table over the first ``length`` positions."""
    table = variant_encoding(name, length, d_model)
    reference = paper_encoding(torch.arange(length), d_model)
    order = paper_order(name, d_model)
    pair_difference = float((table[:, order] - reference).abs().max())
    best_difference = pair_difference  # a pure reordering (up to rounding): nothing does better
    if pair_difference > 1e-9:
        best_difference, _ = best_permutation_difference(table, reference, guess=order)
    source, layout, rule = DESCRIPTIONS[name]
    last_wavelength = float(2 * math.pi / variant_frequencies(name, d_model)[-1])
    return VariantSummary(name, d_model, source, layout, rule, last_wavelength,
                          pair_difference, best_difference)


def comparison_markdown(summaries: list[VariantSummary], lengths: list[int]) -> str:
    """A Markdown table: one row per variant, one difference column per compared length.

    Args:
        summaries: for each length, the summaries of every variant (``summaries[k][v]``).
        lengths: the number of positions of each set of summaries.
    """
    if len(summaries) != len(lengths) or not lengths:
        raise ValueError(f"give one list of summaries per length, "
                         f"got {len(summaries)} lists for {len(lengths)} lengths")
    d_model = summaries[0][0].d_model
    header = ["source", "layout", "frequency of pair i", f"last wavelength (d = {d_model})"]
    header += [f"largest difference from the paper, {n:,} positions" for n in lengths]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row, first in enumerate(summaries[0]):
        cells = [first.source, first.layout, f"`{first.frequency_rule}`",
                 f"{first.last_wavelength:,.0f}"]
        cells += [f"{group[row].best_difference:.2f}" for group in summaries]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
