"""Checks on a matplotlib figure as a reader sees it, shared by the figure tests."""

from matplotlib.backends.backend_agg import FigureCanvasAgg

from embedding_course import plotting


def assert_legends_read_whole(figure, smallest: float = plotting.NARROW_SMALLEST_TEXT) -> None:
    """Every legend of ``figure`` (its panels' and its own): text of at least ``smallest``
    points, all inside the figure, and a panel's legend over none of that panel's lines or points."""
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)  # the constrained layout places the legends
    legends = [(axes, axes.get_legend()) for axes in figure.axes if axes.get_legend()]
    legends += [(None, legend) for legend in figure.legends]
    assert legends, "the figure has no legend"
    for axes, legend in legends:
        names = [text.get_text() for text in legend.get_texts()]
        assert min(text.get_fontsize() for text in legend.get_texts()) >= smallest, names
        box, frame = legend.get_window_extent(renderer), figure.bbox
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, \
            f"legend {names} runs past the figure"
        if axes is not None:
            assert not plotting._covers_data(axes, legend, renderer), f"legend {names} covers the data"
