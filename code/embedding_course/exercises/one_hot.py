"""Checkers for the exercises of lesson 2, "One-hot encoding"."""

from __future__ import annotations

import math

import numpy as np

from embedding_course.exercises import Feedback, as_array, correct, not_answered, number_pair, wrong
from embedding_course.one_hot import memory_bytes, one_hot, one_hot_numbers

ONE_HOT_IDS = [2, 0, 3, 2]
ONE_HOT_VOCAB_SIZE = 5
"""Exercise 1: the one-hot matrix of ``ONE_HOT_IDS`` over a vocabulary of ``ONE_HOT_VOCAB_SIZE``."""

MEMORY_BATCH, MEMORY_SEQ_LEN, MEMORY_VOCAB_SIZE = 8, 1024, 50_257
"""Exercise 2: a batch of 8 sequences of 1,024 tokens over GPT-2's vocabulary, in fp32."""

MIB = 2 ** 20


def check_one_hot(answer) -> Feedback:
    """Exercise 1: the one-hot matrix of :data:`ONE_HOT_IDS` over :data:`ONE_HOT_VOCAB_SIZE` tokens."""
    expected = one_hot(ONE_HOT_IDS, ONE_HOT_VOCAB_SIZE)  # (T, V)
    if answer is None:
        return not_answered(f"start from np.zeros({expected.shape}) and set one 1 per row, in the column "
                            "given by the ID.")
    array = as_array(answer)
    if array is None:
        return wrong("the answer is not a matrix of numbers; give a NumPy array, a tensor or nested lists.")
    if array.shape == expected.T.shape and array.shape != expected.shape:
        return wrong(f"shape {array.shape} is transposed: one row per token ({expected.shape[0]} tokens), "
                     f"one column per vocabulary entry ({expected.shape[1]}), i.e. shape {expected.shape}.")
    if array.shape != expected.shape:
        return wrong(f"the shape should be {expected.shape} (tokens x vocabulary size), got {array.shape}.")
    if not np.isin(array, (0.0, 1.0)).all():
        return wrong("a one-hot matrix holds only 0s and 1s; some entries are other numbers.")
    problems = []
    for row, token_id in enumerate(ONE_HOT_IDS):
        ones = np.flatnonzero(array[row])
        if len(ones) != 1:
            problems.append(f"row {row} has {len(ones)} ones; it needs exactly one.")
        elif ones[0] != token_id:
            problems.append(f"row {row} (ID {token_id}) has its 1 in column {ones[0]}; "
                            f"put it in column {token_id}.")
    if problems:
        return wrong(*problems)
    return correct("Rows 0 and 3 are identical, because they encode the same token (ID 2).")


def check_one_hot_memory(answer) -> Feedback:
    """Exercise 2: ``(numbers, mib)`` for a one-hot batch of 8 x 1,024 tokens over 50,257 entries, fp32."""
    numbers = one_hot_numbers(MEMORY_SEQ_LEN, MEMORY_VOCAB_SIZE, batch_size=MEMORY_BATCH)
    mib = memory_bytes(numbers, "fp32") / MIB
    if answer is None:
        return not_answered("numbers = B x T x V; each fp32 number takes 4 bytes; 1 MiB is 2**20 bytes.")
    pair = number_pair(answer, "(count of numbers, size in MiB)")
    if isinstance(pair, Feedback):
        return pair
    got_numbers, got_mib = pair
    problems = []
    if not math.isclose(got_numbers, numbers, rel_tol=1e-3):
        if math.isclose(got_numbers, numbers / MEMORY_BATCH, rel_tol=1e-3):
            problems.append(f"the count is for one sequence; multiply by the batch size {MEMORY_BATCH}.")
        elif math.isclose(got_numbers, numbers * 4, rel_tol=1e-3):
            problems.append("the count looks like bytes (x 4); count numbers, not bytes.")
        else:
            problems.append(f"the count should be B x T x V = {MEMORY_BATCH} x {MEMORY_SEQ_LEN} x "
                            f"{MEMORY_VOCAB_SIZE:,}; you gave {got_numbers:,.0f}.")
    if not math.isclose(got_mib, mib, rel_tol=1e-3):
        if math.isclose(got_mib, numbers * 4 / 1e6, rel_tol=1e-3):
            problems.append("the size is in MB (10**6 bytes); a MiB is 2**20 = 1,048,576 bytes.")
        elif math.isclose(got_mib, numbers / MIB, rel_tol=1e-3):
            problems.append("the size counts 1 byte per number; fp32 takes 4 bytes per number.")
        elif math.isclose(got_mib, mib / MEMORY_BATCH, rel_tol=1e-3):
            problems.append(f"the size is for one sequence; the batch holds {MEMORY_BATCH}.")
        else:
            problems.append(f"the size should be numbers x 4 bytes / 2**20; you gave {got_mib:,.1f} MiB.")
    if problems:
        return wrong(*problems)
    ones = MEMORY_BATCH * MEMORY_SEQ_LEN
    return correct(f"{numbers:,} numbers, {mib:,.0f} MiB, and only {ones:,} of them are 1.")


def check_one_hot_geometry(answer) -> Feedback:
    """Exercise 3: ``(cosine, distance)`` between the one-hot vectors of two *different* tokens."""
    if answer is None:
        return not_answered("the two vectors share no non-zero position; the distance squares two "
                            "differences of 1.")
    pair = number_pair(answer, "(cosine similarity, Euclidean distance)")
    if isinstance(pair, Feedback):
        return pair
    cosine, distance = pair
    problems = []
    if math.isclose(cosine, 1.0, abs_tol=1e-6):
        problems.append("cosine 1 is for the same token twice; two different tokens share no non-zero "
                        "position, so their dot product is 0.")
    elif not math.isclose(cosine, 0.0, abs_tol=1e-6):
        problems.append(f"the cosine should be 0 (the dot product is 0), got {cosine}.")
    if math.isclose(distance, 2.0, abs_tol=1e-6):
        problems.append("2 is the squared distance; take the square root.")
    elif not math.isclose(distance, math.sqrt(2), abs_tol=1e-4):
        problems.append(f"the vectors differ by +1 and -1 in two positions: distance sqrt(1 + 1); "
                        f"got {distance}.")
    if problems:
        return wrong(*problems)
    return correct("Cosine 0 and distance sqrt(2) for every pair of different tokens: one-hot says "
                   "nothing about which tokens are alike.")
