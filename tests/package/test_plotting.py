"""The plotting helpers: figures are returned, carry the data, and reject bad input."""


import numpy as np
import plotly.graph_objects as go
import pytest
from matplotlib.figure import Figure

from embedding_course import plotting


def test_heatmap_returns_a_figure_with_symmetric_limits_when_diverging():
    matrix = np.array([[-0.5, 0.2], [0.1, 0.9]])
    figure = plotting.heatmap(matrix, diverging=True)
    assert isinstance(figure, Figure)
    image = figure.axes[0].images[0]
    assert image.get_clim() == (-0.9, 0.9)
    np.testing.assert_array_equal(image.get_array(), matrix)


def test_heatmap_accepts_tensors():
    import torch

    figure = plotting.heatmap(torch.eye(3))
    np.testing.assert_array_equal(figure.axes[0].images[0].get_array(), np.eye(3))


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((2, 2, 2))])
def test_heatmap_needs_a_matrix(bad):
    with pytest.raises(ValueError, match="matrix must be a non-empty 2-D array"):
        plotting.heatmap(bad)


def test_empty_input_is_rejected():
    with pytest.raises(ValueError, match="empty"):
        plotting.heatmap(np.zeros((0, 3)))


def test_line_plot_checks_lengths():
    with pytest.raises(ValueError, match="has 2 values but x has 3"):
        plotting.line_plot([0, 1, 2], {"a": [1, 2]})
    with pytest.raises(ValueError, match="series is empty"):
        plotting.line_plot([0, 1], {})


def test_bar_plot_highlights_and_checks_labels():
    figure = plotting.bar_plot(["a", "b", "c"], [1, 2, 3], highlight=[1])
    colours = [bar.get_facecolor() for bar in figure.axes[0].patches]
    assert colours[1] != colours[0] and colours[0] == colours[2]
    with pytest.raises(ValueError, match="2 labels for 3 values"):
        plotting.bar_plot(["a", "b"], [1, 2, 3])


def test_figure_png_is_deterministic():
    first = plotting.figure_png(plotting.heatmap(np.arange(6).reshape(2, 3)))
    second = plotting.figure_png(plotting.heatmap(np.arange(6).reshape(2, 3)))
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    assert first == second


def _states(count):
    return [[go.Scatter(y=[i, i + 1]), go.Bar(y=[i])] for i in range(count)]


def test_slider_figure_shows_one_state_at_a_time():
    figure = plotting.slider_figure(_states(3), ["a", "b", "c"], slider_title="step", active=1)
    assert len(figure.data) == 6
    assert [trace.visible for trace in figure.data] == [False, False, True, True, False, False]
    steps = figure.layout.sliders[0].steps
    assert [step.label for step in steps] == ["a", "b", "c"]
    assert steps[2].args[0]["visible"] == [False, False, False, False, True, True]
    assert figure.layout.sliders[0].active == 1


def test_slider_figure_sets_titles_with_a_title_text_key():
    figure = plotting.slider_figure(_states(2), ["a", "b"], titles=["first", "second"])
    assert figure.layout.title.text == "first"
    assert figure.layout.sliders[0].steps[1].args[1] == {"title.text": "second"}


@pytest.mark.parametrize(
    ("states", "labels", "message"),
    [([], [], "states is empty"), (_states(2), ["a"], "1 labels for 2 states"),
     ([[go.Scatter()], [go.Scatter(), go.Scatter()]], ["a", "b"], r"same, non-zero number")],
)
def test_slider_figure_rejects_bad_input(states, labels, message):
    with pytest.raises(ValueError, match=message):
        plotting.slider_figure(states, labels)


def test_slider_figure_rejects_an_active_step_out_of_range():
    with pytest.raises(IndexError, match=r"outside 0\.\.1"):
        plotting.slider_figure(_states(2), ["a", "b"], active=2)


def test_heatmap_trace_is_float32_and_centred():
    trace = plotting.heatmap_trace(np.array([[-2.0, 1.0]]), diverging=True)
    assert trace.z.dtype == np.float32
    assert (trace.zmin, trace.zmax) == (-2.0, 2.0)


def test_matplotlib_colors():
    assert len(plotting.matplotlib_colors(12)) == 12
    with pytest.raises(ValueError, match="count must be positive"):
        plotting.matplotlib_colors(0)
