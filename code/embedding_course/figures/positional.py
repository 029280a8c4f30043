"""Figures for lesson 4: sinusoidal tables, their similarities, and the explorers built on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from matplotlib.figure import Figure
from plotly.subplots import make_subplots

from embedding_course import checks, plotting, positional, rope


def binary_counter_figure(max_len: int = 64, bits: int = 6, d_model: int = 16,
                          base: float = 10000.0) -> Figure:
    """Bits of a binary counter next to the columns of a sinusoidal table (interleaved layout)."""
    counter = positional.binary_counter(max_len, bits)
    table = positional.sinusoidal_encoding(max_len, d_model, base, device="cpu")
    figure = plotting.heatmap_panels(
        [counter, table],
        [r"binary counter: bit $j$ flips every $2^j$ positions",
         rf"sinusoidal, $d_\mathrm{{model}}={d_model}$ (interleaved)"],
        xlabel="column", ylabel="position", diverging=[False, True], limits=[(0, 1), (-1, 1)],
        size=(plotting.WIDEST, 3.9),
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
    return plotting.heatmap_panels(shown, _panel_titles(tables), xlabel="dimension", ylabel="position",
                                   diverging=True, robust=robust,
                                   size=(min(3.4 * len(tables), plotting.WIDEST), 3.5))


def compare_similarity_figure(tables: Mapping[str, torch.Tensor], step: int = 1) -> Figure:
    """Cosine similarity of every position to every other (full vectors), one panel per table.

    Args:
        step: show every ``step``-th position (the axes still count true positions).
    """
    checks.whole(step, "step")
    matrices = [positional.position_similarity(torch.as_tensor(table, dtype=torch.float64)[::step])
                for table in tables.values()]
    size = matrices[0].shape[0] * step
    return plotting.heatmap_panels(matrices, _panel_titles(tables), xlabel="position", ylabel="position",
                                   diverging=True, limits=(-1, 1), colorbar_label="cosine similarity",
                                   size=(min(3.2 * len(tables) + 0.8, plotting.WIDEST), 3.2),
                                   extent=(-0.5, size - 0.5, size - 0.5, -0.5), shared_colorbar=True)


def _panel_titles(tables: Mapping[str, torch.Tensor]) -> list[str]:
    """The tables' names as panel titles, a parenthesis on a line of its own: three panels share
    ``plotting.WIDEST`` inches, and one-line titles would run into each other."""
    return [name.replace(" (", "\n(", 1) for name in tables]


def position_explorer_figure(max_len: int = 50, d_model: int = 64, base: float = 10000.0,
                             positions: Sequence[int] | None = None) -> plotting.go.Figure:
    """A Plotly figure with a position slider: the table, that position's vector, its similarities.

    Left: the whole table (interleaved) with the chosen row marked. Right, top: the
    chosen row, one value per dimension. Right, bottom: the cosine similarity of the
    chosen position to every position. All states are computed here, in advance; with
    one position there is no slider (the live widget draws one state at a time).

    Args:
        max_len, d_model, base: the sinusoidal table (see ``positional.sinusoidal_encoding``).
        positions: the slider's states (all positions by default).
    """
    table = positional.sinusoidal_encoding(max_len, d_model, base, device="cpu", dtype=torch.float64)
    similarity = positional.position_similarity(table)
    positions = list(range(max_len)) if positions is None else checks.many(positions, "positions", "position")
    positions = [checks.index(position, "position", max_len, of="the table") for position in positions]
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
        figure.add_trace(plotting.go.Bar(y=plotting.compact(table[position]), visible=visible,
                                         marker_color=plotting.PALETTE[0],
                                         hovertemplate="dim %{x}: %{y:.3f}<extra></extra>"),
                         row=1, col=2)
        figure.add_trace(plotting.go.Scatter(y=plotting.compact(similarity[position]), mode="lines+markers",
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
    figure.update_layout(shapes=marker(positions[0]), showlegend=False, margin=dict(t=50, b=40))
    if len(positions) > 1:
        figure.update_layout(sliders=[dict(active=0, steps=steps, pad=dict(t=50, b=10), len=1.0,
                                           currentvalue=dict(prefix="position: ", font=dict(size=14)))])
    figure.update_yaxes(autorange="reversed", title_text="position", row=1, col=1)
    figure.update_xaxes(title_text="dimension", row=1, col=1)
    # the similarity panel says what runs along it (the vector panel's title does: "per dimension";
    # an x title under it ran into the similarity panel's title)
    figure.update_xaxes(title_text="position", row=2, col=2)
    # both value panels leave room above 1, so that their titles sit clear of the "1" tick label
    figure.update_yaxes(range=[-1.1, 1.1], row=1, col=2)
    figure.update_yaxes(range=[-1.1, 1.1], row=2, col=2)

    return figure


def encoding_grid_figure(d_models: Sequence[int] = (16, 32, 64, 128),
                         bases: Sequence[float] = (10, 100, 1000, 10000),
                         max_len: int = 50) -> plotting.go.Figure:
    """A Plotly slider over every (base, d_model) pair: one heatmap per state, colours fixed to [-1, 1]."""
    d_models = checks.many(d_models, "d_models", "width", checks.whole)
    bases = checks.many(bases, "bases", "base", checks.positive)
    states, labels, titles = [], [], []
    for base in bases:
        for d_model in d_models:
            table = positional.sinusoidal_encoding(max_len, d_model, base, device="cpu")
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


def rope_alibi_figure(query, key, seq_len: int = 32, slope: float = 0.25, base: float = 10000.0) -> Figure:
    """Two panels: RoPE scores of one query/key pair at every pair of positions, and an ALiBi bias."""
    scores = rope.rope_score_matrix(query, key, seq_len, base)
    bias = rope.alibi_bias(seq_len, slope, causal=True)
    bias = torch.where(torch.isinf(bias), torch.full_like(bias, float("nan")), bias)
    figure = plotting.heatmap_panels(
        [scores, bias],
        ["RoPE: score of q at m, k at n\n(constant along diagonals)",
         f"ALiBi bias, slope {slope:g}\n(blank: masked future)"],
        xlabel="key position n", ylabel="query position m", diverging=[True, False],
        size=(plotting.WIDEST, 4.0),
    )
    return figure
