"""PCA by SVD: orthonormal components, explained variance, fixed signs, and the figures."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from embedding_course import projection
from embedding_course.figures import glove as glove_figures

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
    with pytest.raises(IndexError, match=r"component 2 is outside 0\.\.1"):
        pca.axis_title(2)


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
        (lambda: glove_figures.label_sides(np.ones((3, 2)), list("ab")), "one word per point"),
    ],
)
def test_bad_inputs_give_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_scatter_figure_has_one_trace_per_group_with_hover_words():
    coords, pca = projection.project(_cloud(count=6), 3)
    words, groups = list("abcdef"), ["x", "x", "y", "y", "z", "z"]
    figure = glove_figures.scatter_figure(coords[:, :2], words, groups, pca=pca)
    assert [trace.name for trace in figure.data] == ["x", "y", "z"]
    assert list(figure.data[1].text) == ["c", "d"]
    assert "PC1" in figure.layout.xaxis.title.text and "%" in figure.layout.xaxis.title.text
    figure_3d = glove_figures.scatter_figure(coords, words, groups, pca=pca)
    assert figure_3d.data[0].type == "scatter3d" and "PC3" in figure_3d.layout.scene.zaxis.title.text


def _label_boxes(coords, words, sides, area=glove_figures.PLOT_AREAS[0]):
    """Each label's box in pixels, as label_sides models it."""
    ranges = [glove_figures._padded_range(coords[:, axis]) for axis in (0, 1)]
    origin, spans = np.array([r[0] for r in ranges]), np.array([r[1] - r[0] for r in ranges])
    boxes = []
    for (x, y), word, side in zip((coords - origin) / spans * area, words, sides, strict=True):
        fx, fy, gx, gy = glove_figures.LABEL_SIDES[side]
        width, height = 0.62 * 10 * len(word) + 3, 12.5
        left, bottom = x + fx * width + gx * 6, y + fy * height + gy * 6
        boxes.append((left, bottom, left + width, bottom + height))
    return boxes


def _overlapping_pairs(boxes):
    return sum(glove_figures._box_overlap(a, b) > 0 for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_word_labels_take_sides_that_leave_each_other_free():
    """Three words in a row, close together: above each point the labels would cover each
    other; and two long words at the plot's corners would run out of it. The sides chosen leave
    every label clear of the others and inside the plot."""
    coords = np.array([[0.0, 0.0], [0.35, 0.0], [0.7, 0.0], [5.0, 3.0], [-5.0, -3.0]])
    words = ["seven", "eight", "three", "far-off-word", "another-word"]
    above = _label_boxes(coords, words, ["top center"] * 5)
    assert _overlapping_pairs(above) > 0  # the test has something to check
    sides = glove_figures.label_sides(coords, words)
    assert set(sides) <= set(glove_figures.LABEL_SIDES)
    boxes = _label_boxes(coords, words, sides)
    assert _overlapping_pairs(boxes) == 0, sides
    width, height = glove_figures.PLOT_AREAS[0]
    assert all(b[0] >= 0 and b[1] >= 0 and b[2] <= width and b[3] <= height for b in boxes), sides


def test_the_word_maps_write_each_word_on_its_chosen_side():
    coords = np.array([[0.0, 0.0], [5.0, 3.0], [0.35, 0.0], [-5.0, -3.0], [0.7, 0.0]])
    words, groups = ["seven", "far", "eight", "away", "three"], ["x", "y", "x", "y", "x"]
    sides = glove_figures.label_sides(coords, words)
    assert len(set(sides)) > 1  # not every label above its point
    figure = glove_figures.scatter_figure(coords, words, groups)
    assert [list(trace.textposition) for trace in figure.data] == [
        [sides[0], sides[2], sides[4]], [sides[1], sides[3]]]


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
    assert len(figure.data) == 4  # 2 groups x 2 steps
    with pytest.raises(ValueError, match="1 steps for 2 snapshots"):
        glove_figures.training_slider_figure(snapshots, [0], list("abcd"), list("gghh"))
    with pytest.raises(ValueError, match="1 losses for 2 snapshots"):
        glove_figures.training_slider_figure(snapshots, [0, 1], list("abcd"), list("gghh"), losses=[1.0])


def test_explorer_figure_checks_its_inputs():
    coords = np.arange(4, dtype=float).reshape(2, 2)
    neighbours = {"a": [("b", 0.5)], "b": [("a", 0.5)]}
    positions = {"a": np.zeros((2, 2)), "b": np.ones((2, 2))}
    figure = glove_figures.neighbour_explorer_figure(coords, ["a", "b"], ["g", "g"], neighbours, positions)
    assert len(figure.layout.updatemenus[0].buttons) == 2
    with pytest.raises(ValueError, match="no neighbours given for \\['b'\\]"):
        glove_figures.neighbour_explorer_figure(coords, ["a", "b"], ["g", "g"], {"a": []}, positions)
    with pytest.raises(ValueError, match="start word 'z'"):
        glove_figures.neighbour_explorer_figure(coords, ["a", "b"], ["g", "g"], neighbours, positions,
                                                start="z")
