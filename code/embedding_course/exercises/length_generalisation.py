"""Exercises of lesson 7, "Positions put to the test", as declarations."""

from __future__ import annotations

import math

import numpy as np
import torch

from embedding_course.exercises import checker
from embedding_course.exercises.engine import Exercise, Mistake, Number, Values
from embedding_course.length_generalisation import COPY_OFFSET, IGNORE, Results, RunSettings, copy_targets

COPY_IDS = (5, 1, 4, 4, 2, 7, 0, 3)
"""Exercise 1: the answers of ``copy_back`` (3 places back) for this sequence."""

CURVE_TRAIN_LEN = 8
CURVE = (math.nan, math.nan, math.nan, 0.99, 1.0, 1.0, 0.99, 1.0,
         0.97, 0.9, 0.81, 0.7, 0.62, 0.55, 0.5, 0.47)
"""Exercise 2: a copy-back model's accuracy at test lengths 1..16, trained up to 8.

NaN at lengths 1 to COPY_OFFSET: copy back has no answer there (nothing that far back)."""

SPREAD = {"A": (0.62, 0.81, 0.55), "B": (0.74, 0.58, 0.69)}
"""Exercise 3: the accuracy past the training length of two schemes, one number per seed."""

WRONG_OFFSETS = (1, 2, 4, 5)
"""Exercise 1: copying this many places back is a known mistake."""


def _targets(offset: int = COPY_OFFSET) -> np.ndarray:
    return copy_targets(torch.tensor(COPY_IDS), offset).numpy()  # (T,)


def copy_targets_exercise() -> Exercise:
    """Exercise 1: the ``copy_back`` targets of COPY_IDS, with -100 where there is no answer."""
    expected = _targets()  # (T,)
    zero_padded = np.where(expected == IGNORE, 0, expected)
    first_positions = f"the first {COPY_OFFSET} positions"
    return Exercise(
        name="copy-targets",
        answer=Values(
            expected=expected.tolist(), tolerance=0, whole=True, element="position",
            shape_hints=(((len(COPY_IDS) - COPY_OFFSET,),
                          f"keep one entry per position ({len(COPY_IDS)} in all): put {IGNORE} at "
                          f"{first_positions}, which have no answer."),),
            mistakes=(
                *(Mistake(_targets(offset).tolist(),
                          f"that copies {offset} place(s) back; the task looks {COPY_OFFSET} back.")
                  for offset in WRONG_OFFSETS),
                Mistake(zero_padded.tolist(),
                        f"the answers from position {COPY_OFFSET} on are right; {first_positions} must be "
                        f"{IGNORE} (no token that far back), not 0, which is a token."),
            ),
            notes=tuple(f"no token lies {COPY_OFFSET} places back, so it gets {IGNORE}."
                        if target == IGNORE else "" for target in expected),
            otherwise=f"the answer at position t is the token at position t - {COPY_OFFSET}."),
        hint=f"the answer at position t is the token at t - {COPY_OFFSET}; {first_positions} have "
             f"nothing that far back, so they get {IGNORE}.",
        success=f"The loss and the accuracy skip the {IGNORE} entries, as PyTorch's `ignore_index` does.",
        label=f"The {len(COPY_IDS)} answers, one per position, separated by commas",
    )


def _curve_results() -> Results:
    """CURVE as the results of one run trained on length CURVE_TRAIN_LEN, to read its windows."""
    settings = RunSettings(train_len=CURVE_TRAIN_LEN, test_factor=len(CURVE) // CURVE_TRAIN_LEN, seeds=(0,),
                           schemes=("sinusoidal",), tasks=("copy_back",))
    return Results(settings, accuracy={("copy_back", "sinusoidal", 0): np.array(CURVE)})


def beyond_mean_exercise() -> Exercise:
    """Exercise 2: the mean accuracy of CURVE over the lengths the model was not trained on."""
    results, last = _curve_results(), len(CURVE)

    def mean(low: int, high: int = last) -> float:
        return results.mean_accuracy("copy_back", "sinusoidal", low, high)

    expected = mean(CURVE_TRAIN_LEN + 1)
    off_by_one = (f"off by one: length n is entry n - 1, so lengths {CURVE_TRAIN_LEN + 1}..{last} are "
                  f"`CURVE[{CURVE_TRAIN_LEN}:]`.")
    return Exercise(
        name="beyond-mean",
        answer=Number(
            expected=expected, tolerance=1e-3,
            mistakes=(
                Mistake(mean(1), "that is the mean over every length; keep only those past the training "
                                 "length."),
                Mistake(mean(CURVE_TRAIN_LEN + 2), off_by_one),
                Mistake(mean(CURVE_TRAIN_LEN), off_by_one),
            ),
            low=0, high=1, range_hint="{got} is not an accuracy: every accuracy lies between 0 and 1.",
            nan_hint=f"the result is NaN: the window of unseen lengths holds no NaN, so you included "
                     f"lengths 1 to {COPY_OFFSET} (use np.nanmean, or start after the training length).",
            otherwise=f"{{got}} is not the mean of the accuracies at lengths {CURVE_TRAIN_LEN + 1}..{last}."),
        hint=f"entry n - 1 of CURVE is length n; the unseen lengths are {CURVE_TRAIN_LEN + 1}..{last}.",
        success=f"{expected:.3f}, against {mean(1, CURVE_TRAIN_LEN):.3f} at the lengths it was trained on: "
                "the average hides how steadily it falls.",
        label=f"The mean accuracy at lengths {CURVE_TRAIN_LEN + 1} to {last} (within ±0.001)",
    )


def spread_exercise() -> Exercise:
    """Exercise 3: does SPREAD show a difference between A and B larger than the seeds' spread?"""
    low_a, high_a = min(SPREAD["A"]), max(SPREAD["A"])
    low_b, high_b = min(SPREAD["B"]), max(SPREAD["B"])
    overlap = low_a <= high_b and low_b <= high_a
    real_difference = not overlap
    mean_a, mean_b = float(np.mean(SPREAD["A"])), float(np.mean(SPREAD["B"]))
    ranges = f"A {low_a:.2f}–{high_a:.2f}, B {low_b:.2f}–{high_b:.2f}"
    return Exercise(
        name="spread",
        answer=Values(
            expected=(float(real_difference),), tolerance=0, booleans=True, element="answer",
            mistakes=(
                Mistake((float(not real_difference),),
                        f"the means differ ({mean_a:.2f} against {mean_b:.2f}), but look at the ranges: "
                        f"{ranges}."),
            ),
            allowed=(0.0, 1.0),
            allowed_hint="answer True (a real difference) or False (within the seeds' spread)."),
        hint="compare the ranges (worst to best seed) of A and B: do they overlap?",
        success=f"A runs from {low_a:.2f} to {high_a:.2f}, B from {low_b:.2f} to {high_b:.2f}: the ranges "
                f"{'overlap, so three seeds cannot tell them apart' if overlap else 'do not overlap'}. "
                "With one seed each, you could have 'found' either one better.",
        label="Is B really better than A? True or False",
    )


check_copy_targets = checker(copy_targets_exercise)
check_beyond_mean = checker(beyond_mean_exercise)
check_spread = checker(spread_exercise)
