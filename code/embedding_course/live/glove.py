"""Live explorers for lesson 6: GloVe neighbours, analogies and projections (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
from IPython.display import Markdown, display

from embedding_course import checks, glove, projection
from embedding_course.figures import glove as glove_figures
from embedding_course.tables import markdown_table


def _show_error(error: Exception) -> None:
    print(str(error))


def neighbours_explorer(start: str = "frog") -> widgets.Widget:
    """Type a word (press Enter): its nearest neighbours among all 400,000 GloVe words."""
    start = checks.text(start, "start", hint="the word shown first")
    vectors = glove.load_glove()
    word = widgets.Text(value=start, description="word", continuous_update=False)
    k = widgets.IntSlider(value=10, min=1, max=30, description="neighbours", continuous_update=False)

    def show(word: str, k: int) -> None:
        try:
            found = vectors.neighbours(word.strip().lower(), k=k)
        except (KeyError, ValueError) as error:
            _show_error(error)
            return
        rows = [[rank, n.word, n.score] for rank, n in enumerate(found, start=1)]
        display(Markdown(markdown_table(["rank", "word", "cosine"], rows)))

    return widgets.interactive(show, word=word, k=k)


def analogy_explorer(base: str = "king", subtract: str = "man", add: str = "woman") -> widgets.Widget:
    """Three boxes for ``base - subtract + add``; the answers with or without the inputs excluded."""
    base, subtract = checks.text(base, "base"), checks.text(subtract, "subtract")
    add = checks.text(add, "add")
    vectors = glove.load_glove()
    boxes = {name: widgets.Text(value=value, description=name, continuous_update=False)
             for name, value in (("base", base), ("minus", subtract), ("plus", add))}
    exclude = widgets.Checkbox(value=True, description="exclude the three input words")

    def show(base: str, minus: str, plus: str, exclude: bool) -> None:
        try:
            found = vectors.analogy(base.strip().lower(), minus.strip().lower(), plus.strip().lower(),
                                    k=8, exclude_inputs=exclude)
        except (KeyError, ValueError) as error:
            _show_error(error)
            return
        rows = [[rank, n.word, n.score] for rank, n in enumerate(found, start=1)]
        print(f"{base} - {minus} + {plus} = ?")
        display(Markdown(markdown_table(["rank", "word", "cosine"], rows)))

    return widgets.interactive(show, **boxes, exclude=exclude)


def projection_explorer() -> widgets.Widget:
    """Choose word groups and 2-D or 3-D: a PCA of their GloVe vectors (hover for the word)."""
    vectors = glove.load_glove()
    names = list(glove.WORD_GROUPS)
    groups = widgets.SelectMultiple(options=names, value=("animals", "countries", "capitals", "food"),
                                    rows=8, description="groups")
    dims = widgets.ToggleButtons(options=[("2-D", 2), ("3-D", 3)], value=2, description="view")

    def show(groups: tuple[str, ...], dims: int) -> None:
        if not groups:
            print("Choose at least one group (Ctrl/Cmd-click to choose several).")
            return
        words, labels = glove.curated_words(names=list(groups))
        coords, pca = projection.project(vectors.vectors(words), dims)
        kept = 100 * pca.explained_variance_ratio.sum()
        display(glove_figures.scatter_figure(coords, words, labels, pca=pca, show_text=dims == 2,
                                          title=f"{len(words)} words, {kept:.0f}% of the variance shown"))

    return widgets.interactive(show, groups=groups, dims=dims)
