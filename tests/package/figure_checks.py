"""Checks on a matplotlib figure as a reader sees it, shared by the figure tests."""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

from embedding_course import plotting


def draw(figure):
    """Draw ``figure`` as its PNG is drawn (the constrained layout places everything) and
    return the renderer, to hand to the checks below: each draws the figure itself otherwise."""
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    return renderer


def assert_legends_read_whole(figure, smallest: float = plotting.NARROW_SMALLEST_TEXT, renderer=None) -> None:
    """Every legend of ``figure`` (its panels' and its own): text of at least ``smallest``
    points, all inside the figure, and a panel's legend over none of that panel's lines or points."""
    renderer = draw(figure) if renderer is None else renderer  # the constrained layout places the legends
    legends = [axes.get_legend() for axes in figure.axes if axes.get_legend()] + list(figure.legends)
    assert legends, "the figure has no legend"
    assert_no_legend_covers_its_data(figure, renderer)
    for legend in legends:
        names = [text.get_text() for text in legend.get_texts()]
        assert min(text.get_fontsize() for text in legend.get_texts()) >= smallest, names
        box, frame = legend.get_window_extent(renderer), figure.bbox
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, \
            f"legend {names} runs past the figure"


def assert_no_legend_covers_its_data(figure, renderer=None) -> None:
    """No panel's legend lies over (or runs up to) one of that panel's lines or points."""
    renderer = draw(figure) if renderer is None else renderer
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is not None:
            names = [text.get_text() for text in legend.get_texts()]
            assert not plotting._covers_data(axes, legend, renderer), f"legend {names} covers the data"


def assert_laid_out_apart(figure, renderer=None) -> None:
    """Each panel with its ticks, labels and title, and each legend of the figure's own, inside
    the figure (a pixel of rounding allowed) and clear of every other; a colour bar may sit
    under the overhang of its own panel's title or tick labels."""
    renderer = draw(figure) if renderer is None else renderer
    # (box, the artist, the panels it is the colour bar of)
    parts = [(axes.get_tightbbox(renderer), axes, getattr(axes, "_colorbar_info", {}).get("parents", []))
             for axes in figure.axes if axes.get_visible()]
    parts += [(legend.get_window_extent(renderer), legend, []) for legend in figure.legends]
    width, height = figure.bbox.width, figure.bbox.height
    for box, _, _ in parts:
        assert box.x0 >= -1 and box.x1 <= width + 1 and box.y0 >= -1 and box.y1 <= height + 1, box
    for index, (box, artist, parents) in enumerate(parts):
        for other_box, other, other_parents in parts[index + 1:]:
            if artist in other_parents or other in parents:
                continue
            assert not box.overlaps(other_box), (box, other_box)


def _texts(figure):
    """Every visible, non-empty text of ``figure`` that a reader reads: titles, axis labels, tick
    labels and their shared factor ("1e9"), other text, the colour bars' too (a legend counts as
    one box: its entries sit beside their handles). A heatmap's cell values are left out: each
    sits in its own cell."""
    texts = list(figure.texts)
    for axes in figure.axes:
        texts += [axes.title, axes._left_title, axes._right_title, axes.xaxis.label, axes.yaxis.label]
        for axis in (axes.xaxis, axes.yaxis):  # the ticks drawn: those inside the view
            texts += [label for tick in axis._update_ticks() for label in (tick.label1, tick.label2)]
            texts.append(axis.get_offset_text())  # "1e9" above the axis, when the ticks share one
        texts += [axes.get_legend()] if axes.get_legend() else []
        if not axes.images:
            texts += axes.texts
    texts += list(figure.legends)
    if figure._suptitle is not None:
        texts.append(figure._suptitle)
    return [text for text in texts if text.get_visible()
            and (not hasattr(text, "get_text") or text.get_text().strip())]


def _corners(text, renderer) -> np.ndarray:
    """The four corners of a text's box on the screen, turned as the text is (a legend: its box)."""
    box = text.get_window_extent(renderer)
    degrees = text.get_rotation() if hasattr(text, "get_rotation") else 0.0
    if degrees % 90 == 0:  # upright or on its side: the box on the screen is the text's own
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    lines = [renderer.get_text_width_height_descent(line, text.get_fontproperties(), ismath=False)
             for line in text.get_text().split("\n")]
    half = np.array([max(width for width, _, _ in lines), sum(height for _, height, _ in lines)]) / 2
    angle = np.radians(degrees)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    return np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]) + (signs * half) @ turn.T


def _overlap(first: np.ndarray, second: np.ndarray, tolerance: float = 1.0) -> bool:
    """Whether two boxes (corners, any turn) overlap by more than ``tolerance`` pixels: no edge
    direction of either separates them (the separating axis test)."""
    for corners in (first, second):
        for edge in np.diff(np.vstack([corners, corners[:1]]), axis=0):
            normal = np.array([-edge[1], edge[0]]) / np.hypot(*edge)
            a, b = first @ normal, second @ normal
            if min(a.max(), b.max()) - max(a.min(), b.min()) <= tolerance:
                return False
    return True


SIDE_MARGIN = 3.0  # px: a text this close to a side of the figure reads as touching the page's edge
FACTOR_GAP = 8.0  # px: an axis's shared factor ("1e9") this close to another text reads as one word with it


def assert_text_reads_whole(figure, renderer=None) -> None:
    """No text of ``figure`` runs past its edges or overlaps another text (``_texts``), and none
    comes within ``SIDE_MARGIN`` of its left or right side (a title that matplotlib wraps at
    the figure's width can end there)."""
    renderer = draw(figure) if renderer is None else renderer
    frame = figure.bbox
    texts = _texts(figure)
    boxes = [text.get_window_extent(renderer) for text in texts]
    names = [text.get_text() if hasattr(text, "get_text") else "legend" for text in texts]
    cut = [name for name, box in zip(names, boxes, strict=True) if box.x0 < frame.x0 - 1
           or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1]
    assert not cut, f"text past the figure's edge: {cut}"
    touching = [name for name, box in zip(names, boxes, strict=True)
                if box.x0 < frame.x0 + SIDE_MARGIN or box.x1 > frame.x1 - SIDE_MARGIN]
    assert not touching, f"text within {SIDE_MARGIN:g} px of the figure's side: {touching}"
    corners = [_corners(text, renderer) for text in texts]
    # an axis's shared factor ("1e9") reads as part of a text it nearly touches ("1e9Extrapolation")
    factors = {id(axis.get_offset_text()) for axes in figure.axes for axis in (axes.xaxis, axes.yaxis)}
    corners = [corner + np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * FACTOR_GAP if id(text) in factors
               else corner for text, corner in zip(texts, corners, strict=True)]
    overlapping = [(names[i], names[j]) for i in range(len(texts)) for j in range(i + 1, len(texts))
                   if _overlap(corners[i], corners[j])]
    assert not overlapping, f"texts drawn over each other: {overlapping}"


def assert_text_clear_of_rules(figure, renderer=None) -> None:
    """No text written in a panel (a note such as "chance 0.125") is crossed by one of that
    panel's straight rules: a line at one x (``axvline``, a marked length) or at one y
    (``axhline``, a level), a pixel of rounding allowed."""
    renderer = draw(figure) if renderer is None else renderer
    crossed = []
    for axes in figure.axes:
        notes = [text for text in axes.texts if text.get_visible() and text.get_text().strip()]
        for line in axes.lines:
            points = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
            if len(points) < 2 or not line.get_visible():
                continue
            (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
            for text in notes:
                box = text.get_window_extent(renderer)
                if x1 - x0 < 0.5:  # at one x
                    hit = box.x0 + 1 < x0 < box.x1 - 1 and box.y0 < y1 and y0 < box.y1
                elif y1 - y0 < 0.5:  # at one y
                    hit = box.y0 + 1 < y0 < box.y1 - 1 and box.x0 < x1 and x0 < box.x1
                else:
                    continue
                if hit:
                    crossed.append(text.get_text())
    assert not crossed, f"a rule of the panel runs through: {crossed}"


def assert_markers_drawn_whole(figure, renderer=None) -> None:
    """Every marker of a line or a scatter that its panel shows lies whole inside that panel: a
    point on the panel's edge is drawn half cut off."""
    if renderer is None:
        draw(figure)  # the constrained layout places the panels
    for axes in figure.axes:
        frame = axes.bbox
        for line in axes.get_lines():
            if line.get_marker() in (None, "", " ", "None") or not line.get_visible():
                continue
            radius = line.get_markersize() / 2 * figure.dpi / 72  # points to px
            points = axes.transData.transform(np.column_stack(line.get_data()).astype(float))
            for x, y in points[np.isfinite(points).all(axis=1)]:
                if frame.x0 - radius < x < frame.x1 + radius and frame.y0 - radius < y < frame.y1 + radius:
                    assert (frame.x0 + radius <= x <= frame.x1 - radius
                            and frame.y0 + radius <= y <= frame.y1 - radius), (
                        f"a marker of {line.get_label()!r} is cut off at the edge of its panel "
                        f"{axes.get_title()!r}")


def assert_lesson_figure_reads_whole(figure) -> None:
    """A lesson's static figure: at most ``plotting.WIDEST`` wide (so a desktop column shows its
    text at 10 px or more), no text past the edge or over another, wide and in its phone
    drawing, and in that drawing, where the panels are stacked, no panel over another; no
    marker cut off at a panel's edge, and no note in a panel crossed by its rules."""
    assert figure.get_figwidth() <= plotting.WIDEST
    narrow = plotting.narrow_figure(figure)
    wide_drawn, narrow_drawn = draw(figure), draw(narrow)  # once each: the checks only read
    assert_text_reads_whole(figure, wide_drawn)
    assert_text_reads_whole(narrow, narrow_drawn)
    assert_no_legend_covers_its_data(figure, wide_drawn)
    assert_laid_out_apart(narrow, narrow_drawn)
    assert_markers_drawn_whole(figure, wide_drawn)
    assert_markers_drawn_whole(narrow, narrow_drawn)
    assert_text_clear_of_rules(figure, wide_drawn)
    assert_text_clear_of_rules(narrow, narrow_drawn)
