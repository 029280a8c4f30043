"""Figures for the course: static matplotlib plots and interactive Plotly plots.

Every function returns the figure it made; nothing is shown or saved here. Static
figures (matplotlib) print well; interactive ones (Plotly) carry every slider state,
computed in advance, so a page needs only JavaScript to explore them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
import plotly.graph_objects as go
from matplotlib.figure import Figure

from embedding_course import web  # noqa: F401 - on the static site, switches Plotly to its renderer

# Colour maps: a diverging one centred on zero for signed values (encodings, weights),
# a sequential one for values that only grow (norms, counts, memory).
DIVERGING = "RdBu_r"
SEQUENTIAL = "viridis"
PLOTLY_DIVERGING = "RdBu"  # Plotly's RdBu runs red -> blue; reversed below so blue is negative
PLOTLY_SEQUENTIAL = "Viridis"
PALETTE = ["#2b6cb0", "#dd6b20", "#2f855a", "#c53030", "#6b46c1", "#b7791f", "#319795", "#d53f8c"]

_FONT = dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", size=13)


def as_array(values, name: str = "values", ndim: int | None = None) -> np.ndarray:
    """Turn a tensor, list or array into a float NumPy array, checking its rank."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        raise ValueError(f"{name} is empty; there is nothing to plot")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {array.shape}")
    return array


def figure_png(figure: Figure) -> bytes:
    """The PNG bytes of a figure, small and reproducible.

    The image is reduced to a 256-colour palette (heatmaps of noisy tables are otherwise
    near 1 MB) and carries no timestamp, so two builds give identical files.
    """
    from PIL import Image

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    buffer.seek(0)
    image = Image.open(buffer).convert("RGB")
    palette = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    output = io.BytesIO()
    palette.save(output, format="PNG", optimize=True)
    return output.getvalue()


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


def _symmetric_limit(matrix: np.ndarray) -> float:
    limit = float(np.nanmax(np.abs(matrix)))
    return limit if limit > 0 else 1.0


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
    matrix = as_array(matrix, "matrix", ndim=2)
    figure = _new_figure(*size)
    axes = figure.add_subplot()
    if limits is None and diverging:
        limit = _symmetric_limit(matrix)
        limits = (-limit, limit)
    vmin, vmax = limits if limits is not None else (None, None)
    image = axes.imshow(
        matrix,
        cmap=DIVERGING if diverging else SEQUENTIAL,
        vmin=vmin,
        vmax=vmax,
        aspect="auto",
        interpolation="nearest",
    )
    colorbar = figure.colorbar(image, ax=axes)
    if colorbar_label:
        colorbar.set_label(colorbar_label)
    if xticklabels is not None:
        axes.set_xticks(range(len(xticklabels)), labels=list(xticklabels), rotation=45, ha="right")
    if yticklabels is not None:
        axes.set_yticks(range(len(yticklabels)), labels=list(yticklabels))
    if annotate:
        low, high = image.get_clim()
        middle = (low + high) / 2
        for (row, col), value in np.ndenumerate(matrix):
            dark_cell = value > middle if not diverging else abs(value) > 0.6 * max(abs(low), abs(high))
            axes.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=8,
                      color="white" if dark_cell else "black")
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
    x = as_array(x, "x", ndim=1)
    if not series:
        raise ValueError("series is empty; give at least one name -> values pair")
    figure = _new_figure(*size)
    axes = figure.add_subplot()
    for index, (name, values) in enumerate(series.items()):
        values = as_array(values, f"series {name!r}", ndim=1)
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
    values = as_array(values, "values", ndim=1)
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


# ---------------------------------------------------------------- interactive (Plotly)

def _compact(values) -> np.ndarray:
    """float32 is plenty for a figure and halves the page weight of the stored states."""
    array = as_array(values)
    return array.astype(np.float32)


def style(figure: go.Figure, *, title: str = "", height: int = 420) -> go.Figure:
    """Apply the course's look to a Plotly figure and return it."""
    figure.update_layout(
        title=dict(text=title, x=0.02, xanchor="left"),
        height=height,
        margin=dict(l=60, r=30, t=60 if title else 30, b=50),
        font=_FONT,
        template="plotly_white",
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        colorway=PALETTE,
    )
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
    matrix = as_array(matrix, "matrix", ndim=2)
    if limits is None and diverging:
        limit = _symmetric_limit(matrix)
        limits = (-limit, limit)
    trace = go.Heatmap(
        z=_compact(matrix),
        x=x,
        y=y,
        colorscale=PLOTLY_DIVERGING if diverging else PLOTLY_SEQUENTIAL,
        reversescale=diverging,
        zmin=limits[0] if limits else None,
        zmax=limits[1] if limits else None,
        zmid=0.0 if diverging and limits is None else None,
        colorbar=dict(title=dict(text=colorbar_title)),
        hovertemplate=hovertemplate or "row %{y}<br>col %{x}<br>value %{z:.3f}<extra></extra>",
        showscale=showscale,
        visible=visible,
    )
    return trace


def interactive_heatmap(matrix, *, title: str = "", xlabel: str = "", ylabel: str = "",
                        diverging: bool = False, height: int = 420, **trace_options) -> go.Figure:
    """An interactive heatmap (hover shows each value)."""
    figure = go.Figure(heatmap_trace(matrix, diverging=diverging, **trace_options))
    figure.update_xaxes(title_text=xlabel)
    figure.update_yaxes(title_text=ylabel, autorange="reversed")
    return style(figure, title=title, height=height)


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
    it works on a static page with JavaScript alone, no kernel needed.

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
    if not 0 <= active < len(states):
        raise IndexError(f"active step {active} is outside 0..{len(states) - 1}")
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


def matplotlib_colors(count: int, name: str = "tab10") -> list[str]:
    """``count`` distinct colours as hex strings, for plots that colour by group."""
    if count <= 0:
        raise ValueError(f"count must be positive, got {count}")
    cmap = matplotlib.colormaps[name]
    return [matplotlib.colors.to_hex(cmap(i % cmap.N)) for i in range(count)]


_register_notebook_display()
