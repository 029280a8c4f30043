"""Rotary position embeddings (RoPE) in depth: pairs, layouts, partial rotation, decay.

RoPE (Su et al., RoFormer, 2021) treats each pair of channels of a query or key as one
complex number and multiplies it by ``exp(i * p * theta_i)`` at position ``p``, with
``theta_i = base ** (-2i / d)``. The score of a query at ``m`` and a key at ``n`` is then
``Re(sum_i q_i * conj(k_i) * exp(i (m - n) theta_i))``: a function of ``m - n`` only.

Which channels form a pair is a convention. RoFormer, GPT-J and Meta's LLaMA code pair
``(2i, 2i + 1)`` ("interleaved"); GPT-NeoX and Hugging Face's LLaMA pair ``(i, i + d/2)``
("rotate_half"). The two are the same model once the rows of the query and key
projections are permuted, which is what Hugging Face's LLaMA conversion script does.
The rotation itself lives in :func:`embedding_course.rope.apply_rope`.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch

from embedding_course import checks
from embedding_course.positional import inverse_frequencies
from embedding_course.rope import LAYOUTS, apply_rope, positions_of_rows

PARTIAL_ROTARY = {
    "GPT-NeoX-20B (rotary_pct 0.25)": (96, 0.25),
    "Phi-2 (partial_rotary_factor 0.4)": (80, 0.4),
}
"""Two real models that rotate only part of each head: name -> (head width, fraction rotated)."""

BASES = {
    "RoFormer, LLaMA 1 and 2": 10_000.0,
    "LLaMA 3": 500_000.0,
    "Code Llama": 1_000_000.0,
}
"""Published RoPE bases: RoFormer (Su et al. 2021), LLaMA 3 (Meta 2024), Code Llama (Rozière et al. 2023)."""


def _check_dim(dim) -> int:
    return checks.even(dim, "dim", hint="channels are rotated in pairs")


def theta(pair: int, dim: int, base: float = 10000.0) -> float:
    """The angle pair ``pair`` turns per position: ``base ** (-2 * pair / dim)`` radians."""
    pair = checks.index(pair, "pair", _check_dim(dim) // 2, of="the dim/2 pairs")
    return float(inverse_frequencies(dim, base)[pair])


def wavelength(pair: int, dim: int, base: float = 10000.0) -> float:
    """How many positions pair ``pair`` takes to turn once: ``2 * pi / theta``."""
    return 2 * math.pi / theta(pair, dim, base)


def pairs_that_turn(dim: int, base: float, context: int) -> int:
    """How many pairs complete at least one full turn within ``context`` positions."""
    _check_dim(dim)
    checks.whole(context, "context", hint="a number of positions")
    return int((2 * math.pi / inverse_frequencies(dim, base) <= context).sum())


def as_complex(x: torch.Tensor) -> torch.Tensor:
    """View the interleaved pairs ``(2i, 2i + 1)`` of ``x`` (..., d) as d/2 complex numbers."""
    return torch.view_as_complex(x.to(torch.float64).reshape(*x.shape[:-1], -1, 2).contiguous())


def rotate_complex(x: torch.Tensor, positions, base: float = 10000.0) -> torch.Tensor:
    """RoPE as complex multiplication: pair ``i`` at position ``p`` times ``exp(i p theta_i)``.

    Args:
        x: (..., T, d) real tensor, interleaved pairs.
        positions: (T,) positions.

    Returns:
        (..., T, d) float64 on ``x``'s device, equal to ``apply_rope(x, positions, base)`` up to rounding.

    Raises:
        ValueError: for ``x`` on Apple's MPS device, which has no float64 (pass ``x.cpu()``).
    """
    if x.device.type == "mps":
        raise ValueError("rotate_complex computes in float64, which Apple's MPS device does not have; "
                         "pass x.cpu()")
    positions = positions_of_rows(x, positions)  # (T,) on the CPU
    angles = positions[:, None] * inverse_frequencies(x.shape[-1], base)[None, :]  # (T, d/2)
    angles = angles.to(x.device)
    turned = as_complex(x) * torch.polar(torch.ones_like(angles), angles)  # (..., T, d/2) complex
    return torch.view_as_real(turned).flatten(-2)  # (..., T, d)


def layout_permutation(head_dim: int) -> torch.Tensor:
    """The order of channels that turns interleaved pairs into rotate_half pairs.

    Channel ``j`` of the rotate_half head is channel ``perm[j]`` of the interleaved one:
    the even channels first, then the odd ones, so pair ``(2i, 2i + 1)`` lands on
    ``(i, i + d/2)``.
    """
    _check_dim(head_dim)
    return torch.cat([torch.arange(0, head_dim, 2), torch.arange(1, head_dim, 2)])


def permute_rows(weight: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Reorder the output rows of a query or key projection, head by head, for rotate_half.

    The same operation as ``permute`` in Hugging Face's ``convert_llama_weights_to_hf.py``:
    ``w.view(n_heads, head_dim // 2, 2, ...).transpose(1, 2).reshape(...)``.

    Args:
        weight: (n_heads * head_dim, ...) weight or bias of the projection.
        n_heads: the number of heads the rows are split into.
    """
    checks.whole(n_heads, "n_heads")
    if weight.shape[0] % (2 * n_heads):
        raise ValueError(
            f"weight has {weight.shape[0]} rows; they must split into {n_heads} heads of even size"
        )
    head_dim = weight.shape[0] // n_heads
    rest = weight.shape[1:]
    return weight.reshape(n_heads, head_dim // 2, 2, *rest).transpose(1, 2).reshape(weight.shape)


def set_layout(model, layout: str, permute: bool):
    """A copy of a RoPE :class:`~embedding_course.tiny_transformer.TinyTransformer` run with ``layout``.

    With ``permute=True`` the query and key rows are reordered by :func:`permute_rows` (the
    conversion done right); with ``permute=False`` the weights are loaded as they are (the bug).
    """
    checks.one_of(layout, "layout", LAYOUTS)
    if getattr(model, "scheme", None) != "rope":
        raise ValueError("set_layout needs a TinyTransformer with scheme 'rope'")
    converted = copy.deepcopy(model)
    for block in converted.blocks:
        attention = block.attn
        attention.rope_layout = layout
        if permute:
            width = attention.n_heads * attention.head_dim
            with torch.no_grad():
                for tensor in (attention.qkv.weight, attention.qkv.bias):
                    for start in (0, width):  # the query rows, then the key rows; values stay
                        tensor[start : start + width] = permute_rows(
                            tensor[start : start + width], attention.n_heads
                        )
    return converted


def partial_rope(x: torch.Tensor, fraction: float, positions=None, base: float = 10000.0) -> torch.Tensor:
    """Rotate only the first ``int(d * fraction)`` channels of ``x`` (..., T, d); pass the rest through.

    GPT-NeoX calls ``fraction`` ``rotary_pct``, Phi ``partial_rotary_factor``; the rotated
    part uses its own width in ``theta_i = base ** (-2i / rotary_dim)``.
    """
    fraction = checks.number(fraction, "fraction", above=0.0, hint="the share of channels rotated")
    if fraction > 1:
        raise ValueError(f"fraction must be at most 1, got {fraction:g} (1 rotates every channel)")
    rotary_dim = int(x.shape[-1] * fraction)
    if rotary_dim < 2 or rotary_dim % 2:
        raise ValueError(f"int(d * fraction) = {rotary_dim} channels; it must be even and at least 2")
    turned = apply_rope(x[..., :rotary_dim], positions, base, layout="rotate_half")
    return torch.cat([turned, x[..., rotary_dim:]], dim=-1)


def decay_bound(distances, dim: int = 128, base: float = 10000.0) -> np.ndarray:
    """RoFormer section 3.4.3: the relative upper bound ``(1 / (d/2)) * sum_j |S_j|`` at each distance.

    ``S_j = sum_{k<j} exp(i * r * theta_k)`` for a relative distance ``r``. The score is at most
    ``max_j |h_{j+1} - h_j| * sum_j |S_j|`` (Abel summation), so this curve bounds how large
    scores can be at distance ``r``, relative to the query-key products ``h_j``.

    Returns:
        Array shaped like ``distances``.
    """
    _check_dim(dim)
    distances = np.asarray(distances, dtype=np.float64)
    angles = distances[..., None] * inverse_frequencies(dim, base).numpy()  # (..., d/2)
    partial_sums = np.cumsum(np.exp(1j * angles), axis=-1)  # (..., d/2): S_1 .. S_{d/2}
    return np.abs(partial_sums).mean(axis=-1)
