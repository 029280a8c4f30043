"""The word-level vocabulary: IDs 0 and 1 are <pad> and <unk>, then words by frequency."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embedding_course import tokens
from embedding_course.tokens import PAD, UNK, WordVocabulary, split_words

TEXTS = ["the cat sat on the mat", "the dog sat on the rug", "a cat and a dog"]


def test_split_words_lowercases_and_keeps_punctuation():
    assert split_words("The Cat, sat!") == ["the", "cat", ",", "sat", "!"]


def test_split_words_keeps_contractions_together():
    assert split_words("It's the dog's bowl") == ["it's", "the", "dog's", "bowl"]


def test_split_words_rejects_non_strings():
    with pytest.raises(ValueError, match="text must be a string, got int"):
        split_words(42)


def test_special_tokens_come_first():
    vocabulary = WordVocabulary.from_texts(TEXTS)
    assert vocabulary.pad_id == 0
    assert vocabulary.unk_id == 1
    assert vocabulary.id_to_token[:2] == [PAD, UNK]
    assert tokens.SPECIAL_TOKENS == (PAD, UNK)


def test_words_are_ordered_by_frequency_then_first_appearance():
    vocabulary = WordVocabulary.from_texts(TEXTS)
    # "the" appears 4 times; "sat", "on", "cat", "dog", "a" twice (in order of first appearance).
    assert vocabulary.id_to_token[2:8] == ["the", "cat", "sat", "on", "dog", "a"]
    assert len(vocabulary) == 2 + 9


def test_min_count_drops_rare_words_to_unk():
    vocabulary = WordVocabulary.from_texts(TEXTS, min_count=2)
    assert "mat" not in vocabulary
    assert vocabulary.encode("the mat") == [vocabulary.token_to_id["the"], vocabulary.unk_id]


def test_a_single_string_is_accepted_as_one_text():
    assert WordVocabulary.from_texts("b a b").id_to_token[2:] == ["b", "a"]


def test_encode_maps_unknown_words_to_unk():
    vocabulary = WordVocabulary.from_texts(TEXTS)
    ids = vocabulary.encode("the zebra sat")
    assert ids == [vocabulary.token_to_id["the"], 1, vocabulary.token_to_id["sat"]]


def test_equal_words_get_equal_ids():
    vocabulary = WordVocabulary.from_texts(TEXTS)
    ids = vocabulary.encode("the cat saw the cat")
    assert ids[0] == ids[3] and ids[1] == ids[4]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "dog", "rug", "a", "and"]),
                min_size=1, max_size=12))
def test_decode_inverts_encode_for_known_words(words):
    vocabulary = WordVocabulary.from_texts(TEXTS)
    assert vocabulary.decode(vocabulary.encode(" ".join(words))) == words


def test_constructor_skips_duplicates_and_special_tokens():
    vocabulary = WordVocabulary(["x", "y", "x", PAD, UNK])
    assert vocabulary.id_to_token == [PAD, UNK, "x", "y"]


def test_repr_previews_the_tokens():
    assert repr(WordVocabulary(["x"])) == "WordVocabulary(3 tokens: <pad>, <unk>, x, ...)"


def test_decode_accepts_numpy_and_torch_integers():
    import numpy as np
    import torch

    vocabulary = WordVocabulary(["x", "y"])
    assert vocabulary.decode(np.array([2, 3])) == ["x", "y"]
    assert vocabulary.decode(torch.tensor([3, 0])) == ["y", PAD]


@pytest.mark.parametrize(("bad_id", "message"), [
    (4, r"token id 4 is outside the vocabulary \(0..3\)"),
    (100, r"token id 100 is outside the vocabulary \(0..3\)"),
    (-1, "token id -1 is negative; the vocabulary runs from 0 to 3"),
])
def test_decode_rejects_ids_outside_the_vocabulary(bad_id, message):
    vocabulary = WordVocabulary(["x", "y"])
    with pytest.raises(IndexError, match=message):
        vocabulary.decode([2, bad_id])


def test_from_texts_rejects_an_empty_list():
    with pytest.raises(ValueError, match="texts is empty"):
        WordVocabulary.from_texts([])


def test_from_texts_rejects_texts_without_words():
    with pytest.raises(ValueError, match="hold no words"):
        WordVocabulary.from_texts(["   ", ""])


@pytest.mark.parametrize("min_count", [0, -2, 1.5, "2"])
def test_from_texts_rejects_a_bad_min_count(min_count):
    with pytest.raises(ValueError, match="min_count must be a whole number >= 1"):
        WordVocabulary.from_texts(TEXTS, min_count=min_count)


@pytest.mark.parametrize("entry", ["", 3, None])
def test_constructor_rejects_bad_entries(entry):
    with pytest.raises(ValueError, match="vocabulary entries must be non-empty strings"):
        WordVocabulary(["ok", entry])


def test_encode_rejects_text_without_words():
    with pytest.raises(ValueError, match="holds no words to encode"):
        WordVocabulary(["x"]).encode("   ")


def test_encode_rejects_non_strings():
    with pytest.raises(ValueError, match="text must be a string"):
        WordVocabulary(["x"]).encode(["x"])


@pytest.mark.parametrize(("ids", "message"), [
    ([1.7], r"^token ids must be whole numbers, got 1\.7$"),
    ([True], r"^token ids must be whole numbers, got booleans$"),
    ("12", r"^ids must be a list of token IDs, got '12'$"),
    (8, r"^ids must be a list of token IDs, got 8$"),
    (["a"], r"^token ids must be whole numbers, got 'a' .*turn words into ids with a vocabulary first$"),
    ([[2, 3]], r"^token ids must have shape \(T,\), got shape \(1, 2\)$"),
])
def test_decode_takes_whole_numbers_only(ids, message):
    with pytest.raises(ValueError, match=message):
        WordVocabulary(["x", "y"]).decode(ids)


def test_decode_reads_any_iterable_of_ids_and_no_ids_as_no_tokens():
    import numpy as np

    vocabulary = WordVocabulary(["x", "y"])
    assert vocabulary.decode(map(int, ["2", "3"])) == ["x", "y"]
    assert vocabulary.decode(token_id for token_id in (3, 2)) == ["y", "x"]
    assert vocabulary.decode([]) == [] and vocabulary.decode(np.array([], dtype=int)) == []
