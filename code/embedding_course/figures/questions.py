"""Figures for "Questions learners ask": one small picture per answer."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from embedding_course import checks, plotting
from embedding_course.positional import encode_positions, inverse_frequencies, offset_similarity


def norm_ratio_figure(ratios: Mapping[str, float]) -> Figure:
    """Horizontal bars: token length over position length for each set-up, with the line at 1."""
    if not ratios:
        raise ValueError("ratios is empty; give at least one name -> ratio pair")
    names, values = list(ratios), checks.array(list(ratios.values()), "ratios", ndim=1)
    figure = plotting._new_figure(7.0, 0.55 * len(names) + 1.3)
    axes = figure.add_subplot()
    rows = np.arange(len(names))[::-1]
    axes.barh(rows, values, color=plotting.PALETTE[0])
    for row, value in zip(rows, values, strict=True):
        axes.text(value * 1.08, row, f"{value:.2g}", va="center")
    axes.axvline(1.0, color=plotting.PALETTE[1], linestyle="--", linewidth=1.2)
    axes.set_xscale("log")
    axes.set_xlim(min(values.min(), 1.0) / 2, max(values.max(), 1.0) * 4)
    axes.set_yticks(rows, labels=names)
    axes.set_xlabel("mean token length / mean position length (log scale; dashed: equal)")
    axes.grid(axis="x", alpha=0.3)
    return figure


def recovery_figure(positions: Sequence[int], recovered: np.ndarray, position_norms: np.ndarray) -> Figure:
    """Two panels against position: share of tokens still recovered, and the position vector's length."""
    positions = checks.array(positions, "positions", ndim=1)
    recovered = checks.array(recovered, "recovered", ndim=1)
    position_norms = checks.array(position_norms, "position_norms", ndim=1)
    if not positions.shape == recovered.shape == position_norms.shape:
        raise ValueError("positions, recovered and position_norms need one value per position")
    figure = plotting._new_figure(7.0, 4.6)
    top, bottom = figure.subplots(2, 1, sharex=True)
    top.plot(positions, recovered, marker="o", markersize=4, color=plotting.PALETTE[0])
    top.set_ylim(0, 1.05)
    top.set_ylabel("token recovered")
    top.set_title("Does adding the position hide the token?")
    bottom.plot(positions, position_norms, marker="o", markersize=4, color=plotting.PALETTE[1])
    bottom.set_ylabel("position length")
    bottom.set_xlabel("position (log scale; 0 drawn at the left)")
    bottom.set_ylim(0, position_norms.max() * 1.15)
    for axes in (top, bottom):
        axes.set_xscale("symlog", linthresh=1)
        # room for the markers of the first and last points (on the log axis: 0 to 1 is linear)
        axes.set_xlim(-0.2, positions.max() * 1.5)
        axes.grid(alpha=0.3)
    return figure


def base_similarity_figure(bases: Sequence[float], d_model: int, context: int) -> Figure:
    """Similarity of two positions against their offset, one line per base, up to ``context``."""
    checks.whole(context, "context", hint="a number of positions")
    offsets = np.arange(context + 1)
    series = {f"base {base:,.0f}": offset_similarity(offsets, d_model, base) for base in bases}
    figure = plotting.line_plot(offsets, series, xlabel="offset k between two positions",
                                ylabel="cos(PE(p), PE(p + k))",
                                title=f"d_model = {d_model}: how alike two positions k apart are",
                                size=(7.0, 3.8))
    figure.axes[0].axhline(0.0, color="0.5", linewidth=0.8)
    return figure


def base_explorer(bases: Sequence[float], d_model: int, context: int,
                  active: int = 0) -> plotting.go.Figure:
    """A slider over the base: the similarity of two positions against their offset (``active`` first)."""
    checks.whole(context, "context", hint="a number of positions")
    offsets = np.arange(context + 1)
    states, labels = [], []
    for base in bases:
        checks.number(base, "base", above=1)
        curve = plotting.go.Scatter(x=offsets, y=offset_similarity(offsets, d_model, base), mode="lines",
                                    line=dict(color=plotting.PALETTE[0]),
                                    name="similarity", hovertemplate="offset %{x}: %{y:.3f}<extra></extra>")
        states.append([curve])
        labels.append(f"{base:,.0f}")
    figure = plotting.slider_figure(states, labels, slider_title="base", height=430, active=active,
                                    titles=[f"cos(PE(p), PE(p + k)), d_model = {d_model}, base {label}"
                                            for label in labels])
    figure.update_xaxes(title_text="offset k")
    figure.update_yaxes(title_text="similarity", range=[-0.35, 1.02])
    return figure


def rotation_figure(d_model: int, pairs: Sequence[int], offset: int, positions: Sequence[int]) -> Figure:
    """Each panel: one (sin, cos) pair on the unit circle at several positions, and k positions on.

    The arrows all turn by the same angle ``k * w_i``, whatever the position: the shift is a rotation.
    """
    checks.whole(offset, "offset", hint="a number of positions")
    positions = [checks.whole(p, "position", minimum=0) for p in positions]
    figure = plotting._new_figure(7.0, 3.6)
    panels = figure.subplots(1, len(pairs))
    panels = np.atleast_1d(panels)
    frequencies = inverse_frequencies(d_model)
    start = encode_positions(positions, d_model, device="cpu", dtype=torch.float64)  # (N, C)
    moved = encode_positions([p + offset for p in positions], d_model, device="cpu", dtype=torch.float64)
    circle = np.linspace(0, 2 * math.pi, 200)
    for axes, pair in zip(panels, pairs, strict=True):
        checks.index(pair, "pair", d_model // 2, "the frequency pairs")
        axes.plot(np.cos(circle), np.sin(circle), color="0.7", linewidth=0.8)
        for row, position in enumerate(positions):
            x0, y0 = float(start[row, 2 * pair + 1]), float(start[row, 2 * pair])  # (cos, sin)
            x1, y1 = float(moved[row, 2 * pair + 1]), float(moved[row, 2 * pair])
            colour = plotting.PALETTE[row % len(plotting.PALETTE)]
            axes.annotate("", xy=(x1, y1), xytext=(x0, y0),
                          arrowprops=dict(arrowstyle="->", color=colour, linewidth=1.5))
            axes.plot([x0], [y0], "o", color=colour, markersize=5, label=f"p = {position}")
        angle = math.degrees(float(frequencies[pair]) * offset) % 360
        axes.set_title(f"pair {pair}: every arrow turns {angle:.0f}°", fontsize=10)
        axes.set_aspect("equal")
        axes.set_xlim(-1.25, 1.25)
        axes.set_ylim(-1.25, 1.25)
        axes.set_xlabel(f"cos (dimension {2 * pair + 1})")
        axes.set_ylabel(f"sin (dimension {2 * pair})")
    panels[-1].legend(frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return figure


def padding_figure(tokens: Sequence[str], uncorrected: np.ndarray, corrected: np.ndarray) -> Figure:
    """Per token: cosine between its input vector unpadded and left-padded, without and with the fix."""
    uncorrected = checks.array(uncorrected, "uncorrected", ndim=1)
    corrected = checks.array(corrected, "corrected", ndim=1)
    if not len(tokens) == uncorrected.size == corrected.size:
        raise ValueError("give one token and one value per series for every token")
    figure = plotting._new_figure(7.0, 3.6)
    axes = figure.add_subplot()
    where = np.arange(len(tokens))
    axes.bar(where - 0.2, uncorrected, width=0.4, color=plotting.PALETTE[1], label="position ids 0..T-1")
    axes.bar(where + 0.2, corrected, width=0.4, color=plotting.PALETTE[0], label="position ids corrected")
    axes.set_xticks(where, labels=list(tokens))
    axes.set_ylim(min(0.0, float(uncorrected.min())), 1.08)
    axes.set_ylabel("cosine with the unpadded input")
    axes.legend(frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
    axes.grid(axis="y", alpha=0.3)
    return figure
