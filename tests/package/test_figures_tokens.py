"""Lesson 1's explorer: a token's neighbours by ID next to its neighbours by learned vector."""

import plotly.graph_objects as go
import pytest

from embedding_course import ids
from embedding_course.figures import tokens


def test_explorer_has_one_menu_entry_per_word_and_starts_on_the_first():
    figure = tokens.token_neighbours_figure(words=("cat", "king"), span=3, k=5)
    assert isinstance(figure, go.Figure)
    menu = figure.layout.updatemenus[0]
    assert menu.name == "token" and [button.label for button in menu.buttons] == ["cat", "king"]
    assert menu.active == 0
    assert len(figure.data) == 2 and len(figure.data[0].y) == 6 and len(figure.data[1].y) == 5
    assert "cat" in figure.layout.title.text


def test_each_menu_entry_shows_that_words_neighbours():
    figure = tokens.token_neighbours_figure(words=("cat", "king"), span=3, k=5, start="king")
    assert figure.layout.updatemenus[0].active == 1
    data, layout, traces = figure.layout.updatemenus[0].buttons[0].args
    assert list(traces) == [0, 1] and "cat" in layout["title.text"]
    by_id, by_vector = ids.neighbours_by_id("cat", span=3), ids.neighbours_by_vector("cat", k=5)
    assert list(data["y"][0]) == [f"{token} ({token_id})" for token, token_id, _ in by_id]
    assert list(data["y"][1]) == [f"{token} ({token_id})" for token, token_id, _ in by_vector]
    assert list(data["x"][1]) == [pytest.approx(cosine, abs=1e-4) for _, _, cosine in by_vector]
    # The point of the figure: the vector neighbours are far more alike than the ID neighbours.
    assert min(data["x"][1]) > max(data["x"][0])


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(words=[]), r"^words is empty; give at least one token$"),
    (dict(words="cat"), r"^words must be a list of tokens, got 'cat'$"),
    (dict(words=("cat",), start="dog"), "start 'dog' is not one of words"),
    (dict(words=("cat", "embeddings")), "not a single token"),
])
def test_explorer_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tokens.token_neighbours_figure(**kwargs)
