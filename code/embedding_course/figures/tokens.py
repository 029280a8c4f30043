"""Figures for lesson 1: cities by ID and by place, and a token's neighbours by ID and by learned vector."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from matplotlib.figure import Figure
from plotly.subplots import make_subplots

from embedding_course import checks, ids, plotting

EXPLORER_WORDS = ("cat", "king", "paris", "happy", "red", "river", "music", "three", "computer", "run")


# Where to write a city's label on the map, so that labels of close cities do not overlap.
_LABEL_OFFSETS = {
    "Amsterdam": ((0, 7), "center"),
    "Athens": ((0, -12), "center"),
    "Berlin": ((0, 7), "center"),
    "Brussels": ((6, -3), "left"),
    "Dublin": ((0, 7), "center"),
    "Lisbon": ((0, 7), "center"),
    "London": ((-6, 3), "right"),
    "Paris": ((-6, -9), "right"),
    "Prague": ((6, -3), "left"),
    "Stockholm": ((-6, 3), "right"),
    "Vienna": ((0, -12), "center"),
    "Warsaw": ((0, -12), "center"),
}


def map_analogy_figure() -> Figure:
    """Two views of the same cities: listed by ID (left) and placed by coordinates (right)."""
    figure = plotting._new_figure(plotting.WIDEST, 5.2)
    by_id, by_place = figure.subplots(1, 2, width_ratios=[1, 3.2])
    names = ids.city_names()
    colours = plotting.matplotlib_colors(len(ids.CITIES), "tab20")

    by_id.scatter(np.zeros(len(ids.CITIES)), range(len(ids.CITIES)), c=colours, s=50, zorder=3)
    by_id.axvline(0, color="#999999", lw=1, zorder=1)
    for index, name in enumerate(names):
        by_id.annotate(name, (0, index), xytext=(8, 0), textcoords="offset points", va="center", fontsize=10)
    by_id.set_yticks(range(len(ids.CITIES)))
    by_id.set_ylim(len(ids.CITIES) - 0.5, -0.5)  # ID 0 at the top
    by_id.set_xlim(-0.3, 1.6)
    by_id.set_xticks([])
    for side in ("bottom", "right", "top"):
        by_id.spines[side].set_visible(False)
    by_id.set_ylabel("city ID (alphabetical order)")
    by_id.set_title("By ID", fontsize=10)

    longitudes = [city.longitude for city in ids.CITIES]
    latitudes = [city.latitude for city in ids.CITIES]
    by_place.scatter(longitudes, latitudes, c=colours, s=60, zorder=3)
    for index, city in enumerate(ids.CITIES):
        offset, align = _LABEL_OFFSETS.get(city.name, ((6, 3), "left"))
        by_place.annotate(f"{city.name} ({index})", (city.longitude, city.latitude), xytext=offset,
                          textcoords="offset points", fontsize=8, ha=align)
    by_place.set_xlim(-13, 29)
    by_place.set_ylim(36, 61.5)
    by_place.set_aspect(1 / math.cos(math.radians(48)))  # roughly equal km per unit on both axes
    by_place.grid(alpha=0.3)
    by_place.set_xlabel("longitude (degrees east)")
    by_place.set_ylabel("latitude (degrees north)")
    by_place.set_title("By coordinates: two numbers per city, and distance means distance", fontsize=10)
    return figure


def id_gap_figure() -> Figure:
    """Scatter of every city pair: gap between the IDs against distance on the map."""
    pairs = ids.city_pairs()
    figure = plotting._new_figure(7.0, 3.6)
    axes = figure.add_subplot()
    gaps = [gap for _, _, gap, _ in pairs]
    kms = [km for _, _, _, km in pairs]
    axes.scatter(gaps, kms, s=18, color=plotting.PALETTE[0], alpha=0.7)
    axes.set_xlabel("|ID a - ID b|")
    axes.set_ylabel("distance on the map (km)")
    axes.set_title(f"All {len(pairs)} city pairs: the ID gap does not predict the distance", fontsize=10)
    axes.grid(alpha=0.3)
    return figure


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
    words = checks.many(words, "words", "token")
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
        updatemenus=[dict(type="dropdown", name="token", buttons=buttons, active=active, x=1.0, y=1.13,
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
