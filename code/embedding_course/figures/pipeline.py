"""Figures for lesson 5: the input pipeline step by step, and why order matters."""

from __future__ import annotations

from matplotlib.figure import Figure

from embedding_course.attention_order import OrderExperiment
from embedding_course.positional import heatmap_panels


def order_figure(experiment: OrderExperiment) -> Figure:
    """A 2 x 2 grid of score heatmaps: the two sentences (columns), without / with positions (rows)."""
    a, b = (" ".join(tokens) for tokens in experiment.tokens)
    matrices = [*experiment.scores_without, *experiment.scores_with]
    limit = max(float(m.abs().max()) for m in matrices)
    titles = [f"no positions: “{a}”", f"no positions: “{b}”",
              f"with positions: “{a}”", f"with positions: “{b}”"]
    return heatmap_panels(matrices, titles, xlabel="key", ylabel="query", limits=(-limit, limit),
                          rows=2, size=(8.6, 7.4), colorbar_label="score", annotate=True,
                          ticklabels=[*experiment.tokens, *experiment.tokens])


