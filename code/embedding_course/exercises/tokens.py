"""Exercises of lesson 1, "From tokens to vectors", as declarations."""

from __future__ import annotations

from embedding_course import ids
from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Fields, Mistake, Number, Values, Words, fmt
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


def encoding_exercise() -> Exercise:
    """Exercise 1: the list of IDs of :data:`ENCODE_SENTENCE` in :func:`exercise_vocabulary`."""
    vocabulary = exercise_vocabulary()
    words = ENCODE_SENTENCE.split()
    expected = vocabulary.encode(ENCODE_SENTENCE)
    notes = tuple("" if word in vocabulary else
                  f"{word!r} is not in the vocabulary, so it becomes `<unk>`, ID {vocabulary.unk_id}."
                  for word in words)
    unknown_as_padding = [i if word in vocabulary else vocabulary.pad_id
                          for word, i in zip(words, expected, strict=True)]
    return Exercise(
        name="encoding",
        answer=Values(expected=tuple(expected), tolerance=0, whole=True, element="position",
                      mistakes=(Mistake(unknown_as_padding,
                                        f"a word missing from the vocabulary becomes `<unk>` (ID "
                                        f"{vocabulary.unk_id}), not `<pad>` (ID {vocabulary.pad_id}), "
                                        "which only fills short rows."),),
                      labels=tuple(f"position {i} ({word!r})" for i, word in enumerate(words)),
                      notes=notes),
        hint="call vocabulary.encode(sentence), or look each word up in vocabulary.token_to_id, "
             "using vocabulary.unk_id for a word that is missing.",
        success=f"'red' was never seen, so it became `<unk>` (ID {vocabulary.unk_id}); the two copies "
                "of 'the' share one ID.",
        label=f"The {len(words)} IDs, one per word, separated by commas",
    )


def closest_cities() -> tuple[str, str, int, float]:
    """Exercise 2's solution: the two cities closest on the map, their ID gap and distance in km."""
    return min(ids.city_pairs(), key=lambda pair: pair[3])


def closest_cities_exercise() -> Exercise:
    """Exercise 2: ``(city_a, city_b, id_gap)`` for the two cities that lie closest on the map."""
    first, second, gap, km = closest_cities()
    other_pairs = tuple(
        Mistake((a, b), f"{a} and {b} are {fmt(round(distance))} km apart; another pair is closer.")
        for a, b, _, distance in ids.city_pairs() if {a, b} != {first, second})
    return Exercise(
        name="closest-cities",
        answer=Fields(flat=True, describe="(city_a, city_b, id_gap)", parts=(
            ("cities", Words(expected=(first, second), ordered=False, noun="city",
                             choices=tuple(ids.city_names()),
                             mistakes=other_pairs, otherwise="those are not the two closest cities.")),
            ("ID gap", Number(expected=gap, tolerance=0, whole=True, mistakes=(
                Mistake(round(km), "that is their distance in km; give the difference of their IDs.",
                        tolerance=1),),
                # names no pair and no ID: a wrong gap beside a wrong pair gave the answer away
                otherwise="{got} is not the ID gap of the two closest cities: once you have them, "
                          "subtract one's ID from the other's (ids.city_id).")),
        )),
        hint="ids.city_pairs() lists (a, b, id_gap, km) for every pair; take the pair with the smallest "
             "km and read off its id_gap.",
        success=f"The closest cities on the map are {gap} apart by ID: the register order knows nothing "
                "about geography.",
        label="The two cities, and the gap between their IDs",
    )


check_encoding = checker(encoding_exercise)
check_closest_cities = checker(closest_cities_exercise)
