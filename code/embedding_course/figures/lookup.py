"""Figures for lesson 3: which rows a lookup reads, where its gradient lands, and the explorers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from matplotlib.figure import Figure
from plotly.subplots import make_subplots

from embedding_course import SEED, checks, lookup, plotting, positional
from embedding_course.device import to_numpy
from embedding_course.tokens import WordVocabulary


def gradient_norm_figure(norms, labels: Sequence[str], ids, title: str = "") -> Figure:
    """Bar chart of per-row gradient norms; the rows that were looked up are highlighted."""
    norms = np.asarray(norms, dtype=float)
    checked = checks.token_ids(ids, len(norms))
    used = sorted(set(checked.reshape(-1).tolist()))
    return plotting.bar_plot(labels, norms, highlight=used, xlabel="table row (token)",
                             ylabel="gradient norm of the row",
                             title=title or "Only the rows that were looked up get a gradient")


# ---------------------------------------------------------------- the lookup explorer

EXPLORER_SENTENCES = (
    "the cat saw the dog",
    "the dog saw the cat",
    "a dog saw a bird",
    "my bird saw my bird",
    "the cat chased a dog",
    "a cat chased the bird",
)
"""Example sentences for the lookup explorer, all five tokens long."""


def explorer_setup(sentences: Sequence[str] = EXPLORER_SENTENCES, dim: int = 6,
                   seed: int = SEED) -> tuple[WordVocabulary, np.ndarray, list[list[int]]]:
    """A vocabulary built from ``sentences``, a small random table (V, C) and each sentence's IDs."""
    sentences = checks.many(sentences, "sentences", "example sentence")
    vocabulary = WordVocabulary.from_texts(sentences)
    table = lookup.NumpyEmbedding(len(vocabulary), dim, seed=seed, padding_idx=vocabulary.pad_id).weight
    encoded = [vocabulary.encode(sentence) for sentence in sentences]
    if len({len(ids) for ids in encoded}) != 1:
        raise ValueError("all example sentences must have the same number of tokens")
    return vocabulary, table, encoded


def _repeat_note(tokens: Sequence[str]) -> str:
    repeats = [(token, [i for i, t in enumerate(tokens) if t == token])
               for token in dict.fromkeys(tokens) if tokens.count(token) > 1]
    if not repeats:
        return "every position reads a different row"
    parts = [f"'{token}' at positions {', '.join(map(str, where))}" for token, where in repeats]
    return "same row, same vector: " + "; ".join(parts)


def lookup_view_figure(vocabulary: WordVocabulary, table, sequences: Sequence[Sequence[int]]
                       ) -> go.Figure:
    """Which table rows each sequence reads, and the vectors it gets: one state per sequence.

    Left: the whole table (V x C), faded, with the rows read by the sequence at full colour
    and the positions that read them. Right: the output (T x C), one row per position.
    With several sequences a slider steps through them (every state is computed here, so
    the slider works with JavaScript alone); with one there is no slider.

    Args:
        vocabulary: names the table's rows.
        table: the (V, C) table.
        sequences: token IDs, one list per state, all of the same length T.
    """
    table = to_numpy(table, dtype=np.float32)
    if table.ndim != 2 or len(vocabulary) != table.shape[0]:
        raise ValueError(f"table must have shape (V, C) with V = {len(vocabulary)} (the vocabulary), "
                         f"got {table.shape}")
    if len(sequences) == 0:
        raise ValueError("sequences is empty; give at least one list of token IDs")
    checked = [checks.token_ids(ids, table.shape[0]) for ids in sequences]
    if any(ids.ndim != 1 for ids in checked) or len({len(ids) for ids in checked}) != 1:
        raise ValueError("every sequence must be one (T,) list of token IDs, all of the same length T")
    sequences = [ids.tolist() for ids in checked]
    (vocab_size, dim), seq_len = table.shape, len(sequences[0])
    limit = float(np.abs(table).max())
    colour = dict(diverging=True, limits=(-limit, limit))
    rows = np.arange(vocab_size)
    base = make_subplots(rows=1, cols=2, column_widths=[0.56, 0.44], horizontal_spacing=0.16,
                         subplot_titles=(f"embedding table ({vocab_size} x {dim})",
                                         f"looked-up vectors ({seq_len} x {dim})"))
    states, titles = [], []
    for ids in sequences:
        tokens = vocabulary.decode(ids)
        used = np.zeros(vocab_size, dtype=bool)
        used[ids] = True
        highlighted = np.where(used[:, None], table, np.nan)  # (V, C), unused rows hidden
        readers = {row: [str(t) for t, i in enumerate(ids) if i == row] for row in set(ids)}
        states.append([
            (plotting.heatmap_trace(table, showscale=False, **colour), 1, 1),
            (plotting.heatmap_trace(highlighted, colorbar_title="value", **colour,
                                    hovertemplate="row %{y}, dim %{x}: %{z:.3f}<extra></extra>"), 1, 1),
            (go.Scatter(x=np.full(len(readers), dim - 0.3), y=list(readers),
                        text=[f"← pos {', '.join(readers[row])}" for row in readers],
                        mode="text", textposition="middle right", showlegend=False, hoverinfo="skip",
                        cliponaxis=False), 1, 1),
            (plotting.heatmap_trace(table[ids], showscale=False, **colour,
                                    hovertemplate="position %{y}, dim %{x}: %{z:.3f}<extra></extra>"), 1, 2),
            (go.Scatter(x=np.full(seq_len, dim - 0.3), y=np.arange(seq_len),
                        text=[f"{token} (row {i})" for token, i in zip(tokens, ids, strict=True)],
                        mode="text", textposition="middle right", showlegend=False, hoverinfo="skip",
                        cliponaxis=False), 1, 2),
        ])
        titles.append(f"“{' '.join(tokens)}”: {_repeat_note(tokens)}")
    labels = [str(i + 1) for i in range(len(sequences))]  # the title shows the sentence itself
    figure = plotting.slider_figure(states, labels, base=base, slider_title="example sentence",
                                    titles=titles, height=520)
    figure.update_layout(margin=dict(t=95))
    # Faded full table underneath the highlighted rows.
    for trace in figure.data[0::5]:
        plotting.faded(trace, 0.22)
    figure.update_xaxes(title_text="dimension", tickvals=list(range(dim)))
    # Room right of each heatmap for its text labels, inside the panel (clear of the colour bar).
    figure.update_xaxes(range=[-0.5, dim + 2.4], row=1, col=1)
    figure.update_xaxes(range=[-0.5, dim + 3.8], row=1, col=2)
    figure.update_yaxes(autorange="reversed")
    figure.update_yaxes(tickvals=rows.tolist(), ticktext=[f"{i} {vocabulary.id_to_token[i]}" for i in rows],
                        title_text="row (token id)", row=1, col=1)
    figure.update_yaxes(tickvals=list(range(seq_len)), ticktext=[f"pos {t}" for t in range(seq_len)],
                        title_text="position", row=1, col=2)
    return _without_grid(figure)


def lookup_explorer_figure(sentences: Sequence[str] = EXPLORER_SENTENCES, dim: int = 6,
                           seed: int = SEED) -> go.Figure:
    """Slider over example sentences: :func:`lookup_view_figure` of each, on one random table."""
    vocabulary, table, encoded = explorer_setup(sentences, dim, seed)
    return lookup_view_figure(vocabulary, table, encoded)


def token_picker_figure(sentence: str = "the cat saw the dog", sentences: Sequence[str] = EXPLORER_SENTENCES,
                        dim: int = 6, seed: int = SEED) -> go.Figure:
    """Pick the token at each position (one menu per position) and watch the lookup.

    Left: the table, faded, with the rows that are read lit up. Middle: the looked-up vectors
    (T x C): two positions holding the same token give the same row. Right: the same vectors
    plus the sinusoidal position vectors, which make every row different: adding positions
    breaks the ties. Each menu restyles only its own position's traces, so the menus are
    independent and work with JavaScript alone.
    """
    vocabulary, table, _ = explorer_setup(sentences, dim, seed)
    ids = vocabulary.encode(sentence)
    if vocabulary.unk_id in ids:
        raise ValueError(f"sentence {sentence!r} has words outside the explorer's vocabulary "
                         f"({', '.join(vocabulary.id_to_token[2:])})")
    seq_len, vocab_size = len(ids), table.shape[0]
    positions = positional.sinusoidal_encoding(seq_len, dim, device="cpu").numpy()  # (T, C)
    limit = float(np.abs(table[:, None, :] + positions[None, :, :]).max())  # covers both panels
    colour = dict(diverging=True, limits=(-limit, limit), showscale=False)
    figure = make_subplots(rows=1, cols=3, horizontal_spacing=0.1, column_widths=[0.38, 0.31, 0.31],
                           subplot_titles=(f"table ({vocab_size} x {dim}): rows read", "token vectors",
                                           "token + position vectors"))
    figure.add_trace(plotting.heatmap_trace(table, **colour), row=1, col=1)
    plotting.faded(figure.data[0], 0.12)
    menus = []
    for position, token_id in enumerate(ids):
        first = len(figure.data)
        hover = f"position {position}, dim %{{x}}: %{{z:.3f}}<extra></extra>"
        row_trace = dict(hovertemplate=hover, **colour)
        figure.add_trace(plotting.heatmap_trace(table[[token_id]], y=[token_id], **row_trace), row=1, col=1)
        figure.add_trace(plotting.heatmap_trace(table[[token_id]], y=[position], **row_trace), row=1, col=2)
        figure.add_trace(plotting.heatmap_trace(table[[token_id]] + positions[[position]], y=[position],
                                                **row_trace), row=1, col=3)
        buttons = []
        for choice in range(2, vocab_size):  # every word (not <pad>, <unk>)
            # Plain lists: menu arguments are applied as given, not decoded like trace data.
            vector = table[choice].round(4).tolist()
            shifted = (table[choice] + positions[position]).round(4).tolist()
            buttons.append(dict(
                method="restyle", label=vocabulary.id_to_token[choice],
                args=[{"z": [[vector], [vector], [shifted]],
                       "y": [[choice], [position], [position]]}, [first, first + 1, first + 2]],
            ))
        menus.append(dict(buttons=buttons, active=token_id - 2, direction="down", showactive=True,
                          name=f"token at position {position}",  # the label of its keyboard control
                          x=position / seq_len, xanchor="left", y=1.2, yanchor="bottom",
                          pad=dict(r=4)))
        figure.add_annotation(text=f"position {position}", x=position / seq_len, y=1.36, xref="paper",
                              yref="paper", xanchor="left", yanchor="bottom", showarrow=False)
    plotting.style(figure, title="", height=480)
    figure.update_layout(updatemenus=menus, margin=dict(t=150))
    figure.update_xaxes(title_text="dimension", tickvals=list(range(dim)))
    figure.update_yaxes(autorange="reversed")
    figure.update_yaxes(range=[vocab_size - 0.5, -0.5], tickvals=list(range(vocab_size)),
                        ticktext=vocabulary.id_to_token, row=1, col=1)
    for col in (2, 3):
        figure.update_yaxes(range=[seq_len - 0.5, -0.5], tickvals=list(range(seq_len)),
                            ticktext=[f"pos {t}" for t in range(seq_len)], row=1, col=col)
    return _without_grid(figure)


def _without_grid(figure: go.Figure) -> go.Figure:
    """No grid or zero lines: they would show through the faded table and cross the row labels
    written beside a heatmap (a heatmap's cells already mark its rows and columns)."""
    figure.update_xaxes(showgrid=False, zeroline=False)
    return figure.update_yaxes(showgrid=False, zeroline=False)
