"""Figures of the toy training run (lessons 3 and 6): similarities before, during and after, and the loss."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from matplotlib.figure import Figure

from embedding_course import checks, plotting, training
from embedding_course.training import ToyTrainingRun


def similarity_heatmap(run: ToyTrainingRun, index: int = -1) -> Figure:
    """Static cosine-similarity heatmap of the group words at snapshot ``index``."""
    index = checks.index(index, "snapshot index", len(run.snapshots), of="the snapshots", from_end=True)
    return plotting.heatmap(training.similarity_matrix(run.snapshots[index]), diverging=True, limits=(-1, 1),
                            xticklabels=run.words, yticklabels=run.words, colorbar_label="cosine",
                            title=f"Cosine similarity after {run.steps[index]} steps", size=(6.4, 5.2))


def before_after_figure(run: ToyTrainingRun) -> Figure:
    """Cosine similarity of the group words before training (first panel) and after (second)."""
    figure = plotting._new_figure(plotting.WIDEST, 5.0)
    panels = figure.subplots(1, 2)
    for axes, index in zip(panels, (0, -1), strict=True):
        similarity = training.similarity_matrix(run.snapshots[index])  # (W, W)
        image = axes.imshow(similarity, cmap=plotting.DIVERGING, vmin=-1, vmax=1, interpolation="nearest")
        within, across = training.group_similarity(run.snapshots[index], run.groups)
        axes.set_title(f"step {run.steps[index]}\nwithin groups {within:.2f}, across {across:.2f}",
                       fontsize=10)
        axes.set_xticks(range(len(run.words)), labels=run.words, rotation=90)
        axes.set_yticks(range(len(run.words)), labels=run.words)
        for boundary in np.flatnonzero(np.array(run.groups[1:]) != np.array(run.groups[:-1])):
            axes.axhline(boundary + 0.5, color="black", lw=0.8)
            axes.axvline(boundary + 0.5, color="black", lw=0.8)
    figure.colorbar(image, ax=list(panels), location="bottom", shrink=0.6, aspect=40,
                    label="cosine similarity")
    return figure


def similarity_slider_figure(run: ToyTrainingRun) -> go.Figure:
    """Plotly heatmap of the group words' cosine similarity with a slider over training steps."""
    states, titles = [], []
    for step, vectors in zip(run.steps, run.snapshots, strict=True):
        within, across = training.group_similarity(vectors, run.groups)
        similarity = training.similarity_matrix(vectors)  # (W, W)
        states.append([plotting.heatmap_trace(similarity, diverging=True, limits=(-1, 1),
                                              x=run.words, y=run.words, colorbar_title="cosine",
                                              hovertemplate="%{y} · %{x}: %{z:.2f}<extra></extra>")])
        titles.append(f"step {step}: mean cosine within groups {within:.2f}, across groups {across:.2f}")
    figure = plotting.slider_figure(states, [str(step) for step in run.steps], slider_title="training step",
                                    titles=titles, height=560)
    figure.update_yaxes(autorange="reversed")
    figure.update_xaxes(tickangle=-45)
    return figure


def loss_figure(run: ToyTrainingRun) -> Figure:
    """The training loss at every step."""
    return plotting.line_plot(np.arange(1, len(run.losses) + 1), {"cross-entropy": run.losses},
                              xlabel="training step", ylabel="loss", title="Skip-gram training loss")
