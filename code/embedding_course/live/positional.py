"""Live explorers for lesson 4: the sinusoidal table and one position's view of it (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
import torch
from IPython.display import display

from embedding_course import SEED, checks, plotting, positional, rope
from embedding_course.figures import positional as positional_figures

BASES = (10, 100, 1000, 10000, 100000)


def encoding_explorer() -> widgets.Widget:
    """Sliders for d_model, base, length and layout: the whole table as a heatmap."""
    d_model = widgets.IntSlider(value=64, min=2, max=512, step=2, description="d_model",
                                continuous_update=False)
    base = widgets.SelectionSlider(options=BASES, value=10000, description="base", continuous_update=False)
    max_len = widgets.IntSlider(value=100, min=1, max=1000, description="positions", continuous_update=False)
    layout = widgets.Dropdown(options=positional.LAYOUTS, value="interleaved", description="layout")

    def show(d_model: int, base: int, max_len: int, layout: str) -> None:
        table = positional.sinusoidal_encoding(max_len, d_model, base, layout=layout)
        longest = float(positional.wavelengths(d_model, base)[-1])
        print(f"table {tuple(table.shape)} on {table.device}; wavelengths 6.28 .. {longest:,.0f} positions")
        display(plotting.heatmap(table, title=f"d_model = {d_model}, base = {base} ({layout})",
                                 xlabel="dimension", ylabel="position", diverging=True, limits=(-1, 1)))

    return widgets.interactive(show, d_model=d_model, base=base, max_len=max_len, layout=layout)


def position_explorer(max_len: int = 100) -> widgets.Widget:
    """A position slider: that position's vector, and its cosine similarity to every position."""
    max_len = checks.whole(max_len, "max_len", hint="how many positions the slider runs over")
    position = widgets.IntSlider(value=10, min=0, max=max_len - 1, description="position",
                                 continuous_update=False)
    d_model = widgets.IntSlider(value=64, min=2, max=512, step=2, description="d_model",
                                continuous_update=False)

    def show(position: int, d_model: int) -> None:
        display(positional_figures.position_explorer_figure(max_len, d_model, positions=[position]))

    return widgets.interactive(show, position=position, d_model=d_model)


def rope_explorer() -> widgets.Widget:
    """Move a query and a key: the RoPE score changes only when their offset changes."""
    generator = torch.Generator().manual_seed(SEED)
    query, key = torch.randn(2, 16, generator=generator, dtype=torch.float64)
    query_position = widgets.IntSlider(value=3, min=0, max=200, description="query at",
                                       continuous_update=False)
    key_position = widgets.IntSlider(value=10, min=0, max=200, description="key at",
                                     continuous_update=False)

    def show(query_position: int, key_position: int) -> None:
        score = rope.rope_score(query, key, query_position, key_position)
        print(f"offset {key_position - query_position:+d}: score {score:+.6f}")

    return widgets.interactive(show, query_position=query_position, key_position=key_position)
