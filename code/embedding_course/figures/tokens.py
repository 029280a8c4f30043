"""Figures for lesson 1: a token's neighbours by ID next to its neighbours by learned vector."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from embedding_course import ids, plotting

EXPLORER_WORDS = ("cat", "king", "paris", "happy", "red", "river", "music", "three", "computer", "run")


def _bar_state(rows: Sequence[tuple[str, int, float]], word: str, word_id: int) -> dict:
    """The bars of one panel: label, cosine and ID gap of each neighbour."""
    return dict(
        y=[f"{token} ({token_id})" for token, token_id, _ in rows],
        x=[round(cosine, 4) for _, _, cosine in rows],
        customdata=[[abs(token_id - word_id)] for _, token_id, _ in rows],
    )


def token_neighbours_figure(words: Sequence[str] = EXPLORER_WORDS, span: int = 4, k: int = 8,
                            start: str | None = None) -> go.Figure:
    """Pick a token: its neighbours by ID (left) next to its neighbours by learned vector (right).

    Every bar is the cosine similarity between a neighbour's learned vector (MiniLM's token
    table) and the picked token's. All states are computed here; the menu only swaps data.

    Args:
        words: the tokens offered by the menu, each a single token of the WordPiece vocabulary.
        span: IDs taken on each side of the picked token's ID (left panel has ``2 * span`` bars).
        k: neighbours by vector shown (right panel).
        start: the token shown first; the first of ``words`` by default.

    Returns:
        A Plotly figure with one menu named "token".
    """
    if isinstance(words, str) or len(words) == 0:
        raise ValueError("words must be a non-empty list of tokens")
    start = words[0] if start is None else start
    if start not in words:
        raise ValueError(f"start {start!r} is not one of words {list(words)}")
    by_id, by_vector, word_ids = [], [], []
    for word in words:
        by_id.append(ids.neighbours_by_id(word, span=span))
        by_vector.append(ids.neighbours_by_vector(word, k=k))
        word_ids.append(_token_id(word))
    lowest = min(cosine for rows in (*by_id, *by_vector) for _, _, cosine in rows)

    def title(index: int) -> str:
        return f"Neighbours of “{words[index]}” (ID {word_ids[index]})"

    figure = make_subplots(rows=1, cols=2, horizontal_spacing=0.22,
                           subplot_titles=(f"nearest IDs (± {span})", f"most similar vectors (top {k})"))
    hover = "%{y}<br>cosine %{x:.2f}<br>ID gap %{customdata[0]:,}<extra></extra>"
    active = list(words).index(start)
    for col, rows, colour in ((1, by_id, plotting.PALETTE[3]), (2, by_vector, plotting.PALETTE[0])):
        figure.add_trace(go.Bar(orientation="h", marker_color=colour, hovertemplate=hover, showlegend=False,
                                **_bar_state(rows[active], words[active], word_ids[active])), row=1, col=col)
    buttons = []
    for index, word in enumerate(words):
        left = _bar_state(by_id[index], word, word_ids[index])
        right = _bar_state(by_vector[index], word, word_ids[index])
        # Plain lists, one entry per trace: menu arguments are applied as given.
        data = {key: [left[key], right[key]] for key in ("x", "y", "customdata")}
        buttons.append(dict(method="update", label=word, args=[data, {"title.text": title(index)}, [0, 1]]))
    plotting.style(figure, title=title(active), height=460)
    figure.update_layout(
        updatemenus=[dict(type="dropdown", name="token", buttons=buttons, active=active, x=1.0, y=1.2,
                          xanchor="right", yanchor="bottom", direction="down", showactive=True)],
        margin=dict(t=110, l=130),
    )
    figure.update_xaxes(range=[min(0.0, lowest) - 0.05, 1.0], title_text="cosine with the picked token")
    figure.update_yaxes(autorange="reversed", type="category")
    return figure


def _token_id(word: str) -> int:
    from embedding_course.pretrained import wordpiece_tokenizer

    token_id = wordpiece_tokenizer().token_to_id(word)
    if token_id is None:
        raise ValueError(f"{word!r} is not a single token of the vocabulary; pick a common lower-case word")
    return token_id
