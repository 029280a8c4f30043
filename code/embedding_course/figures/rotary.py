"""Figures of lesson 8: rotary positions in depth, and stretching them past the training length."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import plotly.graph_objects as go
from matplotlib.figure import Figure

from embedding_course import checks, plotting, rope_scaling, rotary
from embedding_course.positional import inverse_frequencies
from embedding_course.rope_extension import PHASES, ExtensionResults

ROTATION_POSITIONS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144)
"""The positions of the rotation explorer's slider."""

SCALING_FACTORS = (1, 2, 4, 8, 16, 32)
"""The scale factors of the scaling explorer's slider."""

SCALING_METHODS = ("none", "linear", "ntk", "yarn", "llama3")
"""The methods the scaling explorer draws (dynamic NTK at the target length equals NTK-aware)."""

INSIDE_LEGEND = dict(x=0.01, y=0.99, xanchor="left", yanchor="top", bgcolor="rgba(0,0,0,0)")
"""A legend in the plot's empty top-left corner: no margin to guess on a phone."""

SHORT_NAMES = {"none": "unchanged", "linear": "PI", "ntk": "NTK-aware", "yarn": "YaRN", "llama3": "Llama 3.1"}
"""Legend names short enough for a phone (PI: Position Interpolation)."""


def rotation_explorer_figure(dim: int = 16, base: float = 10000.0, positions=ROTATION_POSITIONS) -> go.Figure:
    """A position slider: each pair of a RoPE head as a hand on its own ring, turned by ``p * theta_i``.

    Pair 0 sits on the outer ring and turns fastest (1 radian per position); each pair inward
    turns ``base ** (2/dim)`` times more slowly.
    """
    thetas = inverse_frequencies(dim, base).numpy()  # (dim/2,)
    positions = checks.many(positions, "positions", "position", partial(checks.whole, minimum=0))
    pairs = len(thetas)
    radii = np.linspace(1.0, 0.3, pairs)  # pair 0 outside
    colors = plotting.matplotlib_colors(pairs, "viridis" if pairs > 10 else "tab10")
    circle = np.linspace(0, 2 * np.pi, 97)
    states, labels = [], []
    for position in positions:
        state = []
        for pair in range(pairs):
            angle = position * thetas[pair]
            turns = angle / (2 * math.pi)
            state.append(
                go.Scatter(
                    x=plotting.compact(radii[pair] * np.cos(circle)),
                    y=plotting.compact(radii[pair] * np.sin(circle)),
                    mode="lines",
                    line=dict(color="rgba(128,128,128,0.35)", width=1),
                    hoverinfo="skip",
                    showlegend=False,
                )
            )
            state.append(
                go.Scatter(
                    x=[0.0, float(radii[pair] * math.cos(angle))],
                    y=[0.0, float(radii[pair] * math.sin(angle))],
                    mode="lines+markers",
                    line=dict(color=colors[pair], width=3),
                    marker=dict(size=[0, 9]),
                    name=f"pair {pair}",
                    showlegend=pair in (0, pairs - 1),
                    hovertemplate=f"pair {pair}: θ = {thetas[pair]:.3g} rad/position<br>"
                    f"angle {angle:.2f} rad = {turns:.2f} turns<extra></extra>",
                )
            )
        states.append(state)
        labels.append(str(position))
    # each pair with its count held together by no-break spaces: a phone wraps the title between them
    titles = [
        f"Position {p}: pair\u00a00 turned {p / (2 * math.pi):.2f}\u00a0times, "
        f"pair\u00a0{pairs - 1}\u00a0{p * thetas[-1] / (2 * math.pi):.4f}\u00a0times"
        for p in positions
    ]
    active = positions.index(5) if 5 in positions else 0  # open on a position where the hands have turned
    figure = plotting.slider_figure(
        states, labels, slider_title="position", titles=titles, active=active, height=520
    )
    figure.update_xaxes(range=[-1.1, 1.1], visible=False, scaleanchor="y", scaleratio=1)
    figure.update_yaxes(range=[-1.1, 1.1], visible=False)
    figure.update_layout(legend=INSIDE_LEGEND)
    return figure


def wavelength_figure(dim: int = 128, context: int = 8192, bases=None) -> Figure:
    """Each pair's wavelength for several bases, against a training context (log scale)."""
    dim, context = checks.even(dim, "dim"), checks.whole(context, "context", hint="a number of positions")
    bases = rotary.BASES if bases is None else checks.named(bases, "bases", "base", checks.positive)
    pairs = np.arange(dim // 2)
    series = {
        f"base {base:,.0f} ({name})": 2 * np.pi / inverse_frequencies(dim, base).numpy()
        for name, base in bases.items()
    }
    series[f"training context, {context:,} positions"] = np.full(dim // 2, float(context))
    return plotting.line_plot(
        pairs,
        series,
        xlabel="pair i",
        ylabel="wavelength 2π/θᵢ (positions)",
        logy=True,
        title=f"Wavelengths of a head of width {dim}",
    )


def decay_figure(max_distance: int = 2000, dim: int = 128, base: float = 10000.0) -> Figure:
    """RoFormer's long-term decay: the relative upper bound of the score against the distance."""
    max_distance = checks.whole(max_distance, "max_distance")
    distances = np.arange(max_distance + 1)
    bound = rotary.decay_bound(distances, dim, base)
    return plotting.line_plot(
        distances,
        {"relative upper bound (1/(d/2)) Σ|S_j|": bound},
        xlabel="relative distance m − n",
        ylabel="bound",
        title=f"Long-term decay (d = {dim}, base {base:,.0f})",
    )


def interpolation_figure(fit: dict) -> Figure:
    """Position Interpolation's Figure 2: a fitted score extrapolated (left) and interpolated (right)."""
    figure = plotting._new_figure(plotting.WIDEST, 3.4)
    left, right = figure.subplots(1, 2)
    length = fit["length"]
    # the score past the range reaches billions: its power of ten goes in the axis label, not in
    # matplotlib's "1e9" above the axis, where it ran into the panel's title
    exponent = int(np.floor(np.log10(np.abs(fit["far_score"]).max())))
    left.plot(fit["far"], np.asarray(fit["far_score"]) / 10.0**exponent, color=plotting.PALETTE[0],
              linewidth=0.8)
    left.axvline(length, color="grey", linestyle="--", linewidth=1,
                 label=f"last fitted position ({length:,})")
    left.set_title(f"Extrapolation: positions 0..{fit['far'][-1]:.0f}")
    left.set_xlabel("position")
    left.set_ylabel(f"fitted score (× $10^{{{exponent}}}$)" if exponent else "fitted score")
    right.plot(fit["near"], fit["near_score"], color=plotting.PALETTE[1], linewidth=0.8)
    right.scatter(fit["points"], fit["targets"], s=4, color=plotting.PALETTE[2], label="fitted points")
    right.set_title(f"Interpolation: steps of 0.1 in 0..{length}")
    right.set_xlabel("position")
    right.set_ylabel("fitted score")  # its own: stacked on a phone, it would take the left one's (× 10⁹)
    for axes in (left, right):  # below each panel: out of the data
        axes.legend(frameon=False, loc="upper right", bbox_to_anchor=(1, -0.17))
    for axes in (left, right):
        axes.grid(alpha=0.3)
    return figure


def scaling_explorer_figure(
    dim: int = 128,
    base: float = 500000.0,
    original_len: int = 8192,
    factors=SCALING_FACTORS,
    methods=SCALING_METHODS,
) -> go.Figure:
    """A scale-factor slider: each method's per-pair wavelength, with the trained and the target context."""
    dim = checks.even(dim, "dim")
    factors = checks.many(factors, "factors", "scale factor", partial(checks.number, above=0.0))
    methods = checks.many(methods, "methods", "method", partial(checks.one_of, allowed=tuple(SHORT_NAMES)))
    pairs = np.arange(dim // 2)
    colors = plotting.matplotlib_colors(len(methods))
    # each recognisable in a legend key (30 px): "longdash" showed one dash there, a short solid line
    dashes = ("solid", "dash", "dot", "dashdot", "longdashdot")
    states, labels, titles = [], [], []
    for factor in factors:
        state = []
        for index, method in enumerate(methods):
            inv_freq, _ = rope_scaling.scaled_frequencies(method, dim, base, float(factor), original_len)
            name = SHORT_NAMES[method]
            state.append(
                go.Scatter(
                    x=pairs,
                    y=plotting.compact(2 * np.pi / inv_freq.numpy()),
                    mode="lines",
                    name=name,
                    line=dict(color=colors[index], dash=dashes[index % len(dashes)], width=2),
                    hovertemplate=f"{name}<br>pair %{{x}}<br>wavelength %{{y:,.0f}}<extra></extra>",
                )
            )
        for length, label, dash in (
            (original_len, "trained", "dot"),
            (original_len * factor, f"target ({factor:g}×)", "dash"),
        ):
            state.append(
                go.Scatter(
                    x=[0, dim // 2 - 1],
                    y=[length, length],
                    mode="lines",
                    name=label,
                    line=dict(color="grey", dash=dash, width=1),
                    hovertemplate=f"{label}: {length:,.0f} positions<extra></extra>",
                )
            )
        states.append(state)
        labels.append(f"{factor:g}×")
        titles.append(f"Scale factor {factor:g}: {original_len:,} → {original_len * factor:,.0f} positions")
    figure = plotting.slider_figure(
        states,
        labels,
        slider_title="scale factor",
        titles=titles,
        active=min(3, len(factors) - 1),
        height=540,
    )
    figure.update_yaxes(type="log", title_text="wavelength (positions)")
    figure.update_xaxes(title_text="pair i")
    # Above the plot: inside it the target line and the PI curve ran through the legend's rows.
    return plotting.legend_above(figure)


def extension_figure(results: ExtensionResults) -> Figure:
    """Accuracy by test length per method, zero-shot (left) and fine-tuned (right): mean and seed range."""
    models = results.settings.models
    lengths = np.arange(1, models.test_len + 1)
    figure = plotting._new_figure(plotting.WIDEST, 3.7)
    panels = figure.subplots(1, 2, sharey=True)
    for axes, phase in zip(panels, PHASES, strict=True):
        for index, method in enumerate(results.settings.methods):
            curves = np.stack([results.accuracy[(phase, method, seed)] for seed in results.seeds])
            answered = ~np.isnan(curves).all(axis=0)  # copy_back has no answer at the first lengths
            curves, lengths_shown = curves[:, answered], lengths[answered]
            color = plotting.PALETTE[index % len(plotting.PALETTE)]
            axes.plot(
                lengths_shown,
                curves.mean(0),
                color=color,
                label=rope_scaling.METHOD_NAMES[method],
                linestyle=("-", "--", ":", "-.")[index % 4],
            )
            # The seed range as two thin lines in the method's colour, unfilled: where the ranges
            # of several methods coincide (zero-shot: unchanged, NTK-aware and YaRN), stacked
            # translucent fills or edges mix into a grey that no legend entry names.
            for edge in (curves.min(0), curves.max(0)):
                axes.plot(lengths_shown, edge, color=color, linewidth=0.6)
        # the training lengths shaded and their end marked, named in the legend, as in lesson 7
        axes.axvspan(0.5, models.train_len + 0.5, color="0.92", zorder=0)
        axes.axvline(models.train_len + 0.5, color="0.35", linestyle="--", linewidth=1,
                     label=f"training length {models.train_len}")
        axes.set_title(phase)
        axes.set_xlabel("test length")
        axes.grid(alpha=0.3)
    panels[0].set_ylabel("accuracy")
    panels[0].set_ylim(0, 1.05)
    # Below both panels: inside one, a curve ran through it (the fine-tuned PI curve did)
    figure.legend(*panels[0].get_legend_handles_labels(), frameon=False, loc="outside lower center", ncols=4)
    return figure


def layout_bug_figure(results: ExtensionResults) -> Figure:
    """The layout bug: mean |logit gap| from the right model per position, converted and swapped."""
    models = results.settings.models
    positions = np.arange(models.test_len)
    series = {}
    for name, label in (
        ("converted", "rotate_half, rows permuted (the conversion)"),
        ("swapped", "rotate_half, weights as they are (the bug)"),
    ):
        series[label] = np.mean([results.layout_gap[(name, seed)] for seed in results.seeds], axis=0)
    return plotting.line_plot(
        positions,
        series,
        xlabel="position",
        ylabel="mean |logit difference|",
        markers=True,
        title="Interleaved weights read with the other layout",
    )


def results_table(results: ExtensionResults) -> str:
    """The experiment's results as a Markdown table: mean (worst–best seed), seen and longer lengths."""
    lines = ["| phase | method | training lengths | longer lengths |", "| --- | --- | --- | --- |"]
    for row in results.table():
        lines.append(
            f"| {row['phase']} | {row['method']} | {row['seen mean']:.2f} "
            f"({row['seen min']:.2f}–{row['seen max']:.2f}) | {row['longer mean']:.2f} "
            f"({row['longer min']:.2f}–{row['longer max']:.2f}) |"
        )
    return "\n".join(lines)
