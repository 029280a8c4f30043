"""Live explorers for lesson 3: the lookup and the toy training run (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
from IPython.display import display

from embedding_course import training
from embedding_course.figures import lookup as lookup_figures
from embedding_course.figures import training as training_figures


def lookup_explorer(dim: int = 6) -> widgets.Widget:
    """One dropdown per position: choose the tokens, see which rows are read and the vectors."""
    vocabulary, table, encoded = lookup_figures.explorer_setup(dim=dim)
    words = vocabulary.id_to_token
    dropdowns = {f"position_{t}": widgets.Dropdown(options=words, value=words[token_id],
                                                   description=f"pos {t}")
                 for t, token_id in enumerate(encoded[0])}

    def show(**chosen: str) -> None:
        token_ids = [vocabulary.token_to_id[chosen[f"position_{t}"]] for t in range(len(chosen))]
        display(lookup_figures.lookup_view_figure(vocabulary, table, [token_ids]))

    return widgets.interactive(show, **dropdowns)


def training_explorer(dim: int = 16, steps: int = 300) -> widgets.Widget:
    """Train the toy embeddings once, then slide over the snapshots of their similarity."""
    run = training.train_toy_embeddings(dim=dim, steps=steps)
    slider = widgets.SelectionSlider(options=[(str(step), i) for i, step in enumerate(run.steps)],
                                     value=0, description="step", continuous_update=False)

    def show(index: int) -> None:
        within, across = training.group_similarity(run.snapshots[index], run.groups)
        print(f"mean cosine within groups {within:.3f}, across groups {across:.3f}")
        display(training_figures.similarity_heatmap(run, index))

    return widgets.interactive(show, index=slider)
