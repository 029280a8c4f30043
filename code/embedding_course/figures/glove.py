"""Figures for lesson 6: word vectors projected to 2-D or 3-D, coloured by group, and the explorers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from embedding_course import checks, plotting, projection
from embedding_course.figures.word_labels import (
    EXPLORER_PLOT_AREAS,
    PLOT_AREAS,
    SLIDER_PLOT_AREAS,
    Label,
    axis_ranges,
    padded_range,
    place_labels,
    record_plot_areas,
)
from embedding_course.glove import WordVectors
from embedding_course.projection import PCA

# A word beside its point is written in the theme's text colour; its group's colour is its
# marker's (and its leader's). 10 px words in the group colours read at 2.9-3.5:1 on the page,
# below the 4.5:1 that small text needs, in light mode and in dark.
WORDS = dict(size=10)
# A group's legend dot: Plotly's constant size (12 px), not its points' (5-8 px, some pale)
GROUP_LEGEND_SIZING = "constant"
# The neighbour explorer's colours: the word and its neighbours (stars, a mid grey that reads on
# a light and a dark page) and the chosen word's group. Every listed word is a dot behind them,
# the stars' grey seen through: light on a light page, dark on a dark one, so that it stays
# behind the stars in either theme (an opaque light grey outshone them on the dark page).
EXPLORER_STARS = "#718096"
EXPLORER_GROUP = plotting.PALETTE[1]
EXPLORER_POINTS_OPACITY = 0.45


def group_colours(groups: Sequence[str], keep: Mapping[str, str] | None = None) -> dict[str, str]:
    """One colour per distinct group, in order of first appearance.

    Args:
        groups: the group of each word.
        keep: colours that groups of these names have in another figure: they keep them, and
            the other groups take the first colours left.
    """
    names = list(dict.fromkeys(groups))
    if not names:
        raise ValueError("groups is empty; give the group of each word")
    if len(names) <= len(plotting.PALETTE):
        # The course palette, with its dark yellow last: it is hard to tell from orange.
        palette = [colour for colour in plotting.PALETTE if colour != "#b7791f"] + ["#b7791f"]
    else:  # saturated colours first (tab10, then Dark2), pale ones (tab20) only beyond that
        palette = (plotting.matplotlib_colors(10, "tab10") + plotting.matplotlib_colors(8, "Dark2")
                   + plotting.matplotlib_colors(20, "tab20"))
    kept = {name: keep[name] for name in names if keep and name in keep}
    free = [colour for colour in palette if colour not in kept.values()] or palette
    others = [name for name in names if name not in kept]
    colours = {**kept, **{name: free[i % len(free)] for i, name in enumerate(others)}}
    return {name: colours[name] for name in names}


def _colours_for(groups: Sequence[str], colours: Mapping[str, str] | None) -> dict[str, str]:
    """The colour of each group: ``colours`` when given (one per group, kept across figures)."""
    if colours is None:
        return group_colours(groups)
    missing = [name for name in dict.fromkeys(groups) if name not in colours]
    if missing:
        raise ValueError(f"colours has no colour for the groups {missing}; give one for every group "
                         "(group_colours of this figure's groups)")
    return {name: colours[name] for name in dict.fromkeys(groups)}


def _check_labels(coords: np.ndarray, words: Sequence[str], groups: Sequence[str]) -> None:
    if len(words) != coords.shape[0] or len(groups) != coords.shape[0]:
        raise ValueError(f"{coords.shape[0]} points but {len(words)} words and {len(groups)} groups; "
                         "give one word and one group per point")


# What a point writes beside it (its ``texttemplate``; its text is its word, which hover shows):
# its word, or, when the word is written at the end of its leader, a no-break space. Not "":
# plotly.js 4.1 removes the text element of a point that writes nothing, and a later update that
# gives that point a word (the neighbour explorer's dropdown) then draws none.
BESIDE, ELSEWHERE = "%{text}", "\u00a0"


def _beside(labels: Sequence[Label]) -> list[str]:
    """Each point's ``texttemplate``: its word beside it, or nothing there (it has a leader)."""
    return [BESIDE if label.anchor is None else ELSEWHERE for label in labels]


def _rounded(values, digits: int = 3) -> list[float | None]:
    """Plain, rounded floats (None stays, a break in a line): button arguments are stored as JSON
    text, so shorter is lighter."""
    return [None if v is None else round(float(v), digits) for v in values]


def _leader_traces(points: np.ndarray, labels: Sequence[Label], words: Sequence[str], *, line_colour: str,
                   textfont: dict, **common) -> list[go.Scatter]:
    """The words that go out on leaders: the lines (from each point to its leader's end, gaps
    between) and the words at their ends, as two traces. (One "lines+text" trace would do, but
    plotly.js 4.1 drops the first of its words when the figure is laid out again.)"""
    x, y, ends = [], [], []
    for (px, py), label, word in zip(points, labels, words, strict=True):
        if label.anchor is not None:
            x += [float(px), label.anchor[0], None]
            y += [float(py), label.anchor[1], None]
            ends.append((*label.anchor, word, label.side))
    end_x, end_y, text, sides = (list(column) for column in zip(*ends, strict=True)) if ends else ([],) * 4
    common = dict(hoverinfo="skip", showlegend=False, **common)
    # two decimals: a hundredth of the axis is under a pixel on these maps
    return [go.Scatter(x=_rounded(x, 2), y=_rounded(y, 2), mode="lines",
                       line=dict(color=line_colour, width=1), **common),
            go.Scatter(x=_rounded(end_x, 2), y=_rounded(end_y, 2), text=text, textposition=sides, mode="text",
                       textfont=textfont, **common)]


def _group_traces(coords: np.ndarray, words: Sequence[str], groups: Sequence[str], *,
                  colours: Mapping[str, str], show_text: bool, marker_size: int = 8,
                  showlegend: bool = True, ranges: Sequence[Sequence[float]] | None = None,
                  plot_areas: Sequence[tuple[float, float]] = PLOT_AREAS) -> list:
    """One scatter trace per group (2-D or 3-D by the number of columns of ``coords``).

    In 2-D with text, each word goes where :func:`place_labels` puts it (for those axis ranges
    and plot areas): beside its point, or at the end of a leader line. Then each group also has
    a trace of leader lines (first: they pass under the markers) and one of the words at their
    ends (last), empty when no word of the group needs one, so that every set of points gives
    the same traces.
    """
    words_array, groups_array = np.asarray(words, dtype=object), np.asarray(groups, dtype=object)
    coords = coords.astype(np.float32)
    placed = coords.shape[1] == 2 and show_text
    labels = (place_labels(coords, words, ranges=ranges, plot_areas=plot_areas) if placed
              else [Label("top center", None)] * len(words))
    leaders, traces, leader_words = [], [], []
    for name, colour in colours.items():
        mask = groups_array == name
        group_labels = [label for label, inside in zip(labels, mask, strict=True) if inside]
        common = dict(
            name=name,
            text=list(words_array[mask]),
            mode="markers+text" if show_text else "markers",
            marker=dict(color=colour, size=marker_size, line=dict(width=0.5, color="white")),
            hovertemplate="<b>%{text}</b><extra>" + name + "</extra>",
            legendgroup=name,
            showlegend=showlegend,
        )
        if coords.shape[1] == 3:
            traces.append(go.Scatter3d(x=coords[mask, 0], y=coords[mask, 1], z=coords[mask, 2],
                                       textfont=WORDS, **common))
            continue
        traces.append(go.Scatter(x=coords[mask, 0], y=coords[mask, 1], texttemplate=_beside(group_labels),
                                 textposition=[label.side for label in group_labels],
                                 textfont=WORDS, **common))
        if placed:
            lines, ends = _leader_traces(coords[mask], group_labels, list(words_array[mask]),
                                         line_colour=colour, textfont=WORDS,
                                         name=f"{name}: leaders", legendgroup=name)
            leaders.append(lines)
            leader_words.append(ends)
    return leaders + traces + leader_words


def scatter_figure(coords, words: Sequence[str], groups: Sequence[str], *, pca: PCA | None = None,
                   title: str = "", show_text: bool = True, height: int = 520,
                   colours: Mapping[str, str] | None = None) -> go.Figure:
    """An interactive 2-D or 3-D scatter of projected words, coloured by group (hover shows the word).

    Args:
        coords: array of shape (N, 2) or (N, 3), e.g. from :func:`project`.
        words, groups: the word and the group of each point.
        pca: the fitted PCA, to write the explained variance on the axes of a 2-D map.
        show_text: write each word next to its point (hover works either way).
        colours: group -> colour, to keep a group's colour across a page's figures (see
            :func:`group_colours`); by default :func:`group_colours` of ``groups``.
    """
    coords = checks.vectors(coords, "coords")
    if coords.shape[1] not in (2, 3):
        raise ValueError(f"coords must have 2 or 3 columns, got {coords.shape[1]}")
    _check_labels(coords, words, groups)
    colours = _colours_for(groups, colours)
    # in 2-D, the axes that place_labels places the words for
    ranges = axis_ranges(coords) if coords.shape[1] == 2 else None
    figure = go.Figure(_group_traces(coords, words, groups, colours=colours, show_text=show_text,
                                     marker_size=8 if coords.shape[1] == 2 else 5, ranges=ranges))
    # A 3-D view's axis titles meet at its corners, and at some turns run into each other: there
    # they are the components' names alone (the page says what share each keeps).
    titles = [pca.axis_title(i) if pca is not None and coords.shape[1] == 2 else f"PC{i + 1}"
              for i in range(coords.shape[1])]
    plotting.style(figure, title=title, height=height)
    plotting.legend_above(figure)
    # (a 3-D view's size-5 markers made 5 px legend dots, too small to tell a colour by)
    figure.update_layout(legend_itemsizing=GROUP_LEGEND_SIZING)
    if coords.shape[1] == 3:
        # The coordinates of a projection have no unit: the axes keep their titles and grid (the
        # grid shows depth as the view turns) but no numbers, which would crowd the box's corners.
        # The camera's centre sits a little low, so the box fills the figure below the legend.
        # plotly.js cuts what lies outside an axis's range at the box's faces, a marker too: with
        # the range just around the points, a point on a face was drawn half cut at some turns.
        axes = [dict(showticklabels=False, title=titles[i], range=padded_range(coords[:, i], pad=0.06),
                     autorange=False) for i in range(3)]
        figure.update_layout(scene=dict(xaxis=axes[0], yaxis=axes[1], zaxis=axes[2],
                                        camera=dict(eye=dict(x=1.45, y=1.45, z=0.77),
                                                    center=dict(x=0, y=0, z=-0.15))),
                             margin=dict(l=0, r=0))
        plotting.turn_slider(figure)  # turns by keyboard too
    else:
        figure.update_xaxes(title_text=titles[0], zeroline=False, range=ranges[0], autorange=False)
        figure.update_yaxes(title_text=titles[1], zeroline=False, range=ranges[1], autorange=False)
        if show_text:
            record_plot_areas(figure, PLOT_AREAS)
    return figure


def training_slider_figure(snapshots: Sequence, steps: Sequence[int], words: Sequence[str],
                           groups: Sequence[str], *, losses: Sequence[float | None] | None = None,
                           basis: str = "final", title: str = "Toy embeddings during training",
                           height: int = 560, colours: Mapping[str, str] | None = None) -> go.Figure:
    """A slider over training steps: the words in one fixed 2-D PCA view, with fixed axes.

    All states are computed here, so the slider works on a static page (JavaScript only).

    Args:
        snapshots: one array (N, d) per step.
        steps: the training step of each snapshot.
        words, groups: the word and group of each of the N rows.
        losses: optional loss at each snapshot (``None`` where unknown), shown in the title.
        colours: group -> colour, as for :func:`scatter_figure`.
    """
    if len(steps) != len(snapshots):
        raise ValueError(f"{len(steps)} steps for {len(snapshots)} snapshots; give one step per snapshot")
    if losses is not None and len(losses) != len(snapshots):
        raise ValueError(f"{len(losses)} losses for {len(snapshots)} snapshots; give one per snapshot")
    coords, pca = projection.snapshot_coordinates(snapshots, basis)
    _check_labels(coords[0], words, groups)
    colours = _colours_for(groups, colours)
    ranges = axis_ranges(np.concatenate(coords))  # fixed: the same frame for every step
    states = [_group_traces(c, words, groups, colours=colours, show_text=True, ranges=ranges,
                            plot_areas=SLIDER_PLOT_AREAS) for c in coords]
    titles = [
        f"{title}: step {step}" + (f", loss {losses[i]:.3f}" if losses is not None and losses[i] is not None
                                   else "")
        for i, step in enumerate(steps)
    ]
    figure = plotting.slider_figure(states, [str(s) for s in steps], slider_title="training step",
                                    titles=titles, active=len(states) - 1, height=height)
    plotting.legend_above(figure)
    figure.update_layout(legend_itemsizing=GROUP_LEGEND_SIZING)
    figure.update_xaxes(range=ranges[0], autorange=False, zeroline=False,
                        title_text=f"PC1 of the final step ({100 * pca.explained_variance_ratio[0]:.0f}%)")
    figure.update_yaxes(range=ranges[1], autorange=False, zeroline=False,
                        title_text=f"PC2 of the final step ({100 * pca.explained_variance_ratio[1]:.0f}%)")
    record_plot_areas(figure, SLIDER_PLOT_AREAS)
    return figure


def neighbour_explorer_figure(
    coords,
    words: Sequence[str],
    groups: Sequence[str],
    neighbours: Mapping[str, Sequence[tuple[str, float]]],
    neighbour_coords: Mapping[str, np.ndarray],
    *,
    pca: PCA | None = None,
    start: str | None = None,
    dim: int | None = None,
    height: int = 563,  # the map 367 px high on a desktop, above a one-line legend
) -> go.Figure:
    """A word picker (dropdown): the word's nearest neighbours and where they sit in the projection.

    Every choice is precomputed, so the dropdown works with JavaScript alone.

    Args:
        coords: (N, 2) projected positions of the curated words (the grey map).
        words, groups: the word and group of each point; each word is one dropdown entry.
        neighbours: word -> its neighbours [(word, cosine), ...], best first.
        neighbour_coords: word -> (1 + k, 2) positions of the word and then of its neighbours.
        pca: the fitted PCA, for the axis titles.
        start: the word shown first (default: the first word).
        dim: the length of the full vectors, named in the neighbours panel's title.
    """
    coords = checks.vectors(coords, "coords")
    if coords.shape[1] != 2:
        raise ValueError(f"coords must have 2 columns, got {coords.shape[1]}")
    _check_labels(coords, words, groups)
    missing = [w for w in words if w not in neighbours or w not in neighbour_coords]
    if missing:
        raise ValueError(f"no neighbours given for {missing[:5]}; "
                         "give neighbours and positions for every word")
    start = words[0] if start is None else start
    if start not in words:
        raise ValueError(f"start word {start!r} is not one of the words")

    figure = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.1,
                           subplot_titles=("2-D PCA of the listed words", "nearest neighbours"))
    # The map behind the stars: every listed word a small dot seen through, and the chosen word's
    # group over them in one strong colour (eighteen pale group colours could not be told apart).
    coords = coords.astype(np.float32)
    group_of = dict(zip(words, groups, strict=True))
    figure.add_trace(go.Scatter(
        x=_rounded(coords[:, 0]), y=_rounded(coords[:, 1]), text=list(words), customdata=list(groups),
        mode="markers", name="the listed words",
        marker=dict(size=6, color=EXPLORER_STARS, opacity=EXPLORER_POINTS_OPACITY),
        hovertemplate="<b>%{text}</b><extra>%{customdata}</extra>"), row=1, col=1)

    def group_points(word: str) -> dict:
        """The chosen word's group: its words' positions and the legend's name for them."""
        inside = [index for index, group in enumerate(groups) if group == group_of[word]]
        return dict(x=_rounded(coords[inside, 0]), y=_rounded(coords[inside, 1]),
                    text=[words[index] for index in inside], name=f"its group: {group_of[word]}")

    figure.add_trace(go.Scatter(
        mode="markers", marker=dict(size=8, color=EXPLORER_GROUP, line=dict(width=0.5, color="white")),
        hovertemplate="<b>%{text}</b><extra>the word's group</extra>", **group_points(start)),
        row=1, col=1)

    def state(word: str):
        found = list(neighbours[word])
        points = np.asarray(neighbour_coords[word], dtype=np.float32)  # (1 + k, 2)
        labels = [word] + [n for n, _ in found]
        ranked_words = [n for n, _ in found][::-1]  # best at the top of the neighbours' panel
        ranked_scores = np.asarray([s for _, s in found][::-1], dtype=np.float32)
        return points, labels, ranked_words, ranked_scores

    ranges = axis_ranges(np.concatenate([coords] + [np.asarray(neighbour_coords[w]) for w in words]))

    # A neighbour's leader may pass under another's word: the words get a thin halo (Plotly's
    # "auto" text shadow: white around dark text, dark grey around light text), which hides the
    # line behind their letters.
    textfont = dict(size=12, shadow="auto")  # the theme's colour

    def marker_sizes(count: int) -> list[int]:
        """The chosen word's star, then its neighbours' (diameters, px)."""
        return [16] + [9] * (count - 1)

    def placed(points, labels):
        """The leader lines and the words at their ends (two traces), and what each point writes
        beside it, on which side."""
        places = place_labels(points, labels, ranges=ranges, plot_areas=EXPLORER_PLOT_AREAS, font_px=12,
                              marker_px=[size / 2 for size in marker_sizes(len(labels))])
        leaders = _leader_traces(points, places, labels, line_colour=EXPLORER_STARS, textfont=textfont,
                                 name="word and neighbours: leaders")
        return leaders, _beside(places), [place.side for place in places]

    points, labels, ranked_words, ranked_scores = state(start)
    (lines, ends), beside, sides = placed(points, labels)
    # The menu restyles the word's group (first - 1), then these: leader lines, the word and its
    # neighbours, the leaders' words, the cosines.
    first = len(figure.data)
    figure.add_trace(lines, row=1, col=1)
    figure.add_trace(go.Scatter(
        x=points[:, 0], y=points[:, 1], text=labels, texttemplate=beside, mode="markers+text",
        textposition=sides,
        marker=dict(size=marker_sizes(len(labels)), color=EXPLORER_STARS, symbol="star",
                    line=dict(width=1, color="white")),  # slate: stands out on light and dark pages
        textfont=textfont, name="the word and its neighbours",
        hovertemplate="<b>%{text}</b><extra></extra>"), row=1, col=1)
    figure.add_trace(ends, row=1, col=1)
    # The neighbours' cosines as a dot plot, each dot on a stem from 0 (an error bar of 100 % below
    # it; nearest neighbours' cosines are positive), with the cosine beside it. A bar chart would
    # say the same, but no partial plotly.js build draws both bars and 3-D traces, and this
    # page's 3-D view needs the 3-D build.
    figure.add_trace(go.Scatter(
        x=ranked_scores, y=ranked_words, mode="markers+text", showlegend=False,
        marker=dict(size=10, color=plotting.PALETTE[0]),
        error_x=dict(type="percent", symmetric=False, value=0, valueminus=100, width=0, thickness=3,
                     color=plotting.PALETTE[0]),
        text=[f"{s:.2f}" for s in ranked_scores], textposition="middle right", cliponaxis=False,
        textfont=dict(size=12), name="nearest neighbours",
        hovertemplate="%{y}: cos %{x:.3f}<extra></extra>"), row=1, col=2)

    buttons = []
    for word in words:
        points, labels, ranked_words, ranked_scores = state(word)
        (lines, ends), beside, sides = placed(points, labels)
        group = group_points(word)
        buttons.append(dict(
            method="update",
            label=f"{word} ({group_of[word]})",
            args=[
                {"x": [group["x"], list(lines.x), _rounded(points[:, 0]), list(ends.x),
                       _rounded(ranked_scores)],
                 "y": [group["y"], list(lines.y), _rounded(points[:, 1]), list(ends.y), ranked_words],
                 "text": [group["text"], None, labels, list(ends.text), [f"{s:.2f}" for s in ranked_scores]],
                 # every name given: restyling one to None would reset it to "trace 3"
                 "name": [group["name"], *(trace.name for trace in figure.data[first:])],
                 "texttemplate": [None, None, beside, None, None],
                 "textposition": [None, None, sides, list(ends.textposition), "middle right"]},
                {"title.text": f"Explorer: {word!r} ({group_of[word]})"},
                [first - 1, first, first + 1, first + 2, first + 3],
            ],
        ))
    plotting.style(figure, title=f"Explorer: {start!r} ({group_of[start]})", height=height)
    figure.update_layout(
        updatemenus=[dict(type="dropdown", name="word", buttons=buttons, active=words.index(start),
                          x=1.0, y=1.13, xanchor="right", yanchor="bottom", showactive=True,
                          bgcolor="white", bordercolor="#a0aec0")],
        # The points are small behind the chosen word's stars; the legend draws its dots and
        # stars at Plotly's constant size (12 px), not theirs (6-16 px), so each colour reads.
        legend=dict(orientation="h", y=-0.12, font=dict(size=11), itemsizing=GROUP_LEGEND_SIZING),
        margin=dict(t=110, b=40),
    )
    figure.update_xaxes(range=ranges[0], zeroline=False, row=1, col=1,
                        title_text=pca.axis_title(0) if pca is not None else "PC1")
    figure.update_yaxes(range=ranges[1], zeroline=False, row=1, col=1,
                        title_text=pca.axis_title(1) if pca is not None else "PC2")
    # Room past 1 for the number beside a dot: close pairs (monday, tuesday) reach 0.998.
    figure.update_xaxes(range=[0, 1.15], tickvals=[0, 0.5, 1], row=1, col=2,
                        title_text=f"cosine in all {dim} dimensions" if dim else "cosine similarity")
    record_plot_areas(figure, EXPLORER_PLOT_AREAS)
    return figure


def explorer_figure(vectors: WordVectors, words: Sequence[str], groups: Sequence[str], k: int = 8,
                    start: str | None = None):
    """The neighbour explorer: pick a word, see its ``k`` nearest neighbours (over the whole
    vocabulary) and where they fall in a 2-D PCA of ``words`` (a Plotly figure with a dropdown).
    """
    coords, pca = projection.project(vectors.vectors(words), 2)  # (N, 2)
    found = vectors.neighbours_of_many(words, k=k)
    neighbour_coords = {
        word: pca.transform(vectors.vectors([word] + [n.word for n in found[word]]))  # (1 + k, 2)
        for word in words
    }
    return neighbour_explorer_figure(coords, words, groups, found, neighbour_coords,
                                                pca=pca, start=start, dim=vectors.dim)
