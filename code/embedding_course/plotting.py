"""Figures for the course: static matplotlib plots and interactive Plotly plots.

Every function returns the figure it made; nothing is shown or saved here. Static
figures (matplotlib) print well; interactive ones (Plotly) carry every slider state,
computed in advance, so a page needs only JavaScript to explore them.
"""

from __future__ import annotations

import io
import math
import pickle
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
import plotly.colors
import plotly.graph_objects as go
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox, offset_copy

from embedding_course import checks

# Colour maps: a diverging one centred on zero for signed values (encodings, weights),
# a sequential one for values that only grow (norms, counts, memory).
DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"
PLOTLY_DIVERGING = "RdBu"  # Plotly's RdBu runs red -> blue; reversed below so blue is negative
PLOTLY_SEQUENTIAL = "Viridis"
PALETTE = ["#2b6cb0", "#dd6b20", "#2f855a", "#c53030", "#6b46c1", "#b7791f", "#319795", "#d53f8c"]

_FONT = dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", size=13)


def figure_png(figure: Figure, density: float = 1.0) -> bytes:
    """The PNG bytes of a figure, small and reproducible.

    The image is reduced to a 256-colour palette (heatmaps of noisy tables are otherwise
    near 1 MB), chosen by one of two rules, whichever draws the image closer (the smaller
    squared error): to cover every colour drawn, so that a colour bar's few pixels keep their
    colours beside the white and the text; or by splitting the colours by how often they are
    drawn, so that a large flat area keeps its own colour (by the first rule, lesson 7's grey
    training region came out green-grey). It carries no timestamp, so
    two builds give identical files. The values
    written in a heatmap's cells are drawn as large as the cells leave room for, never smaller
    (``_fit_cell_values``); the figure itself keeps their sizes.

    Args:
        figure: the matplotlib ``Figure``.
        density: pixels per pixel of the figure's own dpi (2 for a screen of twice the density).
    """
    from PIL import Image

    density = checks.positive(density, "density")
    cell_values = [text for axes in figure.axes if axes.images for text in axes.texts]
    drawn_as = [(text.get_fontsize(), text.get_visible()) for text in cell_values]
    buffer = io.BytesIO()
    dpi = figure.dpi * density
    try:
        if cell_values:
            renderer = FigureCanvasAgg(figure).get_renderer()
            figure.draw(renderer)  # lays it out: its cells have their size
            _fit_cell_values(figure, renderer, leave_out=False)  # (the figure's own sizes fit)
        # The drawn pixels as they are (RGBA, row after row): a PNG here would only be decoded
        # again. The whole figure, at its own size, whatever a notebook set `savefig.bbox` to
        # ("tight" would crop it to another size).
        with matplotlib.rc_context({"savefig.bbox": "standard"}):
            figure.savefig(buffer, format="rgba", dpi=dpi)
    finally:
        for text, (size, visible) in zip(cell_values, drawn_as, strict=True):
            text.set_fontsize(size)
            text.set_visible(visible)
    drawn = buffer.getvalue()
    width = int(figure.get_figwidth() * dpi)  # as matplotlib sizes its canvas
    height, rest = divmod(len(drawn), 4 * width)
    if rest:
        raise RuntimeError(f"matplotlib drew {len(drawn)} bytes, not rows of {width} RGBA pixels")
    image = Image.frombytes("RGBA", (width, height), drawn).convert("RGB")
    exact = np.asarray(image, dtype=np.int32)  # (H, W, 3)

    def squared_error(reduced) -> int:
        return int(((np.asarray(reduced.convert("RGB"), dtype=np.int32) - exact) ** 2).sum())

    reduced = min((image.quantize(colors=256, method=method, dither=Image.Dither.NONE)
                   for method in (Image.Quantize.MAXCOVERAGE, Image.Quantize.MEDIANCUT)), key=squared_error)
    output = io.BytesIO()
    reduced.save(output, format="PNG", optimize=True)
    return output.getvalue()


WIDEST = 7.5  # inches: wider, a 550-px column (a small tablet's) shows 10 pt text below 10 px
# How a heatmap's cells are drawn: each as a block of its colour when it is 3 pixels wide or
# more, and blended with its neighbours when narrower. Nearest-pixel sampling of 512
# alternating sine and cosine columns in 300 pixels showed bands that are not in the table.
CELLS = "antialiased"
WRAP_SLACK = 1.08  # narrow_figure wraps a text as if it were this much larger
NARROW_WIDTH = 4.0  # inches: 440 px at the figures' 110 dpi, about a phone's column at 0.8x
NARROW_SMALLEST_TEXT = 10.0  # points: matplotlib's default size, 12 px on a 390 px screen
CELL_TEXT_SHARE = 0.8  # the widest value written in a heatmap's cell takes at most this much of it
# A heatmap's columns narrower than this (in pixels at the figure's density) blend into colours
# that are not in the table (lesson 4's 512 alternating sine and cosine columns into a flat
# mauve on a phone): narrow_figure wraps such a table onto stacked panels instead.
WRAPPED_CELL_WIDTH = 2.5


def narrow_figure(figure: Figure, width: float = NARROW_WIDTH) -> Figure:
    """A copy of ``figure`` laid out for a narrow screen: ``width`` inches wide, its text as large.

    A side-by-side figure shrunk to a phone's width shrinks its text with it, to about 5 px.
    The copy keeps every font size but raises smaller titles, labels and legends to
    ``NARROW_SMALLEST_TEXT``, and stacks the panels of a grid in one column (in reading
    order, each panel as tall as before, each with its row's y label), then lets the
    constrained layout place them. Titles and axis labels wider than the copy wrap (and the
    layout makes room for every line); a legend of the figure's own goes below, in as many
    columns as fit, and so does a panel's legend that now lies over its lines or points
    (below that panel); x tick labels that would touch turn until they do not; the values
    written in a heatmap's cells grow up to ``NARROW_SMALLEST_TEXT`` as far as the cells leave
    room, and are left out when they no longer fit (the colours stay), unless they fit once a
    heatmap's own colour bar is left out (every cell then says its value). Tick labels keep
    their size.
    ``figure`` itself is not changed.

    Args:
        figure: a matplotlib ``Figure`` with constrained layout (as every figure here has).
        width: the copy's width in inches, at most the figure's own.

    Returns:
        The new ``Figure``.
    """
    if not isinstance(figure, Figure):
        raise ValueError(f"figure must be a matplotlib Figure, got {type(figure).__name__}")
    width = checks.positive(width, "width")
    old_width = figure.get_figwidth()
    if width > old_width:
        raise ValueError(f"width {width:g} in is wider than the figure ({old_width:g} in); "
                         "give a width up to the figure's own")
    copy = _narrow_copy(figure, width)
    if _cell_values_left_out(copy):
        without_bars = pickle.loads(pickle.dumps(figure))
        # each heatmap with written values and a colour bar of its own (a shared one is some
        # other panel's image's only)
        bars = [axes.images[0].colorbar for axes in without_bars.axes if axes.images and axes.texts]
        if bars and None not in bars:
            for colorbar in bars:
                colorbar.remove()
            if not _cell_values_left_out(narrow := _narrow_copy(without_bars, width)):
                return narrow
    return copy


STACKED_GAP = 0.15  # inches between the panels a phone's drawing stacks (16 px at 110 dpi)


def _cell_values_left_out(figure: Figure) -> bool:
    """Whether a heatmap of ``figure`` (a narrow copy) left out the values of its cells."""
    return any(not text.get_visible() for axes in figure.axes if axes.images for text in axes.texts)


def _narrow_copy(figure: Figure, width: float) -> Figure:
    """:func:`narrow_figure`'s copy of ``figure``, ``width`` inches wide (checked by it)."""
    old_height = figure.get_figheight()
    copy = pickle.loads(pickle.dumps(figure))
    panels = [axes for axes in copy.axes if axes.get_subplotspec() is not None]
    grids = {id(axes.get_subplotspec().get_gridspec()) for axes in panels}
    height = old_height
    if len(grids) == 1 and all(axes.get_subplotspec().num1 == axes.get_subplotspec().num2 for axes in panels):
        rows, columns = panels[0].get_subplotspec().get_gridspec().get_geometry()
        if columns > 1:
            for axes in panels:
                if not axes.get_visible():  # an empty cell of the grid
                    axes.remove()
            shown = sorted((axes for axes in panels if axes.get_visible()),
                           key=lambda axes: axes.get_subplotspec().num1)  # row by row
            row_labels = {axes.get_subplotspec().rowspan.start: axes.get_ylabel() for axes in shown
                          if axes.get_subplotspec().colspan.start == 0}
            column = copy.add_gridspec(len(shown), 1)
            for place, axes in enumerate(shown):
                row = axes.get_subplotspec().rowspan.start
                axes.set_subplotspec(column[place])
                axes.yaxis.set_tick_params(labelleft=True)  # sharey hid it beside the first column
                if not axes.get_ylabel():  # the row's y label, written beside its first panel only
                    axes.set_ylabel(row_labels.get(row, ""))
            height = old_height / rows * len(shown) + STACKED_GAP * (len(shown) - rows)
            # a clear gap between stacked panels: at the layout's own 3 points a panel's x label
            # ran into the next one's title ("vocabulary index" into "@ W (11 x 4)", lesson 2)
            copy.get_layout_engine().set(h_pad=STACKED_GAP)
    copy.set_size_inches(width, height)
    _wrap_wide_heatmaps(copy)
    _raise_small_text(copy)
    titles = [text for axes in copy.axes for text in (axes.title, axes.xaxis.label, axes.yaxis.label)]
    for text in titles + copy.texts:  # wider than the copy: on two lines or more
        text.set_wrap(True)
    renderer = FigureCanvasAgg(copy).get_renderer()
    for legend in list(copy.legends):  # the figure's own legend: below, in as many columns as fit
        _legend_again(copy, copy, legend, renderer, loc="outside lower center")
    # Lay it out once: after its panels moved, the constrained layout places their colour bars
    # right only from its second pass on (and what follows is measured on this one).
    copy.draw(renderer)
    # The layout makes room for a text's own lines, not for those a wrap adds as it draws (a
    # wrapped title lost its first line above the figure): break them where this layout wraps,
    # once. Drawn at twice the density, matplotlib would wrap them again, elsewhere.
    # Each line is wrapped as if its text were WRAP_SLACK times as large: at twice the density
    # the same text comes out a few per cent wider, and a line that just fitted ran past the side.
    wrapped = []
    for text in titles + copy.texts:
        size = text.get_fontsize()
        text.set_fontsize(size * WRAP_SLACK)
        lines = text._get_wrapped_text()
        text.set_fontsize(size)
        text.set_wrap(False)
        if lines != text.get_text():
            text.set_text(lines)
            wrapped.append(text)
    if wrapped:
        copy.draw(renderer)
    _fit_cell_values(copy, renderer, leave_out=True)
    for axes in copy.axes:
        if axes.get_legend() is not None and _covers_data(axes, axes.get_legend(), renderer):
            # below the panel's x axis (its tick labels and label), which keeps its height
            under_axis = axes.xaxis.get_tightbbox(renderer) if axes.xaxis.get_visible() else None
            drop = (axes.bbox.y0 - under_axis.y0 if under_axis else 0) * 72 / copy.dpi + 4  # points
            _legend_again(copy, axes, axes.get_legend(), renderer, loc="upper center",
                          frameon=False, bbox_to_anchor=(0.5, 0),  # (out of the data: no frame)
                          bbox_transform=offset_copy(axes.transAxes, fig=copy, y=-drop, units="points"))
        _turn_crowded_tick_labels(axes, renderer)
    return copy


def _wrap_wide_heatmaps(figure: Figure) -> None:
    """Wrap each heatmap of ``figure`` that is much wider than tall (twice as many columns as rows
    or more) and whose columns come out narrower than ``WRAPPED_CELL_WIDTH`` pixels: its columns
    go onto panels stacked in its place, in order, as the words of a line wrap onto the next
    ones, each with the dimension numbers of its own columns, and its colour bar goes below them,
    across the figure. The figure grows by the panels' height."""
    def too_wide(axes, room: float) -> bool:  # room: the width in pixels its columns may take
        rows, columns = axes.images[0].get_array().shape[:2]
        return columns >= 2 * rows and columns * WRAPPED_CELL_WIDTH > room and not axes.texts

    candidates = [axes for axes in figure.axes if axes.images and axes.get_subplotspec() is not None
                  and too_wide(axes, figure.bbox.width)]
    if not candidates:
        return  # (not drawn: a layout drawn once more comes out a little different)
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)  # laid out: each panel has its width
    for axes in candidates:
        image = axes.images[0]
        table = image.get_array()  # (rows, columns)
        rows, columns = table.shape[:2]
        # the bar moves below: the panels take its width
        room = axes.bbox.width + (image.colorbar.ax.get_tightbbox(renderer).width if image.colorbar else 0)
        if not too_wide(axes, room):
            continue
        panels = math.ceil(columns * WRAPPED_CELL_WIDTH / room)
        per_panel = math.ceil(columns / panels)
        grid = axes.get_subplotspec().subgridspec(panels, 1)
        wrapped = []
        for index, start in enumerate(range(0, columns, per_panel)):
            stop = min(start + per_panel, columns)
            panel = figure.add_subplot(grid[index])
            panel.imshow(table[:, start:stop], cmap=image.get_cmap(), norm=image.norm, aspect="auto",
                         interpolation=image.get_interpolation(),
                         extent=(start - 0.5, stop - 0.5, rows - 0.5, -0.5))  # the columns' own numbers
            panel.set_ylabel(axes.get_ylabel())
            panel.tick_params(labelsize=axes.xaxis.get_ticklabels()[0].get_fontsize())
            wrapped.append(panel)
        wrapped[0].set_title(axes.get_title(), fontsize=axes.title.get_fontsize())
        wrapped[-1].set_xlabel(axes.get_xlabel())
        if image.colorbar is not None:
            label = image.colorbar.ax.get_ylabel()
            image.colorbar.remove()
            figure.colorbar(wrapped[0].images[0], ax=wrapped, location="bottom", label=label, aspect=30,
                            pad=0.04)
        axes.remove()
        # each panel as tall as two fifths of the table's, no less than an inch
        panel_height = max(axes.bbox.height / figure.dpi * 0.4, 1.0)
        figure.set_size_inches(figure.get_figwidth(),
                               figure.get_figheight() + panels * panel_height - axes.bbox.height / figure.dpi)


def _raise_small_text(figure: Figure) -> None:
    """Set the titles, labels and legends of ``figure`` smaller than ``NARROW_SMALLEST_TEXT`` to
    that size; not tick labels (their spacing is the figure's) nor the values in cells."""
    kept = {id(text) for axes in figure.axes for text in axes.texts}
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            kept |= {id(label) for tick in ticks for label in (tick.label1, tick.label2)}
    for text in figure.findobj(lambda artist: isinstance(artist, Text)):
        if id(text) not in kept and text.get_fontsize() < NARROW_SMALLEST_TEXT:
            text.set_fontsize(NARROW_SMALLEST_TEXT)


def _fit_cell_values(figure: Figure, renderer, leave_out: bool) -> None:
    """The values written in each heatmap's cells (an axes with an image and texts), as large as
    the cells leave room for, from their own size up to ``NARROW_SMALLEST_TEXT``: the widest
    takes at most ``CELL_TEXT_SHARE`` of a cell. With ``leave_out``, values that do not fit
    even at their own size are left out (the colours stay). ``figure`` must be laid out (drawn
    once with ``renderer``)."""
    for axes in figure.axes:
        values = [text for text in axes.texts if text.get_visible()] if axes.images else []
        if not values:
            continue
        cell = axes.get_window_extent(renderer).width / axes.images[0].get_array().shape[1]
        size = values[0].get_fontsize()
        fitting = size * CELL_TEXT_SHARE * cell / max(text.get_window_extent(renderer).width
                                                      for text in values)
        for text in values:
            text.set_fontsize(min(max(size, fitting), max(size, NARROW_SMALLEST_TEXT)))
            if leave_out:
                text.set_visible(fitting >= size)


def _legend_again(figure: Figure, owner, legend, renderer, **placement) -> None:
    """Replace ``legend`` (of ``owner``, the figure or one of its axes) with one placed by
    ``placement``, in as many columns as fit the figure's width."""
    handles, labels = legend.legend_handles, [text.get_text() for text in legend.get_texts()]
    options = dict(frameon=legend.get_frame_on(), fontsize=legend.get_texts()[0].get_fontsize(),
                   title=legend.get_title().get_text() or None) | placement
    legend.remove()
    for columns in range(len(labels), 0, -1):
        legend = owner.legend(handles, labels, ncols=columns, **options)
        if columns == 1 or legend.get_window_extent(renderer).width <= figure.bbox.width:
            return
        legend.remove()


def _covers_data(axes, legend, renderer) -> bool:
    """Whether ``legend`` lies over, or within half a line of its text of, one of the lines or
    points drawn in ``axes`` (a line that runs up to a legend's handles reads as one of them)."""
    margin = legend.get_texts()[0].get_fontsize() / 2 * axes.figure.dpi / 72  # pixels
    box = Bbox.intersection(legend.get_window_extent(renderer).padded(margin),
                            axes.bbox)  # data outside the panel is clipped
    if box is None:
        return False
    for line in axes.lines:
        path = line.get_transform().transform_path(line.get_path())  # in pixels
        if line.get_visible() and path.intersects_bbox(box, filled=False):
            return True
    points = [collection.get_offset_transform().transform(collection.get_offsets())
              for collection in axes.collections  # scatter plots (a band is not counted)
              if isinstance(collection, PathCollection) and collection.get_visible()]
    return any(box.count_contains(offsets) for offsets in points)


def _turn_crowded_tick_labels(axes, renderer) -> None:
    """Turn an axes' x tick labels (level, 45 degrees, upright) until neighbours do not touch;
    when even upright ones would, and the y axis names the same things, label every other one."""
    labels = [label for label in axes.get_xticklabels() if label.get_visible() and label.get_text()]
    if len(labels) < 2:
        return
    centres = np.sort([label.get_transform().transform(label.get_position())[0] for label in labels])
    spacing = float(np.min(np.diff(centres)))  # pixels between neighbouring ticks
    line = labels[0].get_fontsize() * axes.figure.dpi / 72  # a line of their text, in pixels
    widest = max(label.get_window_extent(renderer).width for label in labels)
    angle = labels[0].get_rotation() % 180
    fits = {0: widest + line / 4 <= spacing,  # side by side, a quarter line apart
            45: spacing * math.sin(math.radians(45)) >= 0.9 * line,  # parallel lines of text
            90: spacing >= 0.9 * line}
    turned = next((turn for turn in (0, 45, 90) if turn >= angle and fits[turn]), 90)
    if turned != angle:
        for label in labels:
            label.set(rotation=turned, rotation_mode="anchor" if turned == 45 else "default",
                      horizontalalignment="right" if turned == 45 else "center")
    if not fits[90] and [label.get_text() for label in axes.get_yticklabels()] == [
            label.get_text() for label in axes.get_xticklabels()]:
        for label in labels[1::2]:
            label.set_visible(False)


def _register_notebook_display() -> None:
    """Let a notebook show a bare ``Figure`` returned by a cell (pyplot is never used here)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["image/png"].for_type(Figure, figure_png)


def _new_figure(width: float, height: float) -> Figure:
    # A bare Figure (not pyplot) so nothing is drawn twice in a notebook.
    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    return figure


def symmetric_limit(matrix: np.ndarray, quantile: float = 1.0) -> float:
    """A colour limit for a map centred on 0: the ``quantile`` of ``|values|`` (1.0 = the largest).

    Values that are not finite (e.g. NaN for hidden cells) are ignored; 1.0 when nothing is left.
    """
    finite = np.abs(matrix[np.isfinite(matrix)])
    limit = float(np.quantile(finite, quantile)) if finite.size else 1.0
    return limit if limit > 0 else 1.0


def compact(values) -> np.ndarray:
    """Figure data as float32: plenty for a plot, half the page weight of float64."""
    return checks.array(values, "values").astype(np.float32)


def contrast_ratio(first, second) -> float:
    """WCAG 2.1's contrast ratio of two colours (any matplotlib colour): 1 (same) to 21."""
    def luminance(colour) -> float:  # relative luminance of the sRGB colour
        channels = [value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4
                    for value in matplotlib.colors.to_rgb(colour)]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def text_colour_on(background) -> str:
    """Black or white, whichever stands out more from ``background`` (any matplotlib colour):
    at least 4.58:1 on any colour."""
    return max(("black", "white"), key=lambda colour: contrast_ratio(colour, background))


def annotate_cells(axes, image, matrix: np.ndarray, decimals: int = 2, fontsize: float = 8) -> None:
    """Write each value of ``matrix`` in its cell, in black or white, whichever stands out more
    from the cell's colour (at least 4.5:1 on any colour); an exact zero as 0, so that the cells
    that hold something stand out.

    Args:
        axes, image: the panel and the ``imshow`` image of ``matrix`` drawn in it.
        decimals: digits after the point; fontsize: in points.
    """
    for (row, col), value in np.ndenumerate(matrix):
        axes.text(col, row, "0" if value == 0 else f"{value:.{decimals}f}", ha="center", va="center",
                  fontsize=fontsize, color=text_colour_on(image.cmap(image.norm(value))))


def heatmap(
    matrix,
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    diverging: bool = False,
    limits: tuple[float, float] | None = None,
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    colorbar_label: str = "",
    annotate: bool = False,
    size: tuple[float, float] = (7.0, 4.5),
) -> Figure:
    """A static heatmap of a 2-D array.

    Args:
        matrix: array-like of shape (rows, cols).
        diverging: use a red-blue map centred on 0 (for signed values such as encodings).
        limits: colour range; by default symmetric around 0 when ``diverging``.
        annotate: write each value in its cell (for small matrices).

    Returns:
        The matplotlib ``Figure``.
    """
    matrix = checks.array(matrix, "matrix", ndim=2)
    figure = _new_figure(*size)
    axes = figure.add_subplot()
    if limits is None and diverging:
        limit = symmetric_limit(matrix)
        limits = (-limit, limit)
    vmin, vmax = limits if limits is not None else (None, None)
    image = axes.imshow(
        matrix,
        cmap=DIVERGING if diverging else SEQUENTIAL,
        vmin=vmin,
        vmax=vmax,
        aspect="auto",
        interpolation=CELLS,
    )
    colorbar = figure.colorbar(image, ax=axes)
    if colorbar_label:
        colorbar.set_label(colorbar_label)
    if xticklabels is not None:
        axes.set_xticks(range(len(xticklabels)), labels=list(xticklabels), rotation=45, ha="right")
    if yticklabels is not None:
        axes.set_yticks(range(len(yticklabels)), labels=list(yticklabels))
    if annotate:
        annotate_cells(axes, image, matrix)
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure


def line_plot(
    x,
    series: Mapping[str, Sequence[float]],
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    logx: bool = False,
    logy: bool = False,
    markers: bool = False,
    size: tuple[float, float] = (7.0, 3.8),
) -> Figure:
    """A static plot of one or more named series against a shared x axis."""
    x = checks.array(x, "x", ndim=1)
    if not series:
        raise ValueError("series is empty; give at least one name -> values pair")
    figure = _new_figure(*size)
    axes = figure.add_subplot()
    for index, (name, values) in enumerate(series.items()):
        values = checks.array(values, f"series {name!r}", ndim=1)
        if values.shape != x.shape:
            raise ValueError(f"series {name!r} has {values.shape[0]} values but x has {x.shape[0]}")
        axes.plot(x, values, label=name, color=PALETTE[index % len(PALETTE)],
                  marker="o" if markers else None, markersize=3)
    if logx:
        axes.set_xscale("log")
    if logy:
        axes.set_yscale("log")
    axes.grid(alpha=0.3)
    if len(series) > 1:
        axes.legend(frameon=False)
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure


def bar_plot(
    labels: Sequence[str],
    values,
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    highlight: Sequence[int] = (),
    size: tuple[float, float] = (7.0, 3.5),
) -> Figure:
    """A static bar chart; bars whose index is in ``highlight`` get the accent colour."""
    values = checks.array(values, "values", ndim=1)
    if len(labels) != len(values):
        raise ValueError(f"{len(labels)} labels for {len(values)} values; give one label per bar")
    figure = _new_figure(*size)
    axes = figure.add_subplot()
    highlighted = set(highlight)
    colours = [PALETTE[1] if i in highlighted else PALETTE[0] for i in range(len(values))]
    axes.bar(range(len(values)), values, color=colours)
    axes.set_xticks(range(len(labels)), labels=list(labels), rotation=45 if len(labels) > 8 else 0,
                    ha="right" if len(labels) > 8 else "center")
    axes.grid(axis="y", alpha=0.3)
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure


def heatmap_panels(
    matrices: Sequence,
    titles: Sequence[str],
    *,
    xlabel: str = "",
    ylabel: str = "",
    diverging: bool | Sequence[bool] = True,
    limits: tuple[float, float] | Sequence[tuple[float, float] | None] | None = None,
    robust: float | None = None,
    colorbar_label: str = "",
    suptitle: str = "",
    size: tuple[float, float] | None = None,
    rows: int = 1,
    ticklabels: Sequence[Sequence[str] | None] | None = None,
    annotate: bool = False,
    extent: tuple[float, float, float, float] | None = None,
    shared_colorbar: bool = False,
) -> Figure:
    """Several heatmaps side by side, each with its own colour bar.

    Args:
        matrices: 2-D arrays (tensors are fine).
        titles: one title per panel.
        diverging: a red-blue map centred on 0 (one flag for all, or one per panel).
        limits: a colour range for all panels, or one per panel (``None`` = automatic).
        robust: if given (e.g. 0.99), automatic symmetric limits use that quantile of
            ``|values|`` instead of the maximum, so a few outliers do not wash out the rest.
        rows: panel rows (panels fill row by row).
        ticklabels: per panel, labels for both axes (e.g. the tokens of a sentence), or ``None``.
        annotate: write each value in its cell (for small matrices).
        extent: axis coordinates ``(left, right, bottom, top)`` of every image, e.g. to label
            the rows of a matrix that keeps every 4th position with the true positions.
        shared_colorbar: one colour bar for all panels (give shared ``limits``).
    """
    if len(matrices) == 0 or len(matrices) != len(titles):
        raise ValueError(f"give one title per matrix and at least one matrix; got {len(matrices)} "
                         f"matrices and {len(titles)} titles")
    count = len(matrices)
    columns = math.ceil(count / rows)
    flags = [diverging] * count if isinstance(diverging, bool) else list(diverging)
    if limits is None or (len(limits) == 2 and not isinstance(limits[0], (tuple, list, type(None)))):
        panel_limits = [limits] * count
    else:
        panel_limits = list(limits)
    figure = _new_figure(*(size or (min(4.2 * columns, WIDEST), 3.6 * rows)))
    axes_grid = figure.subplots(rows, columns, squeeze=False)
    for index, (matrix, title) in enumerate(zip(matrices, titles, strict=True)):
        axes = axes_grid[index // columns][index % columns]
        matrix = checks.array(matrix, f"matrix {index}", ndim=2)
        panel = panel_limits[index]
        if panel is None and flags[index]:
            limit = symmetric_limit(matrix, robust or 1.0)
            panel = (-limit, limit)
        vmin, vmax = panel if panel is not None else (None, None)
        image = axes.imshow(matrix, cmap=DIVERGING if flags[index] else SEQUENTIAL,
                            vmin=vmin, vmax=vmax, aspect="auto", interpolation=CELLS, extent=extent)
        if not shared_colorbar:
            colorbar = figure.colorbar(image, ax=axes, shrink=0.9)
            if colorbar_label:
                colorbar.set_label(colorbar_label)
        if ticklabels is not None and ticklabels[index] is not None:
            labels = list(ticklabels[index])
            axes.set_xticks(range(len(labels)), labels=labels, rotation=45, ha="right")
            axes.set_yticks(range(len(labels)), labels=labels)
        if annotate:
            annotate_cells(axes, image, matrix)
        axes.set_title(title, fontsize=10)
        axes.set_xlabel(xlabel)
        if index % columns == 0:
            axes.set_ylabel(ylabel)
    for index in range(count, rows * columns):
        axes_grid[index // columns][index % columns].set_visible(False)
    if shared_colorbar:
        colorbar = figure.colorbar(image, ax=axes_grid.ravel().tolist(), shrink=0.9)
        if colorbar_label:
            colorbar.set_label(colorbar_label)
    if suptitle:
        figure.suptitle(suptitle)
    return figure


# ---------------------------------------------------------------- interactive (Plotly)

TOOLBAR_ROOM = 36  # px at the top of a Plotly figure: the toolbar shown on hover, and a gap


def style(figure: go.Figure, *, title: str = "", height: int = 420) -> go.Figure:
    """Apply the course's look to a Plotly figure and return it.

    The title is pinned below the toolbar that Plotly shows while the pointer is over a chart,
    at its top right: in the middle of the top margin, a long title's end lay under it."""
    figure.update_layout(
        title=dict(text=title, x=0.02, xanchor="left", yref="container", y=1, yanchor="top",
                   pad=dict(t=TOOLBAR_ROOM)),
        height=height,
        margin=dict(l=60, r=30, t=72 if title else 30, b=50),
        font=_FONT,
        template="plotly_white",
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        colorway=PALETTE,
    )
    return figure


def legend_above(figure: go.Figure, *, top_margin: int = 120) -> go.Figure:
    """Put the legend in a row between the title and the plot, not in a column beside it, so
    the plot keeps the whole width (on a phone a column legend takes a third of it); the row
    wraps when it does not fit, in rows as tall as its text (no gap after each legend group,
    which a phone's layout would not expect). ``top_margin`` (px) holds the title, pinned below
    the toolbar (Plotly's modebar, about 30 px), and below it the legend's rows (two, by default)."""
    figure.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0, xanchor="left",
                                     tracegroupgap=0),
                         title=dict(yref="container", y=1, yanchor="top", pad=dict(t=TOOLBAR_ROOM)),
                         margin=dict(t=top_margin))
    return figure


def heatmap_trace(
    matrix,
    *,
    diverging: bool = False,
    limits: tuple[float, float] | None = None,
    x=None,
    y=None,
    colorbar_title: str = "",
    hovertemplate: str | None = None,
    showscale: bool = True,
    visible: bool = True,
) -> go.Heatmap:
    """A Plotly heatmap trace of a 2-D array (a diverging map is centred on 0)."""
    matrix = checks.array(matrix, "matrix", ndim=2)
    if limits is None and diverging:
        limit = symmetric_limit(matrix)
        limits = (-limit, limit)
    trace = go.Heatmap(
        z=compact(matrix),
        x=x,
        y=y,
        colorscale=PLOTLY_DIVERGING if diverging else PLOTLY_SEQUENTIAL,
        reversescale=diverging,
        zmin=limits[0] if limits else None,
        zmax=limits[1] if limits else None,
        zmid=0.0 if diverging and limits is None else None,
        # The colour bar's title beside the bar: on top of it, it meets the highest tick label.
        colorbar=dict(title=dict(text=colorbar_title, side="right")),
        hovertemplate=hovertemplate or "row %{y}<br>col %{x}<br>value %{z:.3f}<extra></extra>",
        showscale=showscale,
        visible=visible,
    )
    return trace


def pale(colour: str, share: float) -> str:
    """``colour`` mixed with white, ``share`` of it kept: an ``"rgb(r, g, b)"`` string.

    Pale, not see-through: opacity mixes a colour with whatever lies behind the figure, so that
    on the dark theme's page it turns dark (lesson 3's empty cells read as large values, lesson
    6's points went dim). Mixed with white, a colour looks as it does at that opacity on a white
    page, on either theme.
    """
    share = checks.probability(share, "share", include_one=True)
    rgb = plotly.colors.unlabel_rgb(plotly.colors.convert_colors_to_same_type(colour, "rgb")[0][0])
    mixed = plotly.colors.find_intermediate_color((255.0, 255.0, 255.0), rgb, share)
    return plotly.colors.label_rgb(tuple(round(value) for value in mixed))


def faded(trace: go.Heatmap, share: float) -> go.Heatmap:
    """``trace`` drawn pale: each colour of its scale mixed with white (:func:`pale`), ``share``
    of the colour kept; a pale table behind the rows that matter. 0 stays white, as on the bar."""
    share = checks.probability(share, "share", include_one=True)
    trace.colorscale = [[place, pale(colour, share)] for place, colour in trace.colorscale]
    return trace


def cell_values_trace(trace: go.Heatmap, text_format: str = "{:.0f}", size: int = 12) -> go.Scatter:
    """The values of a heatmap ``trace`` written in its cells, each in black or white by its
    cell's colour (at least 4.5:1, as :func:`annotate_cells`): a text trace to draw over it.

    Plotly's own cell text (``texttemplate``) takes one colour for all cells, or picks dark or
    light by a brightness rule that leaves some of Viridis' greens and teals near 3:1.

    Args:
        trace: a heatmap whose cells sit at 0, 1, 2, ... (no ``x`` or ``y`` of its own).
        text_format: how a value is written; size: the text's size in pixels.
    """
    if trace.x is not None or trace.y is not None:
        raise ValueError("cell_values_trace writes at cells 0, 1, 2, ...; give a heatmap without x or y")
    matrix = np.asarray(trace.z, dtype=np.float64)  # (rows, cols)
    low = float(np.nanmin(matrix)) if trace.zmin is None else trace.zmin
    high = float(np.nanmax(matrix)) if trace.zmax is None else trace.zmax
    if trace.zmid is not None and trace.zmin is None:  # Plotly centres the scale on zmid
        reach = max(abs(low - trace.zmid), abs(high - trace.zmid))
        low, high = trace.zmid - reach, trace.zmid + reach
    scale = [list(stop) for stop in trace.colorscale]  # (place, colour) stops, names expanded by Plotly
    if trace.reversescale:
        scale = [[1 - place, colour] for place, colour in reversed(scale)]
    share = np.clip((matrix - low) / (high - low) if high > low else np.zeros_like(matrix), 0, 1)
    cells = plotly.colors.sample_colorscale(scale, share.ravel().tolist())
    colours = []
    for cell in cells:  # "rgb(r, g, b)"
        red, green, blue = (float(part) / 255 for part in cell[cell.index("(") + 1:-1].split(","))
        colours.append(text_colour_on((red, green, blue)))
    rows, cols = np.indices(matrix.shape)
    return go.Scatter(x=cols.ravel().tolist(), y=rows.ravel().tolist(), mode="text",
                      text=[text_format.format(value) for value in matrix.ravel()],
                      textfont=dict(size=size, color=colours), hoverinfo="skip", showlegend=False,
                      visible=trace.visible)


def slider_figure(
    states: Sequence[Sequence],
    labels: Sequence[str],
    *,
    base: go.Figure | None = None,
    slider_title: str = "",
    titles: Sequence[str] | None = None,
    active: int = 0,
    height: int = 460,
) -> go.Figure:
    """A figure with a slider whose states were all computed in advance.

    Each state is a list of traces, or of ``(trace, row, col)`` for subplots made with
    ``plotly.subplots.make_subplots`` and passed as ``base``. All states must have the
    same number of traces. Moving the slider only switches which traces are visible, so
    it works on a static page with JavaScript alone, no kernel needed. A single state is
    drawn the same way, without a slider (a live widget draws one state at a time).

    Args:
        states: one list of traces per slider step.
        labels: the text under each step.
        base: an empty figure with axes (subplots) to fill; a plain figure by default.
        slider_title: shown before the current step's label.
        titles: an optional figure title per step.
        active: the step shown first.

    Returns:
        The Plotly figure.
    """
    if len(states) == 0:
        raise ValueError("states is empty; a slider needs at least one state")
    if len(labels) != len(states):
        raise ValueError(f"{len(labels)} labels for {len(states)} states; give one label per state")
    if titles is not None and len(titles) != len(states):
        raise ValueError(f"{len(titles)} titles for {len(states)} states; give one per state")
    active = checks.index(active, "active step", len(states), of="the steps")
    per_state = {len(state) for state in states}
    if len(per_state) != 1 or 0 in per_state:
        raise ValueError(f"every state needs the same, non-zero number of traces; got {sorted(per_state)}")
    traces_per_state = per_state.pop()

    figure = base if base is not None else go.Figure()
    for step, state in enumerate(states):
        for item in state:
            trace, row, col = item if isinstance(item, tuple) else (item, None, None)
            trace.visible = step == active
            if row is None:
                figure.add_trace(trace)
            else:
                figure.add_trace(trace, row=row, col=col)

    steps = []
    total = traces_per_state * len(states)
    for step, label in enumerate(labels):
        visible = [False] * total
        visible[step * traces_per_state:(step + 1) * traces_per_state] = [True] * traces_per_state
        layout_change = {"title.text": titles[step]} if titles is not None else {}
        steps.append(dict(method="update", label=str(label), args=[{"visible": visible}, layout_change]))

    style(figure, title=titles[active] if titles is not None else "", height=height)
    if len(states) == 1:  # one state: the same drawing, nothing to slide
        figure.update_layout(margin=dict(b=40))
        return figure
    figure.update_layout(
        sliders=[dict(
            active=active,
            steps=steps,
            currentvalue=dict(prefix=f"{slider_title}: " if slider_title else "", font=dict(size=14)),
            pad=dict(t=45, b=10),
            len=1.0,
        )],
        margin=dict(b=40),
    )
    return figure


def turn_slider(figure: go.Figure, *, step_degrees: int = 30, scene: str = "scene") -> go.Figure:
    """Give a 3-D view a slider that turns it around its vertical axis, ``step_degrees`` a step.

    A mouse or a finger turns a 3-D view by dragging it; a slider turns it in steps, which a
    reader who uses no pointer can take too, with a keyboard control that follows the slider.
    Each step puts the camera's eye on the circle of the view's own eye, at its height; step 0
    is the view as it was.

    Args:
        figure: a figure with a 3-D ``scene`` whose camera eye is set.
        step_degrees: the turn of one step; it divides 360 (15, 30, 45, 90, ...).

    Returns:
        The figure, with the slider below the view.
    """
    if not 0 < step_degrees < 360 or 360 % step_degrees:
        raise ValueError(f"step_degrees must divide 360 (e.g. 15, 30, 45), got {step_degrees}")
    eye = figure.layout[scene].camera.eye if scene in figure.layout else None
    if eye is None or eye.x is None or eye.y is None or eye.z is None:
        raise ValueError(f"the figure's {scene!r} has no camera eye to turn: set {scene}.camera.eye")
    radius, start = math.hypot(eye.x, eye.y), math.atan2(eye.y, eye.x)
    if radius == 0:
        raise ValueError("the camera looks straight down the vertical axis (eye x = y = 0): nothing to turn")
    steps = []
    for turn in range(0, 360, step_degrees):
        angle = start + math.radians(turn)
        turned = dict(x=round(radius * math.cos(angle), 4), y=round(radius * math.sin(angle), 4), z=eye.z)
        steps.append(dict(method="relayout", label=f"{turn}°", args=[{f"{scene}.camera.eye": turned}]))
    # The rail keeps 30 px from the figure's sides: a drag stops moving the slider when the
    # pointer leaves the figure, so a rail at its very edge could not be dragged to its ends.
    figure.update_layout(
        sliders=[dict(active=0, steps=steps, name="turn the view", len=1.0, pad=dict(t=10, b=10, l=30, r=30),
                      currentvalue=dict(prefix="turned: ", font=dict(size=14)))],
        margin=dict(b=70),
    )
    return figure


def matplotlib_colors(count: int, name: str = "tab10") -> list[str]:
    """``count`` distinct colours as hex strings, for plots that colour by group."""
    if count <= 0:
        raise ValueError(f"count must be positive, got {count}")
    cmap = matplotlib.colormaps[name]
    return [matplotlib.colors.to_hex(cmap(i % cmap.N)) for i in range(count)]


_register_notebook_display()
