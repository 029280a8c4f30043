"""Checkers for the exercises of lesson 1, "From tokens to vectors"."""

from __future__ import annotations

import numpy as np

from embedding_course import ids
from embedding_course.exercises import Feedback, correct, not_answered, wrong
from embedding_course.tokens import WordVocabulary

EXERCISE_TEXTS = [
    "the cat sat on the mat",
    "the dog sat on the rug",
    "a cat and a dog",
]
"""The texts the exercise vocabulary is built from."""

ENCODE_SENTENCE = "the dog sat on the red mat"
"""The sentence to encode in exercise 1 ("red" is not in the vocabulary)."""


def exercise_vocabulary() -> WordVocabulary:
    """The vocabulary of exercise 1: ``WordVocabulary.from_texts(EXERCISE_TEXTS)``."""
    return WordVocabulary.from_texts(EXERCISE_TEXTS)


def check_encoding(answer) -> Feedback:
    """Exercise 1: the list of IDs of :data:`ENCODE_SENTENCE` in :func:`exercise_vocabulary`."""
    vocabulary = exercise_vocabulary()
    words = ENCODE_SENTENCE.split()
    expected = [vocabulary.token_to_id.get(word, vocabulary.unk_id) for word in words]
    if answer is None:
        return not_answered("call vocabulary.encode(sentence), or look each word up in "
                            "vocabulary.token_to_id, using vocabulary.unk_id for a word that is missing.")
    if isinstance(answer, str) or not hasattr(answer, "__len__"):
        return wrong(f"give a list of whole numbers, one per word; got {type(answer).__name__}.")
    answer = list(np.asarray(answer).reshape(-1).tolist()) if hasattr(answer, "shape") else list(answer)
    if any(isinstance(value, str) for value in answer):
        return wrong("the answer holds strings: give the IDs (whole numbers), not the words.")
    if len(answer) != len(expected):
        return wrong(f"the sentence has {len(words)} words, so it needs {len(words)} IDs; "
                     f"you gave {len(answer)}.")
    problems = []
    for position, (word, got, want) in enumerate(zip(words, answer, expected, strict=True)):
        if got == want:
            continue
        if word not in vocabulary:
            problems.append(f"position {position}: {word!r} is not in the vocabulary, so it becomes "
                            f"`<unk>`, whose ID is {vocabulary.unk_id} (you gave {got}).")
        else:
            problems.append(f"position {position}: {word!r} has ID {want}, you gave {got}.")
    if problems:
        return wrong(*problems)
    return correct(f"'red' was never seen, so it became `<unk>` (ID {vocabulary.unk_id}); "
                   "the two copies of 'the' share one ID.")


def closest_cities() -> tuple[str, str, int, float]:
    """Exercise 2's solution: the two cities closest on the map, their ID gap and distance in km."""
    return min(ids.city_pairs(), key=lambda pair: pair[3])


def check_closest_cities(answer) -> Feedback:
    """Exercise 2: ``(city_a, city_b, id_gap)`` for the two cities that lie closest on the map."""
    first, second, gap, _ = closest_cities()
    names = ids.city_names()
    if answer is None:
        return not_answered("ids.city_pairs() lists (a, b, id_gap, km) for every pair; take the pair "
                            "with the smallest km and read off its id_gap.")
    if isinstance(answer, str) or not hasattr(answer, "__len__") or len(answer) != 3:
        return wrong("give three things: (city_a, city_b, id_gap), e.g. ('Paris', 'Rome', 2).")
    city_a, city_b, got_gap = answer
    unknown = [name for name in (city_a, city_b) if name not in names]
    if unknown:
        return wrong(f"unknown city {unknown[0]!r}; the cities are: {', '.join(names)}.")
    problems = []
    if {city_a, city_b} != {first, second}:
        km = ids.great_circle_km(ids.CITIES[ids.city_id(city_a)], ids.CITIES[ids.city_id(city_b)])
        problems.append(f"{city_a} and {city_b} are {km:,.0f} km apart; another pair is closer.")
    true_gap = abs(ids.city_id(city_a) - ids.city_id(city_b))
    if isinstance(got_gap, bool) or not isinstance(got_gap, (int, np.integer)):
        problems.append(f"the ID gap must be a whole number, got {got_gap!r}.")
    elif got_gap != true_gap:
        problems.append(f"the ID gap of {city_a} and {city_b} is |{ids.city_id(city_a)} - "
                        f"{ids.city_id(city_b)}|, not {got_gap}.")
    if problems:
        return wrong(*problems)
    return correct(f"The closest cities on the map are {gap} apart by ID: the register order knows "
                   "nothing about geography.")
