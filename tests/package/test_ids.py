"""Lesson 1's map analogy and real tokenizer IDs: IDs are labels, coordinates carry distance."""

import math

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from embedding_course import ids
from embedding_course.figures import tokens as token_figures


def test_city_ids_are_alphabetical():
    names = ids.city_names()
    assert names == sorted(names)
    assert ids.city_id(names[0]) == 0
    assert ids.city_id("Vienna") == names.index("Vienna")


def test_unknown_city_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown city 'Atlantis'; known cities: Amsterdam"):
        ids.city_id("Atlantis")


def test_great_circle_distance_paris_berlin():
    paris, berlin = ids.CITIES[ids.city_id("Paris")], ids.CITIES[ids.city_id("Berlin")]
    assert ids.great_circle_km(paris, berlin) == pytest.approx(878, abs=10)  # known ~878 km
    assert ids.great_circle_km(paris, paris) == 0.0
    assert ids.great_circle_km(paris, berlin) == pytest.approx(ids.great_circle_km(berlin, paris))


def test_great_circle_rejects_non_cities():
    with pytest.raises(ValueError, match="expected a City, got str"):
        ids.great_circle_km("Paris", ids.CITIES[0])


def test_city_pairs_cover_every_pair_once():
    pairs = ids.city_pairs()
    count = len(ids.CITIES)
    assert len(pairs) == count * (count - 1) // 2
    assert all(gap >= 1 and km > 0 for _, _, gap, km in pairs)


def test_id_gap_barely_predicts_distance():
    assert abs(ids.id_gap_distance_correlation()) < 0.3


def test_neighbouring_ids_far_apart_is_the_largest_gap_one_pair():
    first, second, km = ids.neighbouring_ids_far_apart()
    assert abs(ids.city_id(first) - ids.city_id(second)) == 1
    assert km == max(k for _, _, gap, k in ids.city_pairs() if gap == 1)
    assert km > 1500


def test_wordpiece_tokens_pairs_tokens_with_ids():
    pairs = ids.wordpiece_tokens("The cat")
    assert pairs == [("[CLS]", 101), ("the", 1996), ("cat", 4937), ("[SEP]", 102)]


@pytest.mark.parametrize(("text", "message"), [("", "text is empty"), ("   ", "text is empty"),
                                                (5, "text must be a string")])
def test_wordpiece_tokens_rejects_bad_text(text, message):
    with pytest.raises(ValueError, match=message):
        ids.wordpiece_tokens(text)


def test_format_token_ids_aligns_columns():
    lines = ids.format_token_ids([("a", 1000), ("bcdef", 2)]).splitlines()
    assert lines[0].index("bcdef") == lines[1].index("2")


def test_format_token_ids_rejects_empty():
    with pytest.raises(ValueError, match="pairs is empty"):
        ids.format_token_ids([])


def test_id_neighbours_are_centred_and_clipped():
    around_cat = ids.id_neighbours(4937, span=2)
    assert [i for i, _ in around_cat] == [4935, 4936, 4937, 4938, 4939]
    assert dict(around_cat)[4937] == "cat"
    assert [i for i, _ in ids.id_neighbours(0, span=2)] == [0, 1, 2]


@pytest.mark.parametrize(("token_id", "error", "message"), [
    (30_522, IndexError, r"token_id 30522 is outside the vocabulary \(0..30521\)"),
    (-1, IndexError, "outside the vocabulary"),
    (2.0, ValueError, "token_id must be a whole number"),
])
def test_id_neighbours_rejects_bad_ids(token_id, error, message):
    with pytest.raises(error, match=message):
        ids.id_neighbours(token_id)


def test_id_neighbours_rejects_bad_span():
    with pytest.raises(ValueError, match="span must be a whole number >= 0"):
        ids.id_neighbours(10, span=-1)


def test_figures_are_matplotlib_figures():
    for figure in (token_figures.map_analogy_figure(), token_figures.id_gap_figure()):
        assert isinstance(figure, Figure)
    assert len(token_figures.map_analogy_figure().axes) == 2
    assert math.isclose(ids.EARTH_RADIUS_KM, 6371.0)


def test_the_map_s_city_labels_stay_apart_and_by_their_own_city_wide_and_on_a_phone():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from embedding_course import plotting

    wide = token_figures.map_analogy_figure()
    for figure in (wide, plotting.narrow_figure(wide)):
        plotting.figure_png(figure)  # lays it out
        renderer = FigureCanvasAgg(figure).get_renderer()
        by_place = figure.axes[1]
        labels = [text.get_window_extent(renderer) for text in by_place.texts]
        dots = by_place.transData.transform([(city.longitude, city.latitude) for city in ids.CITIES])
        assert len(labels) == len(ids.CITIES)
        for index, label in enumerate(labels):
            assert by_place.bbox.contains(label.x0, label.y0) and by_place.bbox.contains(label.x1, label.y1)
            for other in labels[index + 1:]:
                assert not label.overlaps(other), (by_place.texts[index].get_text(), other)
            for city, (x, y) in enumerate(dots):  # a dot is about 8 px across
                if city != index:
                    assert not label.expanded(1, 1).overlaps(type(label).from_bounds(x - 4, y - 4, 8, 8)), (
                        by_place.texts[index].get_text(), ids.CITIES[city].name)
            # read with its own dot: no other dot is as near the label
            gaps = [math.hypot(max(label.x0 - x, 0, x - label.x1), max(label.y0 - y, 0, y - label.y1))
                    for x, y in dots]
            assert int(np.argmin(gaps)) == index, (by_place.texts[index].get_text(), gaps)


def test_id_vs_vector_rows_compares_gaps_with_learned_similarity():
    rows = ids.id_vs_vector_rows("cat", ["anthony", "kitten"])
    (anthony, anthony_id, anthony_gap, anthony_cos), (kitten, _, kitten_gap, kitten_cos) = rows
    assert (anthony, kitten) == ("anthony", "kitten")
    assert anthony_id == 4938 and anthony_gap == 1
    assert kitten_gap > 10_000
    assert kitten_cos > 0.4 > anthony_cos  # far by ID, close in meaning; and the other way round


def test_id_vs_vector_rows_with_a_given_table():
    import numpy as np

    class Tiny:
        def token_to_id(self, word):
            return {"a": 0, "b": 1, "c": 2}.get(word)

    table = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    rows = ids.id_vs_vector_rows("a", ["b", "c"], tokenizer=Tiny(), table=table)
    assert rows[0] == ("b", 1, 1, 0.0)
    assert rows[1][3] == pytest.approx(2 ** -0.5)
    with pytest.raises(ValueError, match=r"table must have shape \(vocab_size, dim\) with a row for id 2"):
        ids.id_vs_vector_rows("a", ["c"], tokenizer=Tiny(), table=table[:2])
    trainable = torch.nn.Parameter(torch.as_tensor(table))  # e.g. a model's token table
    assert ids.id_vs_vector_rows("a", ["b", "c"], tokenizer=Tiny(), table=trainable) == rows


@pytest.mark.parametrize(("others", "message"), [
    ([], "others must be a non-empty list"), ("dog", "others must be a non-empty list"),
    (["embeddings"], "'embeddings' is not a single token"),
])
def test_id_vs_vector_rows_rejects_bad_words(others, message):
    with pytest.raises(ValueError, match=message):
        ids.id_vs_vector_rows("cat", others)


def test_id_vs_vector_table_is_text_rows_under_a_header():
    header, rows = ids.id_vs_vector_table("cat", ["dog", "kitten"])
    assert header == ["word", "ID", "ID gap to 'cat'", "cosine of the learned vectors with 'cat'"]
    assert rows[0][:3] == ["dog", "3899", "1,038"]  # "cat" is 4937
    assert rows[1][2] == "13,464" and rows[1][3] == f"{ids.id_vs_vector_rows('cat', ['kitten'])[0][3]:.2f}"
    assert all(isinstance(cell, str) for row in rows for cell in row)


def test_wordpiece_still_returns_unk_for_symbols_and_overlong_words():
    assert [t for t, _ in ids.wordpiece_tokens("I am happy 🙂")][-2] == "[UNK]"
    assert [t for t, _ in ids.wordpiece_tokens("Let it snow ☃")][-2] == "[UNK]"
    # an unknown character takes its whole word with it (lesson 1: "happy🙂")
    assert [t for t, _ in ids.wordpiece_tokens("I am happy🙂")] == ["[CLS]", "i", "am", "[UNK]", "[SEP]"]
    longest = ids.wordpiece_max_word_length()
    assert longest == 100
    assert ids.wordpiece_tokens("a" * (longest + 1))[1][0] == "[UNK]"
    assert "[UNK]" not in [t for t, _ in ids.wordpiece_tokens("a" * longest)]


def test_neighbours_by_id_are_the_surrounding_ids_and_unrelated():
    cat_id = ids.wordpiece_tokens("cat")[1][1]
    rows = ids.neighbours_by_id("cat", span=4)
    assert [token_id for _, token_id, _ in rows] == [i for i in range(cat_id - 4, cat_id + 5) if i != cat_id]
    assert max(cosine for _, _, cosine in rows) < 0.3  # neighbours by number, strangers by meaning


def test_neighbours_by_vector_are_related_words_far_away_in_id():
    cat_id = ids.wordpiece_tokens("cat")[1][1]
    rows = ids.neighbours_by_vector("cat", k=6)
    tokens = [token for token, _, _ in rows]
    assert {"cats", "kitten", "dog"} <= set(tokens)
    cosines = [cosine for _, _, cosine in rows]
    assert cosines == sorted(cosines, reverse=True) and min(cosines) > 0.35
    assert all(abs(token_id - cat_id) > 100 for _, token_id, _ in rows)
    assert all(ids.is_whole_word(token) for token in tokens) and "cat" not in tokens


def test_neighbours_match_a_direct_cosine():
    from embedding_course import pretrained
    from embedding_course.similarity import cosine_similarity_matrix

    table = pretrained.bert_token_table()
    _, token_id, cosine = ids.neighbours_by_vector("king", k=1)[0]
    expected = cosine_similarity_matrix(table[[ids.wordpiece_tokens("king")[1][1], token_id]])[0, 1]
    assert cosine == pytest.approx(float(expected), abs=1e-5)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: ids.neighbours_by_id("embeddings"), ValueError, "not a single token"),
    (lambda: ids.neighbours_by_id(3), ValueError, "not a single token"),
    (lambda: ids.neighbours_by_id("cat", span=0), ValueError, "span must be a whole number >= 1"),
    (lambda: ids.neighbours_by_vector("cat", k=True), ValueError, "k must be a whole number >= 1"),
    (lambda: ids.neighbours_by_vector("cat", table=np.zeros((5, 3))), ValueError, "table must have shape"),
])
def test_neighbour_functions_reject_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_is_whole_word():
    assert ids.is_whole_word("cat") and not ids.is_whole_word("##s")
    assert not ids.is_whole_word("[CLS]") and not ids.is_whole_word(",") and not ids.is_whole_word("1915")
