"""Figures for lesson 2: one-hot similarities, their memory cost, and the bridge to a lookup."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.patches
import numpy as np
import plotly.graph_objects as go
from matplotlib.figure import Figure

from embedding_course import checks, one_hot, plotting
from embedding_course.device import to_numpy
from embedding_course.similarity import cosine_similarity_matrix


def memory_slider_figure(
    seq_lens: Sequence[int] = (64, 128, 256, 512, 1024, 2048, 4096),
    vocab_sizes: dict[str, int] | None = None,
    dim: int = 768,
    active_seq_len: int = 512,
) -> go.Figure:
    """Memory of one sequence as one-hot vectors vs dense vectors, with a slider over its length.

    Args:
        seq_lens: the sequence lengths T offered by the slider.
        vocab_sizes: tokenizer name -> vocabulary size; real tokenizers by default.
        dim: width C of the dense vectors it is compared with.
        active_seq_len: the length shown first (must be one of ``seq_lens``).

    Returns:
        A Plotly figure; each bar's hover text gives the count of numbers and the MiB in fp32.
    """
    vocab_sizes = checks.named(one_hot.TOKENIZER_VOCAB_SIZES if vocab_sizes is None else vocab_sizes,
                               "vocab_sizes", "vocabulary size", checks.whole)
    seq_lens = checks.many(seq_lens, "seq_lens", "sequence length", checks.whole)
    if active_seq_len not in seq_lens:
        raise ValueError(f"active_seq_len {active_seq_len} is not one of seq_lens {list(seq_lens)}")
    names = list(vocab_sizes)
    mib = 2 ** 20
    states, titles = [], []
    for seq_len in seq_lens:
        one_hot_counts = [one_hot.one_hot_numbers(seq_len, size) for size in vocab_sizes.values()]
        dense_count = one_hot.dense_numbers(seq_len, dim)
        one_hot_mib = np.array([one_hot.memory_bytes(n) / mib for n in one_hot_counts], dtype=np.float32)
        dense_mib = np.full(len(names), one_hot.memory_bytes(dense_count) / mib, dtype=np.float32)
        states.append([
            go.Bar(x=names, y=one_hot_mib, name="one-hot (T x V)", marker_color=plotting.PALETTE[3],
                   customdata=np.array(one_hot_counts, dtype=np.float64) / 1e6,
                   hovertemplate="%{x}<br>one-hot: %{customdata:.1f} M numbers<br>%{y:.1f} MiB in fp32"
                                 "<extra></extra>"),
            go.Bar(x=names, y=dense_mib, name=f"dense (T x {dim})", marker_color=plotting.PALETTE[0],
                   customdata=np.full(len(names), dense_count / 1e6),
                   hovertemplate="%{x}<br>dense: %{customdata:.2f} M numbers<br>%{y:.2f} MiB in fp32"
                                 "<extra></extra>"),
        ])
        largest = max(one_hot_counts)
        titles.append(f"T = {seq_len}: one-hot up to {largest / 1e6:,.1f}\u00a0M numbers ({seq_len} ones), "
                      f"dense {dense_count / 1e6:.2f}\u00a0M")
    figure = plotting.slider_figure(states, [str(t) for t in seq_lens], slider_title="sequence length T",
                                    titles=titles, active=list(seq_lens).index(active_seq_len), height=480)
    figure.update_layout(barmode="group")
    plotting.legend_above(figure)
    # Each tokenizer's name on two lines ("LLaMA 2" over "(SentencePiece)"): on one line the
    # names would be turned aslant and reach the slider's label below the chart.
    figure.update_xaxes(tickvals=names, ticktext=[name.replace(" (", "<br>(") for name in names], tickangle=0)
    # One fixed log range for every state, so that moving the slider visibly grows the bars.
    smallest = one_hot.memory_bytes(one_hot.dense_numbers(min(seq_lens), dim)) / mib
    largest = one_hot.memory_bytes(one_hot.one_hot_numbers(max(seq_lens), max(vocab_sizes.values()))) / mib
    figure.update_yaxes(type="log", dtick=1, range=[np.log10(smallest) - 0.3, np.log10(largest) + 0.3],
                        title_text="MiB per sequence (fp32, log)")
    return figure


def similarity_figure(tokens: Sequence[str], vectors) -> Figure:
    """Side-by-side heatmaps: cosine similarity and Euclidean distance between the given vectors."""
    if len(tokens) != len(vectors):
        raise ValueError(f"{len(tokens)} token labels for {len(vectors)} vectors; give one per vector")
    panels = [
        ("cosine similarity", cosine_similarity_matrix(checks.array(vectors, "vectors")), (0.0, 1.0)),
        ("Euclidean distance", one_hot.distance_matrix(vectors), (0.0, 2.0)),
    ]
    figure = plotting._new_figure(plotting.WIDEST, 4.0)
    for axes, (name, matrix, (low, high)) in zip(figure.subplots(1, 2), panels, strict=True):
        image = axes.imshow(matrix, cmap=plotting.SEQUENTIAL, vmin=low, vmax=high, interpolation="nearest")
        figure.colorbar(image, ax=axes, shrink=0.85)
        plotting.annotate_cells(axes, image, matrix, decimals=3, fontsize=7)
        axes.set_xticks(range(len(tokens)), labels=list(tokens), rotation=45, ha="right")
        axes.set_yticks(range(len(tokens)), labels=list(tokens))
        axes.set_title(name)
    return figure


def bridge_figure(ids, table, tokens: Sequence[str] | None = None) -> Figure:
    """Picture of ``one_hot(ids) @ table == table[ids]``: three heatmaps, the rows read are outlined.

    Args:
        ids: token IDs of one sequence, shape (T,).
        table: array (V, C), small enough to draw (a few dozen rows).
        tokens: optional labels for the positions.
    """
    table = to_numpy(table, dtype=np.float32)
    if table.ndim != 2:
        raise ValueError(f"table must have shape (vocab_size, dim), got shape {table.shape}")
    checked = checks.token_ids(ids, table.shape[0])
    if checked.ndim != 1:
        raise ValueError(f"ids must be one sequence (T,), got shape {checked.shape}")
    if tokens is not None and len(tokens) != len(checked):
        raise ValueError(f"{len(tokens)} token labels for {len(checked)} ids; give one per id")
    vectors = one_hot.one_hot(checked, table.shape[0])  # (T, V)
    product = vectors @ table  # (T, C)
    vocab_size, dim = table.shape
    limit = float(np.abs(table).max()) or 1.0
    figure = plotting._new_figure(plotting.WIDEST, 3.4)
    left, middle, right = figure.subplots(1, 3, width_ratios=[vocab_size, dim, dim])
    positions = range(len(checked))
    row_labels = [f"{t}: {w}" for t, w in enumerate(tokens)] if tokens is not None else list(positions)
    left.imshow(vectors, cmap="Greys", vmin=0, vmax=1, aspect="auto")
    left.set_title(f"one_hot(ids)  ({len(checked)} x {vocab_size})", fontsize=10)
    left.set_yticks(range(len(checked)), labels=row_labels)
    left.set_xlabel("vocabulary index")
    middle.imshow(table, cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, aspect="auto")
    middle.set_title(f"@ W  ({vocab_size} x {dim})", fontsize=10)
    middle.set_ylabel("row (token id)")
    middle.set_xlabel("dimension")
    for row in sorted(set(checked.tolist())):
        middle.add_patch(matplotlib.patches.Rectangle((-0.5, row - 0.5), dim, 1, fill=False,
                                                      edgecolor="black", linewidth=2))
    right.imshow(product, cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, aspect="auto")
    right.set_title(f"= W[ids]  ({len(checked)} x {dim})", fontsize=10)
    right.set_yticks(range(len(checked)), labels=row_labels)
    right.set_xlabel("dimension")
    return figure
