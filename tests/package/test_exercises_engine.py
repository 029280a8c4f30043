"""The shared engine: strict reading, the rules of each answer kind, and never a traceback."""

import ast
import math
import re

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedding_course.exercises import (
    check,
    engine,
    glove,
    length_generalisation,
    lookup,
    one_hot,
    pipeline,
    positional,
    questions,
    tokens,
)
from embedding_course.exercises.engine import (
    Exercise,
    Fields,
    Mistake,
    Number,
    Unreadable,
    Values,
    Words,
    judge,
    read_numbers,
)

CHECKERS = [
    tokens.check_encoding, tokens.check_closest_cities,
    one_hot.check_one_hot, one_hot.check_one_hot_memory, one_hot.check_one_hot_geometry,
    lookup.check_gradient_rows, lookup.check_vocabulary_memory, lookup.check_tied_parameters,
    positional.check_pe_row, positional.check_longest_wavelength, positional.check_rotation_block,
    pipeline.check_batch, pipeline.check_output_shape, pipeline.check_scaled_variance,
    glove.check_cosine, glove.check_analogy, glove.check_explained_variance,
    length_generalisation.check_copy_targets, length_generalisation.check_beyond_mean,
    length_generalisation.check_spread,
    questions.check_scaled_ratio, questions.check_slow_pairs, questions.check_padded_positions,
]
"""Every checker on the pages."""


def _right_answer(checker):
    """The checker's own expected value, in the structure a learner gives it."""
    kind = checker.declaration().answer
    if isinstance(kind, engine.Mapping):
        return dict(kind.expected)
    if isinstance(kind, Fields):
        parts = [part.expected for _, part in kind.parts]
        return tuple(parts[0]) + tuple(parts[1:]) if kind.flat else tuple(parts)
    return kind.expected


ZOO = [
    None, 0, 1, -1, 0.5, 1e300, float("nan"), float("inf"), True, False, "", "0.5", "abc", b"1",
    np.float32(0.5), np.int64(3), np.bool_(True), np.array(2.0), np.zeros(0), np.zeros((2, 5)),
    torch.tensor(0.5), torch.tensor([0.5]), torch.tensor([1.0, 2.0]), torch.zeros(3, 4),
    torch.tensor(0.5, requires_grad=True), torch.ones(8, requires_grad=True),
    torch.tensor([True, False]), torch.Size([3, 6, 32]), [], [[]], [1, 2], [[1], [2, 3]],
    ["a", "b", "c"], [None, None], (1, "x"), {}, {"4": 1.0}, {4: "x"}, {4: None}, {True: 1.0},
    {4: torch.tensor(1.0, requires_grad=True)}, {1, 2}, object(), np.array(["a", "b"]),
    [torch.tensor(1.0), torch.tensor(2.0)], (torch.zeros(2, 5), "mask"), ((1, 2), (3, 4)),
    [1, 2, 3, 4, 5], "paris", ["the", "cat", "sat", "on", "the", "mat"], "True", [True],
]
"""Answers a learner may plausibly (or implausibly) give."""


def _assert_feedback(verdict, answer):
    assert isinstance(verdict, type(tokens.check_encoding(None))), answer
    assert verdict.messages and all(isinstance(m, str) and m for m in verdict.messages), answer


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_every_checker_accepts_its_own_expected_value(checker):
    assert checker(_right_answer(checker)), checker(_right_answer(checker))


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_every_checker_answers_the_zoo_with_feedback(checker):
    for answer in ZOO:  # the whole zoo in one test per checker; a failure names the answer
        try:
            verdict = checker(answer)
        except Exception as error:  # any crash is the failure
            pytest.fail(f"{checker.__name__}({answer!r}) raised {error!r}")
        _assert_feedback(verdict, answer)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_every_known_mistake_gets_its_own_hint(checker):
    kind = checker.declaration().answer
    parts = [(None, kind)] if not isinstance(kind, Fields) else list(kind.parts)
    for index, (_, part) in enumerate(parts):
        for mistake in getattr(part, "mistakes", ()):
            if isinstance(kind, Fields):
                values = [p.expected for _, p in kind.parts]
                values[index] = mistake.value
                flat = [*values[0], *values[1:]] if kind.flat else values  # (city_a, city_b, gap)
                answer = tuple(flat)
            elif isinstance(part, engine.Mapping):
                key, value, hint = mistake
                answer = {**dict(part.expected), key: value}
                assert hint in str(checker(answer))
                continue
            else:
                answer = mistake.value
            verdict = checker(answer)
            assert not verdict and mistake.hint in str(verdict), (mistake, str(verdict))


answers = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=5) | st.floats(-2, 2).map(torch.tensor) | st.floats(-2, 2).map(np.float32),
    lambda inner: st.lists(inner, max_size=6) | st.tuples(inner, inner)
    | st.dictionaries(st.integers(-2, 9) | st.text(max_size=2), inner, max_size=4)
    | st.lists(st.floats(-3, 3), min_size=1, max_size=8).map(lambda xs: torch.tensor(xs, requires_grad=True)),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=answers)
def test_no_answer_crashes_any_checker(answer):
    for checker in CHECKERS:
        _assert_feedback(checker(answer), answer)


def test_messages_fit_the_shape_of_the_answer():
    """Each message names what the exercise wants, in the answer's own terms."""
    spread = str(length_generalisation.check_spread([1, 2, 3, 4, 5]))
    assert "give one answer, True or False; got 5 numbers" in spread, spread
    assert "1 numbers" not in spread
    words = len(glove.check_analogy.declaration().answer.expected)
    analogy = str(glove.check_analogy("paris"))
    example = re.search(r"give a list of (\d+) words, e\.g\. (\[.*?\])", analogy)
    assert example and int(example[1]) == words == len(ast.literal_eval(example[2])), analogy
    ids = len(tokens.check_encoding.declaration().answer.expected)
    encoding = str(tokens.check_encoding(["the", "cat", "sat", "on", "the", "mat"]))
    assert f"list of words (text in quotes); give {ids} numbers instead" in encoding, encoding
    assert "is text, not a number" not in encoding
    single = Exercise(name="one", answer=Values(expected=(2.0,), tolerance=0), hint="h", success="s")
    assert "give one number; got 2 numbers" in str(check(single, [1, 2]))


# ---------------------------------------------------------------------- the rules, once each

def test_reading_is_strict():
    np.testing.assert_array_equal(read_numbers(torch.tensor([[1, 2]])), [[1.0, 2.0]])
    assert read_numbers(torch.tensor(0.5, requires_grad=True)) == 0.5
    assert read_numbers(np.float32(0.5)) == 0.5
    for bad, message in [(True, "truth value"), ("1", "is text"), ([[1], [2, 3]], "different lengths"),
                         ({1: 2}, "dict is not numbers"), (torch.tensor([True]), "truth values")]:
        with pytest.raises(Unreadable, match=message):
            read_numbers(bad)
    np.testing.assert_array_equal(read_numbers(torch.tensor([True, False]), booleans=True), [1.0, 0.0])


def test_a_word_in_other_capitals_is_the_exercise_s_word():
    kind = Words(expected=("kept",), choices=("kept", "blended", "divided"), noun="class")
    assert judge(kind, ["Kept"]) == [] and judge(kind, ["KEPT"]) == []
    assert judge(kind, ["Blended"]) == judge(kind, ["blended"]) != []
    assert judge(kind, ["Kep"])[0].startswith("unknown class 'Kep'")
    two = Words(expected=("Paris", "Brussels"), ordered=False)
    assert judge(two, ["Paris Brussels"]) == [
        "give exactly 2 words; you gave 1 (separate them with commas: 'Paris Brussels' is one entry)."]


def _number(**options) -> Exercise:
    kind = Number(expected=2.0, tolerance=0.01, mistakes=(Mistake(4.0, "doubled"),), low=0, high=10,
                  range_hint="between 0 and 10", otherwise="you gave {got}", **options)
    return Exercise(name="n", answer=kind, hint="start", success="yes")


def test_a_number_is_one_number_not_a_bool_or_text():
    exercise = _number()
    assert check(exercise, 2.001) and check(exercise, torch.tensor([2.0])) and check(exercise, np.int64(2))
    assert "doubled" in str(check(exercise, 4)) and "between 0 and 10" in str(check(exercise, 11))
    assert "you gave 3" in str(check(exercise, 3))
    assert "truth value" in str(check(exercise, True))
    assert "give one number, not 2 values" in str(check(exercise, [2, 2]))
    assert "NaN" in str(check(exercise, math.nan))
    assert "Hint: start" in str(check(exercise, None))
    assert "give a whole number" in str(check(_number(whole=True), 2.5))


def test_values_name_few_wrong_entries_and_count_many():
    expected = list(range(8))
    exercise = Exercise(name="v", answer=Values(expected=tuple(expected), tolerance=0, element="dimension"),
                        hint="", success="")
    few = check(exercise, [0, 1, 9, 3, 4, 5, 6, 9])
    assert few.messages == ["dimension 2 is 9 but should be 2.", "dimension 7 is 9 but should be 7."]
    many = check(exercise, [1, 2, 3, 4, 5, 6, 7, 20])
    assert many.messages == ["8 of 8 entries are wrong; the worst: dimension 7 is 20 but should be 7."]
    assert check(exercise, np.array([expected]))  # a (1, 8) row is 8 numbers


def test_lesson_4_names_every_wrong_dimension_or_counts_them():
    expected = np.asarray(positional.pe_row_exercise().answer.expected)
    two_off = expected.copy()
    two_off[[1, 6]] += 0.5
    text = str(positional.check_pe_row(two_off))
    assert "dimension 1 is" in text and "dimension 6 is" in text
    six_off = expected.copy()
    six_off[:6] *= 0.5
    text = str(positional.check_pe_row(six_off))
    assert "6 of 8 entries are wrong; the worst: dimension" in text


def test_lesson_5_asks_for_the_pair_when_given_one_tensor():
    ids = torch.tensor(pipeline.batch_exercise().answer.parts[0][1].expected)
    assert "give the pair (ids, mask)" in str(pipeline.check_batch(ids))
    assert "give the pair (ids, mask)" in str(pipeline.check_batch(torch.stack([ids, ids])))
    assert "give the pair (ids, mask)" in str(pipeline.check_batch(ids.tolist()))  # two rows, not a pair
    assert pipeline.check_batch((ids, ids != 0))  # the pair itself, whose rows look alike


def test_a_vector_of_numbers_is_a_tuple_of_numbers():
    assert one_hot.check_one_hot_geometry(np.array([0.0, math.sqrt(2)]))
    assert one_hot.check_one_hot_geometry(torch.tensor([0.0, math.sqrt(2)]))


def test_declarations_become_plain_json():
    import json

    for checker in CHECKERS:
        data = engine.to_json(checker.declaration())
        assert json.loads(json.dumps(data, allow_nan=False)) == data
        assert data["label"], checker.__name__
