"""GloVe 6B 50d: loading, lookup, neighbours, analogies, tables and bad inputs.

One memory-mapped table is shared by the whole module (it loads in well under a second).
"""


import numpy as np
import pytest

from embedding_course import glove
from embedding_course.figures import glove as glove_figures


@pytest.fixture(scope="module")
def vectors() -> glove.WordVectors:
    return glove.load_glove()


def test_table_shape_and_memory_map(vectors):
    assert len(vectors) == 400_000 and vectors.dim == 50
    assert vectors.table.dtype == np.float32
    assert isinstance(vectors.table, np.memmap)  # not read into memory
    assert vectors.words[:3] == ["the", ",", "."]  # most frequent first
    assert "king" in vectors and "King" not in vectors and 3 not in vectors


def test_load_is_cached():
    assert glove.load_glove() is glove.load_glove()


def test_lookup_returns_the_row(vectors):
    row = vectors.row("queen")
    assert vectors.words[row] == "queen"
    np.testing.assert_array_equal(vectors.vector("queen"), vectors.table[row])
    assert vectors.vectors(["king", "queen"]).shape == (2, 50)


def test_norms_are_cached_and_correct(vectors):
    assert vectors.norms is vectors.norms
    rows = vectors.rows(["king", "the", "zebra"])
    np.testing.assert_allclose(vectors.norms[rows], np.linalg.norm(vectors.table[rows], axis=1), rtol=1e-5)


def test_similarity_is_cosine(vectors):
    king, queen = vectors.vector("king"), vectors.vector("queen")
    expected = king @ queen / np.linalg.norm(king) / np.linalg.norm(queen)
    assert vectors.similarity("king", "queen") == pytest.approx(float(expected), abs=1e-6)
    matrix = vectors.similarity_matrix(["king", "queen", "frog"])
    assert matrix.shape == (3, 3) and matrix[0, 1] == pytest.approx(float(expected), abs=1e-5)


def test_neighbours_exclude_the_word_and_are_sorted(vectors):
    found = vectors.neighbours("frog", k=5)
    words = [n.word for n in found]
    scores = [n.score for n in found]
    assert len(found) == 5 and "frog" not in words and "toad" in words
    assert scores == sorted(scores, reverse=True) and all(-1 <= s <= 1 for s in scores)
    with_self = vectors.neighbours("frog", k=2, exclude=[])
    assert with_self[0].word == "frog" and with_self[0].score == pytest.approx(1.0, abs=1e-5)


def test_neighbours_of_a_vector_and_of_many_words_agree(vectors):
    by_vector = vectors.neighbours(vectors.vector("paris"), k=4, exclude=["paris"])
    by_word = vectors.neighbours("paris", k=4)
    many = vectors.neighbours_of_many(["paris", "frog"], k=4)
    assert [n.word for n in by_vector] == [n.word for n in by_word] == [n.word for n in many["paris"]]
    np.testing.assert_allclose([n.score for n in many["paris"]], [n.score for n in by_word], atol=1e-5)


def _five_words(zero_row: int | None = None) -> glove.WordVectors:
    table = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)  # (V, d)
    if zero_row is not None:
        table[zero_row] = 0.0
    return glove.WordVectors(table, ["a", "b", "c", "d", "e"])


def test_neighbours_of_many_give_what_neighbours_gives_even_past_the_vocabulary():
    small = _five_words()
    many = small.neighbours_of_many(["a", "c"], k=10)  # only 4 other words
    for word in ("a", "c"):
        one = small.neighbours(word, k=10)
        assert [n.word for n in many[word]] == [n.word for n in one] and len(one) == 4
        np.testing.assert_allclose([n.score for n in many[word]], [n.score for n in one], atol=1e-6)


def test_neighbours_of_many_refuse_a_zero_vector_like_neighbours():
    small = _five_words(zero_row=2)
    with pytest.raises(ValueError, match="zero vector"):
        small.neighbours("c")
    with pytest.raises(ValueError, match="'c' is a zero vector"):
        small.neighbours_of_many(["a", "c"])
    assert dict(small.neighbours_of_many(["a"], k=4)["a"])["c"] == 0.0  # a zero row scores 0, as there


def test_band_cosines_refuse_a_zero_vector():
    with pytest.raises(ValueError, match=r"^the vector of 'd' \(rank 4\) is all zeros; cosine similarity "
                                         r"needs a direction$"):
        glove.band_cosines(_five_words(zero_row=3), bands=((1, 5),), sample=3)


def test_king_minus_man_plus_woman_is_queen(vectors):
    answer = vectors.analogy("king", "man", "woman", k=3)
    assert answer[0].word == "queen"
    assert answer[0].score == pytest.approx(0.852, abs=0.001)  # 3CosAdd: unit-length vectors
    assert not {"king", "man", "woman"} & {n.word for n in answer}
    raw = vectors.analogy("king", "man", "woman", k=1, normalise=False)[0]
    assert raw.word == "queen" and raw.score == pytest.approx(0.861, abs=0.001)


def test_analogy_vector_adds_unit_vectors_by_default(vectors):
    unit = [vectors.vector(w) / np.linalg.norm(vectors.vector(w)) for w in ("king", "man", "woman")]
    np.testing.assert_allclose(vectors.analogy_vector("king", "man", "woman"), unit[0] - unit[1] + unit[2],
                               rtol=1e-6)
    raw = vectors.vector("king") - vectors.vector("man") + vectors.vector("woman")
    np.testing.assert_allclose(vectors.analogy_vector("king", "man", "woman", normalise=False), raw)


def test_rome_minus_italy_plus_spain_is_madrid_only_when_normalised(vectors):
    assert vectors.analogy("rome", "italy", "spain", k=1)[0].word == "madrid"
    assert round(vectors.analogy("rome", "italy", "spain", k=1)[0].score, 3) == 0.719
    assert vectors.analogy("rome", "italy", "spain", k=1, normalise=False)[0].word == "juan"
    assert vectors.analogy_rank("rome", "italy", "spain", "madrid", normalise=False).rank == 4


@pytest.mark.parametrize(("question", "answer", "expected", "rank"), [
    (("went", "go", "see"), "came", "saw", 2),
    (("ate", "eat", "go"), "got", "went", 4),
    (("bigger", "big", "small"), "larger", "smaller", 2),
])
def test_analogies_that_fail_under_3cosadd(vectors, question, answer, expected, rank):
    top = vectors.analogy(*question, k=rank)
    assert top[0].word == answer
    found = vectors.analogy_rank(*question, expected)
    assert found.rank == rank and top[rank - 1].word == expected
    assert found.score == pytest.approx(top[rank - 1].score)


def test_went_go_see_is_a_near_miss(vectors):
    came, saw = vectors.analogy("went", "go", "see", k=2)
    assert (round(came.score, 3), round(saw.score, 3)) == (0.902, 0.898)


def test_analogy_rank_refuses_an_input_word(vectors):
    with pytest.raises(ValueError, match="inputs"):
        vectors.analogy_rank("king", "man", "woman", "king")


def test_expected_answer_table_shows_both_recipes(vectors):
    table = glove.expected_answer_table(vectors, [("rome", "italy", "spain", "madrid")])
    assert "3CosAdd" in table and "raw vectors" in table
    assert "madrid (0.719) | 1 (0.719) | juan" in table
    with pytest.raises(ValueError, match="quadruples"):
        glove.expected_answer_table(vectors, [])


def test_without_excluding_inputs_the_top_answer_is_king(vectors):
    answer = vectors.analogy("king", "man", "woman", k=2, exclude_inputs=False)
    assert [n.word for n in answer] == ["king", "queen"]


def test_paris_minus_france_plus_germany_is_berlin(vectors):
    assert vectors.analogy("paris", "france", "germany", k=1)[0].word == "berlin"


def test_results_are_deterministic(vectors):
    assert vectors.neighbours("music", k=6) == vectors.neighbours("music", k=6)
    assert vectors.analogy("tokyo", "japan", "france") == vectors.analogy("tokyo", "japan", "france")


def test_direction_scores_lean_as_expected(vectors):
    scores = vectors.direction_scores(["king", "queen"], positive="he", negative="she")
    assert scores[0] > scores[1]


def test_unknown_word_suggests_close_matches_fast(vectors, monkeypatch):
    """Fast by construction: the spelling match scans a few frequent words, never the vocabulary."""
    scanned = []
    close_matches = glove.difflib.get_close_matches

    def counting(word, candidates, **options):
        scanned.append(len(candidates))
        return close_matches(word, candidates, **options)

    monkeypatch.setattr(glove.difflib, "get_close_matches", counting)
    expected = "'qeen' is not in the GloVe vocabulary; did you mean 'queen'"
    with pytest.raises(glove.UnknownWordError, match=expected):
        vectors.vector("qeen")
    assert scanned and max(scanned) <= glove.SUGGESTION_POOL < len(vectors) // 10
    with pytest.raises(KeyError, match="lower-case"):  # a KeyError subclass
        vectors.row("Paris")
    with pytest.raises(glove.UnknownWordError) as caught:
        vectors.row("elephnt")
    error = caught.value
    assert error.word == "elephnt" and "elephant" in error.suggestions


def test_no_suggestion_for_gibberish(vectors):
    with pytest.raises(glove.UnknownWordError, match="no close match"):
        vectors.row("qzxqzxqzxqzxqzx")


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda v: v.row(42), ValueError, "word must be a string, got int"),
        (lambda v: v.row("  "), ValueError, "word is empty"),
        (lambda v: v.vectors([]), ValueError, r"^words is empty; give at least one word$"),
        (lambda v: v.vectors("king"), ValueError, r"^words must be a list of words, got 'king'$"),
        (lambda v: v.neighbours("king", exclude=8), ValueError, r"^exclude must be a list of words, got 8$"),
        (lambda v: v.suggest("kng", n=2.5), ValueError, r"^n must be a whole number >= 1, got 2\.5$"),
        (lambda v: v.neighbours("king", k=0), ValueError, "k must be a whole number >= 1, got 0"),
        (lambda v: v.neighbours("king", k=-3), ValueError, "k must be"),
        (lambda v: v.neighbours("king", k=2.5), ValueError, "k must be"),
        (lambda v: v.neighbours(np.zeros(50), k=2), ValueError, "zero vector"),
        (lambda v: v.neighbours(np.ones(3), k=2), ValueError, "3 dimensions"),
        (lambda v: v.analogy("king", "man", None), ValueError, "must be a string, got NoneType"),
        (lambda v: v.analogy("king", "man", "wmoan"), KeyError, "did you mean 'woman'"),
        (lambda v: v.neighbours_of_many(["king"], k=0), ValueError, "k must be"),
    ],
)
def test_bad_inputs_give_clear_errors(vectors, call, error, message):
    with pytest.raises(error, match=message):
        call(vectors)


def test_table_and_words_must_match():
    with pytest.raises(ValueError, match="2 words for 3 table rows"):
        glove.WordVectors(np.zeros((3, 2), dtype=np.float32), ["a", "b"])
    with pytest.raises(ValueError, match="duplicates"):
        glove.WordVectors(np.zeros((2, 2), dtype=np.float32), ["a", "a"])
    with pytest.raises(FileNotFoundError, match="no GloVe table"):
        glove.load_glove("/nonexistent/folder")


def test_curated_words_are_all_in_the_vocabulary(vectors):
    words, groups = glove.curated_words()
    assert 200 <= len(words) <= 300 and len(words) == len(groups) == len(set(words))
    assert all(word in vectors for word in words)
    assert set(groups) == set(glove.WORD_GROUPS)


def test_curated_word_selection():
    words, groups = glove.sample_groups(["animals", "colours"], per_group=2)
    assert words == glove.WORD_GROUPS["animals"][:2] + glove.WORD_GROUPS["colours"][:2]
    assert groups == ["animals"] * 2 + ["colours"] * 2
    with pytest.raises(ValueError, match="unknown group 'planets'"):
        glove.curated_words(names=["planets"])
    with pytest.raises(ValueError, match=r"^names is empty; give at least one group name$"):
        glove.curated_words(names=[])
    with pytest.raises(ValueError, match="two groups"):
        glove.curated_words({"a": ["x"], "b": ["x"]})
    with pytest.raises(ValueError, match="per_group"):
        glove.sample_groups(["animals"], per_group=0)


def test_markdown_tables(vectors):
    table = glove.analogy_table(vectors, [("king", "man", "woman")])
    lines = table.splitlines()
    assert len(lines) == 3 and lines[1].startswith("| ---")
    assert "**queen**" in lines[2] and "| king |" in lines[2] and "0.852" in lines[2]
    neighbours = glove.neighbours_table(vectors, ["frog"], k=3)
    assert neighbours.splitlines()[2].startswith("| frog | snake (0.84)")
    assert glove.markdown_table(["a"], [["x|y"]]).endswith("| x\\|y |")
    escaped = glove.markdown_table(["a", "b"], [["_", "*w*"]], bold_columns=[1])
    assert escaped.endswith("| \\_ | **\\*w\\*** |")
    with pytest.raises(ValueError, match="row 0 has 2 cells but there are 1 headers"):
        glove.markdown_table(["a"], [[1, 2]])
    with pytest.raises(ValueError, match="analogies is empty"):
        glove.analogy_table(vectors, [])
    with pytest.raises(ValueError, match="base, subtract, add"):
        glove.analogy_table(vectors, [("king", "man")])


def test_explorer_figure_has_one_dropdown_entry_per_word(vectors):
    words, groups = glove.sample_groups(["animals", "royalty"], per_group=3)
    figure = glove_figures.explorer_figure(vectors, words, groups, k=4, start="queen")
    menu = figure.layout.updatemenus[0]
    assert len(menu.buttons) == len(words) and menu.active == words.index("queen")
    data_update, _, traces = menu.buttons[words.index("king")].args
    # the traces it updates: the word's group, leader lines, the word and its neighbours, the
    # leaders' words, the cosines
    assert list(traces) == list(range(len(figure.data) - 5, len(figure.data)))
    assert len(data_update["y"][4]) == 4  # the 4 neighbours' cosines
    assert data_update["y"][4][-1] == vectors.neighbours("king", k=4)[0].word  # best at the top
    assert data_update["text"][2][0] == "king" and len(data_update["x"][2]) == 5
    royalty = sorted(word for word, group in zip(words, groups, strict=True) if group == "royalty")
    assert sorted(data_update["text"][0]) == royalty  # the word's group


def test_band_cosines_lesson_6_positive_cosines_depend_on_the_frequency_band(vectors):
    """Lesson 6: most pairs of frequent words have a positive cosine; mid-frequency words are near even."""
    top, middle, rare, everything = glove.band_cosines(vectors)
    assert (top.first_rank, top.last_rank) == (1, 10_000) and everything.last_rank == 400_000
    assert round(100 * top.positive_share) == 90 and round(top.mean_cosine, 2) == 0.22
    assert round(top.common_length, 2) == 0.47
    assert round(100 * middle.positive_share) == 51 and round(middle.mean_cosine, 2) == 0.01
    assert round(100 * everything.positive_share) == 73 and round(everything.mean_cosine, 2) == 0.11
    assert top.positive_share > 0.85 and abs(middle.positive_share - 0.5) < 0.05  # what the prose says
    assert rare.positive_share > middle.positive_share  # "not almost all words": it depends on the band
    assert round(100 * rare.positive_share) == 83 and round(rare.mean_cosine, 2) == 0.16
    assert rare.positive_share > 0.75 and rare.mean_cosine > 0.1  # "the rarest lean together again"


def test_band_cosines_mean_follows_from_the_common_direction(vectors):
    """The exact mean over all pairs equals the mean over pairs computed one by one."""
    (band,) = glove.band_cosines(vectors, bands=((1, 300),), sample=300)
    unit = np.asarray(vectors.table[:300], dtype=np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    cosines = unit @ unit.T
    pairs = cosines[np.triu_indices(300, k=1)]
    assert band.mean_cosine == pytest.approx(pairs.mean(), abs=1e-12)
    assert band.positive_share == pytest.approx((pairs > 0).mean(), abs=1e-12)  # sample = whole band


def test_band_cosines_check_their_bands(vectors):
    with pytest.raises(ValueError, match="a band must be"):
        glove.band_cosines(vectors, bands=((10, 5),))
    with pytest.raises(ValueError, match="sample must be"):
        glove.band_cosines(vectors, sample=1)


def test_python_has_a_snake_a_musical_and_a_programming_language_among_its_five_neighbours(vectors):
    """Lesson 6 names these three of python's five nearest words."""
    words = [n.word for n in vectors.neighbours("python", k=5)]
    assert {"reticulated", "spamalot", "php"} <= set(words)


def test_the_neighbour_lists_lesson_6_describes_in_words(vectors):
    """Lesson 6 describes these lists by hand: pin what each sentence says."""
    words = {w: [n.word for n in vectors.neighbours(w, k=5)] for w in ("frog", "computer", "paris", "happy")}
    assert "toad" in words["frog"]  # its rank is glued on the page
    assert {"computers", "software"} <= set(words["computer"])  # "about computing"
    assert "prohertrib" in words["paris"]  # "a neighbour that is not a word at all"
    assert {"'m", "everyone", "really"} <= set(words["happy"])  # "conversation words", not synonyms
    assert not {"glad", "pleased", "joyful", "cheerful"} & set(words["happy"])
