"""Checkers for the exercises of lesson 7, "Positions put to the test"."""

from __future__ import annotations

import math

import numpy as np

from embedding_course.exercises import Feedback, as_array, as_number, correct, not_answered, wrong
from embedding_course.length_generalisation import COPY_OFFSET, IGNORE

COPY_IDS = (5, 1, 4, 4, 2, 7, 0, 3)
"""Exercise 1: the answers of ``copy_back`` (3 places back) for this sequence."""

CURVE_TRAIN_LEN = 8
CURVE = (math.nan, 0.96, 0.98, 0.99, 1.0, 1.0, 0.99, 1.0,
         0.97, 0.9, 0.81, 0.7, 0.62, 0.55, 0.5, 0.47)
"""Exercise 2: a model's accuracy at test lengths 1..16 (NaN: length 1 has no answer); trained up to 8."""

SPREAD = {"A": (0.62, 0.81, 0.55), "B": (0.74, 0.58, 0.69)}
"""Exercise 3: the accuracy past the training length of two schemes, one number per seed."""


def expected_copy_targets() -> list[int]:
    """The answers of exercise 1, ``IGNORE`` where a position has none."""
    return [IGNORE] * COPY_OFFSET + list(COPY_IDS[:-COPY_OFFSET])


def check_copy_targets(answer) -> Feedback:
    """Exercise 1: the ``copy_back`` targets of COPY_IDS, with -100 where there is no answer."""
    expected = np.array(expected_copy_targets(), dtype=float)
    if answer is None:
        return not_answered(f"the answer at position t is the token at t - {COPY_OFFSET}; the first "
                            f"{COPY_OFFSET} positions have nothing that far back, so they get {IGNORE}.")
    array = as_array(answer)
    if array is None or array.ndim != 1:
        return wrong(f"give one number per position: a list of {len(COPY_IDS)} whole numbers.")
    if array.size == len(COPY_IDS) - COPY_OFFSET and np.array_equal(array, expected[COPY_OFFSET:]):
        return wrong(f"the right tokens, but keep one entry per position: put {IGNORE} at the first "
                     f"{COPY_OFFSET} positions, which have no answer.")
    if array.size != len(COPY_IDS):
        return wrong(f"give one entry per position: {len(COPY_IDS)} numbers, got {array.size}.")
    if np.array_equal(array, expected):
        return correct("The loss and the accuracy skip the -100 entries, as PyTorch's `ignore_index` does.")
    for offset in (1, 2, 4, 5):
        shifted = [IGNORE] * offset + list(COPY_IDS[:-offset])
        if np.array_equal(array, np.array(shifted, dtype=float)):
            return wrong(f"that copies {offset} place(s) back; the task looks {COPY_OFFSET} back.")
    if np.array_equal(array[COPY_OFFSET:], expected[COPY_OFFSET:]):
        return wrong(f"the answers from position {COPY_OFFSET} on are right; the first {COPY_OFFSET} "
                     f"must be {IGNORE} (no token that far back).")
    position = int(np.argmax(array != expected))
    return wrong(f"position {position} should be {int(expected[position])}, got {array[position]:g}.")


def check_beyond_mean(answer) -> Feedback:
    """Exercise 2: the mean accuracy of CURVE over the lengths the model was not trained on."""
    curve = np.array(CURVE)
    expected = float(np.mean(curve[CURVE_TRAIN_LEN:]))
    if answer is None:
        return not_answered(f"entry n - 1 of CURVE is length n; the unseen lengths are "
                            f"{CURVE_TRAIN_LEN + 1}..{len(CURVE)}.")
    value = as_number(answer)
    if value is None:
        return wrong("give one number.")
    if math.isnan(value):
        return wrong("the result is NaN: the window of unseen lengths holds no NaN, so you included "
                     "length 1 (use np.nanmean, or start after the training length).")
    if math.isclose(value, expected, abs_tol=1e-3):
        return correct(f"{expected:.3f}, against {float(np.nanmean(curve[:CURVE_TRAIN_LEN])):.3f} at the "
                       "lengths it was trained on: the average hides how steadily it falls.")
    if math.isclose(value, float(np.nanmean(curve)), abs_tol=1e-3):
        return wrong("that is the mean over every length; keep only those past the training length.")
    if math.isclose(value, float(np.mean(curve[CURVE_TRAIN_LEN + 1:])), abs_tol=1e-3) or \
            math.isclose(value, float(np.mean(curve[CURVE_TRAIN_LEN - 1:])), abs_tol=1e-3):
        return wrong(f"off by one: length n is entry n - 1, so lengths {CURVE_TRAIN_LEN + 1}.."
                     f"{len(CURVE)} are `CURVE[{CURVE_TRAIN_LEN}:]`.")
    return wrong(f"{value:.3f} is not the mean of the accuracies at lengths "
                 f"{CURVE_TRAIN_LEN + 1}..{len(CURVE)}.")


def check_spread(answer) -> Feedback:
    """Exercise 3: does SPREAD show a difference between A and B larger than the seeds' spread?"""
    low_a, high_a = min(SPREAD["A"]), max(SPREAD["A"])
    low_b, high_b = min(SPREAD["B"]), max(SPREAD["B"])
    overlap = low_a <= high_b and low_b <= high_a
    if answer is None:
        return not_answered("compare the ranges (worst to best seed) of A and B: do they overlap?")
    if not isinstance(answer, bool):
        return wrong("answer True (a real difference) or False (within the seeds' spread).")
    if answer == (not overlap):
        return correct(f"A runs from {low_a:.2f} to {high_a:.2f}, B from {low_b:.2f} to {high_b:.2f}: "
                       "the ranges overlap, so three seeds cannot tell them apart. With one seed each, "
                       "you could have 'found' either one better.")
    mean_a, mean_b = float(np.mean(SPREAD["A"])), float(np.mean(SPREAD["B"]))
    return wrong(f"the means differ ({mean_a:.2f} against {mean_b:.2f}), but look at the ranges: "
                 f"A {low_a:.2f}–{high_a:.2f}, B {low_b:.2f}–{high_b:.2f}.")
