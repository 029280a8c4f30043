"""PCA by SVD: orthonormal components, explained variance, fixed signs, and the figures."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from embedding_course import projection
from embedding_course.figures import glove as glove_figures
from embedding_course.figures import word_labels

point_clouds = arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(2, 6)),
                      elements=st.floats(-5, 5, allow_nan=False, width=64))


def _cloud(seed=0, count=40, dim=6):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(count, dim)) * np.array([5.0, 3.0, 1.0, 0.5, 0.2, 0.1])[:dim]


@settings(max_examples=25, deadline=None)
@given(point_clouds, st.integers(1, 3))
def test_components_orthonormal_and_variance_ratios_valid(points, k):
    k = min(k, *points.shape)
    assume(np.var(points, axis=0).sum() > 1e-6)
    pca = projection.fit_pca(points, k)
    np.testing.assert_allclose(pca.components @ pca.components.T, np.eye(k), atol=1e-8)
    ratios = pca.explained_variance_ratio
    assert np.all(ratios >= -1e-12) and np.all(ratios <= 1 + 1e-12)
    assert ratios.sum() <= 1 + 1e-9
    assert np.all(np.diff(ratios) <= 1e-12)  # largest first


def test_full_rank_pca_explains_everything_and_matches_the_covariance():
    points = _cloud()
    pca = projection.fit_pca(points, 6)
    assert pca.explained_variance_ratio.sum() == pytest.approx(1.0)
    eigenvalues = np.sort(np.linalg.eigvalsh(np.cov(points, rowvar=False)))[::-1]
    np.testing.assert_allclose(pca.explained_variance, eigenvalues, rtol=1e-8)


def test_projection_keeps_the_main_direction():
    points = _cloud()
    coords, pca = projection.project(points, 2)
    assert coords.shape == (40, 2)
    np.testing.assert_allclose(coords.mean(axis=0), 0.0, atol=1e-9)  # centred
    assert abs(pca.components[0, 0]) > 0.95  # the widest axis of the cloud is dimension 0
    np.testing.assert_allclose(coords.var(axis=0, ddof=1), pca.explained_variance, rtol=1e-8)


def test_signs_are_fixed_and_results_deterministic():
    points = _cloud(seed=3)
    first, second = projection.fit_pca(points, 3), projection.fit_pca(points.copy(), 3)
    np.testing.assert_array_equal(first.components, second.components)
    largest = first.components[np.arange(3), np.argmax(np.abs(first.components), axis=1)]
    assert np.all(largest > 0)
    # Negating the data flips the centred cloud, but the sign convention gives the same axes.
    np.testing.assert_allclose(projection.fit_pca(-points, 3).components, first.components, atol=1e-10)


def test_axis_title_reports_the_variance():
    pca = projection.fit_pca(_cloud(), 2)
    assert pca.axis_title(0) == f"PC1 ({100 * pca.explained_variance_ratio[0]:.1f}% of variance)"
    assert pca.axis_title(1) == f"PC2 ({100 * pca.explained_variance_ratio[1]:.1f}% of variance)"
    with pytest.raises(IndexError, match=r"^index 2 is outside the components \(0\.\.1\)$"):
        pca.axis_title(2)
    with pytest.raises(ValueError, match=r"^index must be a whole number, got 1\.5$"):  # a NumPy IndexError
        pca.axis_title(1.5)
    assert pca.axis_title(np.int64(1)) == pca.axis_title(1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: projection.fit_pca(np.ones((1, 3)), 1), "at least 2 points"),
        (lambda: projection.fit_pca(np.ones((4, 3)), 1), "all points are identical"),
        (lambda: projection.fit_pca(_cloud(), 0), "n_components must be a whole number >= 1, got 0"),
        (lambda: projection.fit_pca(_cloud(count=3), 4), r"1\.\.3 for 3 points"),
        (lambda: projection.fit_pca(_cloud(), 2.0), "whole number"),
        (lambda: projection.fit_pca(np.zeros((0, 3)), 1), "empty"),
        (lambda: projection.fit_pca(_cloud(), 2).transform(np.ones((2, 5))), "5 dimensions"),
        (lambda: projection.snapshot_coordinates([]), "snapshots is empty"),
        (lambda: projection.snapshot_coordinates([_cloud(), _cloud(count=5)]), "same shape"),
        (lambda: projection.snapshot_coordinates([_cloud()], basis="first"), "basis must be"),
        (lambda: glove_figures.scatter_figure(np.ones((3, 4)), list("abc"), list("xyz")), "2 or 3 columns"),
        (lambda: glove_figures.scatter_figure(np.ones((3, 2)), list("ab"), list("xyz")), "one word and one"),
        (lambda: glove_figures.group_colours([]), "groups is empty"),
    ],
)
def test_bad_inputs_give_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_scatter_figure_has_one_trace_per_group_with_hover_words():
    coords, pca = projection.project(_cloud(count=6), 3)
    words, groups = list("abcdef"), ["x", "x", "y", "y", "z", "z"]
    figure = glove_figures.scatter_figure(coords[:, :2], words, groups, pca=pca)
    points = [trace for trace in figure.data if "markers" in trace.mode]
    assert [trace.name for trace in points] == ["x", "y", "z"]
    assert list(points[1].text) == ["c", "d"]
    assert "PC1" in figure.layout.xaxis.title.text and "%" in figure.layout.xaxis.title.text
    figure_3d = glove_figures.scatter_figure(coords, words, groups, pca=pca)
    assert figure_3d.data[0].type == "scatter3d"
    # A 3-D view's axis titles meet at its corners and, at some turns, run into each other end
    # to end: the names alone (the page gives each share). Its axes' end numbers met there too:
    # no numbers.
    axes = [figure_3d.layout.scene[axis] for axis in ("xaxis", "yaxis", "zaxis")]
    assert [axis.title.text for axis in axes] == ["PC1", "PC2", "PC3"]
    assert [axis.showticklabels for axis in axes] == [False] * 3
    # plotly.js cuts a marker at the box's faces: a point on a face was drawn half cut at some
    # turns (lesson 6's lowest point, seen from the front). Each range leaves room around them.
    for column, axis in enumerate(axes):
        low, high = coords[:, column].min(), coords[:, column].max()
        assert axis.autorange is False
        assert axis.range[0] <= low - 0.05 * (high - low) and axis.range[1] >= high + 0.05 * (high - low)


def _written_words(traces):
    """Each word a map writes: (word, its point, where it is written, on which side)."""
    written, leaders = [], {}
    for trace in traces:
        if trace.mode == "markers+text":  # beside its point, where its text template writes it
            written += [(word, (x, y), (x, y), side) for word, template, x, y, side
                        in zip(trace.text, trace.texttemplate, trace.x, trace.y, trace.textposition,
                               strict=True) if template.strip()]
        elif trace.mode == "lines":  # point, end of the leader, gap
            leaders.update({trace.x[i + 1:i + 2] + trace.y[i + 1:i + 2]: (trace.x[i], trace.y[i])
                            for i in range(0, len(trace.x), 3)})
    for trace in traces:
        if trace.mode == "text":  # at the end of a leader, drawn from its point
            written += [(word, leaders[(x, y)], (x, y), side) for word, x, y, side
                        in zip(trace.text, trace.x, trace.y, trace.textposition, strict=True)]
    return written


def test_the_word_maps_write_each_word_where_place_labels_puts_it():
    """Seven words on almost one point and two far away: each is written once, the far ones
    beside their points, the crowded ones at the end of a leader from their own point when no
    side is free, each on the side place_labels chose."""
    rng = np.random.default_rng(0)
    cluster = rng.normal(scale=0.02, size=(7, 2))
    coords = np.vstack([cluster, [[5.0, 3.0], [-5.0, -3.0]]])
    words = ["one", "two", "three", "four", "five", "six", "seven", "far", "away"]
    groups = ["n"] * 7 + ["m", "m"]
    labels = word_labels.place_labels(coords.astype(np.float32), words)
    figure = glove_figures.scatter_figure(coords, words, groups)
    written = {word: (point, end, side) for word, point, end, side in _written_words(figure.data)}
    assert sorted(written) == sorted(words)
    for word, point, label in zip(words, coords.astype(np.float32), labels, strict=True):
        start, end, side = written[word]
        assert side == label.side
        np.testing.assert_allclose(start, point, atol=0.006)  # leaders are rounded to hundredths
        np.testing.assert_allclose(end, label.anchor if label.anchor else point, atol=0.006)
    assert written["far"][0] == written["far"][1] and written["away"][0] == written["away"][1]
    assert sum(label.anchor is not None for label in labels) >= 3


def test_a_word_map_says_which_plot_areas_its_words_were_placed_for():
    """The plot areas are measured constants; each map carries its own (phone, desktop), which
    the browser tests compare with the map as drawn."""
    coords, _ = projection.project(_cloud(count=4), 3)
    words, groups = list("abcd"), ["g", "g", "h", "h"]

    def areas(figure):
        return (figure.layout.meta or {}).get(word_labels.PLOT_AREAS_META)

    assert areas(glove_figures.scatter_figure(coords[:, :2], words, groups)) == [
        list(area) for area in word_labels.PLOT_AREAS]
    assert areas(glove_figures.scatter_figure(coords[:, :2], words, groups, show_text=False)) is None
    assert areas(glove_figures.scatter_figure(coords, words, groups)) is None  # 3-D: no words placed
    slider = glove_figures.training_slider_figure([coords * 0.5, coords], [0, 1], words, groups)
    assert areas(slider) == [list(area) for area in word_labels.SLIDER_PLOT_AREAS]


def test_fixed_basis_moves_points_only_as_the_data_move():
    final = _cloud(seed=1, count=10)
    snapshots = [final * 0.1, final * 0.5, final]
    coords, _ = projection.snapshot_coordinates(snapshots, basis="final")
    # Scaling every point about the mean scales the projected points by the same factor.
    np.testing.assert_allclose(coords[1] - coords[1].mean(0), 0.5 * (coords[2] - coords[2].mean(0)),
                               atol=1e-9)
    assert projection.snapshot_coordinates(snapshots, basis="all")[0][0].shape == (10, 2)


def test_training_slider_has_one_step_per_snapshot_and_fixed_axes():
    final = _cloud(seed=2, count=4)
    snapshots = [final * 0.2, final]
    figure = glove_figures.training_slider_figure(snapshots, [0, 10], list("abcd"), ["g", "g", "h", "h"],
                                               losses=[None, 1.25])
    steps = figure.layout.sliders[0].steps
    assert [step.label for step in steps] == ["0", "10"]
    assert "loss 1.250" in steps[1].args[1]["title.text"] and "loss" not in steps[0].args[1]["title.text"]
    assert figure.layout.xaxis.range is not None and figure.layout.xaxis.autorange is False
    assert len(figure.data) == 12  # 2 groups x 2 steps, each with its leaders' lines and words
    with pytest.raises(ValueError, match="1 steps for 2 snapshots"):
        glove_figures.training_slider_figure(snapshots, [0], list("abcd"), list("gghh"))
    with pytest.raises(ValueError, match="1 losses for 2 snapshots"):
        glove_figures.training_slider_figure(snapshots, [0, 1], list("abcd"), list("gghh"), losses=[1.0])


def test_explorer_draws_the_cosines_as_dots_on_stems_from_zero():
    """The neighbours' panel is a scatter trace (plotly.js's 3-D build draws it, as lesson 6's 3-D
    view needs; no partial build draws bars and 3-D both), each dot on an error bar that reaches
    0, its cosine written beside it; the menu updates the dots and their numbers together."""
    coords = np.arange(6, dtype=float).reshape(3, 2)
    neighbours = {"a": [("b", 0.9), ("c", 0.5)], "b": [("a", 0.9), ("c", 0.2)], "c": [("a", 0.5), ("b", 0.2)]}
    positions = {word: np.zeros((3, 2)) for word in "abc"}
    figure = glove_figures.neighbour_explorer_figure(coords, list("abc"), list("ggh"), neighbours, positions)
    cosines = figure.data[-1]
    assert {trace.type for trace in figure.data} == {"scatter"}
    assert list(cosines.x) == pytest.approx([0.5, 0.9]) and list(cosines.y) == ["c", "b"]  # best on top
    assert list(cosines.text) == ["0.50", "0.90"]
    stem = cosines.error_x
    assert (stem.type, stem.symmetric, stem.value, stem.valueminus) == ("percent", False, 0, 100)
    chosen_b = figure.layout.updatemenus[0].buttons[1].args[0]
    assert chosen_b["x"][-1] == pytest.approx([0.2, 0.9]) and chosen_b["text"][-1] == ["0.20", "0.90"]


def test_explorer_colours_the_chosen_word_s_group_over_the_grey_map_of_every_word():
    """Behind the stars, every listed word is a dot of the stars' grey seen through (light on a
    light page, dark on a dark one), and the chosen word's group is drawn over them in one
    strong colour, named in the legend: the menu moves that colour to the new word's group.
    (Eighteen pale group colours, each with its legend entry, could not be told apart.) The
    legend draws its dots at Plotly's constant size (12 px, not the points' 6-8)."""
    coords = np.arange(8, dtype=float).reshape(4, 2)
    words, groups = list("abcd"), list("ghgh")
    neighbours = {word: [(other, 0.5) for other in words if other != word][:2] for word in words}
    positions = {word: np.zeros((3, 2)) for word in words}
    figure = glove_figures.neighbour_explorer_figure(coords, words, groups, neighbours, positions, start="b")
    every_word, group = figure.data[:2]
    assert list(every_word.x) == pytest.approx(coords[:, 0]) and list(every_word.text) == words
    assert every_word.marker.color == glove_figures.EXPLORER_STARS == figure.data[3].marker.color
    assert every_word.marker.opacity == glove_figures.EXPLORER_POINTS_OPACITY < 1
    assert (list(group.text), list(group.x), group.name) == (["b", "d"], [2.0, 6.0], "its group: h")
    assert group.marker.color == glove_figures.EXPLORER_GROUP and group.marker.size > every_word.marker.size
    legend = [trace.name for trace in figure.data if trace.showlegend is not False]
    assert legend == ["the listed words", "its group: h", "the word and its neighbours"]
    choose_a, traces = (figure.layout.updatemenus[0].buttons[0].args[i] for i in (0, 2))
    assert traces[0] == 1 and choose_a["name"] == ["its group: g", *(figure.data[i].name for i in traces[1:])]
    assert None not in choose_a["name"]  # a name restyled to None reads "trace 3" in the legend
    assert (choose_a["text"][0], choose_a["x"][0]) == (["a", "c"], [0.0, 4.0])
    assert figure.layout.legend.itemsizing == "constant"


@pytest.mark.parametrize("columns", [2, 3])
def test_a_word_map_s_legend_draws_each_group_s_dot_at_a_constant_size(columns):
    """A 3-D view's markers are size 5 and made 5 px legend dots; every map of groups draws its
    legend's dots at Plotly's constant 12 px."""
    coords = np.arange(4 * columns, dtype=float).reshape(4, columns) ** 1.5
    figure = glove_figures.scatter_figure(coords, list("abcd"), list("gghh"))
    assert figure.layout.legend.itemsizing == "constant"
    snapshots = [np.eye(4)[:, :3] + step for step in range(2)]
    slider = glove_figures.training_slider_figure(snapshots, [0, 1], list("abcd"), list("gghh"))
    assert slider.layout.legend.itemsizing == "constant"


def test_explorer_figure_checks_its_inputs():
    coords = np.arange(4, dtype=float).reshape(2, 2)
    neighbours = {"a": [("b", 0.5)], "b": [("a", 0.5)]}
    positions = {"a": np.zeros((2, 2)), "b": np.ones((2, 2))}
    figure = glove_figures.neighbour_explorer_figure(coords, ["a", "b"], ["g", "g"], neighbours, positions)
    assert len(figure.layout.updatemenus[0].buttons) == 2
    assert figure.layout.meta[word_labels.PLOT_AREAS_META] == [
        list(area) for area in word_labels.EXPLORER_PLOT_AREAS]
    with pytest.raises(ValueError, match="no neighbours given for \\['b'\\]"):
        glove_figures.neighbour_explorer_figure(coords, ["a", "b"], ["g", "g"], {"a": []}, positions)
    with pytest.raises(ValueError, match="start word 'z'"):
        glove_figures.neighbour_explorer_figure(coords, ["a", "b"], ["g", "g"], neighbours, positions,
                                                start="z")


def test_a_group_keeps_its_colour_across_a_pages_maps():
    """Lesson 6: the toy's 'colours' group is drawn as GloVe's 'colours' group is."""
    glove_colours = glove_figures.group_colours(["animals", "colours", "countries"])
    toy_groups = ["animals", "foods", "colours", "vehicles"]
    toy_colours = glove_figures.group_colours(toy_groups, keep=glove_colours)
    assert toy_colours["animals"] == glove_colours["animals"]
    assert toy_colours["colours"] == glove_colours["colours"]
    assert len(set(toy_colours.values())) == 4  # the others take colours the toy has not used
    assert toy_colours["foods"] == glove_colours["countries"]  # the first left: another figure's
    assert glove_figures.group_colours(toy_groups)["colours"] != glove_colours["colours"]  # by order
    coords = np.arange(8.0).reshape(4, 2)
    glove_map = glove_figures.scatter_figure(coords, list("abcd"), ["animals", "colours", "countries",
                                                                    "animals"], colours=glove_colours)
    toy = glove_figures.training_slider_figure([np.eye(4)[:, :3]] * 2, [0, 1], list("wxyz"), toy_groups,
                                               colours=toy_colours)

    def drawn(figure):
        return {trace.name: trace.marker.color for trace in figure.data
                if trace.mode and "markers" in trace.mode}

    assert drawn(glove_map)["colours"] == drawn(toy)["colours"] == glove_colours["colours"]
    with pytest.raises(ValueError, match=r"no colour for the groups \['foods'\]"):
        glove_figures.scatter_figure(coords, list("abcd"), ["animals", "foods", "animals", "animals"],
                                     colours={"animals": "#000000"})
