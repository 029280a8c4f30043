"""Exercise checkers and live explorers of lessons 1-3: right answers pass, typical mistakes are named."""

import math

import numpy as np
import pytest
import torch

from embedding_course import ids
from embedding_course.exercises import lookup as lookup_exercises
from embedding_course.exercises import one_hot as one_hot_exercises
from embedding_course.exercises import tokens as token_exercises


def text_of(feedback) -> str:
    return " ".join(feedback.messages)


# ---------------------------------------------------------------- lesson 1

def test_encoding_checker_accepts_the_vocabulary_encoding():
    vocabulary = token_exercises.exercise_vocabulary()
    feedback = token_exercises.check_encoding(vocabulary.encode(token_exercises.ENCODE_SENTENCE))
    assert feedback and "Correct!" in str(feedback)


def test_encoding_checker_accepts_a_numpy_array():
    vocabulary = token_exercises.exercise_vocabulary()
    assert token_exercises.check_encoding(np.array(vocabulary.encode(token_exercises.ENCODE_SENTENCE)))


def test_encoding_checker_explains_unknown_words():
    vocabulary = token_exercises.exercise_vocabulary()
    answer = vocabulary.encode(token_exercises.ENCODE_SENTENCE)
    answer[5] = len(vocabulary)  # a new id for "red"
    feedback = token_exercises.check_encoding(answer)
    assert not feedback
    assert "'red' is not in the vocabulary" in text_of(feedback)
    assert "`<unk>`, ID 1" in text_of(feedback)


def test_encoding_checker_names_the_wrong_position():
    vocabulary = token_exercises.exercise_vocabulary()
    answer = vocabulary.encode(token_exercises.ENCODE_SENTENCE)
    answer[1] += 1
    feedback = token_exercises.check_encoding(answer)
    assert not feedback and "position 1 ('dog') is" in text_of(feedback)


@pytest.mark.parametrize(("answer", "message"), [
    (None, "No answer yet"),
    ("the dog", "is text, not a number"),
    (["the", "dog"], "that is a list of words (text in quotes); give 7 numbers instead"),
    ([2, 3], "give 7 numbers; got 2 numbers"),
    (7, "give 7 numbers; got one number"),
])
def test_encoding_checker_rejects_malformed_answers(answer, message):
    feedback = token_exercises.check_encoding(answer)
    assert not feedback and message in str(feedback)


def test_closest_cities_checker():
    first, second, gap, km = token_exercises.closest_cities()
    assert km == min(k for _, _, _, k in ids.city_pairs())
    assert token_exercises.check_closest_cities((first, second, gap))
    assert token_exercises.check_closest_cities([second, first, gap])
    assert "another pair is closer" in text_of(token_exercises.check_closest_cities(("Lisbon", "Athens", 4)))
    wrong_gap = token_exercises.check_closest_cities((first, second, gap + 1))
    assert not wrong_gap and f"{gap + 1} is not the ID gap" in text_of(wrong_gap)
    # a wrong pair with its own gap gives nothing away: neither the right pair nor its IDs
    other_pair = next((a, b, own) for a, b, own, _ in ids.city_pairs() if not {a, b} & {first, second})
    feedback = text_of(token_exercises.check_closest_cities(other_pair))
    assert "another pair is closer" in feedback and first not in feedback and second not in feedback
    assert "is text, not a number" in text_of(token_exercises.check_closest_cities((first, second, "3")))
    assert "unknown city 'Oslo'" in text_of(token_exercises.check_closest_cities(("Oslo", "Rome", 1)))
    two_things = token_exercises.check_closest_cities(("Paris", "Rome"))
    assert "give the tuple (city_a, city_b, id_gap)" in text_of(two_things)
    assert "No answer yet" in str(token_exercises.check_closest_cities(None))


# ---------------------------------------------------------------- lesson 2

def test_one_hot_checker_accepts_arrays_tensors_and_lists():
    from embedding_course.one_hot import one_hot

    solution = one_hot(one_hot_exercises.ONE_HOT_IDS, one_hot_exercises.ONE_HOT_VOCAB_SIZE)
    assert one_hot_exercises.check_one_hot(solution)
    assert one_hot_exercises.check_one_hot(torch.from_numpy(solution).long())
    assert one_hot_exercises.check_one_hot(solution.astype(int).tolist())


def test_one_hot_checker_names_mistakes():
    from embedding_course.one_hot import one_hot

    solution = one_hot(one_hot_exercises.ONE_HOT_IDS, one_hot_exercises.ONE_HOT_VOCAB_SIZE)
    assert "transposed" in text_of(one_hot_exercises.check_one_hot(solution.T))
    three_rows = one_hot_exercises.check_one_hot(np.zeros((3, 5)))
    assert "give a 4 x 5 array; got a 3 x 5 array" in text_of(three_rows)
    assert "only 0s and 1s" in text_of(one_hot_exercises.check_one_hot(solution * 2))
    shifted = solution.copy()
    shifted[1] = np.roll(shifted[1], 1)
    assert "answer[1, 1] is 1 but should be 0" in text_of(one_hot_exercises.check_one_hot(shifted))
    empty = solution.copy()
    empty[2] = 0
    assert "answer[2, 3] is 0 but should be 1" in text_of(one_hot_exercises.check_one_hot(empty))
    assert "is text, not a number" in text_of(one_hot_exercises.check_one_hot([["a"]]))
    assert "No answer yet" in str(one_hot_exercises.check_one_hot(None))


def test_memory_checker():
    numbers = 8 * 1024 * 50_257
    mib = numbers * 4 / 2 ** 20
    assert one_hot_exercises.check_one_hot_memory((numbers, mib))
    assert "multiply by the batch size" in text_of(one_hot_exercises.check_one_hot_memory((numbers / 8, mib)))
    assert "looks like bytes" in text_of(one_hot_exercises.check_one_hot_memory((numbers * 4, mib)))
    assert "in MB" in text_of(one_hot_exercises.check_one_hot_memory((numbers, numbers * 4 / 1e6)))
    one_byte = one_hot_exercises.check_one_hot_memory((numbers, numbers / 2 ** 20))
    assert "4 bytes per number" in text_of(one_byte)
    assert "for one sequence" in text_of(one_hot_exercises.check_one_hot_memory((numbers, mib / 8)))
    assert "give the pair (numbers, MiB)" in text_of(one_hot_exercises.check_one_hot_memory(5))
    assert "is text, not a number" in text_of(one_hot_exercises.check_one_hot_memory(("a", "b")))


def test_geometry_checker():
    assert one_hot_exercises.check_one_hot_geometry((0, math.sqrt(2)))
    assert one_hot_exercises.check_one_hot_geometry(np.array([0.0, 1.41421356]))
    # sqrt(2) as a reader types it, to two or three decimals; one decimal is too coarse
    assert one_hot_exercises.check_one_hot_geometry((0, 1.414))
    assert one_hot_exercises.check_one_hot_geometry((0, 1.41))
    assert "sqrt(1 + 1)" in text_of(one_hot_exercises.check_one_hot_geometry((0, 1.4)))
    assert "same token twice" in text_of(one_hot_exercises.check_one_hot_geometry((1, math.sqrt(2))))
    assert "squared distance" in text_of(one_hot_exercises.check_one_hot_geometry((0, 2)))
    assert "sqrt(1 + 1)" in text_of(one_hot_exercises.check_one_hot_geometry((0, 1)))
    assert "should be 0" in text_of(one_hot_exercises.check_one_hot_geometry((0.5, math.sqrt(2))))


# ---------------------------------------------------------------- lesson 3

def test_gradient_checker():
    root3 = math.sqrt(3)
    solution = {4: 3 * root3, 2: root3, 7: root3}
    assert lookup_exercises.expected_gradient_norms() == pytest.approx(solution)
    assert lookup_exercises.check_gradient_rows(solution)
    assert lookup_exercises.check_gradient_rows({**solution, 0: 0.0})  # a zero entry is harmless
    assert "padding row" in text_of(lookup_exercises.check_gradient_rows({**solution, 0: root3}))
    assert "used 3 times" in text_of(lookup_exercises.check_gradient_rows({**solution, 4: root3}))
    assert "row 7 was looked up" in text_of(lookup_exercises.check_gradient_rows({4: 3 * root3, 2: root3}))
    assert "row 5 was never looked up" in text_of(lookup_exercises.check_gradient_rows({**solution, 5: 1.0}))
    assert "give a dict" in text_of(lookup_exercises.check_gradient_rows([4, 2, 7]))
    assert "every key must be a row number" in text_of(lookup_exercises.check_gradient_rows({"4": 1.0}))


def test_vocabulary_memory_checker():
    expected = lookup_exercises.expected_memory_mib()
    assert expected == pytest.approx(2 * 128_256 * 4096 * 2 / 2 ** 20)
    assert lookup_exercises.check_vocabulary_memory(expected)
    assert "output layer" in text_of(lookup_exercises.check_vocabulary_memory(expected / 2))
    assert "fp32" in text_of(lookup_exercises.check_vocabulary_memory(expected * 2))
    assert "MB" in text_of(lookup_exercises.check_vocabulary_memory(expected * 2 ** 20 / 1e6))
    assert "number of parameters" in text_of(lookup_exercises.check_vocabulary_memory(2 * 128_256 * 4096))
    assert "you gave 1\u00a0MiB" in text_of(lookup_exercises.check_vocabulary_memory(1))
    assert "is text, not a number" in text_of(lookup_exercises.check_vocabulary_memory("lots"))


def test_tied_parameters_checker():
    table = 1000 * 64
    assert lookup_exercises.check_tied_parameters((2 * table, table))
    assert "counted once" in text_of(lookup_exercises.check_tied_parameters((2 * table, 2 * table)))
    assert "untied" in text_of(lookup_exercises.check_tied_parameters((table, table)))
    assert "give the pair (untied, tied)" in text_of(lookup_exercises.check_tied_parameters(table))


@pytest.mark.parametrize("checker", [
    token_exercises.check_encoding, token_exercises.check_closest_cities,
    one_hot_exercises.check_one_hot, one_hot_exercises.check_one_hot_memory,
    one_hot_exercises.check_one_hot_geometry, lookup_exercises.check_gradient_rows,
    lookup_exercises.check_vocabulary_memory, lookup_exercises.check_tied_parameters,
])
def test_unanswered_exercises_give_a_hint(checker):
    feedback = checker(None)
    assert not feedback and "Hint:" in str(feedback)


# ---------------------------------------------------------------- live explorers

def test_live_explorers_build_widgets(monkeypatch):
    import ipywidgets as widgets

    from embedding_course.live import lookup as live_lookup
    from embedding_course.live import one_hot as live_one_hot
    from embedding_course.live import tokens as live_tokens

    monkeypatch.setattr("IPython.display.display", lambda *args, **kwargs: None)
    for make in (live_tokens.token_id_explorer, live_tokens.id_neighbour_explorer,
                 live_one_hot.one_hot_explorer, live_one_hot.memory_explorer, live_lookup.lookup_explorer,
                 lambda: live_lookup.training_explorer(dim=4, steps=10)):
        widget = make()
        assert isinstance(widget, widgets.interactive)
        assert len(widget.children) >= 2  # controls plus the output area
