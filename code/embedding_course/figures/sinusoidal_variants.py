"""Figures for lesson 4's "in the wild" section: how the libraries space their frequencies."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from embedding_course import checks, plotting
from embedding_course import sinusoidal_variants as variants


def frequency_spacing_figure(d_model: int = 16, d_models: Sequence[int] = (16, 64, 512)) -> Figure:
    """Two panels: the wavelengths of the paper and of tensor2tensor/fairseq, and their ratio.

    Args:
        d_model: the width of the left panel (small, so that the two curves part visibly).
        d_models: the widths drawn in the right panel.

    Returns:
        The matplotlib ``Figure``.
    """
    d_models = checks.many(d_models, "d_models", "width", checks.whole)
    figure = plotting._new_figure(plotting.WIDEST, 4.8)
    left, right = figure.subplots(1, 2)
    two_pi = 2 * 3.141592653589793
    paper = two_pi / variants.paper_frequencies(d_model)  # (C/2,) positions per cycle
    spaced = two_pi / variants.tensor2tensor_frequencies(d_model)  # (C/2,)
    pairs = range(d_model // 2)
    left.plot(pairs, paper.numpy(), marker="o", color=plotting.PALETTE[0],
              label=r"paper: $10000^{2i/d}$")
    left.plot(pairs, spaced.numpy(), marker="s", linestyle="--", color=plotting.PALETTE[1],
              label="tensor2tensor / fairseq:\n" r"$\exp(i\,\ln 10000\,/\,(d/2-1))$")
    left.axhline(two_pi * 10000, color="grey", linewidth=0.8, linestyle=":", label="2π · 10000")
    left.set_yscale("log")
    left.set_xlabel("pair index i")
    left.set_ylabel("wavelength (positions per cycle, log)")
    left.set_title(f"Wavelength of each pair, d = {d_model}")
    left.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.17))  # below: out of the data
    left.grid(alpha=0.3)
    for index, width in enumerate(d_models):
        ratio = variants.paper_frequencies(width) / variants.tensor2tensor_frequencies(width)  # (C/2,)
        last = width // 2 - 1
        right.plot([i / last for i in range(width // 2)], ratio.numpy(),
                   color=plotting.PALETTE[(index + 2) % len(plotting.PALETTE)], label=f"d = {width}")
    right.set_xlabel("relative pair index i / (d/2 - 1)")
    right.set_ylabel("wavelength ratio, fairseq / paper")
    right.set_title("How much slower each pair turns")
    right.legend(frameon=False)
    right.grid(alpha=0.3)
    return figure
