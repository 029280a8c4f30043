"""The plotting helpers: figures are returned, carry the data, and reject bad input."""

import io
import itertools

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from embedding_course import plotting, positional

from .figure_checks import assert_laid_out_apart


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


def test_figure_png_keeps_every_colour_of_a_colour_scale_close():
    """The palette of 256 colours still draws each pixel close to its colour: a colour bar's ends
    stayed grey instead of dark blue when the palette went to the most frequent colours."""
    from PIL import Image

    figure = plotting.heatmap(np.linspace(-1, 1, 400).reshape(20, 20), diverging=True, limits=(-1, 1))
    plotting.figure_png(figure)  # the first drawing settles the layout; the two below are alike
    drawn = io.BytesIO()
    figure.savefig(drawn, format="png", dpi=figure.dpi, metadata={"Software": None})
    exact = np.asarray(Image.open(drawn).convert("RGB"), dtype=int)
    kept = np.asarray(Image.open(io.BytesIO(plotting.figure_png(figure))).convert("RGB"), dtype=int)
    assert np.abs(exact - kept).sum(axis=-1).max() <= 24  # of 3 x 255: no pixel changes hue


def test_figure_png_keeps_a_large_flat_area_s_own_colour():
    """Lesson 7's shaded training region (grey 0.92, a fifth of the image) came out
    (233, 242, 238), green-grey, when the palette was chosen to cover every colour drawn."""
    from PIL import Image

    lines = {f"line {i}": np.sin(np.arange(30) / (i + 2)) for i in range(5)}
    figure = plotting.line_plot(list(range(30)), lines, size=(6.4, 4.6))
    axes = figure.axes[0]
    axes.axvspan(0, 8, color="0.92", zorder=0)
    for i in range(5):
        axes.fill_between(range(30), -0.2 - 0.1 * i, 0.2 + 0.1 * i, color=plotting.PALETTE[i], alpha=0.18)
    kept = np.asarray(Image.open(io.BytesIO(plotting.figure_png(figure, 2))).convert("RGB"), dtype=int)
    grey = round(0.92 * 255)
    assert (kept == grey).all(axis=-1).sum() > 0.05 * kept.shape[0] * kept.shape[1]


def test_figure_png_draws_at_a_higher_density_on_request():
    from PIL import Image

    figure = plotting.line_plot([0, 1], {"a": [0, 1]}, size=(4.0, 3.0))
    sizes = [Image.open(io.BytesIO(plotting.figure_png(figure, density))).size for density in (1, 2)]
    assert sizes == [(440, 330), (880, 660)]
    assert figure.dpi == 110  # the figure is as it was
    with pytest.raises(ValueError, match="density must be"):
        plotting.figure_png(figure, 0)


def test_figure_png_draws_the_whole_figure_whatever_savefig_bbox_says():
    """A notebook that sets ``savefig.bbox = "tight"`` still gets the figure at its own size
    (read as rows of its width, a cropped drawing came out skewed)."""
    import matplotlib

    figure = plotting.heatmap(np.arange(12.0).reshape(3, 4), title="t")
    plotting.figure_png(figure)  # the first drawing settles the layout; the two below are alike
    whole = plotting.figure_png(figure)
    with matplotlib.rc_context({"savefig.bbox": "tight"}):
        assert plotting.figure_png(figure) == whole


def _annotated(size: int, value_size: float | None = None):
    """An annotated heatmap of ``size`` x ``size`` (its values at ``value_size`` points if given)."""
    figure = plotting.heatmap(np.eye(size), annotate=True, size=(7, 4))
    for text in figure.axes[0].texts:
        text.set_fontsize(value_size or text.get_fontsize())
    return figure


def test_figure_png_draws_cell_values_as_large_as_the_cells_allow_and_keeps_the_figure_s_sizes():
    roomy = _annotated(3)  # values at 8 pt in cells that have room for more
    drawn = plotting.figure_png(roomy)
    assert drawn == plotting.figure_png(_annotated(3, plotting.NARROW_SMALLEST_TEXT))
    assert {text.get_fontsize() for text in roomy.axes[0].texts} == {8}
    tight = _annotated(24)  # no room even at their own size: drawn at it, not left out
    without_values = _annotated(24)
    for text in without_values.axes[0].texts:
        text.set_visible(False)
    assert plotting.figure_png(tight) != plotting.figure_png(without_values)
    assert all(text.get_visible() for text in tight.axes[0].texts)


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
    with pytest.raises(IndexError, match=r"^active step 2 is outside the steps \(0\.\.1\)$"):
        plotting.slider_figure(_states(2), ["a", "b"], active=2)
    with pytest.raises(ValueError, match=r"^active step must be a whole number, got 1\.0$"):
        plotting.slider_figure(_states(2), ["a", "b"], active=1.0)


def _view(eye: dict | None = None) -> go.Figure:
    figure = go.Figure(go.Scatter3d(x=[0, 1], y=[0, 1], z=[0, 1]))
    if eye is not None:
        figure.update_layout(scene=dict(camera=dict(eye=eye)))
    return figure


def test_turn_slider_turns_the_view_around_its_vertical_axis_from_where_it_starts():
    figure = plotting.turn_slider(_view(dict(x=1.7, y=1.7, z=0.9)), step_degrees=90)
    slider = figure.layout.sliders[0]
    assert [step.label for step in slider.steps] == ["0°", "90°", "180°", "270°"]
    assert slider.active == 0 and slider.name == "turn the view"
    eyes = [step.args[0]["scene.camera.eye"] for step in slider.steps]
    assert eyes[0] == pytest.approx(dict(x=1.7, y=1.7, z=0.9))  # step 0: the view as it was
    assert eyes[1] == pytest.approx(dict(x=-1.7, y=1.7, z=0.9))  # a quarter turn, anticlockwise
    assert eyes[2] == pytest.approx(dict(x=-1.7, y=-1.7, z=0.9))
    assert all(step.method == "relayout" for step in slider.steps)
    assert len(plotting.turn_slider(_view(dict(x=1, y=0, z=1))).layout.sliders[0].steps) == 12  # 30° a step


@pytest.mark.parametrize(
    ("figure", "step", "message"),
    [(_view(dict(x=1, y=1, z=1)), 7, r"must divide 360 .* got 7"),
     (_view(dict(x=1, y=1, z=1)), 360, r"must divide 360 .* got 360"),
     (_view(), 30, r"no camera eye to turn: set scene\.camera\.eye"),
     (_view(dict(x=0, y=0, z=2)), 30, r"straight down the vertical axis")],
)
def test_turn_slider_rejects_what_it_cannot_turn(figure, step, message):
    with pytest.raises(ValueError, match=message):
        plotting.turn_slider(figure, step_degrees=step)


def test_legend_above_puts_the_legend_in_a_row_between_title_and_plot():
    figure = plotting.style(go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=name) for name in "ab"]),
                            title="a title")
    plotting.legend_above(figure, top_margin=120)
    legend = figure.layout.legend
    assert (legend.orientation, legend.yanchor, legend.xanchor) == ("h", "bottom", "left")
    assert legend.tracegroupgap == 0
    assert legend.y > 1 and figure.layout.margin.t == 120 and figure.layout.margin.l == 60
    title = figure.layout.title
    assert (title.text, title.yref, title.y, title.yanchor) == ("a title", "container", 1, "top")


def test_heatmap_trace_is_float32_and_centred():
    trace = plotting.heatmap_trace(np.array([[-2.0, 1.0]]), diverging=True)
    assert trace.z.dtype == np.float32
    assert (trace.zmin, trace.zmax) == (-2.0, 2.0)


def test_faded_mixes_each_colour_of_the_scale_with_white():
    trace = plotting.heatmap_trace(np.array([[-1.0, 1.0]]), diverging=True)
    stops = [list(stop) for stop in trace.colorscale]
    kept = plotting.faded(plotting.heatmap_trace(np.array([[-1.0, 1.0]]), diverging=True), 1.0)
    def parsed(scale):
        return [(place, plotly.colors.unlabel_rgb(colour)) for place, colour in scale]

    assert parsed(kept.colorscale) == parsed(stops)
    white = plotting.faded(plotting.heatmap_trace(np.array([[-1.0, 1.0]]), diverging=True), 0.0)
    assert {colour for _, colour in white.colorscale} == {"rgb(255, 255, 255)"}
    half = plotting.faded(trace, 0.5)
    first = plotly.colors.unlabel_rgb(stops[0][1])
    assert plotly.colors.unlabel_rgb(half.colorscale[0][1]) == tuple(round((255 + v) / 2) for v in first)
    assert half.reversescale and half.opacity is None  # the scale's own order, nothing see-through


def test_pale_mixes_a_colour_with_white_as_opacity_would_on_a_white_page():
    assert plotting.pale("#2b6cb0", 1.0) == "rgb(43, 108, 176)"
    assert plotting.pale("rgb(43, 108, 176)", 0.0) == "rgb(255, 255, 255)"
    assert plotting.pale("#2b6cb0", 0.6) == "rgb(128, 167, 208)"  # 0.6 of it over white
    with pytest.raises(ValueError, match="share"):
        plotting.pale("#2b6cb0", -0.1)


def test_faded_rejects_a_share_outside_0_to_1():
    with pytest.raises(ValueError, match="share"):
        plotting.faded(plotting.heatmap_trace(np.eye(2)), 1.5)


def test_matplotlib_colors():
    assert len(plotting.matplotlib_colors(12)) == 12
    with pytest.raises(ValueError, match="count must be positive"):
        plotting.matplotlib_colors(0)


# --- narrow_figure: a figure laid out again for a phone ---------------------------------------


def _panels_side_by_side(count=3, rows=1):
    matrices = [np.arange(12.0).reshape(3, 4) * (index + 1) for index in range(count)]
    return plotting.heatmap_panels(matrices, [f"panel {index}" for index in range(count)],
                                   xlabel="dimension", ylabel="position", rows=rows)


def test_narrow_figure_stacks_side_by_side_panels_in_reading_order():
    figure = _panels_side_by_side(3)
    wide_width, wide_height = figure.get_size_inches()
    narrow = plotting.narrow_figure(figure)
    assert tuple(narrow.get_size_inches()) == pytest.approx(
        (plotting.NARROW_WIDTH, 3 * wide_height + 2 * plotting.STACKED_GAP))
    plotting.figure_png(narrow)
    panels = [axes for axes in narrow.axes if axes.get_subplotspec() is not None]
    # a clear gap between a panel's x label and the next one's title (lesson 2's ran together)
    renderer = narrow.canvas.get_renderer()
    boxes = [axes.get_tightbbox(renderer) for axes in panels]
    gaps = [upper.y0 - lower.y1 for upper, lower in itertools.pairwise(boxes)]
    assert min(gaps) >= 0.1 * narrow.dpi, gaps
    assert [axes.get_title() for axes in panels] == ["panel 0", "panel 1", "panel 2"]
    tops = [axes.get_position().y1 for axes in panels]
    assert tops == sorted(tops, reverse=True)  # one under the other, first on top
    lefts = [axes.get_position().x0 for axes in panels]
    assert max(lefts) - min(lefts) < 0.02  # in one column
    assert_laid_out_apart(narrow)
    # the figure itself is as it was: three panels in a row
    assert tuple(figure.get_size_inches()) == (wide_width, wide_height)
    assert len({round(axes.get_position().y1, 3) for axes in figure.axes
                if axes.get_subplotspec() is not None}) == 1


def test_narrow_figure_keeps_every_font_size():
    figure = _panels_side_by_side(2)
    narrow = plotting.narrow_figure(figure)

    def sizes(fig):  # a set: a stacked panel repeats its row's y label
        return sorted({(text.get_text(), text.get_fontsize()) for axes in fig.axes
                       for text in (axes.title, axes.xaxis.label, axes.yaxis.label) if text.get_text()})

    assert sizes(narrow) == sizes(figure)


def test_narrow_figure_leaves_out_a_grid_s_empty_cells():
    figure = _panels_side_by_side(3, rows=2)  # a 2 x 2 grid, the last cell hidden
    narrow = plotting.narrow_figure(figure)
    panels = [axes for axes in narrow.axes if axes.get_subplotspec() is not None]
    assert [axes.get_title() for axes in panels] == ["panel 0", "panel 1", "panel 2"]
    assert narrow.get_size_inches()[1] == pytest.approx(figure.get_size_inches()[1] / 2 * 3
                                                        + plotting.STACKED_GAP)
    assert_laid_out_apart(narrow)


def test_narrow_figure_shows_the_y_ticks_that_a_shared_axis_hid():
    figure = Figure(figsize=(8, 3), layout="constrained")
    left, right = figure.subplots(1, 2, sharey=True)
    left.plot([0, 1], [0, 2])
    right.plot([0, 1], [2, 0])
    narrow = plotting.narrow_figure(figure)
    plotting.figure_png(narrow)
    for axes in narrow.axes:  # sharey left the second panel's tick labels off
        assert axes.yaxis.get_tick_params()["labelleft"] and axes.get_yticklabels()


def test_narrow_figure_labels_every_stacked_panel_with_its_row_s_y_label():
    figure = plotting.heatmap_panels([np.eye(3)] * 4, ["a", "b", "c", "d"], rows=2, ylabel="query",
                                     xlabel="key", size=(7, 6))
    assert [axes.get_ylabel() for axes in figure.axes[:4]] == ["query", "", "query", ""]
    narrow = plotting.narrow_figure(figure)
    assert [axes.get_ylabel() for axes in narrow.axes[:4]] == ["query"] * 4


def test_narrow_figure_keeps_every_line_of_a_wrapped_title():
    """The layout makes room for the lines a wrap adds (a title's first line was cut off)."""
    title = "RoPE: score of q at m, k at n (constant along diagonals)"
    figure = plotting.heatmap_panels([np.eye(4)] * 2, [title, "ALiBi"], size=(7.5, 4))
    narrow = plotting.narrow_figure(figure)
    assert "\n" in narrow.axes[0].get_title()
    renderer = FigureCanvasAgg(narrow).get_renderer()
    narrow.draw(renderer)
    box = narrow.axes[0].title.get_window_extent(renderer)
    assert box.y1 <= narrow.bbox.y1 and box.y0 > narrow.axes[0].get_window_extent(renderer).y1


def test_narrow_figure_keeps_a_wrapped_title_inside_at_twice_the_density():
    """The phone's 2x drawing breaks the title where the 1x one does, and keeps it whole: drawn
    at 220 dpi, matplotlib wrapped it again and cut its first line (lesson 4's Fig. 4.2)."""
    table = positional.sinusoidal_encoding(100, 512)
    figure = plotting.heatmap(table, title=r"Sinusoidal encoding (interleaved), $100\times512$",
                              xlabel="dimension", ylabel="position", diverging=True, limits=(-1, 1),
                              colorbar_label="value")
    narrow = plotting.narrow_figure(figure)  # as lesson 4 draws it
    title = narrow.axes[0].title
    for dpi in (110, 220):
        narrow.set_dpi(dpi)
        renderer = FigureCanvasAgg(narrow).get_renderer()
        narrow.draw(renderer)
        box, frame = title.get_window_extent(renderer), narrow.bbox
        lines = [box for box in title._get_layout(renderer)[1]]  # (no public getter) the lines drawn
        assert len(lines) == 2, (dpi, title.get_text())
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1, (dpi, box, frame)


def test_a_heatmap_with_more_columns_than_pixels_shows_their_mix_not_bands():
    """Lesson 4's 512 alternating sine (near 0) and cosine (near 1) columns drawn 0.6 pixel
    wide (a phone drawing before the narrow one wrapped them; Fig. 4.11's 512-column panels on a
    desktop): nearest-pixel sampling kept one kind of column in one region and the other in the
    next (a solid red block, then a white band). Blended, both regions show their mix, between
    white and the darkest red."""
    from PIL import Image

    table = positional.sinusoidal_encoding(100, 512)
    narrow = plotting.heatmap(table, title=r"Sinusoidal encoding (interleaved), $100\times512$",
                              xlabel="dimension", ylabel="position", diverging=True, limits=(-1, 1),
                              colorbar_label="value", size=(plotting.NARROW_WIDTH, 4.5))  # not wrapped
    image = np.asarray(Image.open(io.BytesIO(plotting.figure_png(narrow))).convert("RGB")).astype(float)
    renderer = FigureCanvasAgg(narrow).get_renderer()
    narrow.draw(renderer)
    box, height = narrow.axes[0].get_window_extent(renderer), image.shape[0]
    assert box.width / 512 < 0.7
    rows = slice(int(height - box.y1) + 2, int(height - box.y0) - 2)

    def mean_green(first: int, last: int) -> float:  # over the pixels of columns first..last
        left, right = (box.x0 + (column / 512) * box.width for column in (first, last))
        return float(image[rows, int(left):int(right), 1].mean())

    white, darkest = 247, 0  # the green of the colour map's 0 and 1 (about)
    for first, last in ((300, 400), (420, 510)):
        assert white - 60 > mean_green(first, last) > darkest + 60, (first, last, mean_green(first, last))


def test_narrow_figure_gives_a_wide_legend_of_the_figure_fewer_columns():
    figure = Figure(figsize=(9, 3), layout="constrained")
    axes = figure.add_subplot()
    for index in range(3):
        axes.plot([0, 1], [index, index + 1], label=f"a rather long name for series number {index}")
    figure.legend(loc="outside lower center", ncols=3)
    narrow = plotting.narrow_figure(figure)
    assert narrow.legends[0]._ncols < 3 and figure.legends[0]._ncols == 3  # (no public getter)
    assert len(narrow.legends[0].get_texts()) == 3
    assert_laid_out_apart(narrow)


@pytest.mark.parametrize("figure, width, message", [
    ("not a figure", 4.0, "figure must be a matplotlib Figure"),
    (None, 12.0, "width 12 in is wider than the figure"),
    (None, 0.0, "width must be"),
])
def test_narrow_figure_rejects_bad_input(figure, width, message):
    figure = plotting.line_plot([0, 1], {"a": [0, 1]}) if figure is None else figure
    with pytest.raises(ValueError, match=message):
        plotting.narrow_figure(figure, width)


def test_narrow_figure_wraps_a_long_title_inside_the_figure():
    figure = plotting.line_plot([0, 1], {"a": [0, 1]}, title="a title far too long to fit on one line "
                                "of a figure as narrow as a phone's column of text", xlabel="x")
    narrow = plotting.narrow_figure(figure)
    assert_laid_out_apart(narrow)
    assert "\n" in narrow.axes[0].title._get_wrapped_text()  # (no public getter)


def test_narrow_figure_raises_small_legends_and_titles_but_not_tick_labels():
    figure = plotting.line_plot([0, 1], {"a": [0, 1], "b": [1, 0]}, title="t", xlabel="x", size=(8, 3))
    axes = figure.axes[0]
    axes.legend(fontsize=7)
    axes.set_title("a small title", fontsize=8)
    axes.tick_params(labelsize=7)
    narrow = plotting.narrow_figure(figure).axes[0]
    smallest = plotting.NARROW_SMALLEST_TEXT
    assert {text.get_fontsize() for text in narrow.get_legend().get_texts()} == {smallest}
    assert narrow.title.get_fontsize() == smallest
    assert {label.get_fontsize() for label in narrow.get_xticklabels()} == {7}  # spaced by the figure
    assert {text.get_fontsize() for text in axes.get_legend().get_texts()} == {7}  # the figure is unchanged


def test_narrow_figure_writes_cell_values_as_large_as_the_cells_allow():
    roomy = plotting.narrow_figure(plotting.heatmap(np.eye(3), annotate=True, size=(7, 4))).axes[0]
    assert {text.get_fontsize() for text in roomy.texts} == {plotting.NARROW_SMALLEST_TEXT}  # from 8
    tight = plotting.narrow_figure(plotting.heatmap(np.eye(6), annotate=True, size=(7, 4))).axes[0]
    renderer = FigureCanvasAgg(tight.figure).get_renderer()
    plotting.figure_png(tight.figure)
    cell = tight.get_window_extent(renderer).width / 6
    sizes = {text.get_fontsize() for text in tight.texts}
    assert len(sizes) == 1 and 8 <= sizes.pop() <= plotting.NARROW_SMALLEST_TEXT
    assert all(text.get_visible() for text in tight.texts)
    assert max(text.get_window_extent(renderer).width for text in tight.texts) <= 0.85 * cell


def _stripes(rows=100, columns=512):
    """A table of alternating 0 and 1 columns, as the sinusoidal table's last dimensions are."""
    return plotting.heatmap(np.tile([0.0, 1.0], (rows, columns // 2)), title="stripes", xlabel="dimension",
                            ylabel="position", diverging=True, limits=(-1, 1), colorbar_label="value")


def _drawn_column_colours(figure, axes):
    """The colours drawn along the middle row of ``axes`` at the figure's density: (N, 3) ints."""
    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(plotting.figure_png(figure))).convert("RGB"), dtype=int)
    box = axes.bbox  # in pixels from the bottom left, as the PNG was drawn
    row = int(image.shape[0] - (box.y0 + box.y1) / 2)
    return image[row, int(box.x0) + 2:int(box.x1) - 2]


def test_narrow_figure_wraps_a_table_too_wide_for_a_phone_onto_stacked_panels():
    figure = _stripes()
    table = figure.axes[0].images[0].get_array()
    narrow = plotting.narrow_figure(figure)
    panels = [axes for axes in narrow.axes if axes.images]
    assert len(panels) >= 2 and len(figure.axes[0].images) == 1  # the figure itself is not changed
    shown = np.concatenate([axes.images[0].get_array() for axes in panels], axis=1)
    np.testing.assert_array_equal(shown, table)
    plotting.figure_png(narrow)
    starts = [axes.images[0].get_extent()[0] + 0.5 for axes in panels]  # each panel's first column
    assert starts == [sum(axes.images[0].get_array().shape[1] for axes in panels[:index])
                      for index in range(len(panels))]
    for axes in panels:
        assert axes.bbox.width / axes.images[0].get_array().shape[1] >= plotting.WRAPPED_CELL_WIDTH
        assert axes.images[0].norm.vmin == -1 and axes.images[0].norm.vmax == 1
        assert axes.images[0].get_cmap().name == plotting.DIVERGING and axes.get_ylabel() == "position"
    assert [axes.get_title() for axes in panels] == ["stripes"] + [""] * (len(panels) - 1)
    assert [axes.get_xlabel() for axes in panels] == [""] * (len(panels) - 1) + ["dimension"]
    bars = [axes for axes in narrow.axes if not axes.images]
    assert len(bars) == 1 and bars[0].get_xlabel() == "value"  # one colour bar, across the foot
    assert bars[0].bbox.y1 < min(axes.bbox.y0 for axes in panels)
    assert narrow.get_figheight() > figure.get_figheight()


def test_narrow_figure_keeps_the_colours_of_a_wrapped_table():
    """Unwrapped, 512 alternating white and dark red columns in a phone's width blend into a pink
    that is not on the colour bar; wrapped, each column is drawn in its own colour."""
    narrow = plotting.narrow_figure(_stripes())
    for axes in [axes for axes in narrow.axes if axes.images]:
        green = _drawn_column_colours(narrow, axes)[:, 1]
        assert (green > 200).mean() > 0.25 and (green < 60).mean() > 0.25, np.unique(green)


def test_narrow_figure_leaves_square_and_narrow_tables_unwrapped():
    for rows, columns in ((512, 512), (100, 64), (40, 60)):
        narrow = plotting.narrow_figure(_stripes(rows, columns))
        assert len([axes for axes in narrow.axes if axes.images]) == 1, (rows, columns)


def test_narrow_figure_leaves_out_cell_values_that_no_longer_fit():
    small = plotting.heatmap(np.eye(3), annotate=True, size=(7, 4))
    large = plotting.heatmap(np.eye(16), annotate=True, size=(7, 4))
    assert all(text.get_visible() for text in plotting.narrow_figure(small).axes[0].texts)
    assert not any(text.get_visible() for text in plotting.narrow_figure(large).axes[0].texts)
    assert all(text.get_visible() for text in large.axes[0].texts)


def test_cell_values_trace_writes_each_value_where_plotly_draws_its_cell():
    heatmap = plotting.heatmap_trace(np.array([[-2.0, 0.0, 1.0]]), diverging=True)
    values = plotting.cell_values_trace(heatmap, text_format="{:+.0f}")
    assert (values.x, values.y, values.text) == ((0, 1, 2), (0, 0, 0), ("-2", "+0", "+1"))
    # -2 is the darkest blue of a scale centred on 0 and reaching 2; 0 its near-white middle
    assert values.textfont.color[:2] == ("white", "black") and values.hoverinfo == "skip"
    # a scale centred on zmid reaches as far on both sides: -1 is a light red, not the darkest
    centred = plotting.go.Heatmap(z=[[-1.0, 3.0]], zmid=0.0, colorscale="RdBu")
    assert plotting.cell_values_trace(centred).textfont.color == ("black", "white")
    with pytest.raises(ValueError, match="without x or y"):
        plotting.cell_values_trace(plotting.heatmap_trace(np.eye(2), x=["a", "b"]))


def _rotation_block(**options):
    """An annotated 8 x 8 heatmap of 2 x 2 rotation blocks (values such as -0.96), 5.5 x 4.2 in."""
    angles = [1.3, 1.46, 1.63, 1.79]
    matrix = np.zeros((8, 8))
    for index, angle in enumerate(angles):
        cos, sin = np.cos(angle), np.sin(angle)
        matrix[2 * index:2 * index + 2, 2 * index:2 * index + 2] = [[cos, -sin], [sin, cos]]
    return plotting.heatmap(matrix, diverging=True, limits=(-1, 1), annotate=True,
                            size=(5.5, 4.2), **options)


def test_contrast_ratio_follows_wcag():
    assert plotting.contrast_ratio("black", "white") == pytest.approx(21)
    assert plotting.contrast_ratio("#2b6cb0", "#2b6cb0") == pytest.approx(1)
    assert plotting.contrast_ratio("white", "#767676") == pytest.approx(4.54, abs=0.01)  # the AA grey
    assert plotting.contrast_ratio("#767676", "white") == plotting.contrast_ratio("white", "#767676")


def test_text_on_a_colour_is_black_or_white_whichever_stands_out_more():
    assert plotting.text_colour_on("yellow") == "black" and plotting.text_colour_on("#000080") == "white"
    greys = np.linspace(0, 1, 101)
    assert min(plotting.contrast_ratio(plotting.text_colour_on((g, g, g)), (g, g, g)) for g in greys) > 4.5


@pytest.mark.parametrize("diverging", [False, True])
def test_every_value_written_in_a_cell_stands_out_from_its_colour(diverging):
    values = np.linspace(-1 if diverging else 0, 1, 81).reshape(9, 9)
    figure = plotting.heatmap(values, diverging=diverging, limits=(values.min(), 1), annotate=True)
    image = figure.axes[0].images[0]
    texts = figure.axes[0].texts
    assert len(texts) == 81
    for text, value in zip(texts, values.ravel(), strict=True):
        cell = image.cmap(image.norm(value))
        assert plotting.contrast_ratio(text.get_color(), cell) >= 4.5, (value, text.get_color())


def test_annotated_heatmap_writes_an_exact_zero_as_0():
    figure = plotting.heatmap(np.array([[0.0, 0.5], [-0.0, 1e-9]]), annotate=True)
    assert [text.get_text() for text in figure.axes[0].texts] == ["0", "0.50", "0", "0.00"]


def test_narrow_figure_leaves_out_a_heatmap_s_colour_bar_when_its_values_then_fit():
    figure = _rotation_block(colorbar_label="value")
    narrow = plotting.narrow_figure(figure)
    assert len(narrow.axes) == 1 and narrow.axes[0].images[0].colorbar is None  # no colour bar
    values = narrow.axes[0].texts
    assert len(values) == 64 and all(text.get_visible() for text in values)
    assert len(figure.axes) == 2 and figure.axes[0].images[0].colorbar is not None  # unchanged
    # values that do not fit even without it: the colour bar stays, the values are left out
    crowded = plotting.narrow_figure(plotting.heatmap(-0.5 * np.eye(16), annotate=True, size=(7, 4)))
    assert len(crowded.axes) == 2 and not any(text.get_visible() for text in crowded.axes[0].texts)


def test_narrow_figure_keeps_a_colour_bar_that_panels_share():
    matrices = [0.96 * np.eye(8) - 0.28 * np.eye(8, k=1)] * 2
    figure = plotting.heatmap_panels(matrices, ["first", "second"], annotate=True, limits=(-1, 1),
                                     shared_colorbar=True, size=(5.5, 4.2))
    narrow = plotting.narrow_figure(figure)
    assert len(narrow.axes) == 3  # two panels and their colour bar
    assert not any(text.get_visible() for axes in narrow.axes for text in axes.texts)


def _lines_across(legend_place, points=False):
    """Four lines (or rows of points) over the whole width, low in the panel, and a legend at
    ``legend_place``."""
    figure = Figure(figsize=(9, 3), dpi=110, layout="constrained")
    axes = figure.add_subplot()
    x = np.linspace(0, 10, 50)
    for index in range(4):
        draw = axes.scatter if points else axes.plot
        draw(x, 0.1 * index + 0.05 * np.sin(x), label=f"series number {index} of the panel")
    axes.set(ylim=(0, 1.2), xlabel="position", ylabel="value")
    axes.legend(loc=legend_place)
    return figure


@pytest.mark.parametrize("points", [False, True], ids=["lines", "points"])
def test_narrow_figure_moves_a_legend_that_covers_lines_below_its_panel(points):
    figure = _lines_across("lower left", points)  # beside the lines at 9 in, over them at 4
    narrow = plotting.narrow_figure(figure)
    assert_laid_out_apart(narrow)  # (the legend is part of its panel's box)
    renderer = FigureCanvasAgg(narrow).get_renderer()
    axes = narrow.axes[0]
    legend = axes.get_legend().get_window_extent(renderer)
    below = axes.xaxis.get_tightbbox(renderer)  # the tick labels and "position"
    assert legend.y1 <= below.y0, (legend, below)
    assert [text.get_text() for text in axes.get_legend().get_texts()] == [
        f"series number {index} of the panel" for index in range(4)]
    assert figure.axes[0].get_legend().get_window_extent(renderer).overlaps(figure.axes[0].bbox)


def test_narrow_figure_leaves_a_legend_that_covers_nothing_where_it_is():
    narrow = plotting.narrow_figure(_lines_across("upper right"))  # above the lines
    plotting.figure_png(narrow)
    renderer = FigureCanvasAgg(narrow).get_renderer()
    axes = narrow.axes[0]
    assert axes.bbox.contains(*axes.get_legend().get_window_extent(renderer).p0)


def test_a_line_within_half_a_line_of_text_of_a_legend_counts_as_covered():
    """A line that runs up to a legend's handles reads as one of them: it counts as covered."""
    figure = Figure(figsize=(4, 3), dpi=110, layout="constrained")
    axes = figure.add_subplot()
    axes.plot([0, 1], [0.05, 0.05], label="a series")
    axes.set(xlim=(0, 1), ylim=(0, 1))
    legend = axes.legend(loc="upper left")
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    box = legend.get_window_extent(renderer)
    half_line = legend.get_texts()[0].get_fontsize() / 2 * figure.dpi / 72  # pixels
    to_data = axes.transData.inverted()
    for gap, covered in ((0.5 * half_line, True), (1.5 * half_line, False)):
        y = to_data.transform((box.x0, box.y0 - gap))[1]
        probe = axes.plot([0, 1], [y, y])[0]
        assert plotting._covers_data(axes, legend, renderer) is covered, gap
        probe.remove()


def _labels_on_screen(figure):
    """The x tick labels the narrow copy shows: (text, rotation) of each, once it is drawn."""
    plotting.figure_png(figure)
    return [(label.get_text(), label.get_rotation()) for label in figure.axes[0].get_xticklabels()
            if label.get_visible()]


def test_narrow_figure_turns_x_tick_labels_that_would_touch():
    few = ["cat", "dog", "sat"]
    many = [f"a long word {index:02d}" for index in range(24)]
    assert _labels_on_screen(plotting.narrow_figure(plotting.bar_plot(few, [1, 2, 3]))) == [
        (label, 0) for label in few]  # room enough: they stay level
    eight = plotting.bar_plot(many[:8], np.arange(8.0), size=(9, 3))  # level at 9 in
    assert _labels_on_screen(plotting.narrow_figure(eight)) == [(label, 45) for label in many[:8]]
    bars = plotting.narrow_figure(plotting.bar_plot(many, np.arange(24.0), size=(9, 3)))
    assert _labels_on_screen(bars) == [(label, 90) for label in many]  # every bar keeps its name


def test_narrow_figure_labels_every_other_column_when_the_rows_name_them_all():
    words = [f"word{index:02d}" for index in range(24)]
    figure = plotting.heatmap(np.eye(24), xticklabels=words, yticklabels=words, size=(9, 7))
    narrow = plotting.narrow_figure(figure)
    assert _labels_on_screen(narrow) == [(word, 90) for word in words[::2]]
    assert [label.get_text() for label in narrow.axes[0].get_yticklabels()] == words
    spacing = narrow.axes[0].bbox.width / 24 * 2
    assert spacing >= 0.9 * 10 * narrow.dpi / 72  # a line of 10-point text fits between them


def test_every_static_figure_is_made_by_new_figure():
    """One home for a figure's dpi and layout: the text sizes a phone shows depend on it."""
    from pathlib import Path

    package = Path(plotting.__file__).parent
    modules = [path for path in sorted(package.rglob("*.py")) if path.name != "plotting.py"]
    direct = [f"{path.name}: {line.strip()}" for path in modules
              for line in path.read_text().splitlines() if "Figure(" in line and "go.Figure(" not in line]
    assert direct == []
    assert plotting._new_figure(4.0, 3.0).get_dpi() == 110
