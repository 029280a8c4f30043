"""Figures for lesson 5: the input pipeline step by step, and why order matters."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from matplotlib.figure import Figure

from embedding_course import checks, plotting
from embedding_course.attention_order import MaskExperiment, OrderExperiment
from embedding_course.batching import Batch
from embedding_course.device import to_numpy
from embedding_course.pipeline import Stage
from embedding_course.similarity import cosine_similarity_matrix


def order_figure(experiment: OrderExperiment) -> Figure:
    """A 2 x 2 grid of score heatmaps: the two sentences (columns), without / with positions (rows)."""
    a, b = (" ".join(tokens) for tokens in experiment.tokens)
    matrices = [*experiment.scores_without, *experiment.scores_with]
    limit = max(float(m.abs().max()) for m in matrices)
    titles = [f"no positions: “{a}”", f"no positions: “{b}”",
              f"with positions: “{a}”", f"with positions: “{b}”"]
    return plotting.heatmap_panels(matrices, titles, xlabel="key", ylabel="query", limits=(-limit, limit),
                          rows=2, size=(plotting.WIDEST, 7.0), colorbar_label="score", annotate=True,
                          ticklabels=[*experiment.tokens, *experiment.tokens])


def mask_figure(experiment: MaskExperiment) -> Figure:
    """A 2 x 2 grid of attention weights without positions: the two sentences, unmasked / causal."""
    a, b = (" ".join(tokens) for tokens in experiment.tokens)
    matrices = [*experiment.weights["unmasked"], *experiment.weights["causal"]]
    titles = [f"unmasked: “{a}”", f"unmasked: “{b}”", f"causal: “{a}”", f"causal: “{b}”"]
    return plotting.heatmap_panels(matrices, titles, xlabel="key", ylabel="query", diverging=False,
                                   limits=(0, 1), rows=2, size=(plotting.WIDEST, 7.0),
                                   colorbar_label="weight",
                                   annotate=True, ticklabels=[*experiment.tokens, *experiment.tokens])


def pipeline_stages_figure(batch: Batch, stages: Sequence[Stage], sequence: int = 0) -> plotting.go.Figure:
    """A Plotly figure whose slider steps through the pipeline, one heatmap per stage.

    (B, T) stages show the whole batch; (B, T, C) stages show sequence ``sequence``;
    the title of each step gives the stage's shape.
    """
    if not stages:
        raise ValueError("stages is empty; run trace_pipeline first")
    sequence = checks.index(sequence, "sequence", batch.ids.shape[0], of="the batch")
    slots = [f"{t}: {token}" for t, token in enumerate(batch.padded_tokens()[sequence])]
    figure = plotting.go.Figure()
    layouts = []
    shown_at = []  # the stage each trace belongs to
    for index, stage in enumerate(stages):
        tensor = to_numpy(stage.tensor, dtype=np.float32)
        if stage.axes == ("B", "T"):
            matrix = tensor
            is_ids = stage.name == "token ids"
            trace = plotting.heatmap_trace(
                matrix, diverging=False, colorbar_title="id" if is_ids else "real token",
                hovertemplate="sequence %{y}<br>slot %{x}<br>%{z:.0f}<extra></extra>")
            values = plotting.cell_values_trace(trace)  # each id written in its cell
            y_text, y_title, x_title = None, "sequence (B)", "slot (T)"
            shown = ""
        else:
            matrix = tensor if stage.axes == ("T", "C") else tensor[sequence]
            hover = "slot %{y}<br>channel %{x}<br>%{z:.3f}<extra></extra>"
            trace, values = plotting.heatmap_trace(matrix, diverging=True, hovertemplate=hover), None
            if stage.axes == ("T", "C"):  # the same rows for every sentence: label slots only
                y_text, y_title = [f"slot {t}" for t in range(matrix.shape[0])], "slot (T)"
            else:
                y_text, y_title = slots, "slot: token (T)"
            x_title = "channel (C)"
            shown = "" if stage.axes == ("T", "C") else f", sequence {sequence} shown"
        y_values = list(range(matrix.shape[0]))
        # every slot numbered (Plotly's own ticks numbered every other one on a phone); channels by Plotly
        x_values = list(range(matrix.shape[1])) if stage.axes == ("B", "T") else None
        for drawn in (trace, values) if values is not None else (trace,):
            drawn.visible = index == 0
            figure.add_trace(drawn)
            shown_at.append(index)
        layouts.append({
            "title.text": f"{index + 1}. {stage.name}: {stage.shape_text}{shown}",
            "yaxis.tickvals": y_values, "yaxis.ticktext": y_text if y_text is not None else y_values,
            "yaxis.title.text": y_title, "xaxis.title.text": x_title, "xaxis.tickvals": x_values,
        })
    steps = []
    for index, stage in enumerate(stages):
        visible = [stage_index == index for stage_index in shown_at]
        steps.append(dict(method="update", label=f"{index + 1}. {stage.name.split(' (')[0]}",
                          args=[{"visible": visible}, layouts[index]]))
    plotting.style(figure, title=layouts[0]["title.text"], height=470)
    figure.update_layout(
        sliders=[dict(active=0, steps=steps, name="pipeline step",
                      currentvalue=dict(prefix="step ", font=dict(size=14)),
                      pad=dict(t=50, b=10), len=1.0)],
        margin=dict(l=110, b=40),
    )
    figure.update_yaxes(autorange="reversed", tickvals=layouts[0]["yaxis.tickvals"],
                        ticktext=layouts[0]["yaxis.ticktext"], title_text=layouts[0]["yaxis.title.text"])
    figure.update_xaxes(title_text=layouts[0]["xaxis.title.text"], tickvals=layouts[0]["xaxis.tickvals"])
    return figure


def token_similarity_figure(tokens: Sequence[str], before: torch.Tensor, after: torch.Tensor) -> Figure:
    """Cosine similarity of a sentence's token vectors, before and after adding positions.

    Args:
        tokens: the T tokens (axis labels).
        before, after: (T, C) vectors, e.g. the scaled token vectors and the output.
    """
    if before.shape != after.shape or before.ndim != 2 or before.shape[0] != len(tokens):
        raise ValueError(f"before and after must both be (T, C) with T = {len(tokens)} tokens, got "
                         f"{tuple(before.shape)} and {tuple(after.shape)}")
    matrices = [cosine_similarity_matrix(checks.array(vectors, "vectors", ndim=2))  # (T, T), float64
                for vectors in (before, after)]
    return plotting.heatmap_panels(matrices, ["token vectors only", "token + position vectors"],
                          limits=(-1, 1), annotate=True, ticklabels=[list(tokens)] * 2,
                          colorbar_label="cosine similarity", shared_colorbar=True,
                          size=(plotting.WIDEST, 3.7))


def scale_figure(measurements: dict[str, list[float]]) -> Figure:
    """Two panels from :func:`measure_scale`: entry variance, and token / position norm ratio, against d."""
    for key in ("d", "var_default_scaled", "var_small_scaled", "var_small_unscaled",
                "ratio_default_scaled", "ratio_small_scaled", "ratio_small_unscaled"):
        if key not in measurements:
            raise ValueError(f"measurements lacks {key!r}; pass the result of measure_scale")
    series = [("N(0, 1) start, x sqrt(d)", "default_scaled"),
              ("N(0, 1/d) start, x sqrt(d)", "small_scaled"),
              ("N(0, 1/d) start, no scale", "small_unscaled")]
    figure = plotting._new_figure(plotting.WIDEST, 3.7)
    left, right = figure.subplots(1, 2)
    for index, (label, key) in enumerate(series):
        style = dict(color=plotting.PALETTE[index], marker="o", markersize=4, label=label)
        left.plot(measurements["d"], measurements[f"var_{key}"], **style)
        right.plot(measurements["d"], measurements[f"ratio_{key}"], **style)
    for axes, ylabel, title in ((left, "variance of the entries", "Token vector variance"),
                                (right, "|token vector| / |position vector|", "Token vs position size")):
        axes.set_xscale("log", base=2)
        axes.set_xticks(measurements["d"], labels=[f"{d:g}" for d in measurements["d"]])
        axes.minorticks_off()
        axes.set_yscale("log")
        axes.grid(alpha=0.3)
        axes.set_xlabel("d_model")
        axes.set_ylabel(ylabel)
        axes.set_title(title)
    handles, labels = left.get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=3, frameon=False)
    return figure
