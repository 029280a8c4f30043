"""Live explorers for lesson 8: RoPE's turning pairs and the context-extension methods (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
from IPython.display import display

from embedding_course.figures import rotary as figures


def rotation_explorer() -> widgets.Widget:
    """Sliders for the position, the head width and the base: every pair as a turning hand."""
    position = widgets.IntSlider(value=5, min=0, max=500, description="position", continuous_update=False)
    dim = widgets.IntSlider(
        value=16, min=4, max=64, step=2, description="head width", continuous_update=False
    )
    base = widgets.SelectionSlider(
        options=(100, 1000, 10000, 500000), value=10000, description="base", continuous_update=False
    )

    def show(position: int, dim: int, base: int) -> None:
        display(figures.rotation_explorer_figure(dim, float(base), positions=(position,)))

    return widgets.interactive(show, position=position, dim=dim, base=base)


def scaling_explorer() -> widgets.Widget:
    """Sliders for the scale factor, the trained context and the base: each method's wavelengths."""
    factor = widgets.SelectionSlider(
        options=(1, 2, 3, 4, 6, 8, 16, 32, 64), value=8, description="factor s", continuous_update=False
    )
    context = widgets.SelectionSlider(
        options=(2048, 4096, 8192, 32768), value=8192, description="trained", continuous_update=False
    )
    base = widgets.SelectionSlider(
        options=(10000, 500000, 1000000), value=500000, description="base", continuous_update=False
    )

    def show(factor: float, context: int, base: int) -> None:
        display(figures.scaling_explorer_figure(128, float(base), context, factors=(factor,)))

    return widgets.interactive(show, factor=factor, context=context, base=base)
